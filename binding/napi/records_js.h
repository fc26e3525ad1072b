// Conversions between terminal records and JS values (the bodies are generated: records_js.cpp).
#pragma once
#include <napi.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "terminal/errors.h"
#include "terminal/records.h"

namespace tradeapi::napi {

inline Napi::Value ToJs(Napi::Env env, bool v) { return Napi::Boolean::New(env, v); }
inline Napi::Value ToJs(Napi::Env env, int64_t v) { return Napi::Number::New(env, static_cast<double>(v)); }
inline Napi::Value ToJs(Napi::Env env, uint64_t v) { return Napi::Number::New(env, static_cast<double>(v)); }
inline Napi::Value ToJs(Napi::Env env, uint32_t v) { return Napi::Number::New(env, static_cast<double>(v)); }
inline Napi::Value ToJs(Napi::Env env, double v) { return Napi::Number::New(env, v); }
inline Napi::Value ToJs(Napi::Env env, const std::string& v) { return Napi::String::New(env, v); }

Napi::Object ToJs(Napi::Env env, const Version& r);
Napi::Object ToJs(Napi::Env env, const LastError& r);
Napi::Object ToJs(Napi::Env env, const AccountInfo& r);
Napi::Object ToJs(Napi::Env env, const TerminalInfo& r);
Napi::Object ToJs(Napi::Env env, const SymbolInfo& r);
Napi::Object ToJs(Napi::Env env, const Tick& r);
Napi::Object ToJs(Napi::Env env, const BookInfo& r);
Napi::Object ToJs(Napi::Env env, const TradeOrder& r);
Napi::Object ToJs(Napi::Env env, const TradePosition& r);
Napi::Object ToJs(Napi::Env env, const TradeDeal& r);
Napi::Object ToJs(Napi::Env env, const TradeRequest& r);
Napi::Object ToJs(Napi::Env env, const OrderCheckResult& r);

// Reading an order_check request: a member of the wrong type is the package's
// (-2, 'Invalid "<field>" argument'); an absent or undefined member keeps its zero value.
inline bool Absent(const Napi::Value& v) { return v.IsUndefined() || v.IsNull(); }
inline void ReadField(const Napi::Object& o, const char* name, std::string& out) {
  Napi::Value v = o.Get(name);
  if (Absent(v)) return;
  if (!v.IsString()) throw TerminalError::invalid_params(std::string("Invalid \"") + name + "\" argument");
  out = v.As<Napi::String>().Utf8Value();
}
inline void ReadField(const Napi::Object& o, const char* name, double& out) {
  Napi::Value v = o.Get(name);
  if (Absent(v)) return;
  if (!v.IsNumber() || !std::isfinite(v.As<Napi::Number>().DoubleValue()))
    throw TerminalError::invalid_params(std::string("Invalid \"") + name + "\" argument");
  out = v.As<Napi::Number>().DoubleValue();
}
inline void ReadField(const Napi::Object& o, const char* name, int64_t& out) {
  Napi::Value v = o.Get(name);
  if (Absent(v)) return;
  double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
  if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) > 9007199254740991.0)
    throw TerminalError::invalid_params(std::string("Invalid \"") + name + "\" argument");
  out = static_cast<int64_t>(d);
}

TradeRequest TradeRequestFromJs(const Napi::Object& o);

}  // namespace tradeapi::napi
