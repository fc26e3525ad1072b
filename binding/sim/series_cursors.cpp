#include "series_cursors.h"

#include <algorithm>

namespace tradeapi::sim::detail {

namespace {

void clear(TickColumns& c) {
  c.time.clear(); c.bid.clear(); c.ask.clear(); c.last.clear(); c.volume.clear();
  c.time_msc.clear(); c.flags.clear(); c.volume_real.clear();
}
void resize(TickColumns& c, size_t n) {
  c.time.resize(n); c.bid.resize(n); c.ask.resize(n); c.last.resize(n); c.volume.resize(n);
  c.time_msc.resize(n); c.flags.resize(n); c.volume_real.resize(n);
}
template <typename T>
void append(std::vector<T>& to, const std::vector<T>& from, size_t pos, size_t n) {
  to.insert(to.end(), from.begin() + static_cast<std::ptrdiff_t>(pos), from.begin() + static_cast<std::ptrdiff_t>(pos + n));
}
void append(TickColumns& to, const TickColumns& from, size_t pos, size_t n) {
  append(to.time, from.time, pos, n); append(to.bid, from.bid, pos, n); append(to.ask, from.ask, pos, n);
  append(to.last, from.last, pos, n); append(to.volume, from.volume, pos, n);
  append(to.time_msc, from.time_msc, pos, n); append(to.flags, from.flags, pos, n);
  append(to.volume_real, from.volume_real, pos, n);
}

// Writes the ticks of one minute into pre-sized columns through raw pointers (the hot loop).
struct ColumnSink {
  int64_t* time; double* bid; double* ask; double* last; uint64_t* volume; int64_t* time_msc; uint32_t* flags;
  double* volume_real;
  size_t row;
  int64_t lo, hi;
  uint32_t mask;
  double scale;

  void tick(int64_t msc, int64_t b, int64_t a, int64_t l, uint32_t vol, uint32_t f) {
    if (msc < lo || msc > hi || (mask != 0 && (f & mask) == 0)) return;
    time[row] = msc / 1000;  // msc >= 0 here: history starts after 1970
    // Integer points divided by an exact power of ten: the double nearest the decimal price.
    bid[row] = static_cast<double>(b) / scale;
    ask[row] = static_cast<double>(a) / scale;
    last[row] = static_cast<double>(l) / scale;
    volume[row] = vol;
    time_msc[row] = msc;
    flags[row] = f;
    volume_real[row] = static_cast<double>(vol);
    ++row;
  }
};

class TickSeriesCursor final : public TickCursor {
 public:
  TickSeriesCursor(const PricePath& path, int64_t lo_ms, int64_t hi_ms, uint64_t limit, uint32_t mask)
      : path_(path), anchors_(path), lo_(lo_ms), hi_(hi_ms), limit_(lo_ms <= hi_ms ? limit : 0), mask_(mask),
        minute_(floor_div(lo_ms, kMinuteMs)), last_minute_(floor_div(hi_ms, kMinuteMs)) {}

  bool next(size_t max_rows, TickColumns& out) override {
    clear(out);
    out.reserve(std::min<size_t>(max_rows, size_t{1} << 16));
    while (out.rows() < max_rows && limit_ > 0) {
      if (pending_pos_ < pending_.rows()) {  // leftovers of a minute that did not fit the last chunk
        const size_t n = std::min<size_t>({max_rows - out.rows(), pending_.rows() - pending_pos_, limit_});
        append(out, pending_, pending_pos_, n);
        pending_pos_ += n;
        limit_ -= n;
        continue;
      }
      if (minute_ > last_minute_) break;
      const int64_t minute = minute_++;
      if (!path_.open(minute)) continue;
      const size_t n = static_cast<size_t>(path_.tick_count(minute));
      if (max_rows - out.rows() >= n && limit_ >= n) {
        limit_ -= generate(minute, n, out);  // fits: straight into the output, no copy
      } else {
        clear(pending_);
        generate(minute, n, pending_);
        pending_pos_ = 0;
      }
    }
    return out.rows() > 0;
  }

 private:
  // Appends the minute's ticks that pass the clip and the mask; returns how many.
  size_t generate(int64_t minute, size_t n, TickColumns& c) {
    const size_t start = c.rows();
    resize(c, start + n);
    ColumnSink sink{c.time.data(), c.bid.data(), c.ask.data(), c.last.data(), c.volume.data(), c.time_msc.data(),
                    c.flags.data(), c.volume_real.data(), start, lo_, hi_, mask_, path_.scale()};
    double a0, a1;
    anchors_.anchors(minute, a0, a1);
    path_.emit(minute, a0, a1, sink);
    resize(c, sink.row);
    return sink.row - start;
  }

  const PricePath& path_;
  AnchorWalker anchors_;
  int64_t lo_, hi_;
  uint64_t limit_;
  uint32_t mask_;
  int64_t minute_, last_minute_;
  TickColumns pending_;
  size_t pending_pos_ = 0;
};

class RateSeriesCursor final : public RateCursor {
 public:
  RateSeriesCursor(History& history, size_t slot, Timeframe tf, int64_t first_open, int64_t last_open, int64_t now_ms,
                   bool trade_volume, bool by_last)
      : history_(history), slot_(slot), tf_(tf), next_open_(first_open), last_open_(last_open), now_ms_(now_ms),
        scale_(history.path(slot).scale()), trade_volume_(trade_volume), by_last_(by_last) {}

  bool next(size_t max_rows, RateColumns& c) override {
    c.time.clear(); c.open.clear(); c.high.clear(); c.low.clear(); c.close.clear();
    c.tick_volume.clear(); c.spread.clear(); c.real_volume.clear();
    if (tf_.min_seconds() >= kDayS && next_open_ <= last_open_) {
      // Bars of whole days: the days this chunk spans, computed in parallel first.
      const int64_t span_end = std::min(tf_.next_open(last_open_),
                                        next_open_ + static_cast<int64_t>(std::min<size_t>(max_rows, 100000)) * 31 * kDayS);
      history_.warm_days(slot_, next_open_, span_end, now_ms_);
    }
    while (c.rows() < max_rows && next_open_ <= last_open_) {
      const int64_t open = next_open_;
      next_open_ = tf_.next_open(open);
      const BarAgg agg = history_.aggregate(slot_, open, next_open_, now_ms_);
      if (agg.empty()) continue;  // no ticks, no bar (weekends, nights of stock CFDs)
      if (by_last_ && agg.last_open == BarAgg::kNone) continue;  // a chart of trades: no trade, no bar
      c.time.push_back(open);
      c.open.push_back(static_cast<double>(by_last_ ? agg.last_open : agg.open) / scale_);
      c.high.push_back(static_cast<double>(by_last_ ? agg.last_high : agg.high) / scale_);
      c.low.push_back(static_cast<double>(by_last_ ? agg.last_low : agg.low) / scale_);
      c.close.push_back(static_cast<double>(by_last_ ? agg.last_close : agg.close) / scale_);
      c.tick_volume.push_back(agg.ticks);
      c.spread.push_back(static_cast<int32_t>(std::min<int64_t>(agg.min_spread, INT32_MAX)));
      c.real_volume.push_back(trade_volume_ ? agg.real_volume : 0);
    }
    return c.rows() > 0;
  }

 private:
  History& history_;
  size_t slot_;
  Timeframe tf_;
  int64_t next_open_, last_open_, now_ms_;
  double scale_;
  bool trade_volume_, by_last_;
};

}  // namespace

std::unique_ptr<TickCursor> make_tick_cursor(const PricePath& path, int64_t lo_ms, int64_t hi_ms, uint64_t limit,
                                             uint32_t mask) {
  return std::make_unique<TickSeriesCursor>(path, lo_ms, hi_ms, limit, mask);
}

std::unique_ptr<RateCursor> make_rate_cursor(History& history, size_t slot, Timeframe tf, int64_t first_open,
                                             int64_t last_open, int64_t now_ms, bool trade_volume, bool by_last) {
  return std::make_unique<RateSeriesCursor>(history, slot, tf, first_open, last_open, now_ms, trade_volume, by_last);
}

}  // namespace tradeapi::sim::detail
