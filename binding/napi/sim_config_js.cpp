#include "sim_config_js.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "args.h"

namespace tradeapi::napi {
namespace {

[[noreturn]] void Bad(Napi::Env env, const std::string& name) {
  throw Napi::TypeError::New(env, "invalid simulator config member '" + name + "'");
}

void Read(const Napi::Object& o, const char* name, int64_t& out) {
  Napi::Value v = o.Get(name);
  if (v.IsUndefined()) return;
  double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
  if (!std::isfinite(d) || std::trunc(d) != d) Bad(o.Env(), name);
  out = static_cast<int64_t>(d);
}
void Read(const Napi::Object& o, const char* name, double& out) {
  Napi::Value v = o.Get(name);
  if (v.IsUndefined()) return;
  if (!v.IsNumber() || !std::isfinite(v.As<Napi::Number>().DoubleValue())) Bad(o.Env(), name);
  out = v.As<Napi::Number>().DoubleValue();
}
void Read(const Napi::Object& o, const char* name, bool& out) {
  Napi::Value v = o.Get(name);
  if (v.IsUndefined()) return;
  if (!v.IsBoolean()) Bad(o.Env(), name);
  out = v.As<Napi::Boolean>().Value();
}
void Read(const Napi::Object& o, const char* name, std::string& out) {
  Napi::Value v = o.Get(name);
  if (v.IsUndefined()) return;
  if (!v.IsString()) Bad(o.Env(), name);
  out = v.As<Napi::String>().Utf8Value();
}

}  // namespace

sim::SimConfig SimConfigFromJs(const Napi::Object& o) {
  sim::SimConfig c;
  int64_t seed = static_cast<int64_t>(c.seed);
  Read(o, "seed", seed);
  if (seed < 0) Bad(o.Env(), "seed");
  c.seed = static_cast<uint64_t>(seed);
  Read(o, "currency", c.currency);
  Read(o, "leverage", c.leverage);
  if (c.leverage <= 0) Bad(o.Env(), "leverage");
  Read(o, "balance", c.balance);
  Read(o, "login", c.login);
  Read(o, "demoTrades", c.demo_trades);
  Read(o, "accountAnchor", c.account_anchor);
  Read(o, "serverUtcOffset", c.server_utc_offset_s);
  Read(o, "historyStart", c.history_start);
  Read(o, "nowMs", c.now_ms);
  Read(o, "clockStartMs", c.clock_start_ms);
  Read(o, "clockRate", c.clock_rate);
  if (!(c.clock_rate > 0) || c.clock_rate > 1e6) Bad(o.Env(), "clockRate");
  Read(o, "tradesPerHour", c.trades_per_hour);
  if (!(c.trades_per_hour >= 0) || c.trades_per_hour > 3600) Bad(o.Env(), "tradesPerHour");
  Read(o, "maxBars", c.maxbars);
  Read(o, "commentMaxLength", c.comment_max_length);
  Read(o, "tradeAllowed", c.trade_allowed);
  Napi::Value symbols = o.Get("symbols");
  if (!symbols.IsUndefined()) {
    if (!symbols.IsArray()) Bad(o.Env(), "symbols");
    Napi::Array a = symbols.As<Napi::Array>();
    for (uint32_t i = 0; i < a.Length(); ++i) {
      Napi::Value v = a.Get(i);
      if (!v.IsString()) Bad(o.Env(), "symbols");
      c.symbols.push_back(v.As<Napi::String>().Utf8Value());
    }
  }
  // [[utcSeconds, offsetSeconds], ...] in increasing time order (the gateway's zoneTransitions).
  Napi::Value zone = o.Get("serverZone");
  if (!zone.IsUndefined()) {
    if (!zone.IsArray()) Bad(o.Env(), "serverZone");
    Napi::Array a = zone.As<Napi::Array>();
    for (uint32_t i = 0; i < a.Length(); ++i) {
      Napi::Value entry = a.Get(i);
      if (!entry.IsArray() || entry.As<Napi::Array>().Length() != 2) Bad(o.Env(), "serverZone");
      Napi::Array pair = entry.As<Napi::Array>();
      sim::ZoneTransition t;
      for (uint32_t k = 0; k < 2; ++k) {
        Napi::Value v = pair.Get(k);
        const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
        if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) > 1e15) Bad(o.Env(), "serverZone");
        (k == 0 ? t.utc_s : t.offset_s) = static_cast<int64_t>(d);
      }
      if (std::llabs(t.offset_s) > 14 * 3600 || (!c.server_zone.empty() && t.utc_s <= c.server_zone.back().utc_s)) {
        Bad(o.Env(), "serverZone");
      }
      c.server_zone.push_back(t);
    }
  }
  Napi::Value quotes = o.Get("fixedQuotes");
  if (!quotes.IsUndefined()) {
    if (!quotes.IsObject()) Bad(o.Env(), "fixedQuotes");
    Napi::Object q = quotes.As<Napi::Object>();
    Napi::Array names = q.GetPropertyNames();
    for (uint32_t i = 0; i < names.Length(); ++i) {
      std::string name = names.Get(i).As<Napi::String>().Utf8Value();
      Napi::Value entry = q.Get(name);
      if (!entry.IsObject()) Bad(o.Env(), "fixedQuotes." + name);
      sim::FixedQuote fq;
      Read(entry.As<Napi::Object>(), "bid", fq.bid);
      Read(entry.As<Napi::Object>(), "ask", fq.ask);
      if (!(fq.bid > 0) || !(fq.ask >= fq.bid)) Bad(o.Env(), "fixedQuotes." + name);
      c.fixed_quotes[name] = fq;
    }
  }
  return c;
}

}  // namespace tradeapi::napi
