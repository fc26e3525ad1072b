// SeriesMerger: the k-way merge of several symbols' series chunks (terminal/series_merge.h) on the
// libuv thread pool, for the multi-symbol range routes (src/terminal/merged-series.ts).
#pragma once
#include <napi.h>

namespace tradeapi::napi {

Napi::Function DefineSeriesMerger(Napi::Env env);

}  // namespace tradeapi::napi
