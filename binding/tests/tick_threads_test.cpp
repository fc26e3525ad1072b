// Tick cursors that generate big chunks on two threads (issue 24) must return exactly the rows of
// the minute-by-minute loop, chunk by chunk: same chunk sizes (max_rows, the count limit, the
// leftover of a minute cut by a chunk boundary), same bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "sim/market.h"
#include "sim/price_path.h"
#include "sim/series_cursors.h"
#include "sim/server_clock.h"
#include "sim/sim_time.h"
#include "terminal/constants.h"

namespace tradeapi::sim {
namespace {

namespace m = tradeapi::mt5;
using detail::TickThreads;

int64_t utc_ms(int64_t y, int64_t mo, int64_t d, int64_t h = 0, int64_t mi = 0, int64_t s = 0, int64_t ms = 0) {
  return (detail::days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s) * 1000 + ms;
}

const uint32_t kInfo = static_cast<uint32_t>(m::TICK_FLAG_BID | m::TICK_FLAG_ASK);
const uint32_t kTrade = static_cast<uint32_t>(m::TICK_FLAG_LAST | m::TICK_FLAG_VOLUME);

detail::PricePath path_of(const std::string& name, int64_t server_offset_s = 0) {
  for (const SymbolSpec& s : symbol_catalogue()) {
    if (s.info.name == name) {
      return detail::PricePath(42, s, std::make_shared<const detail::ServerClock>(server_offset_s));
    }
  }
  ADD_FAILURE() << "no symbol " << name;
  return detail::PricePath(42, symbol_catalogue()[0], std::make_shared<const detail::ServerClock>(0));
}

template <typename T>
bool same_bytes(const Column<T>& a, const Column<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}
bool same_bytes(const TickColumns& a, const TickColumns& b) {
  return same_bytes(a.time, b.time) && same_bytes(a.bid, b.bid) && same_bytes(a.ask, b.ask) &&
         same_bytes(a.last, b.last) && same_bytes(a.volume, b.volume) && same_bytes(a.time_msc, b.time_msc) &&
         same_bytes(a.flags, b.flags) && same_bytes(a.volume_real, b.volume_real);
}

// Drains both cursors in lockstep and compares every chunk; returns the total rows.
size_t expect_same_chunks(TickCursor& helper, TickCursor& caller, size_t max_rows, const std::string& what) {
  TickColumns a, b;
  size_t total = 0;
  for (size_t chunk = 0;; ++chunk) {
    const bool more_a = helper.next(max_rows, a);
    const bool more_b = caller.next(max_rows, b);
    EXPECT_EQ(more_a, more_b) << what << " chunk " << chunk;
    EXPECT_EQ(a.rows(), b.rows()) << what << " chunk " << chunk;
    EXPECT_LE(a.rows(), max_rows) << what;
    if (!same_bytes(a, b)) {
      ADD_FAILURE() << what << ": chunk " << chunk << " differs";
      return total;
    }
    total += a.rows();
    if (!more_a || !more_b) return total;
  }
}

struct Case {
  const char* symbol;
  int64_t lo_ms, hi_ms;
  uint64_t limit;
  uint32_t mask;
};

TEST(TickThreads, SameChunksAsTheCallerAlone) {
  const std::vector<Case> cases = {
      // A clip in the middle of a minute at both ends, across a weekend (closed minutes).
      {"EURUSD", utc_ms(2024, 3, 7, 21, 17, 31, 456), utc_ms(2024, 3, 11, 2, 44, 12, 789), UINT64_MAX, 0},
      {"EURUSD", utc_ms(2024, 3, 7, 21, 17, 31, 456), utc_ms(2024, 3, 11, 2, 44, 12, 789), UINT64_MAX, kInfo},
      // A count (copy_ticks_from): the limit lands inside a minute.
      {"EURUSD", utc_ms(2024, 3, 12, 9, 0, 0, 1), utc_ms(2024, 3, 15), 123457, 0},
      // Trades only (about 40 % of the ticks pass the mask), with exchange sessions.
      {"AMZN", utc_ms(2024, 3, 12, 14, 30, 59, 999), utc_ms(2024, 3, 14, 20, 0, 0, 1), UINT64_MAX, kTrade},
      {"AMZN", utc_ms(2024, 3, 12, 14, 30, 59, 999), utc_ms(2024, 3, 14, 20, 0, 0, 1), 54321, kTrade},
      {"AMZN", utc_ms(2024, 3, 12), utc_ms(2024, 3, 13, 23, 59, 59, 999), UINT64_MAX, kInfo},
      // Around the clock, over a weekend.
      {"BTCUSD", utc_ms(2024, 3, 9, 5, 5, 5, 5), utc_ms(2024, 3, 10, 17, 0, 0, 0), 150001, 0},
  };
  for (const Case& c : cases) {
    const detail::PricePath path = path_of(c.symbol);
    for (size_t max_rows : {size_t{1000}, size_t{4097}, size_t{8192}, size_t{65536}, size_t{100003}, SIZE_MAX}) {
      const std::string what = std::string(c.symbol) + " mask " + std::to_string(c.mask) + " limit " +
                               std::to_string(c.limit) + " max_rows " + std::to_string(max_rows);
      auto helper = detail::make_tick_cursor(path, c.lo_ms, c.hi_ms, c.limit, c.mask, TickThreads::kHelper);
      auto caller = detail::make_tick_cursor(path, c.lo_ms, c.hi_ms, c.limit, c.mask, TickThreads::kCaller);
      const size_t rows = expect_same_chunks(*helper, *caller, max_rows, what);
      EXPECT_GT(rows, 20000u) << what;  // big enough for the helper to take part
      if (c.limit != UINT64_MAX) {
        EXPECT_EQ(rows, c.limit) << what;
      }
    }
  }
}

TEST(TickThreads, VaryingChunkSizesAndAServerOffset) {
  // The chunk size changes from call to call (a client may ask for any), and the server clock is
  // shifted: the helper's minutes map to UTC like the caller's.
  const detail::PricePath path = path_of("GBPUSD", 2 * 3600);
  const int64_t lo = utc_ms(2024, 3, 11, 0, 0, 30), hi = utc_ms(2024, 3, 13, 12, 0, 30);
  auto helper = detail::make_tick_cursor(path, lo, hi, UINT64_MAX, 0, TickThreads::kHelper);
  auto caller = detail::make_tick_cursor(path, lo, hi, UINT64_MAX, 0, TickThreads::kCaller);
  const size_t sizes[] = {70000, 1, 9000, 8191, 200000, 3, 16384, 65536};
  TickColumns a, b;
  size_t total = 0;
  for (size_t i = 0;; ++i) {
    const size_t max_rows = sizes[i % (sizeof sizes / sizeof sizes[0])];
    const bool more_a = helper->next(max_rows, a), more_b = caller->next(max_rows, b);
    ASSERT_EQ(more_a, more_b) << i;
    ASSERT_TRUE(same_bytes(a, b)) << "call " << i << " max_rows " << max_rows;
    total += a.rows();
    if (!more_a) break;
  }
  EXPECT_GT(total, 100000u);
}

TEST(TickThreads, CursorsStopTheirHelperWhenDroppedMidway) {
  // A cursor closed after one big chunk (a client that stops reading) joins its helper thread; and
  // many cursors, each with its own helper, run at once on one path.
  const detail::PricePath path = path_of("EURUSD");
  const int64_t lo = utc_ms(2024, 3, 4), hi = utc_ms(2024, 3, 8);
  TickColumns out;
  for (int i = 0; i < 8; ++i) {
    auto cursor = detail::make_tick_cursor(path, lo, hi, UINT64_MAX, 0, TickThreads::kHelper);
    ASSERT_TRUE(cursor->next(65536, out));
    EXPECT_EQ(out.rows(), 65536u);
  }
  std::vector<std::unique_ptr<TickCursor>> open;
  for (int i = 0; i < 4; ++i) open.push_back(detail::make_tick_cursor(path, lo, hi, UINT64_MAX, 0, TickThreads::kHelper));
  for (auto& cursor : open) ASSERT_TRUE(cursor->next(20000, out));
  open.clear();
}

}  // namespace
}  // namespace tradeapi::sim
