// The simulated market: symbol catalogue, a deterministic price path per symbol that is a pure
// function of (seed, symbol, time), ticks and bars derived from it, and depth around the live price.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "../terminal/columns.h"
#include "../terminal/records.h"
#include "config.h"
#include "factor_model.h"

namespace tradeapi::sim {

namespace detail {
class ServerClock;
}

// When a symbol trades, in its exchange's clock (exchange_calendar.h has the hours and holidays).
enum class SessionKind {
  Forex,     // Sun 17:00 -> Fri 17:00 New York, continuous
  Metal,     // as Forex, with the CME's daily 17:00-18:00 New York break
  IndexUS,   // as Metal (index CFDs on CME futures trade nearly around the clock)
  IndexDE,   // Mon-Fri 01:15-22:00 Frankfurt
  IndexUK,   // Mon-Fri 01:00-21:00 London
  Stock,     // the NYSE's 09:30-16:00 New York, US exchange holidays
  Crypto,    // 24/7
};

struct SymbolSpec {
  SymbolInfo info;            // the static fields (name, digits, point, contract size, modes, currencies...)
  double base_price = 1.0;    // level the path wanders around
  double volatility = 0.1;    // annualised, for the path (when drivers is empty)
  std::vector<Driver> drivers;  // the factors moving the price (factor_model.h); empty = one of its own
  double spread_points = 10;  // typical spread, points
  SessionKind session = SessionKind::Forex;
  bool trade_ticks = false;   // emits last/volume (COPY_TICKS_TRADE) ticks
  // Initial margin rate (MQL5 SymbolInfoMarginRate): multiplies the calc-mode formula's margin.
  // Not a field of the Python symbol_info, as in MT5; brokers use it for CFD leverage by class.
  double margin_rate = 1.0;
};

class Market {
 public:
  explicit Market(const SimConfig& config);
  ~Market();
  Market(const Market&) = delete;
  Market& operator=(const Market&) = delete;

  const SimConfig& config() const { return config_; }
  int64_t now_ms() const;  // server wall clock, ms

  const std::vector<SymbolSpec>& symbols() const { return symbols_; }  // in server order
  const SymbolSpec* find(const std::string& name) const;               // nullptr when unknown

  bool is_open(const SymbolSpec& s, int64_t time_msc) const;
  // Last tick at or before t (throws TerminalError not_found when there is none since history_start).
  Tick tick_at(const SymbolSpec& s, int64_t time_msc) const;
  // The live tick: a fixed quote from the config if any, else tick_at(now).
  Tick live_tick(const SymbolSpec& s) const;
  // Static spec plus the live fields (bid/ask/last, time, spread, day highs/lows, session_open/close...).
  SymbolInfo symbol_info(const SymbolSpec& s) const;
  // Depth around the live tick: sells then buys, price descending (mt5-reference §2.5).
  std::vector<BookInfo> book(const SymbolSpec& s) const;

  // The extremes of one server minute's quotes at or before until_ms, from the cached M1
  // aggregates: the living account finds crossings here and reads ticks only inside the minutes
  // whose range reaches a price. any == false: no tick in that minute (closed, or not yet).
  struct QuoteRange {
    bool any = false, has_last = false;
    double bid_high = 0, bid_low = 0, ask_high = 0, ask_low = 0, last_high = 0, last_low = 0;
  };
  QuoteRange minute_range(const SymbolSpec& s, int64_t minute, int64_t until_ms) const {
    return quote_range(s, minute, minute + 1, until_ms);
  }
  // The same over the server minutes [first_minute, end_minute).
  QuoteRange quote_range(const SymbolSpec& s, int64_t first_minute, int64_t end_minute, int64_t until_ms) const;
  // Calls fn with the ticks of one server minute in (after_ms, until_ms], in time order, until fn
  // returns true; returns that tick, or nothing.
  std::optional<Tick> first_tick_where(const SymbolSpec& s, int64_t minute, int64_t after_ms, int64_t until_ms,
                                       const std::function<bool(const Tick&)>& fn) const;

  // Series (mt5-reference §3). Argument errors throw TerminalError invalid_params.
  std::unique_ptr<TickCursor> ticks_range(const SymbolSpec& s, int64_t from_msc, int64_t to_msc, int64_t flags) const;
  std::unique_ptr<TickCursor> ticks_from(const SymbolSpec& s, int64_t from_msc, int64_t count, int64_t flags) const;
  std::unique_ptr<RateCursor> rates_range(const SymbolSpec& s, int64_t timeframe, int64_t from_s, int64_t to_s) const;
  std::unique_ptr<RateCursor> rates_from(const SymbolSpec& s, int64_t timeframe, int64_t date_from_s,
                                         int64_t count) const;
  std::unique_ptr<RateCursor> rates_from_pos(const SymbolSpec& s, int64_t timeframe, int64_t start_pos,
                                             int64_t count) const;

 private:
  SimConfig config_;
  std::chrono::steady_clock::time_point opened_;  // where a clock_start_ms clock starts running
  int64_t start_utc_ms_ = 0;                      // what a running clock reads at opened_
  std::shared_ptr<const detail::ServerClock> clock_;  // server time <-> UTC (server_clock.h)
  std::vector<SymbolSpec> symbols_;
  std::unordered_map<std::string, size_t> index_;
  struct Cache;                   // e.g. an LRU of M1 bars per (symbol, day); used only on the worker thread
  std::unique_ptr<Cache> cache_;
  // Open time of the oldest bar served (history_start, or the newest maxbars bars: MT5 serves
  // only what a chart holds); cached per (symbol, timeframe) until a new bar opens.
  int64_t oldest_bar_open(size_t slot, int64_t timeframe_value, int64_t now_ms) const;
};

// The group filter of symbols_get / orders_get / positions_get / history_*_get (mt5-reference §2.4):
// comma-separated masks, '*' anywhere, '!' excludes, applied in order from an empty set,
// conditions trimmed, case-sensitive.
bool group_match(const std::string& group, const std::string& name);

// The catalogue of simulated symbols (~30), in server order.
std::vector<SymbolSpec> symbol_catalogue();

}  // namespace tradeapi::sim
