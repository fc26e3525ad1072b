// measureHandoff(rows): how long handing a `rows`-row tick chunk to JS takes, in ms, measured
// around the conversion alone (the columns are filled before the clock starts). It backs the
// bench figure "cost of handing a 10 M-row chunk to JS": external buffers, so it should not
// grow with the row count.
#include <napi.h>

#include <chrono>

#include "args.h"
#include "columns_js.h"

namespace tradeapi::napi {

Napi::Value MeasureHandoff(const Napi::CallbackInfo& info) {
  const int64_t rows = IntArg(info, 0, "rows");
  if (rows < 0 || rows > 100'000'000) ThrowInvalid(info.Env(), "Invalid \"rows\" argument");
  const size_t n = static_cast<size_t>(rows);
  TickColumns chunk;
  chunk.time.assign(n, 1);
  chunk.bid.assign(n, 1.1);
  chunk.ask.assign(n, 1.1);
  chunk.last.assign(n, 0);
  chunk.volume.assign(n, 0);
  chunk.time_msc.assign(n, 1000);
  chunk.flags.assign(n, 6);
  chunk.volume_real.assign(n, 0);
  const auto start = std::chrono::steady_clock::now();
  Napi::Object js = ToJs(info.Env(), std::move(chunk));
  const auto end = std::chrono::steady_clock::now();
  Napi::Object result = Napi::Object::New(info.Env());
  result.Set("ms", Napi::Number::New(info.Env(), std::chrono::duration<double, std::milli>(end - start).count()));
  result.Set("chunk", js);
  return result;
}

}  // namespace tradeapi::napi
