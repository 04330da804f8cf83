// Text for the native tools' output: a growable buffer written out at once, and the one-line
// quoting of echoed input that src/config/quote.ts gives the Node side.
#pragma once
#include <stddef.h>

namespace sexton {

class Text {
 public:
  Text() = default;
  Text(const Text&) = delete;
  Text& operator=(const Text&) = delete;
  ~Text();
  Text& add(const char* bytes, size_t length);
  Text& add(const char* text);
  Text& add(char c) { return add(&c, 1); }
  Text& add_int(long long value);
  /** Pads with spaces to `width` bytes (the labels padded are ASCII). */
  Text& pad_to(size_t start, size_t width);
  /** 'value' with control characters escaped and at most 80 characters of it shown. */
  Text& add_quoted(const char* bytes, size_t length);
  Text& add_quoted(const char* text);
  const char* data() const { return data_ ? data_ : ""; }
  size_t size() const { return size_; }
  void clear() { size_ = 0; }
  /** Writes it all to fd; false when fd does not take it. */
  bool write_to(int fd) const;

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

/** `TOOL: message\n` on stderr, in one write; returns `code`. */
int say(const char* tool, const Text& message, int code);

/** Appends code point `c` as UTF-8. */
void add_utf8(Text& out, unsigned c);

}  // namespace sexton
