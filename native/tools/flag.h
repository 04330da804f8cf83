// One word of a tool's command line: `--flag=value` splits at its first '=' (flags only: a
// command's own '=' is its business), as the Node side's parsers did.
#pragma once
#include <string.h>

namespace sexton {

class Flag {
 public:
  Flag(int argc, char** argv, int* at) : argc_(argc), argv_(argv), at_(at), arg_(argv[*at]) {
    equals_ = strncmp(arg_, "--", 2) == 0 ? strchr(arg_, '=') : nullptr;
    length_ = equals_ ? static_cast<size_t>(equals_ - arg_) : strlen(arg_);
  }
  bool is(const char* flag) const { return strlen(flag) == length_ && strncmp(arg_, flag, length_) == 0; }
  /** The inline value, else the next word (taken); nullptr when there is none. */
  const char* value() { return equals_ ? equals_ + 1 : *at_ + 1 < argc_ ? argv_[++*at_] : nullptr; }
  const char* word() const { return arg_; }

 private:
  int argc_;
  char** argv_;
  int* at_;
  const char* arg_;
  const char* equals_;
  size_t length_;
};

}  // namespace sexton
