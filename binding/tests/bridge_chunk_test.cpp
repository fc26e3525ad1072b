// SERIES_CHUNK as columns (docs/bridge-protocol.md §7, protocol 2), decoded by the C++ client from
// chunks the Python bridge encoded (bridge_chunk_fixture.h, made by bridge/tests/gen_chunk_fixture.py
// from bridge/tests/chunk_cases.py): every case, uncompressed and zstd, must give exactly the columns
// the package's rows give through the protocol-1 path (Transposer), bit for bit, however the rows
// are taken; and every payload the protocol forbids is refused before a row is decoded.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "bridge/series_columns.h"
#include "bridge/series_layout.h"
#include "bridge_chunk_fixture.h"

using namespace tradeapi;
using namespace tradeapi::bridge;

namespace {

std::string unbase64(const char* text) {
  static const std::string abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (const char* p = text; *p; ++p) {
    if (*p == '=') break;
    size_t v = abc.find(*p);
    if (v == std::string::npos) continue;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

std::vector<std::string> chunks_of(const char* const* list) {
  std::vector<std::string> out;
  for (; *list; ++list) out.push_back(unbase64(*list));
  return out;
}

RowLayout layout_of(bool ticks) {
  return parse_dtype(nlohmann::json::parse(ticks ? R"({"itemsize": 60, "fields": [
    {"name": "time", "type": "<i8", "offset": 0}, {"name": "bid", "type": "<f8", "offset": 8},
    {"name": "ask", "type": "<f8", "offset": 16}, {"name": "last", "type": "<f8", "offset": 24},
    {"name": "volume", "type": "<u8", "offset": 32}, {"name": "time_msc", "type": "<i8", "offset": 40},
    {"name": "flags", "type": "<u4", "offset": 48}, {"name": "volume_real", "type": "<f8", "offset": 52}]})"
                                                  : R"({"itemsize": 60, "fields": [
    {"name": "time", "type": "<i8", "offset": 0}, {"name": "open", "type": "<f8", "offset": 8},
    {"name": "high", "type": "<f8", "offset": 16}, {"name": "low", "type": "<f8", "offset": 24},
    {"name": "close", "type": "<f8", "offset": 32}, {"name": "tick_volume", "type": "<u8", "offset": 40},
    {"name": "spread", "type": "<i4", "offset": 48}, {"name": "real_volume", "type": "<u8", "offset": 52}]})"));
}

// Column by column, byte for byte (NaN and -0.0 included).
template <typename Columns>
void expect_same(const Columns& want, Columns& got, const std::string& what) {
  ASSERT_EQ(got.rows(), want.rows()) << what;
  auto& w = const_cast<Columns&>(want);
  std::vector<std::pair<const char*, std::string>> a, b;
  for_each_column(w, [&](const char* name, auto& col) {
    a.emplace_back(name, std::string(reinterpret_cast<const char*>(col.data()), col.size() * sizeof(col[0])));
  });
  for_each_column(got, [&](const char* name, auto& col) {
    b.emplace_back(name, std::string(reinterpret_cast<const char*>(col.data()), col.size() * sizeof(col[0])));
  });
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i].second == b[i].second) << what << ": column " << a[i].first;
}

// Decodes every chunk, `step` rows at a time (0: a chunk at once).
template <typename Columns>
Columns decode_all(const RowLayout& layout, const std::vector<std::string>& chunks, size_t step) {
  ColumnDecoder<Columns> dec(layout);
  ZstdDecoder zstd;
  ColumnChunk chunk;
  Columns out;
  for (const auto& payload : chunks) {
    chunk.reset(layout, payload, zstd);
    while (chunk.left() > 0) {
      size_t n = step == 0 ? chunk.left() : std::min(step, chunk.left());
      dec.append(chunk, n, out);
    }
  }
  return out;
}

template <typename Columns>
void check_case(const chunk_fixture::Case& c) {
  RowLayout layout = layout_of(c.ticks);
  std::string rows = unbase64(c.rows);
  ASSERT_EQ(rows.size() % 60, 0u) << c.name;
  Columns want;
  Transposer<Columns>(layout).append(reinterpret_cast<const uint8_t*>(rows.data()), rows.size() / 60, want);
  for (const char* const* list : {c.plain, c.zstd}) {
    const std::string what = std::string(c.name) + (list == c.zstd ? " (zstd)" : " (none)");
    auto chunks = chunks_of(list);
    for (size_t step : {size_t{0}, size_t{1}, size_t{7}}) {
      Columns got = decode_all<Columns>(layout, chunks, step);
      expect_same(want, got, what + ", " + std::to_string(step) + " rows at a time");
    }
  }
}

std::string first_plain_tick_chunk() {
  for (const auto& c : chunk_fixture::kCases)
    if (c.ticks) return unbase64(c.plain[0]);
  return {};
}

}  // namespace

TEST(SeriesColumns, EveryFixtureCaseGivesThePackagesRowsBitForBit) {
  size_t ticks = 0, rates = 0;
  for (const auto& c : chunk_fixture::kCases) {
    if (c.ticks) {
      check_case<TickColumns>(c);
      ++ticks;
    } else {
      check_case<RateColumns>(c);
      ++rates;
    }
  }
  EXPECT_GE(ticks, 8u);
  EXPECT_GE(rates, 2u);
}

TEST(SeriesColumns, FixtureUsesEveryEncodingAndBothCodecs) {
  // The fixture would prove little if the encoder had sent everything RAW.
  bool seen[4] = {false, false, false, false};
  bool zstd = false;
  ZstdDecoder z;
  ColumnChunk chunk;
  for (const auto& c : chunk_fixture::kCases) {
    RowLayout layout = layout_of(c.ticks);
    for (const char* const* list : {c.plain, c.zstd})
      for (const auto& payload : chunks_of(list)) {
        zstd = zstd || payload[4] == 1;
        chunk.reset(layout, payload, z);
        for (size_t f = 0; f < layout.fields.size(); ++f) seen[static_cast<int>(chunk.block(f).encoding)] = true;
      }
  }
  EXPECT_TRUE(seen[0] && seen[1] && seen[2] && seen[3]);
  EXPECT_TRUE(zstd);
}

TEST(SeriesColumns, RefusesWhatTheProtocolForbids) {
  const RowLayout layout = layout_of(true);
  const std::string good = first_plain_tick_chunk();
  ASSERT_GT(good.size(), 40u);
  ASSERT_EQ(good[4], 0) << "the first plain tick chunk is uncompressed";
  const uint32_t rows = load_u32le(reinterpret_cast<const uint8_t*>(good.data()));
  ZstdDecoder zstd;
  ColumnChunk chunk;
  chunk.reset(layout, good, zstd);
  ASSERT_EQ(chunk.rows(), rows);
  ASSERT_EQ(chunk.block(0).encoding, BlockEncoding::Seconds);
  ASSERT_EQ(chunk.block(1).encoding, BlockEncoding::Scaled);

  auto refuse = [&](std::string payload, const char* why) {
    EXPECT_THROW(chunk.reset(layout, std::move(payload), zstd), ProtocolError) << why;
    EXPECT_EQ(chunk.left(), 0u) << why;
  };
  auto with = [&](size_t at, uint8_t v) {
    std::string p = good;
    p[at] = static_cast<char>(v);
    return p;
  };
  auto with_u32 = [&](size_t at, uint32_t v) {
    std::string p = good;
    store_u32le(reinterpret_cast<uint8_t*>(&p[at]), v);
    return p;
  };
  refuse(good.substr(0, 11), "shorter than its head");
  refuse(with_u32(0, 0), "0 rows");
  refuse(with_u32(0, rows * 1000), "rows past the body");
  refuse(with_u32(0, 16u * 1024 * 1024 / 60 + 1), "over 16 MiB of rows");
  refuse(with(4, 2), "unknown codec");
  refuse(with(4, 1), "not a zstd frame");
  refuse(with(5, 1), "reserved byte");
  refuse(with_u32(8, static_cast<uint32_t>(good.size() - 12 + 1)), "body shorter than its head says");
  refuse(good + std::string(1, '\0'), "bytes past the blocks");
  refuse(with(12 + 1, 1), "DELTA block for a float64 field");
  refuse(with(12 + 1, 9), "unknown encoding");
  refuse(with(12 + 1 + 1, 2), "SCALED op 2");
  refuse(with(12 + 1 + 10, 3), "delta width 3");
  std::string seconds_on_bid = good;
  seconds_on_bid[12 + 1] = 3;
  refuse(seconds_on_bid, "SECONDS for bid");
  // The good one still decodes after all that.
  chunk.reset(layout, good, zstd);
  EXPECT_EQ(chunk.rows(), rows);
}

TEST(SeriesColumns, ZstdBodyMustHoldExactlyItsLength) {
  const RowLayout layout = layout_of(true);
  ZstdDecoder zstd;
  ColumnChunk chunk;
  for (const auto& c : chunk_fixture::kCases) {
    if (!c.ticks) continue;
    for (const auto& payload : chunks_of(c.zstd)) {
      if (payload[4] != 1) continue;
      std::string longer = payload, shorter = payload;
      uint32_t n = load_u32le(reinterpret_cast<const uint8_t*>(payload.data()) + 8);
      store_u32le(reinterpret_cast<uint8_t*>(&longer[8]), n + 1);
      store_u32le(reinterpret_cast<uint8_t*>(&shorter[8]), n - 1);
      EXPECT_THROW(chunk.reset(layout, longer, zstd), ProtocolError);
      EXPECT_THROW(chunk.reset(layout, shorter, zstd), ProtocolError);
      std::string cut = payload.substr(0, payload.size() - 3);
      EXPECT_THROW(chunk.reset(layout, cut, zstd), ProtocolError);
      chunk.reset(layout, payload, zstd);
      EXPECT_GT(chunk.rows(), 0u);
      return;
    }
  }
  FAIL() << "no zstd chunk in the fixture";
}

TEST(SeriesColumns, SecondsNeedTimeMsc) {
  // A rates dtype with a `time` sent as SECONDS: refused (rates have no time_msc).
  const RowLayout layout = layout_of(false);
  std::string body;
  body += '\3';                                                                      // time: SECONDS
  for (int f = 0; f < 4; ++f) body += std::string(1, '\0') + std::string(8, '\0');  // open..close: RAW
  for (int f = 0; f < 3; ++f) body += std::string(1, '\1') + std::string(9, '\0');  // DELTA, width 0, first 0
  std::string payload(12, '\0');
  store_u32le(reinterpret_cast<uint8_t*>(&payload[0]), 1);
  store_u32le(reinterpret_cast<uint8_t*>(&payload[8]), static_cast<uint32_t>(body.size()));
  payload += body;
  ZstdDecoder zstd;
  ColumnChunk chunk;
  EXPECT_THROW(chunk.reset(layout, payload, zstd), ProtocolError);
  payload[12] = '\1';  // time as DELTA instead: a valid one-row chunk
  payload.insert(13, std::string(9, '\0'));
  store_u32le(reinterpret_cast<uint8_t*>(&payload[8]), static_cast<uint32_t>(payload.size() - 12));
  chunk.reset(layout, payload, zstd);
  RateColumns out;
  ColumnDecoder<RateColumns>(layout).append(chunk, 1, out);
  EXPECT_EQ(out.rows(), 1u);
}
