#include "server_clock.h"

#include <algorithm>

namespace tradeapi::sim::detail {

ServerClock::ServerClock(const std::vector<ZoneTransition>& transitions) : fixed_(false), fixed_offset_s_(0) {
  if (transitions.size() <= 1) {
    fixed_ = true;
    fixed_offset_s_ = transitions.empty() ? 0 : transitions.front().offset_s;
    return;
  }
  spans_.reserve(transitions.size());
  for (const ZoneTransition& t : transitions) {
    // Whole minutes: every zone in use today has whole-minute offsets and changes.
    const int64_t u = floor_div(t.utc_s, 60), off = floor_div(t.offset_s, 60);
    spans_.push_back(Span{u, off, u + off});
  }
}

int64_t ServerClock::offset_at_utc(int64_t utc_s) const {
  if (fixed_) return fixed_offset_s_;
  const int64_t u = floor_div(utc_s, 60);
  auto it = std::upper_bound(spans_.begin(), spans_.end(), u, [](int64_t v, const Span& s) { return v < s.utc_minute; });
  return (it == spans_.begin() ? spans_.front() : *(it - 1)).offset_min * 60;
}

int64_t ServerClock::utc_minute_zoned(int64_t m) const {
  // Server start minutes increase with the transitions (offsets change by hours, transitions are
  // months apart), so the span holding m is the last one starting at or before it -- unless the
  // span before it still covers m (clocks went back: m happens twice; the earlier one counts).
  auto it = std::upper_bound(spans_.begin(), spans_.end(), m, [](int64_t v, const Span& s) { return v < s.server_minute; });
  if (it == spans_.begin()) return m - spans_.front().offset_min;
  const size_t i = static_cast<size_t>(it - spans_.begin()) - 1;
  if (i > 0) {
    const Span& prev = spans_[i - 1];
    if (m < spans_[i].utc_minute + prev.offset_min) return m - prev.offset_min;
  }
  const Span& s = spans_[i];
  const int64_t u = m - s.offset_min;
  if (i + 1 < spans_.size() && u >= spans_[i + 1].utc_minute) return kNoMinute;  // skipped by clocks going forward
  return u;
}

}  // namespace tradeapi::sim::detail
