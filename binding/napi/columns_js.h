// Hands series chunks to JS without copying: each column's std::vector moves to the heap and
// becomes the backing store of an external ArrayBuffer, given back to the column pool by the
// buffer's finalizer, or at once when the consumer releases the chunk (releaseColumns).
#pragma once
#include <napi.h>

#include "encode/bar_fold.h"
#include "terminal/columns.h"

namespace tradeapi::napi {

// {rows, time: BigInt64Array, bid: Float64Array, ...} in the numpy dtype's field order.
Napi::Object ToJs(Napi::Env env, TickColumns&& chunk);
Napi::Object ToJs(Napi::Env env, RateColumns&& chunk);
// A rate chunk's columns, then time_close_msc (custom bars).
Napi::Object ToJs(Napi::Env env, encode::BarColumns&& chunk);
// One uint16 column (a merged chunk's symbol ids) as a Uint16Array, released like the others.
Napi::Value ToJs(Napi::Env env, Column<uint16_t>&& column);

// releaseColumns(chunk): for each of chunk's own properties that is a typed array over a buffer
// ToJs made (and not released yet), detaches the buffer and gives its storage back to the pool at
// once; anything else is left alone. Returns the bytes given back. The consumer promises that
// nothing reads the chunk any more (native encoders included): V8 stops counting the bytes as
// external memory at the detach, instead of holding them until a full GC (the uWS adapter made
// ~11 mark-compacts per 10 M-tick pull of such garbage).
Napi::Value ReleaseColumns(const Napi::CallbackInfo& info);
// columnPoolStats(): {pooledBytes, reused, released, live, holders} (tests, benchmarks): live counts
// this thread's buffers neither released nor finalized, holders every column not finalized yet.
Napi::Value ColumnPoolStats(const Napi::CallbackInfo& info);

}  // namespace tradeapi::napi
