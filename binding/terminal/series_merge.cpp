#include "series_merge.h"

namespace tradeapi {
namespace {

// Whether source a's next row goes before source b's: earlier time, or the same time and listed first.
inline bool before(const MergeSource& a, const MergeSource& b) {
  const int64_t ka = a.key[a.from], kb = b.key[b.from];
  return ka < kb || (ka == kb && a.id < b.id);
}

// A binary min-heap of source indices by their next row (k is small: a plain array).
class SourceHeap {
 public:
  explicit SourceHeap(const std::vector<MergeSource>& s) : s_(s) {
    heap_.reserve(s.size());
    for (uint32_t i = 0; i < s.size(); ++i) heap_.push_back(i);
    for (size_t i = heap_.size() / 2; i-- > 0;) sift_down(i);
  }
  uint32_t top() const { return heap_[0]; }
  size_t size() const { return heap_.size(); }
  // The runner-up: the better of the top's children.
  uint32_t second() const {
    if (heap_.size() == 2) return heap_[1];
    return before(s_[heap_[1]], s_[heap_[2]]) ? heap_[1] : heap_[2];
  }
  // The top's next row changed (later): restore the order.
  void top_advanced() { sift_down(0); }

 private:
  void sift_down(size_t i) {
    const size_t n = heap_.size();
    const uint32_t v = heap_[i];
    for (;;) {
      size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && before(s_[heap_[c + 1]], s_[heap_[c]])) ++c;
      if (!before(s_[heap_[c]], s_[v])) break;
      heap_[i] = heap_[c];
      i = c;
    }
    heap_[i] = v;
  }
  const std::vector<MergeSource>& s_;
  std::vector<uint32_t> heap_;
};

}  // namespace

size_t plan_merge(std::vector<MergeSource>& sources, size_t max_rows, std::vector<MergeRun>& runs) {
  if (sources.empty() || max_rows == 0) return 0;
  for (const MergeSource& s : sources) {
    if (s.from >= s.to) return 0;
  }
  SourceHeap heap(sources);
  size_t planned = 0;
  while (planned < max_rows) {
    const uint32_t t = heap.top();
    MergeSource& s = sources[t];
    const size_t limit = std::min(s.to, s.from + (max_rows - planned));
    size_t end = s.from + 1;
    if (heap.size() == 1) {
      end = limit;
    } else {
      // The top's rows go on while they come before the runner-up's next row: a run of one
      // symbol's ticks between two of another's, often a single row.
      const MergeSource& r = sources[heap.second()];
      const int64_t bound = r.key[r.from];
      if (s.id < r.id) {
        while (end < limit && s.key[end] <= bound) ++end;
      } else {
        while (end < limit && s.key[end] < bound) ++end;
      }
    }
    if (!runs.empty() && runs.back().source == t && runs.back().from + runs.back().rows == s.from) runs.back().rows += end - s.from;
    else runs.push_back({t, s.from, end - s.from});
    planned += end - s.from;
    s.from = end;
    if (s.from == s.to) break;  // this window is empty: its next chunk must come before merging on
    heap.top_advanced();
  }
  return planned;
}

void fill_source_ids(const std::vector<MergeRun>& runs, const std::vector<MergeSource>& sources, uint16_t* out) {
  for (const MergeRun& r : runs) {
    std::fill_n(out, r.rows, sources[r.source].id);
    out += r.rows;
  }
}

}  // namespace tradeapi
