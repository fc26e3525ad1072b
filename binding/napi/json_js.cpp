// jsonRows(kind: 'ticks' | 'rates', chunk, from, to, first, openers?) -> Promise<Buffer>
// openers (a multi-symbol series): per symbol index, the text its rows open with
// (`{"symbol":"EURUSD","time":`); the chunk then has a `symbol` Uint16Array of those indices.
// packedRows(kind, chunk, from, to) -> Promise<Buffer>: the same rows packed as the MetaTrader5
// package's numpy dtype (60 bytes a row, format=packed), made on the thread pool too.
//
// The chunk is a series chunk as the terminal hands it to JS ({time: BigInt64Array, bid:
// Float64Array, ...}); the pool thread reads its typed arrays in place and holds a reference to
// each until it is done, so they cannot be collected under it. JS must not modify or detach them
// meanwhile (chunks are read-only by contract). The text goes to JS without a copy (an external
// buffer, freed by its finalizer).
#include "json_js.h"

#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "encode/json_rows.h"
#include "encode/row_hash.h"
#include "thread_priority.h"

namespace tradeapi::napi {
namespace {

namespace enc = tradeapi::encode;

struct FieldSpec {
  const char* name;
  napi_typedarray_type type;
  const char* expected;
};

constexpr FieldSpec kTickFields[8] = {
    {"time", napi_bigint64_array, "BigInt64Array"},       {"bid", napi_float64_array, "Float64Array"},
    {"ask", napi_float64_array, "Float64Array"},          {"last", napi_float64_array, "Float64Array"},
    {"volume", napi_biguint64_array, "BigUint64Array"},   {"time_msc", napi_bigint64_array, "BigInt64Array"},
    {"flags", napi_uint32_array, "Uint32Array"},          {"volume_real", napi_float64_array, "Float64Array"},
};
constexpr FieldSpec kRateFields[8] = {
    {"time", napi_bigint64_array, "BigInt64Array"},          {"open", napi_float64_array, "Float64Array"},
    {"high", napi_float64_array, "Float64Array"},            {"low", napi_float64_array, "Float64Array"},
    {"close", napi_float64_array, "Float64Array"},           {"tick_volume", napi_biguint64_array, "BigUint64Array"},
    {"spread", napi_int32_array, "Int32Array"},              {"real_volume", napi_biguint64_array, "BigUint64Array"},
};

size_t OpenerChars(const std::vector<std::string>& openers);

size_t IndexArg(Napi::Env env, const Napi::Value& v, const char* what) {
  if (!v.IsNumber()) throw Napi::TypeError::New(env, std::string("jsonRows: ") + what + " must be a number");
  const double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= 0 && d <= 9007199254740991.0) || static_cast<double>(static_cast<int64_t>(d)) != d)
    throw Napi::RangeError::New(env, std::string("jsonRows: ") + what + " must be a non-negative integer");
  return static_cast<size_t>(d);
}

class JsonRowsWorker : public Napi::AsyncWorker {
 public:
  // `out` (with `out_data`): the caller's buffer to write into, referenced until done; the promise
  // then resolves with the text's length instead of a Buffer of its own.
  // `packed`: the rows as the package's packed records instead of JSON text (pack_canonical_rows).
  JsonRowsWorker(Napi::Env env, enc::SeriesKind kind, enc::SeriesColumns columns, size_t from, size_t to, bool first,
                 std::vector<Napi::ObjectReference> arrays, char* out_data = nullptr, bool packed = false,
                 std::vector<std::string> openers = {})
      : Napi::AsyncWorker(env, packed ? "tradeapi:packedRows" : "tradeapi:jsonRows"),
        packed_(packed),
        deferred_(Napi::Promise::Deferred::New(env)),
        kind_(kind),
        columns_(columns),
        from_(from),
        to_(to),
        first_(first),
        arrays_(std::move(arrays)),
        out_data_(out_data),
        openers_(std::move(openers)) {
    if (!openers_.empty()) columns_.openers = openers_.data();
  }

  ~JsonRowsWorker() override { std::free(text_); }

  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    // Bulk work: at a lower OS priority while an interactive call waits (thread_priority.h).
    const BulkPriority bulk;
    if (packed_) {
      size_ = (to_ - from_) * enc::kCanonicalRowBytes;
      text_ = static_cast<char*>(std::malloc(size_ > 0 ? size_ : 1));
      if (text_ == nullptr) {
        SetError("packedRows: out of memory");
        return;
      }
      enc::pack_canonical_rows(columns_, from_, to_, reinterpret_cast<uint8_t*>(text_));
      return;
    }
    if (out_data_ != nullptr) {
      size_ = enc::rows_json(kind_, columns_, from_, to_, first_, out_data_);
      return;
    }
    const size_t bound = enc::rows_json_bound(kind_, to_ - from_, OpenerChars(openers_));
    text_ = static_cast<char*>(std::malloc(bound > 0 ? bound : 1));
    if (text_ == nullptr) {
      SetError("jsonRows: out of memory");
      return;
    }
    size_ = enc::rows_json(kind_, columns_, from_, to_, first_, text_);
    // Give back the unused tail of the bound (about half of it).
    if (void* smaller = std::realloc(text_, size_ > 0 ? size_ : 1)) text_ = static_cast<char*>(smaller);
  }

  void OnOK() override {
    Napi::Env env = Env();
    if (out_data_ != nullptr) {
      deferred_.Resolve(Napi::Number::New(env, static_cast<double>(size_)));
      return;
    }
    char* text = text_;
    text_ = nullptr;  // owned by the buffer from here on (or freed at once when it was copied)
    // Not reported to V8 as external memory (Napi::MemoryManagement::AdjustExternalMemory): measured
    // on a 10 M-tick pull, the reports (1.2 GB of pieces) set off major GCs that cost the JS thread
    // 0.3-0.7 s of CPU, for 20-30 MiB less peak RSS; the pieces' small wrappers die young and the
    // scavenger frees their text soon enough (+70-80 MiB peak, within the stream's memory bound).
    Napi::Buffer<char> buffer =
        Napi::Buffer<char>::NewOrCopy(env, text, size_, [](Napi::Env, char* data) { std::free(data); });
    deferred_.Resolve(buffer);
  }

  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

 private:
  bool packed_;
  Napi::Promise::Deferred deferred_;
  enc::SeriesKind kind_;
  enc::SeriesColumns columns_;
  size_t from_;
  size_t to_;
  bool first_;
  std::vector<Napi::ObjectReference> arrays_;  // keeps the chunk's arrays alive while encoding
  char* out_data_;  // the caller's buffer (its Uint8Array is among arrays_), or null
  std::vector<std::string> openers_;  // columns_.openers points here
  char* text_ = nullptr;
  size_t size_ = 0;
};

size_t OpenerChars(const std::vector<std::string>& openers) {
  size_t most = 0;
  for (const std::string& o : openers) most = o.size() > most ? o.size() : most;
  return most;
}

// The optional openers argument: undefined for a one-symbol series, else an array of strings.
std::vector<std::string> OpenersArg(Napi::Env env, const Napi::Value& v, const char* fn) {
  std::vector<std::string> out;
  if (v.IsUndefined() || v.IsNull()) return out;
  if (!v.IsArray()) throw Napi::TypeError::New(env, std::string(fn) + ": openers must be an array of strings");
  Napi::Array list = v.As<Napi::Array>();
  if (list.Length() == 0 || list.Length() > 65536) throw Napi::RangeError::New(env, std::string(fn) + ": 1 to 65536 openers");
  for (uint32_t i = 0; i < list.Length(); ++i) {
    Napi::Value o = list.Get(i);
    if (!o.IsString()) throw Napi::TypeError::New(env, std::string(fn) + ": openers must be an array of strings");
    out.push_back(o.As<Napi::String>().Utf8Value());
  }
  return out;
}

enc::SeriesKind KindArg(Napi::Env env, const Napi::Value& v, const char* fn) {
  const std::string kind = v.IsString() ? v.As<Napi::String>().Utf8Value() : "";
  if (kind != "ticks" && kind != "rates") throw Napi::TypeError::New(env, std::string(fn) + ": kind must be 'ticks' or 'rates'");
  return kind == "ticks" ? enc::SeriesKind::Ticks : enc::SeriesKind::Rates;
}

}  // namespace

namespace {

Napi::Value Start(const Napi::CallbackInfo& info, bool into, bool packed = false) {
  Napi::Env env = info.Env();
  const char* fn = packed ? "packedRows" : into ? "jsonRowsInto" : "jsonRows";
  const enc::SeriesKind k = KindArg(env, info[0], fn);
  if (!info[1].IsObject()) throw Napi::TypeError::New(env, std::string(fn) + ": chunk must be an object");
  Napi::Object chunk = info[1].As<Napi::Object>();
  const size_t from = IndexArg(env, info[2], "from");
  const size_t to = IndexArg(env, info[3], "to");
  if (from > to) throw Napi::RangeError::New(env, std::string(fn) + ": from > to");
  const bool first = info[4].ToBoolean().Value();
  const FieldSpec* fields = k == enc::SeriesKind::Ticks ? kTickFields : kRateFields;
  enc::SeriesColumns columns{};
  std::vector<Napi::ObjectReference> arrays;
  arrays.reserve(9);
  for (size_t c = 0; c < 8; ++c) {
    Napi::Value value = chunk.Get(fields[c].name);
    if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != fields[c].type)
      throw Napi::TypeError::New(env, std::string(fn) + ": field \"" + fields[c].name + "\" must be a " + fields[c].expected);
    Napi::TypedArray array = value.As<Napi::TypedArray>();
    if (array.ElementLength() < to)
      throw Napi::RangeError::New(env, std::string(fn) + ": field \"" + fields[c].name + "\" has fewer than " + std::to_string(to) + " values");
    columns.field[c] = static_cast<const uint8_t*>(array.ArrayBuffer().Data()) + array.ByteOffset();
    arrays.push_back(Napi::Persistent(static_cast<Napi::Object>(array)));
  }
  std::vector<std::string> openers = packed ? std::vector<std::string>{} : OpenersArg(env, info[into ? 6 : 5], fn);
  if (!openers.empty()) {
    Napi::Value value = chunk.Get("symbol");
    if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_uint16_array)
      throw Napi::TypeError::New(env, std::string(fn) + ": field \"symbol\" must be a Uint16Array");
    Napi::TypedArray array = value.As<Napi::TypedArray>();
    if (array.ElementLength() < to)
      throw Napi::RangeError::New(env, std::string(fn) + ": field \"symbol\" has fewer than " + std::to_string(to) + " values");
    const auto* ids = reinterpret_cast<const uint16_t*>(static_cast<const uint8_t*>(array.ArrayBuffer().Data()) + array.ByteOffset());
    for (size_t i = from; i < to; ++i) {
      if (ids[i] >= openers.size()) throw Napi::RangeError::New(env, std::string(fn) + ": a symbol index past the openers");
    }
    columns.symbol = ids;
    arrays.push_back(Napi::Persistent(static_cast<Napi::Object>(array)));
  }
  char* out_data = nullptr;
  if (into) {
    if (!info[5].IsTypedArray() || info[5].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
      throw Napi::TypeError::New(env, "jsonRowsInto: out must be a Uint8Array (a Buffer)");
    Napi::TypedArray out = info[5].As<Napi::TypedArray>();
    const size_t bound = enc::rows_json_bound(k, to - from, OpenerChars(openers));
    if (out.ByteLength() < bound)
      throw Napi::RangeError::New(env, "jsonRowsInto: out holds " + std::to_string(out.ByteLength()) + " bytes, " + std::to_string(bound) +
                                           " needed (jsonRowsBound)");
    if (bound > 0) out_data = static_cast<char*>(out.ArrayBuffer().Data()) + out.ByteOffset();
    arrays.push_back(Napi::Persistent(static_cast<Napi::Object>(out)));
    // Rows of nothing write nothing: no buffer needed (rows_json writes at most the bound).
    if (out_data == nullptr) {
      auto deferred = Napi::Promise::Deferred::New(env);
      deferred.Resolve(Napi::Number::New(env, 0));
      return deferred.Promise();
    }
  }
  auto* worker = new JsonRowsWorker(env, k, columns, from, to, first, std::move(arrays), out_data, packed, std::move(openers));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

}  // namespace

Napi::Value JsonRows(const Napi::CallbackInfo& info) { return Start(info, false); }

Napi::Value JsonRowsInto(const Napi::CallbackInfo& info) { return Start(info, true); }

Napi::Value PackedRows(const Napi::CallbackInfo& info) { return Start(info, false, true); }

Napi::Value JsonRowsBound(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const enc::SeriesKind k = KindArg(env, info[0], "jsonRowsBound");
  const std::vector<std::string> openers = OpenersArg(env, info[2], "jsonRowsBound");
  return Napi::Number::New(env, static_cast<double>(enc::rows_json_bound(k, IndexArg(env, info[1], "rows"), OpenerChars(openers))));
}

}  // namespace tradeapi::napi
