// Custom bars (binding/encode/bar_fold.h) as a JS class, so that the fold runs on the thread pool:
//
//   new BarFolder({kind: 'time'|'week'|'ticks'|'volume', seconds, count, size,
//                  price: 'bid'|'ask'|'mid'|'last', digits, transitions: number[] (utc_s, offset_s
//                  pairs, flattened), fromS, toS})
//   push(chunk: TickChunk) -> Promise<void>   folds the chunk's rows on a pool thread (one at a time)
//   take(minRows) -> BarChunk | undefined      the bars folded so far, once there are minRows (>= 1)
//   finish(nowServerMs, forming)               closes the bars still open (see BarFold::finish)
//
// A pushed chunk's arrays are referenced until its fold is done and read in place; JS must not
// modify or release them meanwhile. Bars reach JS as a chunk of their own (columns_js.h ToJs).
#pragma once
#include <napi.h>

namespace tradeapi::napi {

Napi::Function DefineBarFolder(Napi::Env env);

}  // namespace tradeapi::napi
