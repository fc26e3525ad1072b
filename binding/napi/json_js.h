// The JSON series encoder (binding/encode/json_rows.h) for JS: `jsonRows(kind, chunk, from, to,
// first) -> Promise<Buffer>`, the rows [from, to) of a series chunk as JSON text, made on the libuv
// thread pool (several calls run at once), byte for byte what src/encode/json-rows.ts writes.
// `jsonRowsInto(kind, chunk, from, to, first, out) -> Promise<number>` writes the same text into a
// caller's buffer (at least `jsonRowsBound(kind, to - from)` bytes) and resolves with its length:
// a caller that can reuse its buffers allocates none per piece (see src/encode/json-native.ts).
#pragma once
#include <napi.h>

namespace tradeapi::napi {

Napi::Value JsonRows(const Napi::CallbackInfo& info);
Napi::Value JsonRowsInto(const Napi::CallbackInfo& info);
Napi::Value JsonRowsBound(const Napi::CallbackInfo& info);
// packedRows(kind, chunk, from, to) -> Promise<Buffer>: rows [from, to) in the MetaTrader5
// package's packed dtype (format=packed), on the thread pool.
Napi::Value PackedRows(const Napi::CallbackInfo& info);

}  // namespace tradeapi::napi
