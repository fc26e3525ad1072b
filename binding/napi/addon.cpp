// Module entry: createSimTerminal(config, {queueTimeoutMs}), createBridgeTerminal({host, port,
// secret, ...}, {queueTimeoutMs}), the constants table, the native accept loop (startAcceptor), the
// Parquet writer and reader, the JSON series encoder (jsonRows) and the series content hash
// (RowHasher).
#include <napi.h>

#include <algorithm>
#include <memory>

#include "acceptor_js.h"
#include "bar_fold_js.h"
#include "allocator.h"
#include "args.h"
#include "bridge/bridge_terminal.h"
#include "columns_js.h"
#include "json_js.h"
#include "merge_js.h"
#include "parquet_js.h"
#include "parquet_reader_js.h"
#include "row_hash_js.h"
#include "zstd_stream_js.h"
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

// A terminal behind a bridge (docs/bridge-protocol.md). Connects lazily: the first call connects
// and authenticates, so creating one never blocks the JS thread.
Napi::Value CreateBridgeTerminal(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object config = ObjectArg(info, 0);
  Napi::Object options = ObjectArg(info, 1);
  int64_t queue_timeout_ms = OptInt(options, "queueTimeoutMs").value_or(bridge::kDefaultQueueTimeoutMs);
  if (queue_timeout_ms <= 0) throw Napi::TypeError::New(env, "queueTimeoutMs must be positive");
  bridge::BridgeOptions o;
  o.host = OptString(config, "host").value_or(o.host);
  int64_t port = OptInt(config, "port").value_or(o.port);
  if (port <= 0 || port > 65535) throw Napi::TypeError::New(env, "port must be 1..65535");
  o.port = static_cast<uint16_t>(port);
  auto secret = OptString(config, "secret");
  if (!secret || secret->size() < 16) throw Napi::TypeError::New(env, "secret must be at least 16 bytes");
  o.secret = *secret;
  auto ms = [&](const char* name, int& field) {
    auto v = OptInt(config, name);
    if (!v) return;
    if (*v <= 0 || *v > 3600000) throw Napi::TypeError::New(env, std::string(name) + " must be 1..3600000");
    field = static_cast<int>(*v);
  };
  // Unless set explicitly, the I/O timeout stays below the queue timeout (bridge_terminal.h), and so
  // do connecting and the handshake: a bridge that accepts but never greets must not hold the
  // worker past the callers' deadline either.
  o.io_timeout_ms = bridge::default_io_timeout_ms(queue_timeout_ms);
  o.connect_timeout_ms = std::min(o.connect_timeout_ms, o.io_timeout_ms);
  o.handshake_timeout_ms = std::min(o.handshake_timeout_ms, o.io_timeout_ms);
  ms("connectTimeoutMs", o.connect_timeout_ms);
  ms("handshakeTimeoutMs", o.handshake_timeout_ms);
  ms("ioTimeoutMs", o.io_timeout_ms);
  ms("backoffInitialMs", o.backoff_initial_ms);
  ms("backoffMaxMs", o.backoff_max_ms);
  if (auto c = OptString(config, "compression")) {
    if (*c == "auto") o.compression = bridge::Compression::Auto;
    else if (*c == "zstd") o.compression = bridge::Compression::Zstd;
    else if (*c == "none") o.compression = bridge::Compression::None;
    else throw Napi::TypeError::New(env, "compression must be auto, zstd or none");
  }
  // Calls that may wait for the worker; past it a call gets 503 at once (Worker). A bridge's
  // terminal can be slow or stuck for long stretches; the simulator's never is.
  int64_t queue_limit = OptInt(options, "queueLimit").value_or(bridge::kDefaultQueueLimit);
  if (queue_limit <= 0 || queue_limit > 1000000) throw Napi::TypeError::New(env, "queueLimit must be 1..1000000");
  std::shared_ptr<Terminal> terminal = std::make_shared<bridge::BridgeTerminal>(std::move(o));
  return TerminalWrap::Create(env, std::move(terminal), queue_timeout_ms, static_cast<size_t>(queue_limit));
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
  exports.Set("createBridgeTerminal", Napi::Function::New(env, CreateBridgeTerminal));
  exports.Set("constants", Constants(env));
  exports.Set("measureHandoff", Napi::Function::New(env, MeasureHandoff));
  exports.Set("ParquetWriter", DefineParquetWriter(env));
  exports.Set("ParquetReader", DefineParquetReader(env));
  exports.Set("RowHasher", DefineRowHasher(env));
  exports.Set("BarFolder", DefineBarFolder(env));
  exports.Set("ZstdStream", DefineZstdStream(env));
  exports.Set("jsonRows", Napi::Function::New(env, JsonRows));
  exports.Set("jsonRowsInto", Napi::Function::New(env, JsonRowsInto));
  exports.Set("jsonRowsBound", Napi::Function::New(env, JsonRowsBound));
  exports.Set("packedRows", Napi::Function::New(env, PackedRows));
  exports.Set("startAcceptor", Napi::Function::New(env, StartAcceptor));
  exports.Set("SeriesMerger", DefineSeriesMerger(env));
  exports.Set("releaseColumns", Napi::Function::New(env, ReleaseColumns));
  exports.Set("columnPoolStats", Napi::Function::New(env, ColumnPoolStats));
  return exports;
}

}  // namespace
}  // namespace tradeapi::napi

static Napi::Object InitTradeapi(Napi::Env env, Napi::Object exports) {
  return tradeapi::napi::Init(env, exports);
}

NODE_API_MODULE(tradeapi, InitTradeapi)
