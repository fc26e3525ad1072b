// The native Parquet writer as a JS class: `new ParquetWriter(kind, {codec, level, ...})`,
// `encodeRowGroup(slices) -> Promise<Buffer>` (encoded on the libuv thread pool, so several row
// groups encode at once) and `finish(metadata?: Record<string, string>) -> Buffer` (the footer, with
// the metadata as its key_value_metadata). See binding/parquet/parquet_writer.h.
#pragma once
#include <napi.h>

namespace tradeapi::napi {

Napi::Function DefineParquetWriter(Napi::Env env);

}  // namespace tradeapi::napi
