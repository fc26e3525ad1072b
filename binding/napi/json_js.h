// The JSON series encoder (binding/encode/json_rows.h) for JS: `jsonRows(kind, chunk, from, to,
// first) -> Promise<Buffer>`, the rows [from, to) of a series chunk as JSON text, made on the libuv
// thread pool (several calls run at once), byte for byte what src/encode/json-rows.ts writes.
#pragma once
#include <napi.h>

namespace tradeapi::napi {

Napi::Value JsonRows(const Napi::CallbackInfo& info);

}  // namespace tradeapi::napi
