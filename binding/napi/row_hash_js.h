// The series content hash (binding/encode/row_hash.h) as a JS class:
// `new RowHasher(kind: 'ticks' | 'rates')`, `update(chunk)` (a TickChunk or RateChunk: the rows
// [0, chunk.rows) of its typed arrays), `digest() -> string` (32 lowercase hex digits, XXH3-128 in
// canonical order) and `rows` (rows hashed so far). Synchronous, on the calling thread (~7 GB/s of
// canonical rows: a 1 M-tick chunk takes ~10 ms).
#pragma once
#include <napi.h>

namespace tradeapi::napi {

Napi::Function DefineRowHasher(Napi::Env env);

}  // namespace tradeapi::napi
