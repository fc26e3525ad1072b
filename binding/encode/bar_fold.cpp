#include "bar_fold.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tradeapi::encode {

namespace {

constexpr uint32_t kTickFlagLast = 8;     // TICK_FLAG_LAST
constexpr uint32_t kTickFlagVolume = 16;  // TICK_FLAG_VOLUME
constexpr int64_t kDayMs = 86'400'000;
constexpr int64_t kDayS = 86'400;
constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Integer points of a price that is an exact decimal of `digits` places (as the terminal makes them).
int64_t points(double price, double scale) { return static_cast<int64_t>(std::llround(price * scale)); }

}  // namespace

BarFold::BarFold(BarFoldOptions options) : o_(std::move(options)) {
  by_time_ = o_.kind == BarFoldOptions::Kind::Time || o_.kind == BarFoldOptions::Kind::Week;
  length_ms_ = (o_.kind == BarFoldOptions::Kind::Week ? 7 * kDayS : o_.kind == BarFoldOptions::Kind::Time ? o_.seconds : kDayS) * 1000;
  scale_ = std::pow(10.0, o_.digits);
  const auto& tr = o_.transitions;
  for (size_t k = 1; k < tr.size(); ++k) {
    if (tr[k].second < tr[k - 1].second) repeats_.emplace_back((tr[k].first + tr[k].second) * 1000, (tr[k].first + tr[k - 1].second) * 1000);
  }
  offset_ms_ = tr.empty() ? 0 : tr[0].second * 1000;
  next_change_ms_ = tr.size() > 1 ? tr[1].first * 1000 : kNever;
}

void BarFold::advance_zone(int64_t msc) {
  const auto& tr = o_.transitions;
  while (at_ + 1 < tr.size() && msc >= tr[at_ + 1].first * 1000) ++at_;
  offset_ms_ = tr[at_].second * 1000;
  next_change_ms_ = at_ + 1 < tr.size() ? tr[at_ + 1].first * 1000 : kNever;
}

int64_t BarFold::to_utc_seconds(int64_t s) const {
  const auto& tr = o_.transitions;
  if (tr.empty()) return s;
  int64_t best = kNever;
  for (size_t k = 0; k < tr.size(); ++k) {
    const int64_t u = s - tr[k].second;
    const bool after_start = k == 0 || u >= tr[k].first;
    const bool before_end = k + 1 == tr.size() || u < tr[k + 1].first;
    if (after_start && before_end) best = std::min(best, u);
  }
  if (best != kNever) return best;
  // A skipped server time: the offset before the change it falls in.
  for (size_t k = 1; k < tr.size(); ++k) {
    if (s < tr[k].first + tr[k].second) return s - tr[k - 1].second;
  }
  return s - tr.back().second;
}

BarFold::Open BarFold::new_bar(int64_t start, int64_t end, int64_t due, int64_t stamp) const {
  Open b;
  b.start = start;
  b.end = end;
  b.due = due;
  b.stamp = stamp;
  return b;
}

BarFold::Open* BarFold::time_bar_for(int64_t s) {
  // Bars that can take no more ticks go out, oldest first.
  size_t done = 0;
  while (done < bars_.size() && bars_[done].due <= s) emit(bars_[done++]);
  if (done > 0) bars_.erase(bars_.begin(), bars_.begin() + static_cast<std::ptrdiff_t>(done));
  int64_t start = 0;
  const int64_t sec = floor_div(s, 1000);
  if (o_.kind == BarFoldOptions::Kind::Week) {
    const int64_t day = floor_div(sec, kDayS);
    const int64_t weekday = ((day + 4) % 7 + 7) % 7;  // 1970-01-01 was a Thursday; Sunday is 0
    start = (day - weekday) * kDayS * 1000;
  } else {
    start = floor_div(sec, o_.seconds) * o_.seconds * 1000;
  }
  size_t k = bars_.size();
  while (k > 0 && bars_[k - 1].start > start) --k;
  if (k > 0 && bars_[k - 1].start == start) return &bars_[k - 1];
  const int64_t end = start + length_ms_;
  int64_t due = end;
  for (const auto& [from, to] : repeats_) {
    if (from < end && to > start && to > due) due = to;
  }
  auto it = bars_.insert(bars_.begin() + static_cast<std::ptrdiff_t>(k), new_bar(start, end, due, to_utc_seconds(start / 1000)));
  return &*it;
}

void BarFold::push(const TickView& t) {
  const bool by_last = o_.price == BarFoldOptions::Price::Last;
  const bool ticks_kind = o_.kind == BarFoldOptions::Kind::Ticks;
  // Tick and volume bars: the one bar open, kept at bars_[0].
  Open* bar = bars_.empty() ? nullptr : by_time_ ? nullptr : &bars_[0];
  for (size_t i = 0; i < t.rows; ++i) {
    const int64_t msc = t.time_msc[i];
    if (msc >= next_change_ms_) advance_zone(msc);
    const int64_t s = msc + offset_ms_;
    if (by_time_) {
      if (bar == nullptr || s >= bar->end || s < bar->start) bar = time_bar_for(s);
    } else if (bar == nullptr || s >= bar->end) {
      // A new tick or volume bar; the one before, if any, ended with its day.
      if (bar != nullptr) emit(*bar);
      bars_.clear();
      const int64_t start = floor_div(s, kDayMs) * kDayMs;
      bars_.push_back(new_bar(start, start + kDayMs, kNever, floor_div(msc, 1000)));
      bar = &bars_[0];
    }
    const double b = t.bid[i];
    const double a = t.ask[i];
    const uint32_t f = t.flags[i];
    ++bar->ticks;
    const int64_t spread = points(a, scale_) - points(b, scale_);
    if (spread < bar->spread) bar->spread = spread;
    double traded = 0;
    if (f & kTickFlagVolume) {
      bar->real_volume += t.volume[i];
      traded = t.volume_real[i];
    }
    bar->close_msc = msc;
    if (!by_last || (f & kTickFlagLast)) {
      double v = b;
      switch (o_.price) {
        case BarFoldOptions::Price::Bid: v = b; break;
        case BarFoldOptions::Price::Ask: v = a; break;
        case BarFoldOptions::Price::Mid: v = (b + a) / 2; break;
        case BarFoldOptions::Price::Last: v = t.last[i]; break;
      }
      if (!bar->priced) {
        bar->priced = true;
        bar->open = bar->high = bar->low = v;
      } else if (v > bar->high) {
        bar->high = v;
      } else if (v < bar->low) {
        bar->low = v;
      }
      bar->close = v;
    }
    if (by_time_) continue;
    bar->traded += traded;
    if (ticks_kind ? bar->ticks >= o_.count : bar->traded >= o_.size) {
      emit(*bar);
      bars_.clear();
      bar = nullptr;
    }
  }
}

void BarFold::finish(int64_t now_server_ms, bool forming) {
  for (const Open& bar : bars_) {
    if (forming || now_server_ms >= bar.end) emit(bar);
  }
  bars_.clear();
}

void BarFold::emit(const Open& bar) {
  if (!bar.priced || bar.stamp < o_.from_s || bar.stamp > o_.to_s) return;
  out_.time.push_back(bar.stamp);
  out_.open.push_back(bar.open);
  out_.high.push_back(bar.high);
  out_.low.push_back(bar.low);
  out_.close.push_back(bar.close);
  out_.tick_volume.push_back(bar.ticks);
  out_.spread.push_back(static_cast<int32_t>(std::min<int64_t>(bar.spread, std::numeric_limits<int32_t>::max())));
  out_.real_volume.push_back(bar.real_volume);
  out_.time_close_msc.push_back(bar.close_msc);
}

}  // namespace tradeapi::encode
