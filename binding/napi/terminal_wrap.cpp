#include "terminal_wrap.h"

#include "column_pool.h"

#include <chrono>
#include <utility>
#include <vector>

#include "args.h"
#include "bridge/bridge_terminal.h"
#include "columns_js.h"
#include "records_js.h"
#include "thread_priority.h"

namespace tradeapi::napi {
namespace {

// JS values of plain results.
Napi::Value Result(Napi::Env env, int64_t v) { return ToJs(env, v); }
Napi::Value Result(Napi::Env env, double v) { return ToJs(env, v); }
Napi::Value Result(Napi::Env env, bool v) { return ToJs(env, v); }
template <typename Record>
Napi::Value Result(Napi::Env env, const Record& r) { return ToJs(env, r); }
template <typename Record>
Napi::Value Result(Napi::Env env, const std::vector<Record>& rows) {
  Napi::Array a = Napi::Array::New(env, rows.size());
  for (size_t i = 0; i < rows.size(); ++i) a.Set(static_cast<uint32_t>(i), ToJs(env, rows[i]));
  return a;
}

struct PendingWrap {
  TerminalWrap* wrap = nullptr;
  std::shared_ptr<Terminal> terminal;
  int64_t queue_timeout_ms = 0;
  size_t max_waiting = 0;
};
thread_local PendingWrap pending;  // hands the terminal to the constructor run by Create()

// A JS series object: {next(maxRows) -> Promise<chunk|null>, close()}. It holds a strong
// reference to its terminal's JS object, so the worker outlives every open cursor.
template <typename Columns>
struct CursorHandle {
  std::shared_ptr<SeriesCursor<Columns>> cursor;
  Napi::ObjectReference owner;
  TerminalWrap* wrap = nullptr;
};

template <typename Columns>
Napi::Object MakeSeries(Napi::Env env, std::shared_ptr<SeriesCursor<Columns>> cursor, TerminalWrap* wrap,
                        Napi::Object owner) {
  auto* handle = new CursorHandle<Columns>{std::move(cursor), Napi::Persistent(owner), wrap};
  Napi::Object series = Napi::Object::New(env);
  series.Set("next", Napi::Function::New(env, [handle](const Napi::CallbackInfo& info) -> Napi::Value {
    const int64_t max_rows = IntArg(info, 0, "maxRows");
    if (max_rows <= 0) ThrowInvalid(info.Env(), "Invalid \"maxRows\" argument");
    auto cursor = handle->cursor;  // the job keeps the cursor alive even if close() runs meanwhile
    if (!cursor) {
      auto done = Napi::Promise::Deferred::New(info.Env());
      done.Resolve(info.Env().Null());
      return done.Promise();
    }
    return handle->wrap->worker().Submit(info.Env(), [cursor, max_rows]() -> Builder {
      auto chunk = std::make_shared<Columns>();
      TakeColumns(*chunk);  // storage the GC gave back: already paged in
      cursor->next(static_cast<size_t>(max_rows), *chunk);
      if (chunk->rows() == 0) return [](Napi::Env e) -> Napi::Value { return e.Null(); };
      return [chunk](Napi::Env e) -> Napi::Value { return ToJs(e, std::move(*chunk)); };
    }, Lane::Bulk);
  }));
  series.Set("close", Napi::Function::New(env, [handle](const Napi::CallbackInfo& info) -> Napi::Value {
    handle->cursor.reset();
    return info.Env().Undefined();
  }));
  series.AddFinalizer([](Napi::Env, CursorHandle<Columns>* h) { delete h; }, handle);
  return series;
}

}  // namespace

Napi::Function TerminalWrap::Define(Napi::Env env) {
  return DefineClass(env, "NativeTerminal",
                     {
                         InstanceMethod<&TerminalWrap::Version>("version"),
                         InstanceMethod<&TerminalWrap::LastError>("lastError"),
                         InstanceMethod<&TerminalWrap::TerminalInfo>("terminalInfo"),
                         InstanceMethod<&TerminalWrap::AccountInfo>("accountInfo"),
                         InstanceMethod<&TerminalWrap::SymbolsTotal>("symbolsTotal"),
                         InstanceMethod<&TerminalWrap::SymbolsGet>("symbolsGet"),
                         InstanceMethod<&TerminalWrap::SymbolInfo>("symbolInfo"),
                         InstanceMethod<&TerminalWrap::SymbolInfoTick>("symbolInfoTick"),
                         InstanceMethod<&TerminalWrap::SymbolSelect>("symbolSelect"),
                         InstanceMethod<&TerminalWrap::MarketBookAdd>("marketBookAdd"),
                         InstanceMethod<&TerminalWrap::MarketBookGet>("marketBookGet"),
                         InstanceMethod<&TerminalWrap::MarketBookRelease>("marketBookRelease"),
                         InstanceMethod<&TerminalWrap::CopyRatesFrom>("copyRatesFrom"),
                         InstanceMethod<&TerminalWrap::CopyRatesFromPos>("copyRatesFromPos"),
                         InstanceMethod<&TerminalWrap::CopyRatesRange>("copyRatesRange"),
                         InstanceMethod<&TerminalWrap::CopyTicksFrom>("copyTicksFrom"),
                         InstanceMethod<&TerminalWrap::CopyTicksRange>("copyTicksRange"),
                         InstanceMethod<&TerminalWrap::OrderCalcMargin>("orderCalcMargin"),
                         InstanceMethod<&TerminalWrap::OrderCalcProfit>("orderCalcProfit"),
                         InstanceMethod<&TerminalWrap::OrderCheck>("orderCheck"),
                         InstanceMethod<&TerminalWrap::PositionsTotal>("positionsTotal"),
                         InstanceMethod<&TerminalWrap::PositionsGet>("positionsGet"),
                         InstanceMethod<&TerminalWrap::OrdersTotal>("ordersTotal"),
                         InstanceMethod<&TerminalWrap::OrdersGet>("ordersGet"),
                         InstanceMethod<&TerminalWrap::HistoryOrdersTotal>("historyOrdersTotal"),
                         InstanceMethod<&TerminalWrap::HistoryOrdersGet>("historyOrdersGet"),
                         InstanceMethod<&TerminalWrap::HistoryDealsTotal>("historyDealsTotal"),
                         InstanceMethod<&TerminalWrap::HistoryDealsGet>("historyDealsGet"),
                         InstanceMethod<&TerminalWrap::BridgeStatus>("bridgeStatus"),
                         InstanceMethod<&TerminalWrap::Close>("close"),
                     });
}

Napi::Object TerminalWrap::Create(Napi::Env env, std::shared_ptr<Terminal> terminal, int64_t queue_timeout_ms,
                                  size_t max_waiting) {
  auto* ctor = env.GetInstanceData<Napi::FunctionReference>();
  pending = PendingWrap{nullptr, std::move(terminal), queue_timeout_ms, max_waiting};
  Napi::Object obj = ctor->New({});
  pending = PendingWrap{};
  return obj;
}

TerminalWrap::~TerminalWrap() {
  // The workers' destructors join too (environment teardown, process.exit without close()).
  if (terminal_) terminal_->interrupt();
}

TerminalWrap::TerminalWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<TerminalWrap>(info) {
  if (!pending.terminal) throw Napi::TypeError::New(info.Env(), "use createSimTerminal()");
  terminal_ = std::move(pending.terminal);
  queue_timeout_ = std::chrono::milliseconds(pending.queue_timeout_ms);
  worker_ = std::make_unique<Worker>(info.Env(), queue_timeout_, [this](bool busy) { busy ? Ref() : Unref(); },
                                     pending.max_waiting);
}

// Queues fn(Terminal&) on the worker; its return value becomes the Promise's value.
template <typename Fn>
Napi::Value TerminalWrap::Call(const Napi::CallbackInfo& info, Fn&& fn) {
  auto terminal = terminal_;
  // An interactive call (records, the last tick, /health's probe, order_check, calculations; not a
  // series' opening): bulk pages and encoders run at a lower priority for a while (thread_priority.h).
  NoteInteractive();
  return worker_->Submit(info.Env(), [terminal, fn = std::forward<Fn>(fn)]() -> Builder {
    auto result = std::make_shared<decltype(fn(*terminal))>(fn(*terminal));
    return [result](Napi::Env env) -> Napi::Value { return Result(env, *result); };
  });
}

// Opens a cursor on the worker (argument and symbol errors surface here, before any row) and
// resolves to a series object over it.
template <typename Columns, typename Open>
Napi::Value TerminalWrap::OpenSeries(const Napi::CallbackInfo& info, Open&& open) {
  auto terminal = terminal_;
  // `self` stays valid until the builder runs: the wrap holds a strong reference to itself
  // while any job is in flight (see the Worker's on_busy hook).
  TerminalWrap* self = this;
  return worker_->Submit(info.Env(), [terminal, self, open = std::forward<Open>(open)]() -> Builder {
    std::shared_ptr<SeriesCursor<Columns>> cursor(open(*terminal));
    return [cursor, self](Napi::Env env) -> Napi::Value {
      return MakeSeries<Columns>(env, cursor, self, self->Value());
    };
  });
}

Napi::Value TerminalWrap::Version(const Napi::CallbackInfo& info) {
  return Call(info, [](Terminal& t) { return t.version(); });
}
Napi::Value TerminalWrap::LastError(const Napi::CallbackInfo& info) {
  return Call(info, [](Terminal& t) { return t.last_error(); });
}
Napi::Value TerminalWrap::TerminalInfo(const Napi::CallbackInfo& info) {
  return Call(info, [](Terminal& t) { return t.terminal_info(); });
}
Napi::Value TerminalWrap::AccountInfo(const Napi::CallbackInfo& info) {
  return Call(info, [](Terminal& t) { return t.account_info(); });
}
Napi::Value TerminalWrap::SymbolsTotal(const Napi::CallbackInfo& info) {
  return Call(info, [](Terminal& t) { return t.symbols_total(); });
}
Napi::Value TerminalWrap::SymbolsGet(const Napi::CallbackInfo& info) {
  std::optional<std::string> group;
  if (!info[0].IsUndefined() && !info[0].IsNull()) group = StringArg(info, 0, "group");
  return Call(info, [group](Terminal& t) { return t.symbols_get(group); });
}
Napi::Value TerminalWrap::SymbolInfo(const Napi::CallbackInfo& info) {
  auto symbol = StringArg(info, 0, "symbol");
  return Call(info, [symbol](Terminal& t) { return t.symbol_info(symbol); });
}
Napi::Value TerminalWrap::SymbolInfoTick(const Napi::CallbackInfo& info) {
  auto symbol = StringArg(info, 0, "symbol");
  return Call(info, [symbol](Terminal& t) { return t.symbol_info_tick(symbol); });
}
Napi::Value TerminalWrap::SymbolSelect(const Napi::CallbackInfo& info) {
  auto symbol = StringArg(info, 0, "symbol");
  bool enable = BoolArg(info, 1, "enable");
  return Call(info, [symbol, enable](Terminal& t) { return t.symbol_select(symbol, enable); });
}
Napi::Value TerminalWrap::MarketBookAdd(const Napi::CallbackInfo& info) {
  auto symbol = StringArg(info, 0, "symbol");
  return Call(info, [symbol](Terminal& t) { return t.market_book_add(symbol); });
}
Napi::Value TerminalWrap::MarketBookGet(const Napi::CallbackInfo& info) {
  auto symbol = StringArg(info, 0, "symbol");
  return Call(info, [symbol](Terminal& t) { return t.market_book_get(symbol); });
}
Napi::Value TerminalWrap::MarketBookRelease(const Napi::CallbackInfo& info) {
  auto symbol = StringArg(info, 0, "symbol");
  return Call(info, [symbol](Terminal& t) { return t.market_book_release(symbol); });
}
Napi::Value TerminalWrap::CopyRatesFrom(const Napi::CallbackInfo& info) {
  auto symbol = StringArg(info, 0, "symbol");
  auto tf = IntArg(info, 1, "timeframe"), from = IntArg(info, 2, "date_from"), count = IntArg(info, 3, "count");
  return OpenSeries<RateColumns>(info, [=](Terminal& t) { return t.copy_rates_from(symbol, tf, from, count); });
}
Napi::Value TerminalWrap::CopyRatesFromPos(const Napi::CallbackInfo& info) {
  auto symbol = StringArg(info, 0, "symbol");
  auto tf = IntArg(info, 1, "timeframe"), pos = IntArg(info, 2, "start_pos"), count = IntArg(info, 3, "count");
  return OpenSeries<RateColumns>(info, [=](Terminal& t) { return t.copy_rates_from_pos(symbol, tf, pos, count); });
}
Napi::Value TerminalWrap::CopyRatesRange(const Napi::CallbackInfo& info) {
  auto symbol = StringArg(info, 0, "symbol");
  auto tf = IntArg(info, 1, "timeframe"), from = IntArg(info, 2, "date_from"), to = IntArg(info, 3, "date_to");
  return OpenSeries<RateColumns>(info, [=](Terminal& t) { return t.copy_rates_range(symbol, tf, from, to); });
}
Napi::Value TerminalWrap::CopyTicksFrom(const Napi::CallbackInfo& info) {
  auto symbol = StringArg(info, 0, "symbol");
  auto from = IntArg(info, 1, "date_from"), count = IntArg(info, 2, "count"), flags = IntArg(info, 3, "flags");
  return OpenSeries<TickColumns>(info, [=](Terminal& t) { return t.copy_ticks_from(symbol, from, count, flags); });
}
Napi::Value TerminalWrap::CopyTicksRange(const Napi::CallbackInfo& info) {
  auto symbol = StringArg(info, 0, "symbol");
  auto from = IntArg(info, 1, "date_from"), to = IntArg(info, 2, "date_to"), flags = IntArg(info, 3, "flags");
  return OpenSeries<TickColumns>(info, [=](Terminal& t) { return t.copy_ticks_range(symbol, from, to, flags); });
}
Napi::Value TerminalWrap::OrderCalcMargin(const Napi::CallbackInfo& info) {
  auto action = IntArg(info, 0, "action");
  auto symbol = StringArg(info, 1, "symbol");
  auto volume = NumberArg(info, 2, "volume"), price = NumberArg(info, 3, "price");
  return Call(info, [=](Terminal& t) { return t.order_calc_margin(action, symbol, volume, price); });
}
Napi::Value TerminalWrap::OrderCalcProfit(const Napi::CallbackInfo& info) {
  auto action = IntArg(info, 0, "action");
  auto symbol = StringArg(info, 1, "symbol");
  auto volume = NumberArg(info, 2, "volume"), open = NumberArg(info, 3, "price_open"),
       close = NumberArg(info, 4, "price_close");
  return Call(info, [=](Terminal& t) { return t.order_calc_profit(action, symbol, volume, open, close); });
}
Napi::Value TerminalWrap::OrderCheck(const Napi::CallbackInfo& info) {
  TradeRequest request;
  try {
    request = TradeRequestFromJs(ObjectArg(info, 0));
  } catch (const TerminalError& e) {
    throw ToJsError(info.Env(), e);
  }
  return Call(info, [request](Terminal& t) { return t.order_check(request); });
}
Napi::Value TerminalWrap::PositionsTotal(const Napi::CallbackInfo& info) {
  return Call(info, [](Terminal& t) { return t.positions_total(); });
}
static TradeFilter TradeFilterArg(const Napi::CallbackInfo& info) {
  Napi::Object o = ObjectArg(info, 0);
  return TradeFilter{OptString(o, "symbol"), OptString(o, "group"), OptInt(o, "ticket")};
}
static HistoryFilter HistoryFilterArg(const Napi::CallbackInfo& info) {
  Napi::Object o = ObjectArg(info, 0);
  return HistoryFilter{OptInt(o, "date_from"), OptInt(o, "date_to"),  OptInt(o, "ticket"),
                       OptInt(o, "position"),  OptString(o, "group"), OptString(o, "symbol")};
}
Napi::Value TerminalWrap::PositionsGet(const Napi::CallbackInfo& info) {
  auto filter = TradeFilterArg(info);
  return Call(info, [filter](Terminal& t) { return t.positions_get(filter); });
}
Napi::Value TerminalWrap::OrdersTotal(const Napi::CallbackInfo& info) {
  return Call(info, [](Terminal& t) { return t.orders_total(); });
}
Napi::Value TerminalWrap::OrdersGet(const Napi::CallbackInfo& info) {
  auto filter = TradeFilterArg(info);
  return Call(info, [filter](Terminal& t) { return t.orders_get(filter); });
}
Napi::Value TerminalWrap::HistoryOrdersTotal(const Napi::CallbackInfo& info) {
  auto from = IntArg(info, 0, "date_from"), to = IntArg(info, 1, "date_to");
  return Call(info, [=](Terminal& t) { return t.history_orders_total(from, to); });
}
Napi::Value TerminalWrap::HistoryOrdersGet(const Napi::CallbackInfo& info) {
  auto filter = HistoryFilterArg(info);
  return Call(info, [filter](Terminal& t) { return t.history_orders_get(filter); });
}
Napi::Value TerminalWrap::HistoryDealsTotal(const Napi::CallbackInfo& info) {
  auto from = IntArg(info, 0, "date_from"), to = IntArg(info, 1, "date_to");
  return Call(info, [=](Terminal& t) { return t.history_deals_total(from, to); });
}
Napi::Value TerminalWrap::HistoryDealsGet(const Napi::CallbackInfo& info) {
  auto filter = HistoryFilterArg(info);
  return Call(info, [filter](Terminal& t) { return t.history_deals_get(filter); });
}
// {reachable, terminal_connected, since, last_error, reconnects} of a bridge terminal; undefined
// for any other terminal.
Napi::Value TerminalWrap::BridgeStatus(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto bridge = std::dynamic_pointer_cast<bridge::BridgeTerminal>(terminal_);
  if (!bridge) return env.Undefined();
  if (worker_->closed()) {
    auto d = Napi::Promise::Deferred::New(env);
    d.Reject(ToJsError(env, TerminalError(ErrorKind::Unavailable, -10004, "No IPC connection")).Value());
    return d.Promise();
  }
  if (!status_worker_) {
    // A few /health calls at once are plenty; more wait their turn or are refused (503).
    status_worker_ = std::make_unique<Worker>(env, queue_timeout_, [this](bool busy) { busy ? Ref() : Unref(); }, 8);
  }
  return status_worker_->Submit(env, [bridge]() -> Builder {
    auto st = std::make_shared<bridge::BridgeStatus>(bridge->bridge_status());
    return [st](Napi::Env e) -> Napi::Value {
      Napi::Object o = Napi::Object::New(e);
      o.Set("reachable", Napi::Boolean::New(e, st->reachable));
      o.Set("terminal_connected", Napi::Boolean::New(e, st->terminal_connected));
      o.Set("since", st->since > 0 ? Napi::Number::New(e, st->since) : e.Null());
      if (st->error) {
        Napi::Object le = Napi::Object::New(e);
        le.Set("code", Napi::Number::New(e, static_cast<double>(st->error->code)));
        le.Set("message", Napi::String::New(e, st->error->description));
        o.Set("last_error", le);
      } else {
        o.Set("last_error", e.Null());
      }
      o.Set("reconnects", Napi::Number::New(e, static_cast<double>(st->reconnects)));
      o.Set("answering", Napi::Boolean::New(e, st->answering));
      o.Set("version_mismatch", Napi::Boolean::New(e, st->version_mismatch));
      return o;
    };
  });
}

// Close() joins the workers on the JS thread. Interrupting the terminal first makes a call blocked
// on a bridge that stopped answering fail at once (and the queued ones after it), so closing never
// blocks the event loop beyond a call that cannot block anyway; before, a trickling bridge kept
// the process alive through two SIGTERMs (issue 22 item 2).
Napi::Value TerminalWrap::Close(const Napi::CallbackInfo& info) {
  if (terminal_) terminal_->interrupt();
  if (status_worker_) status_worker_->Close();
  worker_->Close();
  return info.Env().Undefined();
}

}  // namespace tradeapi::napi
