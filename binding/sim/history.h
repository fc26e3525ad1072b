// Derived data over the price paths of all symbols: per-minute bar aggregates (cached per
// (symbol, day) in a bounded LRU), whole-day summaries, and which minutes hold ticks at all.
// Used only from the terminal's worker thread (no locking). Internal to the simulator.
#pragma once
#include <cstdint>
#include <list>
#include <limits>
#include <unordered_map>
#include <vector>

#include "price_path.h"

namespace tradeapi::sim::detail {

// OHLC of bids plus what symbol_info's day statistics need; prices in integer points.
struct BarAgg {
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::min();
  int64_t open = 0, high = kNone, low = std::numeric_limits<int64_t>::max(), close = 0;
  int64_t ask_high = kNone, ask_low = std::numeric_limits<int64_t>::max();
  int64_t last_high = kNone, last_low = std::numeric_limits<int64_t>::max();
  int64_t last_open = kNone, last_close = kNone;  // first/last trade price (kNone: no trade)
  int64_t min_spread = std::numeric_limits<int64_t>::max();
  uint64_t ticks = 0;
  uint64_t real_volume = 0;  // sum of trade volumes (trade-tick symbols)

  bool empty() const { return ticks == 0; }
  // Appends a later aggregate (time order matters for open/close).
  void merge(const BarAgg& o) {
    if (o.ticks == 0) return;
    if (ticks == 0) open = o.open;
    close = o.close;
    if (o.high > high) high = o.high;
    if (o.low < low) low = o.low;
    if (o.ask_high > ask_high) ask_high = o.ask_high;
    if (o.ask_low < ask_low) ask_low = o.ask_low;
    if (o.last_open != kNone) {
      if (last_open == kNone) last_open = o.last_open;
      last_close = o.last_close;
    }
    if (o.last_high > last_high) last_high = o.last_high;
    if (o.last_low < last_low) last_low = o.last_low;
    if (o.min_spread < min_spread) min_spread = o.min_spread;
    ticks += o.ticks;
    real_volume += o.real_volume;
  }
  // Folds in one tick (time order).
  void add(int64_t bid, int64_t ask, int64_t last, uint32_t volume, uint32_t flags) {
    if (ticks == 0) open = bid;
    close = bid;
    if (bid > high) high = bid;
    if (bid < low) low = bid;
    if (ask > ask_high) ask_high = ask;
    if (ask < ask_low) ask_low = ask;
    if (flags & static_cast<uint32_t>(mt5::TICK_FLAG_LAST)) {
      if (last_open == kNone) last_open = last;
      last_close = last;
      if (last > last_high) last_high = last;
      if (last < last_low) last_low = last;
    }
    if (flags & static_cast<uint32_t>(mt5::TICK_FLAG_VOLUME)) real_volume += volume;
    if (ask - bid < min_spread) min_spread = ask - bid;
    ++ticks;
  }
};

class History {
 public:
  History(std::vector<PricePath> paths, int64_t first_ms);

  const PricePath& path(size_t slot) const { return paths_[slot]; }
  // Server ms of the first minute of history (config.history_start rounded up to a whole minute).
  int64_t first_ms() const { return first_ms_; }

  // Whether the minute holds at least one tick at or before now_ms. Cheap: no tick generation.
  bool minute_exists(size_t slot, int64_t minute, int64_t now_ms) const;
  // Whether [from_s, to_s) (minute aligned) holds at least one tick at or before now_ms.
  bool period_exists(size_t slot, int64_t from_s, int64_t to_s, int64_t now_ms) const;
  // Aggregate of the ticks in [from_s, to_s) (minute aligned) at or before now_ms.
  BarAgg aggregate(size_t slot, int64_t from_s, int64_t to_s, int64_t now_ms);
  // Computes the whole-day aggregates of the days in [from_s, to_s) that are complete before now_ms
  // and not cached yet, on up to hardware_concurrency threads: days are independent, so the first
  // D1/W1/MN1 request over years of history (every tick of those years) costs a fraction of one
  // core's time. aggregate() then finds them cached; the result is the same either way.
  void warm_days(size_t slot, int64_t from_s, int64_t to_s, int64_t now_ms);

 private:
  struct DayMinutes {
    std::vector<BarAgg> bars = std::vector<BarAgg>(kMinutesPerDay);
    int64_t final_minutes = 0;  // bars[0, final_minutes) are computed and can no longer change
  };
  const DayMinutes& day_minutes(size_t slot, int64_t day, int64_t final_to_minute);
  BarAgg minute_bar(size_t slot, int64_t minute, int64_t now_ms) const;  // computed, not cached
  const BarAgg& day_summary(size_t slot, int64_t day);  // only for days complete before now
  // A complete day's aggregate straight from its ticks (no minute cache); thread-safe.
  BarAgg whole_day(size_t slot, int64_t day, AnchorWalker& anchors) const;

  static uint64_t key(size_t slot, int64_t day) { return (static_cast<uint64_t>(slot) << 40) ^ static_cast<uint64_t>(day); }

  std::vector<PricePath> paths_;
  int64_t first_ms_;
  // LRU of per-minute aggregates: ~140 KB per (symbol, day), so bounded.
  static constexpr size_t kMaxDays = 128;
  std::list<std::pair<uint64_t, DayMinutes>> lru_;
  std::unordered_map<uint64_t, std::list<std::pair<uint64_t, DayMinutes>>::iterator> lru_index_;
  // Whole-day aggregates are ~100 bytes: kept for every day asked (years of D1/W1/MN1 stay fast).
  std::unordered_map<uint64_t, BarAgg> days_;
};

}  // namespace tradeapi::sim::detail
