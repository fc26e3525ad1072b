// The JS object behind the TypeScript façade: owns one Terminal and the one Worker that
// serialises every call to it. Each method parses its arguments on the JS thread, queues the
// terminal call and returns a Promise.
#pragma once
#include <napi.h>

#include <memory>

#include "terminal/terminal.h"
#include "worker.h"

namespace tradeapi::napi {

class TerminalWrap : public Napi::ObjectWrap<TerminalWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  // Wraps a terminal in a new JS object (the constructor is not callable from JS directly).
  // max_waiting: see Worker (0 = no cap on waiting calls).
  static Napi::Object Create(Napi::Env env, std::shared_ptr<Terminal> terminal, int64_t queue_timeout_ms,
                             size_t max_waiting = 0);

  explicit TerminalWrap(const Napi::CallbackInfo& info);
  // Interrupts the terminal before its workers are joined (see Close).
  ~TerminalWrap() override;

  Worker& worker() { return *worker_; }
  const std::shared_ptr<Terminal>& terminal() const { return terminal_; }

 private:
  template <typename Fn>
  Napi::Value Call(const Napi::CallbackInfo& info, Fn&& fn);
  template <typename Columns, typename Open>
  Napi::Value OpenSeries(const Napi::CallbackInfo& info, Open&& open);

  Napi::Value Version(const Napi::CallbackInfo& info);
  Napi::Value LastError(const Napi::CallbackInfo& info);
  Napi::Value TerminalInfo(const Napi::CallbackInfo& info);
  Napi::Value AccountInfo(const Napi::CallbackInfo& info);
  Napi::Value SymbolsTotal(const Napi::CallbackInfo& info);
  Napi::Value SymbolsGet(const Napi::CallbackInfo& info);
  Napi::Value SymbolInfo(const Napi::CallbackInfo& info);
  Napi::Value SymbolInfoTick(const Napi::CallbackInfo& info);
  Napi::Value SymbolSelect(const Napi::CallbackInfo& info);
  Napi::Value MarketBookAdd(const Napi::CallbackInfo& info);
  Napi::Value MarketBookGet(const Napi::CallbackInfo& info);
  Napi::Value MarketBookRelease(const Napi::CallbackInfo& info);
  Napi::Value CopyRatesFrom(const Napi::CallbackInfo& info);
  Napi::Value CopyRatesFromPos(const Napi::CallbackInfo& info);
  Napi::Value CopyRatesRange(const Napi::CallbackInfo& info);
  Napi::Value CopyTicksFrom(const Napi::CallbackInfo& info);
  Napi::Value CopyTicksRange(const Napi::CallbackInfo& info);
  Napi::Value OrderCalcMargin(const Napi::CallbackInfo& info);
  Napi::Value OrderCalcProfit(const Napi::CallbackInfo& info);
  Napi::Value OrderCheck(const Napi::CallbackInfo& info);
  Napi::Value PositionsTotal(const Napi::CallbackInfo& info);
  Napi::Value PositionsGet(const Napi::CallbackInfo& info);
  Napi::Value OrdersTotal(const Napi::CallbackInfo& info);
  Napi::Value OrdersGet(const Napi::CallbackInfo& info);
  Napi::Value HistoryOrdersTotal(const Napi::CallbackInfo& info);
  Napi::Value HistoryOrdersGet(const Napi::CallbackInfo& info);
  Napi::Value HistoryDealsTotal(const Napi::CallbackInfo& info);
  Napi::Value HistoryDealsGet(const Napi::CallbackInfo& info);
  Napi::Value BridgeStatus(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);

  std::shared_ptr<Terminal> terminal_;
  std::unique_ptr<Worker> worker_;
  // bridgeStatus() runs here, beside worker_: a status must not wait behind a slow terminal call.
  // Created on first use; only for a bridge terminal (whose bridge_status() is thread-safe).
  std::unique_ptr<Worker> status_worker_;
  std::chrono::milliseconds queue_timeout_{0};
};

}  // namespace tradeapi::napi
