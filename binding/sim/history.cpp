#include "history.h"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <utility>

namespace tradeapi::sim::detail {

namespace {
// Folds a whole minute (no timestamps needed).
struct WholeMinuteSink {
  BarAgg agg;
  void tick(int64_t, int64_t bid, int64_t ask, int64_t last, uint32_t volume, uint32_t flags) {
    agg.add(bid, ask, last, volume, flags);
  }
};
// Folds the ticks of the forming minute that are not in the future.
struct UpToSink {
  BarAgg agg;
  int64_t to_ms;
  void tick(int64_t msc, int64_t bid, int64_t ask, int64_t last, uint32_t volume, uint32_t flags) {
    if (msc <= to_ms) agg.add(bid, ask, last, volume, flags);
  }
};
}  // namespace

History::History(std::vector<PricePath> paths, int64_t first_ms) : paths_(std::move(paths)), first_ms_(first_ms) {}

bool History::minute_exists(size_t slot, int64_t minute, int64_t now_ms) const {
  const PricePath& p = paths_[slot];
  const int64_t start = minute * kMinuteMs;
  return start >= first_ms_ && start + p.first_offset_ms(minute) <= now_ms && p.open(minute);
}

bool History::period_exists(size_t slot, int64_t from_s, int64_t to_s, int64_t now_ms) const {
  const int64_t m0 = std::max(floor_div(from_s, 60), first_ms_ / kMinuteMs);
  const int64_t m1 = std::min(floor_div(to_s, 60), floor_div(now_ms, kMinuteMs) + 1);
  for (int64_t m = m0; m < m1; ++m) {
    if (minute_exists(slot, m, now_ms)) return true;
  }
  return false;
}

BarAgg History::minute_bar(size_t slot, int64_t minute, int64_t now_ms) const {
  if (!minute_exists(slot, minute, now_ms)) return BarAgg{};
  const PricePath& p = paths_[slot];
  double a0, a1;
  p.minute_anchors(minute, a0, a1);
  if ((minute + 1) * kMinuteMs - 1 <= now_ms) {
    WholeMinuteSink sink;
    p.emit(minute, a0, a1, sink);
    return sink.agg;
  }
  UpToSink sink{BarAgg{}, now_ms};
  p.emit(minute, a0, a1, sink);
  return sink.agg;
}

const History::DayMinutes& History::day_minutes(size_t slot, int64_t day, int64_t final_to_minute) {
  const uint64_t k = key(slot, day);
  auto it = lru_index_.find(k);
  if (it != lru_index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);  // most recently used first
  } else {
    lru_.emplace_front(k, DayMinutes{});
    lru_index_[k] = lru_.begin();
    if (lru_.size() > kMaxDays) {
      lru_index_.erase(lru_.back().first);
      lru_.pop_back();
    }
  }
  DayMinutes& dm = lru_.front().second;
  const int64_t day_first = day * kMinutesPerDay;
  const int64_t target = std::clamp<int64_t>(final_to_minute - day_first, 0, kMinutesPerDay);
  if (dm.final_minutes < target) {
    const PricePath& p = paths_[slot];
    AnchorWalker anchors(p);
    for (int64_t i = dm.final_minutes; i < target; ++i) {
      const int64_t minute = day_first + i;
      // Complete minutes only, so "exists" does not depend on now.
      if (!minute_exists(slot, minute, INT64_MAX)) continue;
      double a0, a1;
      anchors.anchors(minute, a0, a1);
      WholeMinuteSink sink;
      p.emit(minute, a0, a1, sink);
      dm.bars[static_cast<size_t>(i)] = sink.agg;
    }
    dm.final_minutes = target;
  }
  return dm;
}

const BarAgg& History::day_summary(size_t slot, int64_t day) {
  const uint64_t k = key(slot, day);
  auto it = days_.find(k);
  if (it != days_.end()) return it->second;
  BarAgg agg;
  const DayMinutes& dm = day_minutes(slot, day, (day + 1) * kMinutesPerDay);
  for (const BarAgg& b : dm.bars) agg.merge(b);
  return days_.emplace(k, agg).first->second;
}

BarAgg History::whole_day(size_t slot, int64_t day, AnchorWalker& anchors) const {
  const PricePath& p = paths_[slot];
  WholeMinuteSink sink;  // one aggregate over the day's ticks in time order = the merge of its minutes
  for (int64_t minute = day * kMinutesPerDay, end = minute + kMinutesPerDay; minute < end; ++minute) {
    if (!minute_exists(slot, minute, INT64_MAX)) continue;
    double a0, a1;
    anchors.anchors(minute, a0, a1);
    p.emit(minute, a0, a1, sink);
  }
  return sink.agg;
}

void History::warm_days(size_t slot, int64_t from_s, int64_t to_s, int64_t now_ms) {
  constexpr size_t kMinDays = 16;  // below this the threads cost more than they save
  const int64_t first_day = std::max(floor_div(from_s, kDayS), floor_div(first_ms_, kDayS * 1000));
  const int64_t end_day = std::min(floor_div(to_s + kDayS - 1, kDayS), floor_div(now_ms + 1, kMinuteMs) / kMinutesPerDay);
  std::vector<int64_t> missing;
  for (int64_t d = first_day; d < end_day; ++d) {
    if (days_.find(key(slot, d)) == days_.end()) missing.push_back(d);
  }
  const unsigned cores = std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
  if (missing.size() < kMinDays || cores < 2) return;
  std::vector<BarAgg> out(missing.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    AnchorWalker anchors(paths_[slot]);
    for (size_t i = next.fetch_add(1); i < missing.size(); i = next.fetch_add(1)) out[i] = whole_day(slot, missing[i], anchors);
  };
  std::vector<std::thread> helpers;
  for (unsigned k = 1; k < cores; ++k) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no thread to be had: the others (and this one) share the days
    }
  }
  work();
  for (std::thread& t : helpers) t.join();
  for (size_t i = 0; i < missing.size(); ++i) days_.emplace(key(slot, missing[i]), out[i]);
}

BarAgg History::aggregate(size_t slot, int64_t from_s, int64_t to_s, int64_t now_ms) {
  BarAgg out;
  const int64_t final_to = floor_div(now_ms + 1, kMinuteMs);  // minutes before this one are complete
  int64_t m0 = std::max(floor_div(from_s, 60), first_ms_ / kMinuteMs);
  const int64_t m1 = std::min(floor_div(to_s, 60), final_to + 1);  // final_to itself may be forming
  while (m0 < m1) {
    const int64_t day = floor_div(m0, kMinutesPerDay);
    const int64_t d0 = day * kMinutesPerDay, d1 = d0 + kMinutesPerDay;
    const int64_t b = std::min(m1, d1);
    if (m0 == d0 && b == d1 && d1 <= final_to) {
      out.merge(day_summary(slot, day));
    } else {
      const int64_t complete_end = std::min(b, final_to);
      if (m0 < complete_end) {
        const DayMinutes& dm = day_minutes(slot, day, final_to);
        for (int64_t m = m0; m < complete_end; ++m) out.merge(dm.bars[static_cast<size_t>(m - d0)]);
      }
      if (final_to >= m0 && final_to < b) out.merge(minute_bar(slot, final_to, now_ms));
    }
    m0 = b;
  }
  return out;
}

}  // namespace tradeapi::sim::detail
