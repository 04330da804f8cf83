#include "json.h"

#include <stdlib.h>
#include <string.h>

#include "text.h"

namespace sexton {

namespace {

constexpr int kMaxDepth = 64;

const char* skip_space(const char* at, const char* end) {
  while (at < end && (*at == ' ' || *at == '\t' || *at == '\n' || *at == '\r')) at++;
  return at;
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

const char* skip_string(const char* at, const char* end) {
  for (at++; at < end; at++) {
    unsigned char c = static_cast<unsigned char>(*at);
    if (c == '"') return at + 1;
    if (c < 0x20) return nullptr;
    if (c != '\\') continue;
    if (++at >= end) return nullptr;
    if (*at == 'u') {
      if (end - at < 5 || hex(at[1]) < 0 || hex(at[2]) < 0 || hex(at[3]) < 0 || hex(at[4]) < 0) return nullptr;
      at += 4;
    } else if (strchr("\"\\/bfnrt", *at) == nullptr || *at == '\0') {
      return nullptr;
    }
  }
  return nullptr;
}

const char* skip_digits(const char* at, const char* end) {
  while (at < end && *at >= '0' && *at <= '9') at++;
  return at;
}

const char* skip_number(const char* at, const char* end) {
  if (at < end && *at == '-') at++;
  const char* digits = at;
  at = skip_digits(at, end);
  if (at == digits || (*digits == '0' && at - digits > 1)) return nullptr;
  if (at < end && *at == '.') {
    const char* fraction = ++at;
    if ((at = skip_digits(at, end)) == fraction) return nullptr;
  }
  if (at < end && (*at == 'e' || *at == 'E')) {
    if (++at < end && (*at == '+' || *at == '-')) at++;
    const char* exponent = at;
    if ((at = skip_digits(at, end)) == exponent) return nullptr;
  }
  return at;
}

const char* skip_word(const char* at, const char* end, const char* word) {
  size_t n = strlen(word);
  return static_cast<size_t>(end - at) >= n && memcmp(at, word, n) == 0 ? at + n : nullptr;
}

// Past the value at `at` (no white space before it), or nullptr when it is not valid JSON.
const char* skip_value(const char* at, const char* end, int depth) {
  if (at >= end || depth > kMaxDepth) return nullptr;
  switch (*at) {
    case '"': return skip_string(at, end);
    case 't': return skip_word(at, end, "true");
    case 'f': return skip_word(at, end, "false");
    case 'n': return skip_word(at, end, "null");
    case '{':
    case '[': {
      const bool object = *at == '{';
      const char close = object ? '}' : ']';
      at = skip_space(at + 1, end);
      if (at < end && *at == close) return at + 1;
      for (;;) {
        if (object) {
          if (at >= end || *at != '"' || (at = skip_string(at, end)) == nullptr) return nullptr;
          at = skip_space(at, end);
          if (at >= end || *at != ':') return nullptr;
          at = skip_space(at + 1, end);
        }
        if ((at = skip_value(at, end, depth + 1)) == nullptr) return nullptr;
        at = skip_space(at, end);
        if (at < end && *at == close) return at + 1;
        if (at >= end || *at != ',') return nullptr;
        at = skip_space(at + 1, end);
      }
    }
    default: return skip_number(at, end);
  }
}

// The code unit of a \uXXXX escape at `at` (pointing at the 'u').
unsigned unit(const char* at) { return hex(at[1]) << 12 | hex(at[2]) << 8 | hex(at[3]) << 4 | hex(at[4]); }

}  // namespace

Json parse_json(const char* text, size_t length) {
  const char* end = text + length;
  const char* at = skip_space(text, end);
  const char* after = skip_value(at, end, 0);
  Json value;
  if (after != nullptr && skip_space(after, end) == end) value.at = at, value.end = after;
  return value;
}

JsonItems::JsonItems(Json container) : at_(container.missing() ? nullptr : container.at + 1), end_(container.end) {
  if (!container.missing() && *container.at != '{' && *container.at != '[') at_ = nullptr;
}

bool JsonItems::next(Json* key, Json* value) {
  if (at_ == nullptr) return false;
  at_ = skip_space(at_, end_);
  if (at_ >= end_ || *at_ == '}' || *at_ == ']') return false;
  *key = Json();
  if (*at_ == '"' && end_[-1] == '}') {
    key->at = at_;
    key->end = skip_string(at_, end_);
    at_ = skip_space(key->end, end_) + 1;  // past the ':'
    at_ = skip_space(at_, end_);
  }
  value->at = at_;
  value->end = skip_value(at_, end_, 0);
  at_ = skip_space(value->end, end_);
  if (at_ < end_ && *at_ == ',') at_++;
  return true;
}

Json Json::operator[](const char* key) const {
  if (!is_object()) return Json();
  JsonItems items(*this);
  Json k, v;
  while (items.next(&k, &v)) {
    if (k.equals(key)) return v;
  }
  return Json();
}

double Json::number() const { return missing() ? 0 : strtod(at, nullptr); }

void Json::add_to(Text& out) const {
  if (missing()) return;
  if (!is_string()) return void(out.add(at, end - at));
  for (const char* c = at + 1; c < end - 1; c++) {
    if (*c != '\\') {
      out.add(*c);
      continue;
    }
    c++;
    switch (*c) {
      case 'b': out.add('\b'); break;
      case 'f': out.add('\f'); break;
      case 'n': out.add('\n'); break;
      case 'r': out.add('\r'); break;
      case 't': out.add('\t'); break;
      case 'u': {
        unsigned u = unit(c);
        c += 4;
        if (u >= 0xd800 && u < 0xdc00 && c + 6 < end && c[1] == '\\' && c[2] == 'u') {
          unsigned low = unit(c + 2);
          if (low >= 0xdc00 && low < 0xe000) {
            add_utf8(out, 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00));
            c += 6;
            break;
          }
        }
        add_utf8(out, u >= 0xd800 && u < 0xe000 ? 0xfffd : u);
        break;
      }
      default: out.add(*c);
    }
  }
}

void Json::print_to(Text& out) const {
  if (missing()) out.add("undefined");
  else add_to(out);
}

bool Json::equals(const char* text) const {
  if (!is_string()) return false;
  Text decoded;
  add_to(decoded);
  return decoded.size() == strlen(text) && memcmp(decoded.data(), text, decoded.size()) == 0;
}

}  // namespace sexton
