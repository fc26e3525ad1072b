// Tests of the series content hash (binding/encode/row_hash.h): XXH3-128 against python-xxhash's
// digests (the vectors below were printed by xxhash 4.1.0, which bundles xxHash 0.8.4, the version
// in deps/xxhash), the canonical 60-byte rows against the MetaTrader5 package's numpy dtypes
// (python: `xxhash.xxh3_128_hexdigest(array.tobytes())` of the same rows), digests that do not
// depend on how the rows are cut into updates, and a throughput figure (printed, not asserted).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "encode/row_hash.h"

namespace tradeapi::encode {
namespace {

std::vector<uint8_t> pattern(size_t n) {
  std::vector<uint8_t> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>((i * 31 + 7) & 0xFF);
  return b;
}

TEST(Xxh3, MatchesPythonXxhash) {
  // python: xxhash.xxh3_128_hexdigest(bytes((i * 31 + 7) & 0xFF for i in range(n)))
  const std::pair<size_t, const char*> vectors[] = {
      {0, "99aa06d3014798d86001c324468d497f"},      {1, "495b62073ef70ca44c5cca45d0f4811f"},
      {3, "46f66cb93538156515f7093b173d005c"},      {16, "650fe308c566747df853dd94614dfa07"},
      {17, "18217300b5132d5a78c349fe81b2f26c"},     {128, "b4f87b99d2db8a511e04fad9f0cacb4d"},
      {129, "6881633650cd8924c51bc887976aef63"},    {240, "de57aab31e77a2ff93e173833f75ab66"},
      {241, "92b991a7192f3f080b3b630948ce4a00"},    {1024, "4c17271c906df79223bc880ebf0d29c6"},
      {65520, "a7e167682db48810fca6dd0f7b9f5f07"},  {100003, "cb5ebd34f7252f19e0950e66cf107fe8"},
  };
  for (const auto& [n, hex] : vectors) {
    const std::vector<uint8_t> b = pattern(n);
    EXPECT_EQ(xxh3_128_hex(b.data(), b.size()), hex) << n << " bytes";
  }
}

// The rows of the python vectors (tools: see the comments of each test), as columns.
struct Ticks {
  std::vector<int64_t> time, time_msc;
  std::vector<double> bid, ask, last, volume_real;
  std::vector<uint64_t> volume;
  std::vector<uint32_t> flags;
  SeriesColumns columns() const {
    return {{time.data(), bid.data(), ask.data(), last.data(), volume.data(), time_msc.data(), flags.data(), volume_real.data()}};
  }
};

// python (numpy dtype of MetaTrader5.copy_ticks_*):
//   time = 1704700800 + i // 7; bid = 1.1 + i * 1e-5
//   (time, bid, bid + 2e-5, 0.0 if i % 5 else bid, i * 3, time * 1000 + (i * 37) % 1000, 2 + (i % 3) * 4, i * 0.5)
Ticks python_ticks(size_t n) {
  Ticks t;
  for (size_t k = 0; k < n; ++k) {
    const auto i = static_cast<int64_t>(k);
    const int64_t time = 1704700800 + i / 7;
    const double bid = 1.1 + static_cast<double>(i) * 1e-5;
    t.time.push_back(time);
    t.bid.push_back(bid);
    t.ask.push_back(bid + 2e-5);
    t.last.push_back(i % 5 ? 0.0 : bid);
    t.volume.push_back(static_cast<uint64_t>(i * 3));
    t.time_msc.push_back(time * 1000 + (i * 37) % 1000);
    t.flags.push_back(static_cast<uint32_t>(2 + (i % 3) * 4));
    t.volume_real.push_back(static_cast<double>(i) * 0.5);
  }
  return t;
}

struct Rates {
  std::vector<int64_t> time;
  std::vector<double> open, high, low, close;
  std::vector<uint64_t> tick_volume, real_volume;
  std::vector<int32_t> spread;
  SeriesColumns columns() const {
    return {{time.data(), open.data(), high.data(), low.data(), close.data(), tick_volume.data(), spread.data(), real_volume.data()}};
  }
};

// python (numpy dtype of MetaTrader5.copy_rates_*):
//   o = 150.0 + i * 0.001
//   (1704700800 + i * 60, o, o + 0.05, o - 0.04, o + 0.01, 100 + i, (i % 11) - 3, i * 1000003)
Rates python_rates(size_t n) {
  Rates r;
  for (size_t k = 0; k < n; ++k) {
    const auto i = static_cast<int64_t>(k);
    const double o = 150.0 + static_cast<double>(i) * 0.001;
    r.time.push_back(1704700800 + i * 60);
    r.open.push_back(o);
    r.high.push_back(o + 0.05);
    r.low.push_back(o - 0.04);
    r.close.push_back(o + 0.01);
    r.tick_volume.push_back(static_cast<uint64_t>(100 + i));
    r.spread.push_back(static_cast<int32_t>(i % 11 - 3));
    r.real_volume.push_back(static_cast<uint64_t>(i * 1000003));
  }
  return r;
}

TEST(RowHash, CanonicalRowsAreTheNumpyDtypes) {
  // One tick row, field by field at the dtype's offsets (numpy: packed, little-endian).
  const Ticks t = python_ticks(8);
  uint8_t row[kCanonicalRowBytes];
  pack_canonical_rows(t.columns(), 5, 6, row);
  auto at = [&](size_t offset, const void* value, size_t width) { return std::memcmp(row + offset, value, width) == 0; };
  EXPECT_TRUE(at(0, &t.time[5], 8));
  EXPECT_TRUE(at(8, &t.bid[5], 8));
  EXPECT_TRUE(at(16, &t.ask[5], 8));
  EXPECT_TRUE(at(24, &t.last[5], 8));
  EXPECT_TRUE(at(32, &t.volume[5], 8));
  EXPECT_TRUE(at(40, &t.time_msc[5], 8));
  EXPECT_TRUE(at(48, &t.flags[5], 4));
  EXPECT_TRUE(at(52, &t.volume_real[5], 8));
  const Rates r = python_rates(8);
  pack_canonical_rows(r.columns(), 3, 4, row);
  EXPECT_TRUE(at(0, &r.time[3], 8));
  EXPECT_TRUE(at(32, &r.close[3], 8));
  EXPECT_TRUE(at(40, &r.tick_volume[3], 8));
  EXPECT_TRUE(at(48, &r.spread[3], 4));
  EXPECT_TRUE(at(52, &r.real_volume[3], 8));
}

TEST(RowHash, MatchesPythonOverTheMt5Arrays) {
  // python: xxhash.xxh3_128_hexdigest(array.tobytes()) of the 5000 rows above.
  const Ticks t = python_ticks(5000);
  RowHasher ticks(SeriesKind::Ticks);
  ticks.update(t.columns(), 0, 5000);
  EXPECT_EQ(ticks.hex_digest(), "4ca8fe8806e07716ac061842477b351b");
  EXPECT_EQ(ticks.rows(), 5000u);
  const Rates r = python_rates(5000);
  RowHasher rates(SeriesKind::Rates);
  rates.update(r.columns(), 0, 5000);
  EXPECT_EQ(rates.hex_digest(), "d8f7bddb216fdd098ae17ec6a7e1f11c");
  // No rows: XXH3-128 of nothing.
  EXPECT_EQ(RowHasher(SeriesKind::Ticks).hex_digest(), "99aa06d3014798d86001c324468d497f");
}

TEST(RowHash, ChunkingNeverChangesTheDigest) {
  const size_t n = 20000;  // several 64 KiB batches (1092 rows each)
  const Ticks t = python_ticks(n);
  std::vector<uint8_t> packed(n * kCanonicalRowBytes);
  pack_canonical_rows(t.columns(), 0, n, packed.data());
  const std::string whole = xxh3_128_hex(packed.data(), packed.size());
  std::mt19937 rng(5);
  for (int round = 0; round < 40; ++round) {
    RowHasher h(SeriesKind::Ticks);
    size_t at = 0;
    while (at < n) {
      // Runs of 0..3000 rows: empty updates, single rows, runs across batch boundaries.
      const size_t take = std::min<size_t>(n - at, round == 0 ? 1 : rng() % 3001);
      h.update(t.columns(), at, at + take);
      at += take;
      if (round % 7 == 3) {
        EXPECT_EQ(h.rows(), at);
      }
      if (round == 2 && at == n / 2) (void)h.hex_digest();  // a digest mid-way does not end the hash
    }
    EXPECT_EQ(h.hex_digest(), whole) << "round " << round;
    EXPECT_EQ(h.rows(), n);
  }
  // Bytes already canonical, in odd pieces of whole rows.
  RowHasher c(SeriesKind::Ticks);
  for (size_t at = 0; at < n;) {
    const size_t take = std::min<size_t>(n - at, 777);
    c.update_canonical(packed.data() + at * kCanonicalRowBytes, take * kCanonicalRowBytes);
    at += take;
  }
  EXPECT_EQ(c.hex_digest(), whole);
  EXPECT_THROW(c.update_canonical(packed.data(), 59), std::invalid_argument);
  // A different row (one bit of one price) gives a different digest.
  Ticks other = t;
  other.bid[n - 1] = std::nextafter(other.bid[n - 1], 2.0);
  RowHasher d(SeriesKind::Ticks);
  d.update(other.columns(), 0, n);
  EXPECT_NE(d.hex_digest(), whole);
}

TEST(RowHash, PerfTicks) {
  // 2 M ticks hashed in 64 K-row updates, best of 5 (GB/s of canonical bytes; no assertion on time).
  const size_t n = size_t{1} << 21;
  const Ticks t = python_ticks(n);
  using clock = std::chrono::steady_clock;
  double best = 1e300;
  std::string digest;
  for (int round = 0; round < 5; ++round) {
    RowHasher h(SeriesKind::Ticks);
    const auto t0 = clock::now();
    for (size_t at = 0; at < n; at += 65536) h.update(t.columns(), at, std::min(n, at + 65536));
    digest = h.hex_digest();
    best = std::min(best, std::chrono::duration<double>(clock::now() - t0).count());
  }
  std::vector<uint8_t> packed(n * kCanonicalRowBytes);
  pack_canonical_rows(t.columns(), 0, n, packed.data());
  double hash_only = 1e300;
  for (int round = 0; round < 5; ++round) {
    const auto t0 = clock::now();
    EXPECT_EQ(xxh3_128_hex(packed.data(), packed.size()), digest);
    hash_only = std::min(hash_only, std::chrono::duration<double>(clock::now() - t0).count());
  }
  const double bytes = static_cast<double>(n * kCanonicalRowBytes);
  std::printf("[ perf     ] row hash: %zu ticks (%.0f MB canonical) packed + XXH3-128 %.2f GB/s (%.1f M rows/s); XXH3-128 alone %.2f GB/s\n",
              n, bytes / 1e6, bytes / best / 1e9, static_cast<double>(n) / best / 1e6, bytes / hash_only / 1e9);
}

}  // namespace
}  // namespace tradeapi::encode
