// SimTerminal: connection, symbols, market depth and series (the trading side is in
// sim_terminal_trading.cpp). Every public method runs inside record() so that last_error()
// reports the outcome of the latest call, as the MetaTrader5 package does.
#include <algorithm>

#include "sim_terminal.h"

namespace tradeapi::sim {

namespace {
// Market Watch of a fresh terminal: the majors, gold and a few popular CFDs, not the whole catalogue.
const char* const kInitialMarketWatch[] = {"EURUSD", "GBPUSD", "USDCHF", "USDJPY", "USDCAD", "AUDUSD",
                                           "NZDUSD", "EURJPY", "EURGBP", "XAUUSD", "US500",  "BTCUSD"};
}  // namespace

SimTerminal::SimTerminal(const SimConfig& config) : market_(config), calc_(market_), account_(market_, calc_) {
  for (const char* name : kInitialMarketWatch) {
    if (market_.find(name) != nullptr) selected_.insert(name);
  }
  // The real terminal keeps every symbol with a position or an order in Market Watch.
  for (const TradePosition& p : account_.positions()) selected_.insert(p.symbol);
  for (const TradeOrder& o : account_.orders()) selected_.insert(o.symbol);
}

const SymbolSpec& SimTerminal::spec(const std::string& symbol) const {
  const SymbolSpec* s = market_.find(symbol);
  if (s == nullptr) throw TerminalError::not_found();
  return *s;
}

Version SimTerminal::version() {
  // Build 5100 was released on 5 June 2025 (metatrader5.com release notes): a pair that belongs together.
  return record([&] { return Version{500, 5100, "5 Jun 2025"}; });
}

// Not recorded: reading the last error must not reset it.
LastError SimTerminal::last_error() { return last_error_; }

TerminalInfo SimTerminal::terminal_info() {
  return record([&] {
    TerminalInfo t;
    t.community_account = false;
    t.community_connection = false;
    t.connected = true;
    t.dlls_allowed = false;
    t.trade_allowed = market_.config().trade_allowed;
    t.tradeapi_disabled = false;
    t.email_enabled = false;
    t.ftp_enabled = false;
    t.notifications_enabled = false;
    t.mqid = false;
    t.build = 5100;
    t.maxbars = market_.config().maxbars;
    t.codepage = 0;  // CP_ACP
    t.ping_last = 18250;  // microseconds
    t.community_balance = 0.0;
    t.retransmission = 0.0;
    t.company = "Tradeapi Simulated Markets Ltd.";
    t.name = "MetaTrader 5";
    t.language = "English";
    t.path = "C:\\Program Files\\MetaTrader 5";
    t.data_path = "C:\\Users\\trader\\AppData\\Roaming\\MetaQuotes\\Terminal\\D0E8209F77C8CF37AD8BF550E51FF075";
    t.commondata_path = "C:\\Users\\trader\\AppData\\Roaming\\MetaQuotes\\Terminal\\Common";
    return t;
  });
}

int64_t SimTerminal::symbols_total() {
  return record([&] { return static_cast<int64_t>(market_.symbols().size()); });
}

std::vector<SymbolInfo> SimTerminal::symbols_get(const std::optional<std::string>& group) {
  return record([&] {
    std::vector<SymbolInfo> out;
    for (const SymbolSpec& s : market_.symbols()) {
      if (group && !group_match(*group, s.info.name)) continue;
      SymbolInfo info = market_.symbol_info(s);
      info.select = info.visible = selected_.count(s.info.name) > 0;
      out.push_back(std::move(info));
    }
    return out;
  });
}

SymbolInfo SimTerminal::symbol_info(const std::string& symbol) {
  return record([&] {
    SymbolInfo info = market_.symbol_info(spec(symbol));
    info.select = info.visible = selected_.count(symbol) > 0;
    return info;
  });
}

// Like the real terminal, which needs the symbol in Market Watch and otherwise fails with the
// commonly reported (-1, 'Terminal: Call failed') (mt5-reference §2.3, §8); the kind
// not_selected tells the gateway why. An unknown symbol is still not_found (-4).
Tick SimTerminal::symbol_info_tick(const std::string& symbol) {
  return record([&] {
    const SymbolSpec& s = spec(symbol);
    if (selected_.count(symbol) == 0) throw TerminalError::not_selected();
    return market_.live_tick(s);
  });
}

bool SimTerminal::symbol_select(const std::string& symbol, bool enable) {
  return record([&] {
    spec(symbol);
    if (enable) {
      selected_.insert(symbol);
      return true;
    }
    // Like the real terminal: a symbol in use by a position or an order cannot be hidden.
    const auto positions = account_.positions();
    const auto orders = account_.orders();
    const bool in_use =
        std::any_of(positions.begin(), positions.end(), [&](const TradePosition& p) { return p.symbol == symbol; }) ||
        std::any_of(orders.begin(), orders.end(), [&](const TradeOrder& o) { return o.symbol == symbol; });
    if (in_use) throw TerminalError::call_failed();
    selected_.erase(symbol);
    book_subscribed_.erase(symbol);
    return true;
  });
}

bool SimTerminal::market_book_add(const std::string& symbol) {
  return record([&] {
    if (spec(symbol).info.ticks_bookdepth <= 0) throw TerminalError::call_failed();
    selected_.insert(symbol);  // subscribing shows the symbol, as in the terminal
    book_subscribed_.insert(symbol);
    return true;
  });
}

std::vector<BookInfo> SimTerminal::market_book_get(const std::string& symbol) {
  return record([&] {
    const SymbolSpec& s = spec(symbol);
    if (book_subscribed_.count(symbol) == 0) throw TerminalError::not_subscribed();
    return market_.book(s);
  });
}

bool SimTerminal::market_book_release(const std::string& symbol) {
  return record([&] {
    spec(symbol);
    if (book_subscribed_.erase(symbol) == 0) throw TerminalError::not_subscribed();
    return true;
  });
}

std::unique_ptr<RateCursor> SimTerminal::copy_rates_from(const std::string& symbol, int64_t timeframe,
                                                         int64_t date_from, int64_t count) {
  return record([&] { return market_.rates_from(spec(symbol), timeframe, date_from, count); });
}

std::unique_ptr<RateCursor> SimTerminal::copy_rates_from_pos(const std::string& symbol, int64_t timeframe,
                                                             int64_t start_pos, int64_t count) {
  return record([&] { return market_.rates_from_pos(spec(symbol), timeframe, start_pos, count); });
}

std::unique_ptr<RateCursor> SimTerminal::copy_rates_range(const std::string& symbol, int64_t timeframe,
                                                          int64_t date_from, int64_t date_to) {
  return record([&] { return market_.rates_range(spec(symbol), timeframe, date_from, date_to); });
}

std::unique_ptr<TickCursor> SimTerminal::copy_ticks_from(const std::string& symbol, int64_t date_from_msc,
                                                         int64_t count, int64_t flags) {
  return record([&] { return market_.ticks_from(spec(symbol), date_from_msc, count, flags); });
}

std::unique_ptr<TickCursor> SimTerminal::copy_ticks_range(const std::string& symbol, int64_t date_from_msc,
                                                          int64_t date_to_msc, int64_t flags) {
  return record([&] { return market_.ticks_range(spec(symbol), date_from_msc, date_to_msc, flags); });
}

}  // namespace tradeapi::sim
