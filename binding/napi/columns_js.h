// Hands series chunks to JS without copying: each column's std::vector moves to the heap and
// becomes the backing store of an external ArrayBuffer, freed by the buffer's finalizer.
#pragma once
#include <napi.h>

#include "terminal/columns.h"

namespace tradeapi::napi {

// {rows, time: BigInt64Array, bid: Float64Array, ...} in the numpy dtype's field order.
Napi::Object ToJs(Napi::Env env, TickColumns&& chunk);
Napi::Object ToJs(Napi::Env env, RateColumns&& chunk);

}  // namespace tradeapi::napi
