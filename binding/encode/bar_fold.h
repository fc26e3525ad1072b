// Custom bars folded from tick columns (GET /ticks/bars), with the terminal's own bar rules
// (sim/history.h BarAgg, sim/series_cursors.cpp), so that a period equal to an MT5 timeframe gives
// exactly its rates:
//
//   prices       open/high/low/close of the chosen price: bid, ask, mid = (bid + ask) / 2, or last
//                (trade ticks only, TICK_FLAG_LAST; a bar without a trade is no bar)
//   tick_volume  every tick of the bar
//   spread       the least ask - bid of the bar's ticks, in points (not confirmed for MT5)
//   real_volume  the sum of `volume` over the ticks flagged TICK_FLAG_VOLUME
//
// Time bars are cut on the server's wall clock: a tick's server time is its UTC time plus the
// offset of the transition table then (the gateway's zoneTransitions). When clocks go back, both
// passes of the repeated hour fall into the same bars, stamped with the earlier UTC instant: bars
// that overlap a repeated hour stay open until the clock has left it. A skipped hour has no ticks,
// hence no bars. Tick and volume bars restart at each server-time day start and are stamped with
// their first tick's second.
//
// Memory: the bars still open (one; a repeated hour's worth across a change) and the bars folded
// since the caller last took them. Knows nothing of Node.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "../terminal/columns.h"

namespace tradeapi::encode {

struct BarFoldOptions {
  enum class Kind { Time, Week, Ticks, Volume };
  enum class Price { Bid, Ask, Mid, Last };
  Kind kind = Kind::Time;
  int64_t seconds = 60;   // Time: divides a day
  uint64_t count = 0;     // Ticks
  double size = 0;        // Volume
  Price price = Price::Bid;
  int digits = 5;         // spreads in points of 10^-digits
  // [from UTC second, server minus UTC in seconds], ascending; empty: server time is UTC.
  std::vector<std::pair<int64_t, int64_t>> transitions;
  // Bars whose time (UTC seconds) lies in [from_s, to_s] are kept.
  int64_t from_s = 0, to_s = 0;
};

// A chunk of ticks as the series hand them out (columns.h TickColumns), read in place.
struct TickView {
  size_t rows = 0;
  const int64_t* time_msc = nullptr;
  const double* bid = nullptr;
  const double* ask = nullptr;
  const double* last = nullptr;
  const uint64_t* volume = nullptr;
  const uint32_t* flags = nullptr;
  const double* volume_real = nullptr;
};

// Rates' columns, then the UTC time of each bar's last tick, ms.
struct BarColumns : RateColumns {
  Column<int64_t> time_close_msc;
};

class BarFold {
 public:
  explicit BarFold(BarFoldOptions options);

  // Folds ticks ascending in time, after those folded before.
  void push(const TickView& ticks);
  // The bars still open once the ticks have run out: a bar is complete when the terminal's time
  // (server ms) has reached its end; one still forming is kept only when `forming`.
  void finish(int64_t now_server_ms, bool forming);
  // The bars folded so far and not taken yet, in time order; the caller moves or clears them.
  BarColumns& bars() { return out_; }

  // The UTC second of a server second: the earlier instant in a repeated hour, the offset before
  // the change in a skipped one (the gateway's ServerZone.toUtcSeconds).
  int64_t to_utc_seconds(int64_t server_s) const;

 private:
  struct Open {
    int64_t start = 0, due = 0, end = 0;  // server ms
    int64_t stamp = 0;                    // UTC seconds
    bool priced = false;
    double open = 0, high = 0, low = 0, close = 0;
    uint64_t ticks = 0;
    int64_t spread = INT64_MAX;
    uint64_t real_volume = 0;
    double traded = 0;
    int64_t close_msc = 0;
  };

  void advance_zone(int64_t msc);
  Open* time_bar_for(int64_t s);
  Open new_bar(int64_t start, int64_t end, int64_t due, int64_t stamp) const;
  void emit(const Open& bar);

  BarFoldOptions o_;
  bool by_time_;
  int64_t length_ms_;
  double scale_;
  std::vector<std::pair<int64_t, int64_t>> repeats_;  // server ms [from, to) where clocks went back
  size_t at_ = 0;
  int64_t offset_ms_ = 0;
  int64_t next_change_ms_ = INT64_MAX;
  std::vector<Open> bars_;  // time bars still open, by start (tick and volume bars: at most one)
  BarColumns out_;
};

}  // namespace tradeapi::encode
