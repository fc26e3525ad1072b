// plan_merge / gather (terminal/series_merge.h): the merged order against a reference sort,
// ties in source order, and the stop at an emptied window.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include "terminal/series_merge.h"

namespace tradeapi {
namespace {

TEST(SeriesMerge, MatchesAStableSortByTimeThenSource) {
  std::mt19937_64 rng(36);
  const size_t k = 7;
  std::vector<std::vector<int64_t>> keys(k);
  for (size_t s = 0; s < k; ++s) {
    int64_t t = 1000;
    const size_t rows = 50 + rng() % 400;
    for (size_t i = 0; i < rows; ++i) {
      t += static_cast<int64_t>(rng() % 3);  // many equal times, within and across sources
      keys[s].push_back(t);
    }
  }
  // The reference: every (time, source, row), sorted.
  std::vector<std::tuple<int64_t, uint16_t, size_t>> want;
  for (size_t s = 0; s < k; ++s)
    for (size_t i = 0; i < keys[s].size(); ++i) want.emplace_back(keys[s][i], static_cast<uint16_t>(s), i);
  std::sort(want.begin(), want.end());

  // Merge in windows of a few rows (refilled as plan_merge empties them), output in small pieces.
  const size_t window = 13;
  std::vector<size_t> next(k, 0);
  std::vector<std::tuple<int64_t, uint16_t, size_t>> got;
  for (;;) {
    std::vector<MergeSource> sources;
    for (size_t s = 0; s < k; ++s) {
      if (next[s] >= keys[s].size()) continue;
      // A window over the source's array, as a chunk would be: rows [next, next + window).
      sources.push_back({static_cast<uint16_t>(s), keys[s].data(), next[s], std::min(keys[s].size(), next[s] + window)});
    }
    if (sources.empty()) break;
    MergeOrder order;
    const size_t n = plan_merge(sources, 17, order);
    ASSERT_GT(n, 0u);
    std::vector<int64_t> times(n);
    std::vector<const int64_t*> in;
    for (const MergeSource& s : sources) in.push_back(s.key);
    gather<int64_t>(order, in.data(), times.data());
    std::vector<uint16_t> ids(n);
    fill_source_ids(order, sources, ids.data());
    for (size_t row = 0; row < n; ++row) got.emplace_back(times[row], ids[row], order.row[row]);
    for (const MergeSource& s : sources) next[s.id] = s.from;
  }
  EXPECT_EQ(got, want);
}

TEST(SeriesMerge, StopsRightAfterAWindowEmpties) {
  const std::vector<int64_t> a{1, 2, 3}, b{1, 5, 9};
  std::vector<MergeSource> sources{{0, a.data(), 0, 3}, {1, b.data(), 0, 3}};
  MergeOrder runs;
  EXPECT_EQ(plan_merge(sources, 100, runs), 4u);  // a1 b1 a2 a3, then a is empty
  EXPECT_EQ(sources[0].from, 3u);
  EXPECT_EQ(sources[1].from, 1u);
  std::vector<MergeSource> empty{{0, a.data(), 3, 3}, {1, b.data(), 1, 3}};
  EXPECT_EQ(plan_merge(empty, 100, runs), 0u);  // an empty window: nothing until it is refilled
}

}  // namespace
}  // namespace tradeapi
