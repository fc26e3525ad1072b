#include "series_merge.h"

#include <limits>
#include <stdexcept>

namespace tradeapi {
namespace {

// A row's place in the merge as one unsigned number: its time (less the earliest time among the
// windows) above its source's id, so that one compare orders by time, then by list order.
constexpr int kIdBits = 16;
constexpr uint64_t kMaxSpan = uint64_t{1} << (64 - kIdBits - 1);
// The key of a source with no row left to place: after every real key (those are below 2^63).
constexpr uint64_t kDone = std::numeric_limits<uint64_t>::max();

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

  // Only the rows up to the earliest of the windows' last rows can be placed now (that window
  // empties there): each source's rows up to that key, counted by binary search, are merged by a
  // loser tree, so each row costs a replay of log2(k) branch-free matches, no bounds checks.
  uint64_t safe = std::numeric_limits<uint64_t>::max();
  for (const MergeSource& s : sources) {
    const uint64_t last = key_of(s, s.to - 1);
    safe = last < safe ? last : safe;
  }
  const size_t k = sources.size();
  size_t leaves = 1;
  while (leaves < k) leaves <<= 1;
  thread_local std::vector<size_t> next, end;
  thread_local std::vector<uint64_t> key;  // per leaf: the key of its next row to place, or kDone
  next.resize(k);
  end.resize(k);
  key.assign(leaves, kDone);
  size_t total = 0;
  for (size_t i = 0; i < k; ++i) {
    const MergeSource& s = sources[i];
    size_t lo = s.from, hi = s.to;  // the first row whose key passes `safe`
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (key_of(s, mid) <= safe) lo = mid + 1;
      else hi = mid;
    }
    next[i] = s.from;
    end[i] = lo;
    if (lo > s.from) key[i] = key_of(s, s.from);
    total += lo - s.from;
  }
  const size_t want = total < max_rows ? total : max_rows;

  // The tree: leaves are sources (padded to a power of two with sources that are done), each inner
  // node holds the loser of the match below it, the winner goes on up.
  thread_local std::vector<uint32_t> loser;
  loser.assign(leaves, 0);
  {
    // Winners of each node, bottom up, from a scratch array indexed like the tree (leaves at leaves + i).
    std::vector<uint32_t> win(2 * leaves);
    for (size_t i = 0; i < leaves; ++i) win[leaves + i] = static_cast<uint32_t>(i);
    for (size_t node = leaves - 1; node >= 1; --node) {
      const uint32_t a = win[2 * node], b = win[2 * node + 1];
      const bool a_wins = key[a] <= key[b];
      win[node] = a_wins ? a : b;
      loser[node] = a_wins ? b : a;
    }
    loser[0] = win[leaves > 1 ? 1 : leaves];  // slot 0: the overall winner
  }
  uint32_t winner = loser[0];
  size_t planned = 0;
  while (planned < want) {
    const uint32_t w = winner;
    out_source[planned] = static_cast<uint16_t>(w);
    out_row[planned] = static_cast<uint32_t>(next[w]);
    ++planned;
    const size_t r = ++next[w];
    uint64_t up_key = r < end[w] ? key_of(sources[w], r) : kDone;
    key[w] = up_key;
    // The path to the root is fixed by the leaf: its nodes' loads do not wait on the matches, and
    // the climbing key stays in a register, so only compare-and-select steps chain.
    uint32_t up = w;
    for (size_t node = (w + leaves) >> 1; node >= 1; node >>= 1) {
      const uint32_t l = loser[node];
      const uint64_t l_key = key[l];
      // Masks rather than conditionals: the matches are unpredictable, and a mispredicted branch costs more than both sides.
      const uint64_t m = uint64_t{0} - static_cast<uint64_t>(l_key < up_key);
      const auto m32 = static_cast<uint32_t>(m);
      loser[node] = (up & m32) | (l & ~m32);
      up = (l & m32) | (up & ~m32);
      up_key = (l_key & m) | (up_key & ~m);
    }
    winner = up;
  }
  for (size_t i = 0; i < k; ++i) sources[i].from = next[i];
  order.size = planned;
  return planned;
}

void fill_source_ids(const MergeOrder& order, const std::vector<MergeSource>& sources, uint16_t* out) {
  const uint16_t* s = order.source.data();
  for (size_t i = 0; i < order.size; ++i) out[i] = sources[s[i]].id;
}

}  // namespace tradeapi
