#include "columns_js.h"

#include <cstdint>
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

// V8 already counts the bytes of every ArrayBuffer backing store, external ones included, in its
// external-memory heuristics (ArrayBufferExtension accounting), so the GC sees what chunks hold.
// Reporting them again with AdjustExternalMemory double-counted and, measured, forced a full GC
// on every large chunk (16 ms instead of ~0.1 ms per 10 M-row handoff).
template <typename T>
Napi::Value Column(Napi::Env env, tradeapi::Column<T>&& values) {
  const size_t length = values.size();
  const size_t bytes = length * sizeof(T);
  Napi::ArrayBuffer buffer;
  if (length == 0) {
    buffer = Napi::ArrayBuffer::New(env, 0);
  } else {
    auto* owned = new tradeapi::Column<T>(std::move(values));
    buffer = Napi::ArrayBuffer::New(env, owned->data(), bytes, [](Napi::Env, void*, tradeapi::Column<T>* v) {
      ColumnPool<T>::give(std::move(*v));
      delete v;
    },
                                    owned);
  }
  napi_value array;
  NAPI_THROW_IF_FAILED(env, napi_create_typedarray(env, TypedArrayOf<T>::type, length, buffer, 0, &array),
                       Napi::Value());
  return Napi::Value(env, array);
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

}  // namespace tradeapi::napi
