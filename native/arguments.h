// Reads a binding's arguments in order and checks each one: a wrong call from JS throws a
// TypeError that names the call's signature, instead of crashing PID 1 or passing a bad value on.
// (The addon is built without C++ exceptions: the error is left pending for JS, and the binding
// returns as soon as ok() is false.)
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sexton {

class Args {
 public:
  Args(const Napi::CallbackInfo& info, const char* signature) : info_(info), signature_(signature) {}

  int32_t int32(size_t i, int32_t min, int32_t max) { return int32_of(info_[i], where(i), min, max); }
  double number(size_t i) { return number_of(info_[i], where(i)); }
  bool boolean(size_t i) { return boolean_of(info_[i], where(i)); }
  /** A Buffer passes its bytes unchanged (argv that is not UTF-8); a string is UTF-8. */
  std::string bytes(size_t i) { return bytes_of(info_[i], where(i)); }
  std::vector<std::string> byte_array(size_t i);
  Napi::Function function(size_t i);
  /** Whether argument i was given (not undefined): for optional ones. */
  bool given(size_t i) const { return i < info_.Length() && !info_[i].IsUndefined(); }

  bool ok() const { return ok_; }
  /** What a binding returns once ok() is false: the TypeError is pending. */
  Napi::Value failed() const { return info_.Env().Undefined(); }

 private:
  static std::string where(size_t i) { return "argument " + std::to_string(i + 1); }
  int32_t int32_of(const Napi::Value& v, const std::string& what, int32_t min, int32_t max);
  double number_of(const Napi::Value& v, const std::string& what);
  bool boolean_of(const Napi::Value& v, const std::string& what);
  std::string bytes_of(const Napi::Value& v, const std::string& what);
  bool check(bool good, const std::string& what, const std::string& expected);

  const Napi::CallbackInfo& info_;
  const char* signature_;
  bool ok_ = true;
};

}  // namespace sexton
