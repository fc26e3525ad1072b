#include "series_merge.h"

#include <limits>
#include <stdexcept>

namespace tradeapi {
namespace {

// A row's place in the merge as one unsigned number: its time (less the earliest time among the
// windows) above its source's id, so that one compare orders by time, then by list order.
constexpr int kIdBits = 16;
constexpr uint64_t kMaxSpan = uint64_t{1} << (64 - kIdBits - 1);

// A binary min-heap of the sources' next rows, keys contiguous (no pointer chasing per compare).
class Heads {
 public:
  void push(uint64_t key, uint32_t source) {
    keys_.push_back(key);
    sources_.push_back(source);
  }
  void build() {
    for (size_t i = keys_.size() / 2; i-- > 0;) sift_down(i);
  }
  uint32_t top() const { return sources_[0]; }
  // The runner-up's key (the better of the top's children), or the largest key for one source.
  uint64_t second() const {
    const size_t n = keys_.size();
    if (n == 1) return std::numeric_limits<uint64_t>::max();
    if (n == 2) return keys_[1];
    return keys_[1] < keys_[2] ? keys_[1] : keys_[2];
  }
  // The top source's next row has this key now (a later one): restore the order.
  void replace_top(uint64_t key) {
    keys_[0] = key;
    sift_down(0);
  }

 private:
  void sift_down(size_t i) {
    const size_t n = keys_.size();
    const uint64_t k = keys_[i];
    const uint32_t s = sources_[i];
    for (;;) {
      size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && keys_[c + 1] < keys_[c]) ++c;
      if (keys_[c] >= k) break;
      keys_[i] = keys_[c];
      sources_[i] = sources_[c];
      i = c;
    }
    keys_[i] = k;
    sources_[i] = s;
  }
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> sources_;
};

}  // namespace

size_t plan_merge(std::vector<MergeSource>& sources, size_t max_rows, MergeOrder& order) {
  order.size = 0;
  if (sources.empty() || max_rows == 0) return 0;
  if (sources.size() > 65536) throw std::invalid_argument("merge: at most 65536 sources");
  int64_t base = std::numeric_limits<int64_t>::max();
  for (const MergeSource& s : sources) {
    if (s.from >= s.to) return 0;
    if (s.to - s.from > std::numeric_limits<uint32_t>::max()) throw std::invalid_argument("merge: a window of 2^32 rows or more");
    base = s.key[s.from] < base ? s.key[s.from] : base;
  }
  for (const MergeSource& s : sources) {
    if (static_cast<uint64_t>(s.key[s.to - 1]) - static_cast<uint64_t>(base) >= kMaxSpan)
      throw std::invalid_argument("merge: the sources' times span too much");
  }
  const auto ubase = static_cast<uint64_t>(base);
  auto key_of = [ubase](const MergeSource& s, size_t i) {
    return ((static_cast<uint64_t>(s.key[i]) - ubase) << kIdBits) | s.id;
  };

  if (order.source.size() < max_rows) {
    order.source.resize(max_rows);
    order.row.resize(max_rows);
  }
  uint16_t* out_source = order.source.data();
  uint32_t* out_row = order.row.data();

  Heads heads;
  for (uint32_t i = 0; i < sources.size(); ++i) heads.push(key_of(sources[i], sources[i].from), i);
  heads.build();
  size_t planned = 0;
  while (planned < max_rows) {
    const uint32_t t = heads.top();
    MergeSource& s = sources[t];
    // The top's rows go on while they come before the runner-up's next row: a run of one
    // symbol's rows between two of another's, often a single row.
    const uint64_t bound = heads.second();
    const size_t limit = s.to < s.from + (max_rows - planned) ? s.to : s.from + (max_rows - planned);
    size_t i = s.from;
    do {
      out_source[planned] = static_cast<uint16_t>(t);
      out_row[planned] = static_cast<uint32_t>(i);
      ++planned;
      ++i;
    } while (i < limit && key_of(s, i) < bound);
    s.from = i;
    if (s.from == s.to) break;  // this window is empty: its next chunk must come before merging on
    heads.replace_top(key_of(s, s.from));
  }
  order.size = planned;
  return planned;
}

void fill_source_ids(const MergeOrder& order, const std::vector<MergeSource>& sources, uint16_t* out) {
  const uint16_t* s = order.source.data();
  for (size_t i = 0; i < order.size; ++i) out[i] = sources[s[i]].id;
}

}  // namespace tradeapi
