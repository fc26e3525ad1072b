#include "columns_js.h"

#include <atomic>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "column_pool.h"

namespace tradeapi::napi {
namespace {

template <typename T>
struct TypedArrayOf;
template <> struct TypedArrayOf<int64_t> { static constexpr napi_typedarray_type type = napi_bigint64_array; };
template <> struct TypedArrayOf<uint64_t> { static constexpr napi_typedarray_type type = napi_biguint64_array; };
template <> struct TypedArrayOf<double> { static constexpr napi_typedarray_type type = napi_float64_array; };
template <> struct TypedArrayOf<uint32_t> { static constexpr napi_typedarray_type type = napi_uint32_array; };
template <> struct TypedArrayOf<int32_t> { static constexpr napi_typedarray_type type = napi_int32_array; };
template <> struct TypedArrayOf<uint16_t> { static constexpr napi_typedarray_type type = napi_uint16_array; };

// The storage behind one column's external ArrayBuffer, until either the consumer releases it
// (ReleaseColumns: the buffer is detached and the storage goes back to the pool at once) or the GC
// frees the buffer (the finalizer gives it back, unless it was released already).
std::atomic<uint64_t> held_columns{0};  // holders alive (columnPoolStats): a released one must still be finalized

struct HeldColumn {
  HeldColumn(const void* d, size_t b) : data(d), bytes(b) { ++held_columns; }
  HeldColumn(const HeldColumn&) = delete;
  HeldColumn& operator=(const HeldColumn&) = delete;
  virtual ~HeldColumn() { --held_columns; }
  virtual void GiveToPool() = 0;
  const void* const data;
  const size_t bytes;
  bool released = false;
};

template <typename T>
struct HeldColumnOf final : HeldColumn {
  explicit HeldColumnOf(tradeapi::Column<T>&& v) : HeldColumn(v.data(), v.size() * sizeof(T)), values(std::move(v)) {}
  void GiveToPool() override { ColumnPool<T>::give(std::move(values)); }
  tradeapi::Column<T> values;
};

// The buffers this module made and that are neither released nor finalized, by data pointer: how a
// release recognises its own arrays (anything else is left alone). Both the release and the
// finalizers run on the JS thread of the env that made the buffer; thread_local keeps worker
// threads' envs apart without a lock.
std::unordered_map<const void*, HeldColumn*>& registry() {
  thread_local std::unordered_map<const void*, HeldColumn*> map;
  return map;
}

std::atomic<uint64_t> released_columns{0};  // a test counter (columnPoolStats); every JS thread's

// V8 already counts the bytes of every ArrayBuffer backing store, external ones included, in its
// external-memory heuristics (ArrayBufferExtension accounting), so the GC sees what chunks hold.
// Reporting them again with AdjustExternalMemory double-counted and, measured, forced a full GC
// on every large chunk (16 ms instead of ~0.1 ms per 10 M-row handoff).
template <typename T>
Napi::Value Column(Napi::Env env, tradeapi::Column<T>&& values) {
  const size_t length = values.size();
  Napi::ArrayBuffer buffer;
  if (length == 0) {
    buffer = Napi::ArrayBuffer::New(env, 0);
  } else {
    auto* held = new HeldColumnOf<T>(std::move(values));
    buffer = Napi::ArrayBuffer::New(env, held->values.data(), held->bytes, [](Napi::Env, void*, HeldColumnOf<T>* h) {
      if (!h->released) {
        // A released column's data pointer may already belong to a newer buffer made from the
        // same pooled storage: only our own entry is removed.
        auto it = registry().find(h->data);
        if (it != registry().end() && it->second == h) registry().erase(it);
        h->GiveToPool();
      }
      delete h;
    },
                                    held);
    registry()[held->data] = held;
  }
  napi_value array;
  NAPI_THROW_IF_FAILED(env, napi_create_typedarray(env, TypedArrayOf<T>::type, length, buffer, 0, &array),
                       Napi::Value());
  return Napi::Value(env, array);
}

// Detaches `value`'s buffer and gives its storage back to the pool, if it is a typed array over a
// buffer of ours; returns the bytes given back (0 for anything else).
size_t ReleaseColumn(napi_env env, napi_value value) {
  bool is_typedarray = false;
  if (napi_is_typedarray(env, value, &is_typedarray) != napi_ok || !is_typedarray) return 0;
  napi_value arraybuffer;
  if (napi_get_typedarray_info(env, value, nullptr, nullptr, nullptr, &arraybuffer, nullptr) != napi_ok) return 0;
  void* base = nullptr;
  size_t bytes = 0;
  if (napi_get_arraybuffer_info(env, arraybuffer, &base, &bytes) != napi_ok || base == nullptr) return 0;
  auto it = registry().find(base);
  // The same pointer and length: our buffer (a view of it too: detaching detaches every view).
  if (it == registry().end() || it->second->bytes != bytes) return 0;
  HeldColumn* held = it->second;
  // Detaching first: if V8 refuses, nothing is given back and the finalizer stays in charge.
  if (napi_detach_arraybuffer(env, arraybuffer) != napi_ok) return 0;
  registry().erase(it);
  held->released = true;
  held->GiveToPool();  // the finalizer, when it runs, only deletes the holder
  ++released_columns;
  return bytes;
}

}  // namespace

Napi::Object ToJs(Napi::Env env, TickColumns&& c) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("rows", Napi::Number::New(env, static_cast<double>(c.rows())));
  o.Set("time", Column(env, std::move(c.time)));
  o.Set("bid", Column(env, std::move(c.bid)));
  o.Set("ask", Column(env, std::move(c.ask)));
  o.Set("last", Column(env, std::move(c.last)));
  o.Set("volume", Column(env, std::move(c.volume)));
  o.Set("time_msc", Column(env, std::move(c.time_msc)));
  o.Set("flags", Column(env, std::move(c.flags)));
  o.Set("volume_real", Column(env, std::move(c.volume_real)));
  return o;
}

Napi::Object ToJs(Napi::Env env, RateColumns&& c) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("rows", Napi::Number::New(env, static_cast<double>(c.rows())));
  o.Set("time", Column(env, std::move(c.time)));
  o.Set("open", Column(env, std::move(c.open)));
  o.Set("high", Column(env, std::move(c.high)));
  o.Set("low", Column(env, std::move(c.low)));
  o.Set("close", Column(env, std::move(c.close)));
  o.Set("tick_volume", Column(env, std::move(c.tick_volume)));
  o.Set("spread", Column(env, std::move(c.spread)));
  o.Set("real_volume", Column(env, std::move(c.real_volume)));
  return o;
}

Napi::Object ToJs(Napi::Env env, encode::BarColumns&& c) {
  tradeapi::Column<int64_t> close_msc = std::move(c.time_close_msc);
  Napi::Object o = ToJs(env, static_cast<RateColumns&&>(c));
  o.Set("time_close_msc", Column(env, std::move(close_msc)));
  return o;
}
Napi::Value ToJs(Napi::Env env, tradeapi::Column<uint16_t>&& column) { return Column(env, std::move(column)); }

Napi::Value ReleaseColumns(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "releaseColumns: a chunk object expected");
  Napi::Object chunk = info[0].As<Napi::Object>();
  Napi::Array names = chunk.GetPropertyNames();
  double released = 0;
  for (uint32_t i = 0; i < names.Length(); i++) {
    released += static_cast<double>(ReleaseColumn(env, chunk.Get(names.Get(i))));
  }
  return Napi::Number::New(env, released);
}

Napi::Value ColumnPoolStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const column_pool::Stats s = column_pool::stats();
  Napi::Object o = Napi::Object::New(env);
  o.Set("pooledBytes", Napi::Number::New(env, static_cast<double>(s.pooled_bytes)));
  o.Set("reused", Napi::Number::New(env, static_cast<double>(s.reused)));
  o.Set("released", Napi::Number::New(env, static_cast<double>(released_columns.load())));
  o.Set("live", Napi::Number::New(env, static_cast<double>(registry().size())));
  o.Set("holders", Napi::Number::New(env, static_cast<double>(held_columns.load())));
  return o;
}

}  // namespace tradeapi::napi
