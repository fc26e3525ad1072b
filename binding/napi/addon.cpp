// Module entry: createSimTerminal(config, {queueTimeoutMs}), the constants table and the native
// accept loop (startAcceptor).
#include <napi.h>

#include <memory>

#include "acceptor_js.h"
#include "allocator.h"
#include "args.h"
#include "parquet_js.h"
#include "sim/sim_terminal.h"
#include "sim_config_js.h"
#include "terminal/constants.h"
#include "terminal_wrap.h"

namespace tradeapi::napi {
Napi::Value MeasureHandoff(const Napi::CallbackInfo& info);  // handoff_bench.cpp

namespace {

Napi::Value CreateSimTerminal(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object config = ObjectArg(info, 0);
  Napi::Object options = ObjectArg(info, 1);
  int64_t queue_timeout_ms = OptInt(options, "queueTimeoutMs").value_or(30000);
  if (queue_timeout_ms <= 0) throw Napi::TypeError::New(env, "queueTimeoutMs must be positive");
  std::shared_ptr<Terminal> terminal;
  try {
    terminal = std::make_shared<sim::SimTerminal>(SimConfigFromJs(config));
  } catch (const TerminalError& e) {
    throw ToJsError(env, e);
  }
  return TerminalWrap::Create(env, std::move(terminal), queue_timeout_ms);
}

// {FAMILY: {NAME: value, ...}, ...} from constants.def, in table order.
Napi::Object Constants(Napi::Env env) {
  Napi::Object families = Napi::Object::New(env);
  auto add = [&](const char* family, const char* name, int64_t value) {
    Napi::Value existing = families.Get(family);
    Napi::Object f = existing.IsObject() ? existing.As<Napi::Object>() : Napi::Object::New(env);
    f.Set(name, Napi::Number::New(env, static_cast<double>(value)));
    families.Set(family, f);
  };
#define TRADEAPI_CONSTANT(family, name, value) add(#family, #name, value);
#include "terminal/constants.def"
#undef TRADEAPI_CONSTANT
  return families;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  TuneAllocator();
  auto* ctor = new Napi::FunctionReference(Napi::Persistent(TerminalWrap::Define(env)));
  env.SetInstanceData<Napi::FunctionReference>(ctor);
  exports.Set("createSimTerminal", Napi::Function::New(env, CreateSimTerminal));
  exports.Set("constants", Constants(env));
  exports.Set("measureHandoff", Napi::Function::New(env, MeasureHandoff));
  exports.Set("ParquetWriter", DefineParquetWriter(env));
  exports.Set("startAcceptor", Napi::Function::New(env, StartAcceptor));
  return exports;
}

}  // namespace
}  // namespace tradeapi::napi

static Napi::Object InitTradeapi(Napi::Env env, Napi::Object exports) {
  return tradeapi::napi::Init(env, exports);
}

NODE_API_MODULE(tradeapi, InitTradeapi)
