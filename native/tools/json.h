// Reading the status socket's one JSON answer in place: spans of the text, no tree built. Enough
// JSON for a text JSON.stringify wrote; numbers are printed as they were written, which is how
// JavaScript would print them.
#pragma once
#include <stddef.h>

namespace sexton {

class Text;

/** One JSON value in the text (its first byte to its last); empty when missing. */
struct Json {
  const char* at = nullptr;
  const char* end = nullptr;

  bool missing() const { return at == nullptr; }
  bool is_null() const { return missing() || *at == 'n'; }
  bool is_true() const { return !missing() && *at == 't'; }
  bool is_object() const { return !missing() && *at == '{'; }
  bool is_string() const { return !missing() && *at == '"'; }
  /** Member `key` of an object (missing if not one). */
  Json operator[](const char* key) const;
  double number() const;
  /** String text decoded to UTF-8 (a lone surrogate becomes U+FFFD), or the raw text of any other value. */
  void add_to(Text& out) const;
  /** The value as JavaScript's `${value}` would print it: undefined when missing. */
  void print_to(Text& out) const;
  /** Whether a string equals `text`. */
  bool equals(const char* text) const;
};

/** The value that is the whole text (white space around it allowed); missing if it is not JSON. */
Json parse_json(const char* text, size_t length);

/** Walks the members of an object or the elements of an array. */
class JsonItems {
 public:
  explicit JsonItems(Json container);
  /** The next one (key is missing for an array's elements); false at the end. */
  bool next(Json* key, Json* value);

 private:
  const char* at_;
  const char* end_;
};

}  // namespace sexton
