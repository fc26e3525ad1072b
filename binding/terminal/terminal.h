// The terminal layer: one interface whose operations mirror the MetaTrader5 package
// (mt5-reference §2). Implementations: the simulated terminal (sim/) and, later, the bridge client.
// Failures throw TerminalError; implementations record it so that last_error() reports it, and a
// successful call resets last_error() to (1, 'Success'), as the package does.
// Calls are NOT thread-safe: the N-API layer serialises every call to one terminal on one worker.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columns.h"
#include "errors.h"
#include "records.h"

namespace tradeapi {

// orders_get / positions_get filters (mt5-reference §2.6). `symbol` wins over `ticket`;
// `group` is applied on top of whichever selector is given.
struct TradeFilter {
  std::optional<std::string> symbol;
  std::optional<std::string> group;
  std::optional<int64_t> ticket;
};

// history_*_get selectors (mt5-reference §2.7). Every given member narrows the result.
// Date range is inclusive, seconds. For deals, `ticket` selects deals whose `order` == ticket.
struct HistoryFilter {
  std::optional<int64_t> date_from, date_to;
  std::optional<int64_t> ticket, position;
  std::optional<std::string> group, symbol;
};

class Terminal {
 public:
  virtual ~Terminal() = default;

  // Called from the JS thread when the terminal is closed: calls in flight on the worker fail at
  // once and later ones are refused, so that closing never waits on a remote peer (a bridge).
  // Terminals whose calls cannot block need nothing.
  virtual void interrupt() {}

  virtual Version version() = 0;
  virtual LastError last_error() = 0;
  virtual TerminalInfo terminal_info() = 0;
  virtual AccountInfo account_info() = 0;

  virtual int64_t symbols_total() = 0;
  virtual std::vector<SymbolInfo> symbols_get(const std::optional<std::string>& group) = 0;
  virtual SymbolInfo symbol_info(const std::string& symbol) = 0;
  virtual Tick symbol_info_tick(const std::string& symbol) = 0;
  virtual bool symbol_select(const std::string& symbol, bool enable) = 0;

  virtual bool market_book_add(const std::string& symbol) = 0;
  virtual std::vector<BookInfo> market_book_get(const std::string& symbol) = 0;
  virtual bool market_book_release(const std::string& symbol) = 0;

  // Rates: dates in seconds; timeframe is a TIMEFRAME_* value. Cursors yield ascending chunks.
  virtual std::unique_ptr<RateCursor> copy_rates_from(const std::string& symbol, int64_t timeframe,
                                                      int64_t date_from, int64_t count) = 0;
  virtual std::unique_ptr<RateCursor> copy_rates_from_pos(const std::string& symbol, int64_t timeframe,
                                                          int64_t start_pos, int64_t count) = 0;
  virtual std::unique_ptr<RateCursor> copy_rates_range(const std::string& symbol, int64_t timeframe,
                                                       int64_t date_from, int64_t date_to) = 0;
  // Ticks: dates in milliseconds (the package accepts datetimes with sub-second precision);
  // flags is a COPY_TICKS_* value. Range is inclusive at both ends.
  virtual std::unique_ptr<TickCursor> copy_ticks_from(const std::string& symbol, int64_t date_from_msc,
                                                      int64_t count, int64_t flags) = 0;
  virtual std::unique_ptr<TickCursor> copy_ticks_range(const std::string& symbol, int64_t date_from_msc,
                                                       int64_t date_to_msc, int64_t flags) = 0;

  virtual double order_calc_margin(int64_t action, const std::string& symbol, double volume, double price) = 0;
  virtual double order_calc_profit(int64_t action, const std::string& symbol, double volume, double price_open,
                                   double price_close) = 0;
  virtual OrderCheckResult order_check(const TradeRequest& request) = 0;

  virtual int64_t positions_total() = 0;
  virtual std::vector<TradePosition> positions_get(const TradeFilter& filter) = 0;
  virtual int64_t orders_total() = 0;
  virtual std::vector<TradeOrder> orders_get(const TradeFilter& filter) = 0;
  virtual int64_t history_orders_total(int64_t date_from, int64_t date_to) = 0;
  virtual std::vector<TradeOrder> history_orders_get(const HistoryFilter& filter) = 0;
  virtual int64_t history_deals_total(int64_t date_from, int64_t date_to) = 0;
  virtual std::vector<TradeDeal> history_deals_get(const HistoryFilter& filter) = 0;
};

}  // namespace tradeapi
