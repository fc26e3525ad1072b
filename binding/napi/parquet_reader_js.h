// The native Parquet reader as a JS class: `new ParquetReader(bytes)` parses the footer at once
// (throwing an Error with code ERR_PARQUET_UNSUPPORTED or ERR_PARQUET_CORRUPT), and
// `decodeRowGroup(i, {columns?, msToSeconds?}) -> Promise<{[column]: TypedArray}>` decodes on
// the libuv thread pool; `metadata` is the footer's key-value metadata (a frozen object without a
// prototype). See binding/parquet/parquet_reader.h for the subset of Parquet it reads.
#pragma once
#include <napi.h>

namespace tradeapi::napi {

Napi::Function DefineParquetReader(Napi::Env env);

}  // namespace tradeapi::napi
