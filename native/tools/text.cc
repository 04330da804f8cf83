#include "text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

namespace sexton {

namespace {

constexpr size_t kMaxQuoted = 80;

// One code point of UTF-8 at `at`, or U+FFFD for a byte that does not start a valid one (as
// Node decodes argv). Sets `length` to the bytes taken.
unsigned decode(const unsigned char* at, size_t left, size_t* length) {
  unsigned c = at[0];
  *length = 1;
  if (c < 0x80) return c;
  int more = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : -1;
  if (more < 0 || static_cast<size_t>(more) >= left) return 0xfffd;
  unsigned value = c & (0x3f >> more);
  for (int i = 1; i <= more; i++) {
    if ((at[i] & 0xc0) != 0x80) return 0xfffd;
    value = value << 6 | (at[i] & 0x3f);
  }
  static const unsigned kLeast[] = {0, 0x80, 0x800, 0x10000};
  if (value < kLeast[more] || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return 0xfffd;
  *length = more + 1;
  return value;
}

// Line and paragraph separators end a line for many log readers; bidi controls reorder it.
bool breaks_or_reorders(unsigned c) {
  return c == 0x2028 || c == 0x2029 || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
         (c >= 0x2066 && c <= 0x2069);
}

void add_hex(Text& out, unsigned value, int min_digits) {
  char digits[8];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[value & 15];
    value >>= 4;
  } while (value != 0 || n < min_digits);
  while (n > 0) out.add(digits[--n]);
}

void add_escaped(Text& out, unsigned c) {
  if (c == '\n') out.add("\\n");
  else if (c == '\t') out.add("\\t");
  else if (c == '\r') out.add("\\r");
  else if (c == '\\') out.add("\\\\");
  else if (c == '\'') out.add("\\'");
  else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) out.add("\\x"), add_hex(out, c, 2);
  else if (c == 0xfffd || (c >= 0xd800 && c <= 0xdfff) || breaks_or_reorders(c)) out.add("\\u{"), add_hex(out, c, 1), out.add('}');
  else add_utf8(out, c);
}

}  // namespace

Text::~Text() { free(data_); }

Text& Text::add(const char* bytes, size_t length) {
  if (size_ + length > capacity_) {
    size_t wanted = capacity_ == 0 ? 256 : capacity_;
    while (wanted < size_ + length) wanted *= 2;
    char* grown = static_cast<char*>(realloc(data_, wanted));
    if (grown == nullptr) abort();
    data_ = grown;
    capacity_ = wanted;
  }
  if (length > 0) memcpy(data_ + size_, bytes, length);
  size_ += length;
  return *this;
}

Text& Text::add(const char* text) { return add(text, strlen(text)); }

Text& Text::add_int(long long value) {
  char digits[24];
  int n = 0;
  unsigned long long magnitude = value < 0 ? 0ULL - static_cast<unsigned long long>(value) : value;
  do {
    digits[n++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  if (value < 0) add('-');
  while (n > 0) add(digits[--n]);
  return *this;
}

Text& Text::pad_to(size_t start, size_t width) {
  while (size_ < start + width) add(' ');
  return *this;
}

Text& Text::add_quoted(const char* bytes, size_t length) {
  const unsigned char* at = reinterpret_cast<const unsigned char*>(bytes);
  size_t shown = 0, more = 0;
  add('\'');
  for (size_t i = 0, step; i < length; i += step) {
    unsigned c = decode(at + i, length - i, &step);
    if (shown < kMaxQuoted) add_escaped(*this, c), shown++;
    else more++;
  }
  add('\'');
  if (more > 0) add("\xe2\x80\xa6(").add_int(static_cast<long long>(more)).add(" more)");
  return *this;
}

Text& Text::add_quoted(const char* text) { return add_quoted(text, strlen(text)); }

bool Text::write_to(int fd) const {
  for (size_t at = 0; at < size_;) {
    ssize_t n = write(fd, data_ + at, size_ - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<size_t>(n);
  }
  return true;
}

int say(const char* tool, const Text& message, int code) {
  Text line;
  line.add(tool).add(": ").add(message.data(), message.size()).add('\n');
  line.write_to(2);
  return code;
}

void add_utf8(Text& out, unsigned c) {
  char bytes[4];
  if (c < 0x80) return void(out.add(static_cast<char>(c)));
  if (c < 0x800) {
    bytes[0] = static_cast<char>(0xc0 | c >> 6), bytes[1] = static_cast<char>(0x80 | (c & 0x3f));
    return void(out.add(bytes, 2));
  }
  if (c < 0x10000) {
    bytes[0] = static_cast<char>(0xe0 | c >> 12), bytes[1] = static_cast<char>(0x80 | (c >> 6 & 0x3f));
    bytes[2] = static_cast<char>(0x80 | (c & 0x3f));
    return void(out.add(bytes, 3));
  }
  bytes[0] = static_cast<char>(0xf0 | c >> 18), bytes[1] = static_cast<char>(0x80 | (c >> 12 & 0x3f));
  bytes[2] = static_cast<char>(0x80 | (c >> 6 & 0x3f)), bytes[3] = static_cast<char>(0x80 | (c & 0x3f));
  out.add(bytes, 4);
}

}  // namespace sexton
