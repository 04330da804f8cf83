#include "arguments.h"

namespace sexton {

bool Args::check(bool good, size_t i, const char* expected) {
  if (good || !ok_) return good && ok_;
  ok_ = false;
  std::string message = std::string("sexton addon: ") + signature_ + ": argument " + std::to_string(i + 1) + " must be " + expected;
  Napi::TypeError::New(info_.Env(), message).ThrowAsJavaScriptException();
  return false;
}

int32_t Args::int32(size_t i, int32_t min, int32_t max) {
  if (!check(info_[i].IsNumber(), i, "a number")) return 0;
  double value = info_[i].As<Napi::Number>().DoubleValue();
  std::string range = "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  if (!check(value == static_cast<double>(static_cast<int64_t>(value)) && value >= min && value <= max, i, range.c_str())) return 0;
  return static_cast<int32_t>(value);
}

double Args::number(size_t i) {
  if (!check(info_[i].IsNumber(), i, "a number")) return 0;
  return info_[i].As<Napi::Number>().DoubleValue();
}

bool Args::boolean(size_t i) {
  if (!check(info_[i].IsBoolean(), i, "a boolean")) return false;
  return info_[i].As<Napi::Boolean>().Value();
}

std::string Args::bytes(size_t i) {
  Napi::Value value = info_[i];
  if (!check(value.IsString() || value.IsBuffer(), i, "a string or a Buffer")) return std::string();
  if (value.IsString()) return value.As<Napi::String>().Utf8Value();
  Napi::Buffer<char> buffer = value.As<Napi::Buffer<char>>();
  return std::string(buffer.Data(), buffer.Length());
}

std::vector<std::string> Args::byte_array(size_t i) {
  std::vector<std::string> out;
  if (!check(info_[i].IsArray(), i, "an array of strings or Buffers")) return out;
  Napi::Array array = info_[i].As<Napi::Array>();
  for (uint32_t k = 0; k < array.Length(); k++) {
    Napi::Value item = array.Get(k);
    if (!check(item.IsString() || item.IsBuffer(), i, "an array of strings or Buffers")) return out;
    if (item.IsString()) {
      out.push_back(item.As<Napi::String>().Utf8Value());
    } else {
      Napi::Buffer<char> buffer = item.As<Napi::Buffer<char>>();
      out.emplace_back(buffer.Data(), buffer.Length());
    }
  }
  return out;
}

Napi::Function Args::function(size_t i) {
  if (!check(info_[i].IsFunction(), i, "a function")) return Napi::Function();
  return info_[i].As<Napi::Function>();
}

}  // namespace sexton
