#include "arguments.h"

namespace sexton {

bool Args::check(bool good, const std::string& what, const std::string& expected) {
  if (good || !ok_) return good && ok_;
  ok_ = false;
  std::string message = std::string("sexton addon: ") + signature_ + ": " + what + " must be " + expected;
  Napi::TypeError::New(info_.Env(), message).ThrowAsJavaScriptException();
  return false;
}

int32_t Args::int32_of(const Napi::Value& v, const std::string& what, int32_t min, int32_t max) {
  if (!check(v.IsNumber(), what, "a number")) return 0;
  double value = v.As<Napi::Number>().DoubleValue();
  std::string range = "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  if (!check(value == static_cast<double>(static_cast<int64_t>(value)) && value >= min && value <= max, what, range)) return 0;
  return static_cast<int32_t>(value);
}

double Args::number_of(const Napi::Value& v, const std::string& what) {
  if (!check(v.IsNumber(), what, "a number")) return 0;
  return v.As<Napi::Number>().DoubleValue();
}

bool Args::boolean_of(const Napi::Value& v, const std::string& what) {
  if (!check(v.IsBoolean(), what, "a boolean")) return false;
  return v.As<Napi::Boolean>().Value();
}

std::string Args::bytes_of(const Napi::Value& v, const std::string& what) {
  if (!check(v.IsString() || v.IsBuffer(), what, "a string or a Buffer")) return std::string();
  if (v.IsString()) return v.As<Napi::String>().Utf8Value();
  Napi::Buffer<char> buffer = v.As<Napi::Buffer<char>>();
  return std::string(buffer.Data(), buffer.Length());
}

std::vector<std::string> Args::byte_array(size_t i) {
  std::vector<std::string> out;
  if (!check(info_[i].IsArray(), where(i), "an array of strings or Buffers")) return out;
  Napi::Array array = info_[i].As<Napi::Array>();
  for (uint32_t k = 0; k < array.Length(); k++) {
    Napi::Value item = array.Get(k);
    if (!check(item.IsString() || item.IsBuffer(), where(i), "an array of strings or Buffers")) return out;
    out.push_back(bytes_of(item, where(i)));
  }
  return out;
}

Napi::Function Args::function(size_t i) {
  if (!check(info_[i].IsFunction(), where(i), "a function")) return Napi::Function();
  return info_[i].As<Napi::Function>();
}

}  // namespace sexton
