// The bridge client's pieces that need no bridge: SHA-256/HMAC (FIPS 180-4 and RFC 4231 vectors),
// the frame codec (§2 checks) and the dtype -> columns transpose (§7).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "bridge/bridge_terminal.h"
#include "bridge/frame.h"
#include "bridge/series_layout.h"
#include "bridge/sha256.h"

using namespace tradeapi;
using namespace tradeapi::bridge;

namespace {

std::string unhex(const std::string& h) {
  std::string out;
  EXPECT_TRUE(from_hex(h, out));
  return out;
}

}  // namespace

TEST(Sha256, Fips180Vectors) {
  EXPECT_EQ(to_hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(to_hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(to_hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  Sha256 s;  // one million 'a', fed unevenly
  std::string block(997, 'a');
  size_t left = 1000000;
  while (left > 0) {
    size_t n = left < block.size() ? left : block.size();
    s.update(block.data(), n);
    left -= n;
  }
  EXPECT_EQ(to_hex(s.finish()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PaddingBoundaries) {
  // 55, 56, 63, 64 bytes: the length field fits in the last block or needs another.
  EXPECT_EQ(to_hex(sha256(std::string(55, 'a'))), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(to_hex(sha256(std::string(56, 'a'))), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(to_hex(sha256(std::string(64, 'a'))), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

struct HmacCase {
  std::string key, data, mac;  // hex, hex, hex (case 5 truncated to 128 bits)
};

TEST(HmacSha256, Rfc4231Vectors) {
  const HmacCase cases[] = {
      {std::string(40, 'b').replace(0, 40, "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"), "4869205468657265",
       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {std::string(40, 'a'), std::string(100, 'd'),
       "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
      {"0102030405060708090a0b0c0d0e0f10111213141516171819",
       std::string(100, 'c').replace(0, 100, [] { std::string s; for (int i = 0; i < 50; ++i) s += "cd"; return s; }()),
       "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
      {std::string(262, 'a'),
       "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {std::string(262, 'a'),
       "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920616e642061"
       "206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565647320746f20626520686173686564"
       "206265666f7265206265696e6720757365642062792074686520484d414320616c676f726974686d2e",
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(to_hex(hmac_sha256(unhex(c.key), unhex(c.data))), c.mac) << c.key.substr(0, 8);
  }
  // Test case 5 (key 0x0c x 20): output truncated to 128 bits.
  std::string key5;
  for (int i = 0; i < 20; ++i) key5 += "0c";
  std::string mac5 = to_hex(hmac_sha256(unhex(key5), unhex("546573742057697468205472756e636174696f6e")));
  EXPECT_EQ(mac5.substr(0, 32), "a3b6167473100ee06e0c796c2955552b");
}

TEST(Hex, RoundTripAndRejects) {
  std::string out;
  EXPECT_TRUE(from_hex("00ffA0", out));
  EXPECT_EQ(to_hex(out.data(), out.size()), "00ffa0");
  EXPECT_FALSE(from_hex("abc", out));
  EXPECT_FALSE(from_hex("zz", out));
  EXPECT_TRUE(equal_constant_time("abc", "abc"));
  EXPECT_FALSE(equal_constant_time("abc", "abd"));
  EXPECT_FALSE(equal_constant_time("abc", "ab"));
}

TEST(Frame, EncodesTheSpecHeader) {
  auto h = encode_header(FrameType::Request, 0x01020304, 0x10);
  const uint8_t expected[16] = {'T', 'B', 1, 0x10, 0, 0, 0, 0, 4, 3, 2, 1, 0x10, 0, 0, 0};
  EXPECT_EQ(std::memcmp(h.data(), expected, 16), 0);
  FrameHeader d = decode_header(h.data());
  EXPECT_EQ(d.type, FrameType::Request);
  EXPECT_EQ(d.request_id, 0x01020304u);
  EXPECT_EQ(d.length, 0x10u);
}

TEST(Frame, AcceptsTheMaximumLength) {
  auto h = encode_header(FrameType::SeriesChunk, 7, kMaxPayload);
  EXPECT_EQ(decode_header(h.data()).length, 16u * 1024 * 1024);
  EXPECT_THROW(encode_header(FrameType::SeriesChunk, 7, kMaxPayload + 1), ProtocolError);
}

TEST(Frame, RefusesBadHeaders) {
  auto good = encode_header(FrameType::Result, 1, 2);
  auto refuse = [&](size_t at, uint8_t value) {
    auto h = good;
    h[at] = value;
    EXPECT_THROW(decode_header(h.data()), ProtocolError) << "byte " << at << " = " << int(value);
  };
  refuse(0, 'X');   // magic
  refuse(1, 'b');
  refuse(2, 0);     // version
  refuse(2, 2);
  refuse(3, 0x00);  // unknown types
  refuse(3, 0x13);
  refuse(3, 0xff);
  refuse(4, 1);     // flags
  refuse(5, 0x80);
  refuse(6, 1);     // reserved
  refuse(7, 1);
  auto big = good;  // length 16 MiB + 1
  store_u32le(&big[12], kMaxPayload + 1);
  EXPECT_THROW(decode_header(big.data()), ProtocolError);
  store_u32le(&big[12], 0xffffffffu);
  EXPECT_THROW(decode_header(big.data()), ProtocolError);
}

namespace {

// The package's tick and rate dtypes (mt5-reference §3.1/§3.2), as the bridge sends them.
nlohmann::json tick_dtype() {
  return nlohmann::json::parse(R"({"itemsize": 60, "fields": [
    {"name": "time", "type": "<i8", "offset": 0}, {"name": "bid", "type": "<f8", "offset": 8},
    {"name": "ask", "type": "<f8", "offset": 16}, {"name": "last", "type": "<f8", "offset": 24},
    {"name": "volume", "type": "<u8", "offset": 32}, {"name": "time_msc", "type": "<i8", "offset": 40},
    {"name": "flags", "type": "<u4", "offset": 48}, {"name": "volume_real", "type": "<f8", "offset": 52}]})");
}
nlohmann::json rate_dtype() {
  return nlohmann::json::parse(R"({"itemsize": 60, "fields": [
    {"name": "time", "type": "<i8", "offset": 0}, {"name": "open", "type": "<f8", "offset": 8},
    {"name": "high", "type": "<f8", "offset": 16}, {"name": "low", "type": "<f8", "offset": 24},
    {"name": "close", "type": "<f8", "offset": 32}, {"name": "tick_volume", "type": "<u8", "offset": 40},
    {"name": "spread", "type": "<i4", "offset": 48}, {"name": "real_volume", "type": "<u8", "offset": 52}]})");
}

template <typename T>
void put(std::string& row, size_t offset, T v) {
  std::memcpy(&row[offset], &v, sizeof v);
}

}  // namespace

TEST(SeriesLayout, TransposesTickRows) {
  Transposer<TickColumns> tr(parse_dtype(tick_dtype()));
  EXPECT_EQ(tr.itemsize(), 60u);
  std::string rows(3 * 60, '\0');
  for (int i = 0; i < 3; ++i) {
    size_t b = static_cast<size_t>(i) * 60;
    put<int64_t>(rows, b + 0, 1704189600 + i);
    put<double>(rows, b + 8, 1.1 + i);
    put<double>(rows, b + 16, 1.2 + i);
    put<double>(rows, b + 24, 0.5 * i);
    put<uint64_t>(rows, b + 32, 10u + static_cast<uint64_t>(i));
    put<int64_t>(rows, b + 40, 1704189600000 + 1000 * i + 7);
    put<uint32_t>(rows, b + 48, 6u - static_cast<uint32_t>(i));
    put<double>(rows, b + 52, 2.5 * i);
  }
  TickColumns c;
  tr.append(reinterpret_cast<const uint8_t*>(rows.data()), 2, c);
  tr.append(reinterpret_cast<const uint8_t*>(rows.data()) + 120, 1, c);
  ASSERT_EQ(c.rows(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(c.time[i], 1704189600 + static_cast<int64_t>(i));
    EXPECT_DOUBLE_EQ(c.bid[i], 1.1 + static_cast<double>(i));
    EXPECT_DOUBLE_EQ(c.ask[i], 1.2 + static_cast<double>(i));
    EXPECT_DOUBLE_EQ(c.last[i], 0.5 * static_cast<double>(i));
    EXPECT_EQ(c.volume[i], 10u + i);
    EXPECT_EQ(c.time_msc[i], 1704189600000 + 1000 * static_cast<int64_t>(i) + 7);
    EXPECT_EQ(c.flags[i], 6u - i);
    EXPECT_DOUBLE_EQ(c.volume_real[i], 2.5 * static_cast<double>(i));
  }
  clear_columns(c);
  EXPECT_EQ(c.rows(), 0u);
  EXPECT_TRUE(c.flags.empty());
}

TEST(SeriesLayout, TransposesRateRowsAtTheirOffsets) {
  // Fields in another order and padded: the offsets, not the order, place each value.
  auto dt = rate_dtype();
  Transposer<RateColumns> tr(parse_dtype(dt));
  std::string row(60, '\0');
  put<int64_t>(row, 0, 1704153600);
  put<double>(row, 8, 1.1);
  put<double>(row, 16, 1.3);
  put<double>(row, 24, 1.0);
  put<double>(row, 32, 1.2);
  put<uint64_t>(row, 40, 1234);
  put<int32_t>(row, 48, -3);
  put<uint64_t>(row, 52, 99);
  RateColumns c;
  tr.append(reinterpret_cast<const uint8_t*>(row.data()), 1, c);
  ASSERT_EQ(c.rows(), 1u);
  EXPECT_EQ(c.time[0], 1704153600);
  EXPECT_DOUBLE_EQ(c.open[0], 1.1);
  EXPECT_DOUBLE_EQ(c.high[0], 1.3);
  EXPECT_DOUBLE_EQ(c.low[0], 1.0);
  EXPECT_DOUBLE_EQ(c.close[0], 1.2);
  EXPECT_EQ(c.tick_volume[0], 1234u);
  EXPECT_EQ(c.spread[0], -3);
  EXPECT_EQ(c.real_volume[0], 99u);

  auto shuffled = nlohmann::json::parse(R"({"itemsize": 64, "fields": [
    {"name": "spread", "type": "<i4", "offset": 0}, {"name": "time", "type": "<i8", "offset": 8},
    {"name": "open", "type": "<f8", "offset": 16}, {"name": "high", "type": "<f8", "offset": 24},
    {"name": "low", "type": "<f8", "offset": 32}, {"name": "close", "type": "<f8", "offset": 40},
    {"name": "tick_volume", "type": "<u8", "offset": 48}, {"name": "real_volume", "type": "<u8", "offset": 56}]})");
  Transposer<RateColumns> tr2(parse_dtype(shuffled));
  std::string row2(64, '\0');
  put<int32_t>(row2, 0, 17);
  put<int64_t>(row2, 8, 42);
  put<uint64_t>(row2, 56, 5);
  RateColumns c2;
  tr2.append(reinterpret_cast<const uint8_t*>(row2.data()), 1, c2);
  EXPECT_EQ(c2.spread[0], 17);
  EXPECT_EQ(c2.time[0], 42);
  EXPECT_EQ(c2.real_volume[0], 5u);
}

TEST(SeriesLayout, RefusesBadDtypes) {
  auto t = tick_dtype();
  t["fields"][6]["type"] = "<u2";  // not one of the five
  EXPECT_THROW(parse_dtype(t), ProtocolError);
  t = tick_dtype();
  t["fields"][0]["type"] = ">i8";  // big-endian
  EXPECT_THROW(parse_dtype(t), ProtocolError);
  t = tick_dtype();
  t["fields"][7]["offset"] = 56;  // past the 60-byte row
  EXPECT_THROW(parse_dtype(t), ProtocolError);
  t = tick_dtype();
  t["itemsize"] = 0;
  EXPECT_THROW(parse_dtype(t), ProtocolError);
  EXPECT_THROW(parse_dtype(nlohmann::json::array()), ProtocolError);
  // A layout that parses but does not carry a column, or carries it with another type.
  t = tick_dtype();
  t["fields"].erase(5);
  EXPECT_THROW(Transposer<TickColumns>(parse_dtype(t)), ProtocolError);
  t = tick_dtype();
  t["fields"][6]["type"] = "<i4";  // flags must be uint32
  EXPECT_THROW(Transposer<TickColumns>(parse_dtype(t)), ProtocolError);
  // Ticks are not rates.
  EXPECT_THROW(Transposer<RateColumns>(parse_dtype(tick_dtype())), ProtocolError);
}

// The client's I/O timeout is below the worker's queue timeout (bridge_terminal.h), by default and
// for any configured queue timeout, so a hung bridge frees the worker before callers time out.
TEST(BridgeOptions, IoTimeoutIsBelowTheQueueTimeout) {
  EXPECT_LT(BridgeOptions{}.io_timeout_ms, kDefaultQueueTimeoutMs);
  EXPECT_EQ(default_io_timeout_ms(kDefaultQueueTimeoutMs), kDefaultIoTimeoutMs);
  EXPECT_EQ(default_io_timeout_ms(120000), kDefaultIoTimeoutMs);  // a longer queue: the default
  for (int64_t q : {2, 3, 100, 5000, 29999, 30000, 30001, 3600000}) {
    int io = default_io_timeout_ms(q);
    EXPECT_GE(io, 1) << q;
    EXPECT_LT(io, q) << q;
  }
  EXPECT_EQ(default_io_timeout_ms(1), 1);
}
