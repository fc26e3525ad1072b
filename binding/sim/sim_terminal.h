// The simulated terminal: the Terminal interface over Market (sim_terminal_market.cpp) and
// Calculator/Account (sim_terminal_trading.cpp). Records last_error() like the real package.
#pragma once
#include <memory>
#include <set>
#include <string>

#include "../terminal/terminal.h"
#include "config.h"
#include "market.h"
#include "trading.h"

namespace tradeapi::sim {

class SimTerminal : public Terminal {
 public:
  explicit SimTerminal(const SimConfig& config);

  Version version() override;
  LastError last_error() override;
  TerminalInfo terminal_info() override;
  AccountInfo account_info() override;

  int64_t symbols_total() override;
  std::vector<SymbolInfo> symbols_get(const std::optional<std::string>& group) override;
  SymbolInfo symbol_info(const std::string& symbol) override;
  Tick symbol_info_tick(const std::string& symbol) override;
  bool symbol_select(const std::string& symbol, bool enable) override;

  bool market_book_add(const std::string& symbol) override;
  std::vector<BookInfo> market_book_get(const std::string& symbol) override;
  bool market_book_release(const std::string& symbol) override;

  std::unique_ptr<RateCursor> copy_rates_from(const std::string& symbol, int64_t timeframe, int64_t date_from,
                                              int64_t count) override;
  std::unique_ptr<RateCursor> copy_rates_from_pos(const std::string& symbol, int64_t timeframe, int64_t start_pos,
                                                  int64_t count) override;
  std::unique_ptr<RateCursor> copy_rates_range(const std::string& symbol, int64_t timeframe, int64_t date_from,
                                               int64_t date_to) override;
  std::unique_ptr<TickCursor> copy_ticks_from(const std::string& symbol, int64_t date_from_msc, int64_t count,
                                              int64_t flags) override;
  std::unique_ptr<TickCursor> copy_ticks_range(const std::string& symbol, int64_t date_from_msc,
                                               int64_t date_to_msc, int64_t flags) override;

  double order_calc_margin(int64_t action, const std::string& symbol, double volume, double price) override;
  double order_calc_profit(int64_t action, const std::string& symbol, double volume, double price_open,
                           double price_close) override;
  OrderCheckResult order_check(const TradeRequest& request) override;

  int64_t positions_total() override;
  std::vector<TradePosition> positions_get(const TradeFilter& filter) override;
  int64_t orders_total() override;
  std::vector<TradeOrder> orders_get(const TradeFilter& filter) override;
  int64_t history_orders_total(int64_t date_from, int64_t date_to) override;
  std::vector<TradeOrder> history_orders_get(const HistoryFilter& filter) override;
  int64_t history_deals_total(int64_t date_from, int64_t date_to) override;
  std::vector<TradeDeal> history_deals_get(const HistoryFilter& filter) override;

 private:
  // Runs fn, recording success or the thrown TerminalError in last_error_ (then rethrowing).
  template <typename Fn>
  auto record(Fn&& fn) -> decltype(fn()) {
    try {
      auto result = fn();
      last_error_ = LastError{};
      return result;
    } catch (const TerminalError& e) {
      last_error_ = LastError{e.code(), e.what()};
      throw;
    }
  }
  const SymbolSpec& spec(const std::string& symbol) const;  // throws not_found for an unknown symbol

  Market market_;
  Calculator calc_;
  Account account_;
  LastError last_error_;
  std::set<std::string> selected_;       // Market Watch (select == visible in the simulator)
  std::set<std::string> book_subscribed_;
};

}  // namespace tradeapi::sim
