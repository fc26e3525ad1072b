// Argument readers for the native methods. They run on the JS thread before a job is queued;
// a bad argument throws a JS Error with kind 'invalid_params' (the façade turns it into a rejection).
#pragma once
#include <napi.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "terminal/errors.h"
#include "worker.h"

namespace tradeapi::napi {

[[noreturn]] inline void ThrowInvalid(Napi::Env env, const std::string& what) {
  throw ToJsError(env, TerminalError::invalid_params(what));
}

inline std::string StringArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsString()) ThrowInvalid(info.Env(), std::string("Invalid \"") + name + "\" argument");
  return info[i].As<Napi::String>().Utf8Value();
}

inline double NumberArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsNumber() || !std::isfinite(info[i].As<Napi::Number>().DoubleValue()))
    ThrowInvalid(info.Env(), std::string("Invalid \"") + name + "\" argument");
  return info[i].As<Napi::Number>().DoubleValue();
}

inline int64_t IntValue(Napi::Env env, const Napi::Value& v, const char* name) {
  double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
  if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) > 9007199254740991.0)
    ThrowInvalid(env, std::string("Invalid \"") + name + "\" argument");
  return static_cast<int64_t>(d);
}

inline int64_t IntArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  return IntValue(info.Env(), info[i], name);
}

inline bool BoolArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsBoolean()) ThrowInvalid(info.Env(), std::string("Invalid \"") + name + "\" argument");
  return info[i].As<Napi::Boolean>().Value();
}

inline Napi::Object ObjectArg(const Napi::CallbackInfo& info, size_t i) {
  if (info[i].IsUndefined() || info[i].IsNull()) return Napi::Object::New(info.Env());
  if (!info[i].IsObject()) ThrowInvalid(info.Env(), "Terminal: Invalid params");
  return info[i].As<Napi::Object>();
}

inline std::optional<std::string> OptString(const Napi::Object& o, const char* name) {
  Napi::Value v = o.Get(name);
  if (v.IsUndefined() || v.IsNull()) return std::nullopt;
  if (!v.IsString()) ThrowInvalid(o.Env(), std::string("Invalid \"") + name + "\" argument");
  return v.As<Napi::String>().Utf8Value();
}

inline std::optional<int64_t> OptInt(const Napi::Object& o, const char* name) {
  Napi::Value v = o.Get(name);
  if (v.IsUndefined() || v.IsNull()) return std::nullopt;
  return IntValue(o.Env(), v, name);
}

}  // namespace tradeapi::napi
