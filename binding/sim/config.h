// Everything that shapes the simulated terminal, in one object (from JS: createSimTerminal(config)).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tradeapi::sim {

struct FixedQuote {
  double bid = 0, ask = 0;
};

// From this UTC second on, the server clock reads UTC + offset_s (a time zone is a list of them).
struct ZoneTransition {
  int64_t utc_s = 0, offset_s = 0;
};

struct SimConfig {
  uint64_t seed = 20240101;
  // Demo account.
  std::string currency = "USD";
  int64_t leverage = 100;
  double balance = 10000.0;   // balance after the generated history
  int64_t login = 5001234;
  bool demo_trades = true;    // open positions, pending orders and a year of history; false = empty account
  int64_t account_anchor = 0; // end of the generated history, seconds; 0 = start of the current UTC day
  // Market.
  std::vector<std::string> symbols;          // subset of the catalogue; empty = whole catalogue
  int64_t server_utc_offset_s = 0;           // stamps are server wall clock = UTC + offset...
  std::vector<ZoneTransition> server_zone;   // ...or by these transitions (sorted; overrides the offset)
  int64_t history_start = 1577836800;        // 2020-01-01T00:00:00Z: nothing exists before it
  int64_t now_ms = 0;                        // 0 = wall clock; otherwise a frozen clock (tests)
  // Not 0 (and now_ms 0): the clock reads this UTC instant, ms, when the terminal opens and runs
  // at wall speed from there, so that a live market (ticks arriving in real time) can be had on any
  // day and hour: tests that wait for ticks, demos on a weekend (TRADEAPI_SIM_CLOCK).
  int64_t clock_start_ms = 0;
  // Speed of a running clock (clock_start_ms, or the wall clock when this is not 1): simulated ms
  // per real ms, so that an hour of trading passes in a minute at 60 (TRADEAPI_SIM_CLOCK_RATE).
  double clock_rate = 1.0;
  // The trading schedule after the generated history (trading_schedule.h): actions per hour on
  // average; 0 = none (pending orders, SL/TP and stop-out still play). TRADEAPI_SIM_TRADES_PER_HOUR.
  double trades_per_hour = 4.0;
  std::map<std::string, FixedQuote> fixed_quotes;  // pin the live quote of symbols (tests, what-if)
  // Terminal.
  int64_t maxbars = 1000000;                 // "Max. bars in chart": requests of >= maxbars bars fail (-2)
  int64_t comment_max_length = 31;
  bool trade_allowed = true;                 // algo trading button; false -> order_check retcode 10027
};

}  // namespace tradeapi::sim
