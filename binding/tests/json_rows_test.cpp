// The JSON series encoder (binding/encode/json_rows.h): numbers exactly as JavaScript prints them
// (Number::toString: shortest round-trip digits, positional from 1e-6 up to 1e21, exponent form
// outside, -0 as 0, non-finite as null), integers at their limits, and whole rows. Byte-for-byte
// agreement with the TypeScript encoder over random doubles is test/encode/json-native.test.ts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "encode/json_rows.h"

namespace tradeapi::encode {
namespace {

std::string js(double x) {
  char buf[kMaxNumberChars + 8];
  const size_t n = write_js_number(x, buf);
  EXPECT_LE(n, kMaxNumberChars);
  return std::string(buf, n);
}

std::string i64(int64_t v) {
  char buf[32];
  return std::string(buf, write_int64(v, buf));
}

std::string u64(uint64_t v) {
  char buf[32];
  return std::string(buf, write_uint64(v, buf));
}

TEST(JsonNumbers, ZeroSignAndNonFinite) {
  EXPECT_EQ(js(0.0), "0");
  EXPECT_EQ(js(-0.0), "0");
  EXPECT_EQ(js(std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(js(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(js(-std::numeric_limits<double>::infinity()), "null");
}

TEST(JsonNumbers, IntegersWithoutFraction) {
  EXPECT_EQ(js(1.0), "1");
  EXPECT_EQ(js(-1.0), "-1");
  EXPECT_EQ(js(100.0), "100");
  EXPECT_EQ(js(1704672000.0), "1704672000");
  EXPECT_EQ(js(9007199254740991.0), "9007199254740991");
  EXPECT_EQ(js(9007199254740992.0), "9007199254740992");
  EXPECT_EQ(js(9007199254740994.0), "9007199254740994");
  EXPECT_EQ(js(1e20), "100000000000000000000");
  EXPECT_EQ(js(123456789012345680000.0), "123456789012345680000");
  EXPECT_EQ(js(9.999999999999999e20), "999999999999999900000");
}

TEST(JsonNumbers, ShortestRoundTripDigits) {
  EXPECT_EQ(js(0.1), "0.1");
  EXPECT_EQ(js(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(js(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(js(2.0 / 3), "0.6666666666666666");
  EXPECT_EQ(js(1.0945), "1.0945");
  EXPECT_EQ(js(1.09452), "1.09452");
  EXPECT_EQ(js(-109.45), "-109.45");
  EXPECT_EQ(js(4.35), "4.35");
  EXPECT_EQ(js(123456789.123), "123456789.123");
  EXPECT_EQ(js(std::numeric_limits<double>::epsilon()), "2.220446049250313e-16");
}

TEST(JsonNumbers, FewDecimalsAndTheirNeighbours) {
  // The fast path for few decimals, and the doubles one ulp beside them, which it must hand on.
  EXPECT_EQ(js(0.000123), "0.000123");
  EXPECT_EQ(js(123456.789), "123456.789");
  EXPECT_EQ(js(0.5), "0.5");
  EXPECT_EQ(js(1.1 + 2e-5), "1.10002");
  EXPECT_EQ(js(1.1 + 2.2), "3.3000000000000003");
  EXPECT_EQ(js(std::nextafter(1.0945, 2.0)), "1.0945000000000003");
  EXPECT_EQ(js(std::nextafter(1.0945, 0.0)), "1.0944999999999998");
  EXPECT_EQ(js(std::nextafter(0.1, 1.0)), "0.10000000000000002");
  EXPECT_EQ(js(1125899906842.6245), "1125899906842.6245");
  EXPECT_EQ(js(112589990684262.45), "112589990684262.45");
  EXPECT_EQ(js(0.123456789012), "0.123456789012");
  EXPECT_EQ(js(0.1234567890123), "0.1234567890123");
}

TEST(JsonNumbers, PositionalBetween1eMinus6And1e21) {
  EXPECT_EQ(js(1e-6), "0.000001");
  EXPECT_EQ(js(0.0000012345), "0.0000012345");
  EXPECT_EQ(js(-1e-6), "-0.000001");
  EXPECT_EQ(js(1e-5), "0.00001");
  EXPECT_EQ(js(9.99e-7), "9.99e-7");
  EXPECT_EQ(js(1e-7), "1e-7");
  EXPECT_EQ(js(-1.5e-7), "-1.5e-7");
  EXPECT_EQ(js(1e21), "1e+21");
  EXPECT_EQ(js(1.5e21), "1.5e+21");
  EXPECT_EQ(js(-1e22), "-1e+22");
  EXPECT_EQ(js(6.02214076e23), "6.02214076e+23");
}

TEST(JsonNumbers, Extremes) {
  EXPECT_EQ(js(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  EXPECT_EQ(js(-std::numeric_limits<double>::max()), "-1.7976931348623157e+308");
  EXPECT_EQ(js(std::numeric_limits<double>::min()), "2.2250738585072014e-308");
  EXPECT_EQ(js(std::numeric_limits<double>::denorm_min()), "5e-324");
  EXPECT_EQ(js(-std::numeric_limits<double>::denorm_min()), "-5e-324");
  EXPECT_EQ(js(1e-320), "1e-320");
  EXPECT_EQ(js(1e300), "1e+300");
  EXPECT_EQ(js(-1.2345678901234567e-308).size(), kMaxNumberChars);
}

TEST(JsonNumbers, Integers) {
  EXPECT_EQ(i64(0), "0");
  EXPECT_EQ(i64(-1), "-1");
  EXPECT_EQ(i64(99999999), "99999999");
  EXPECT_EQ(i64(100000000), "100000000");
  EXPECT_EQ(i64(1704672000123), "1704672000123");
  EXPECT_EQ(i64(std::numeric_limits<int64_t>::max()), "9223372036854775807");
  EXPECT_EQ(i64(std::numeric_limits<int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(u64(0), "0");
  EXPECT_EQ(u64(std::numeric_limits<uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(u64(9007199254740993ULL), "9007199254740993");
}

TEST(JsonRows, TicksAndRates) {
  const int64_t time[2] = {1704672000, -5};
  const double bid[2] = {1.0945, 1e-7};
  const double ask[2] = {-0.0, 1e21};
  const double last[2] = {std::nan(""), 0.5};
  const uint64_t volume[2] = {0, std::numeric_limits<uint64_t>::max()};
  const int64_t time_msc[2] = {1704672000123, std::numeric_limits<int64_t>::min()};
  const uint32_t flags[2] = {6, 4294967295u};
  const double volume_real[2] = {0.000001, std::numeric_limits<double>::infinity()};
  const SeriesColumns ticks{{time, bid, ask, last, volume, time_msc, flags, volume_real}};
  std::vector<char> out(rows_json_bound(SeriesKind::Ticks, 2));
  std::string text(out.data(), rows_json(SeriesKind::Ticks, ticks, 0, 2, true, out.data()));
  EXPECT_EQ(text,
            "[{\"time\":1704672000,\"bid\":1.0945,\"ask\":0,\"last\":null,\"volume\":0,\"time_msc\":1704672000123,"
            "\"flags\":6,\"volume_real\":0.000001},{\"time\":-5,\"bid\":1e-7,\"ask\":1e+21,\"last\":0.5,"
            "\"volume\":18446744073709551615,\"time_msc\":-9223372036854775808,\"flags\":4294967295,\"volume_real\":null}");
  text.assign(out.data(), rows_json(SeriesKind::Ticks, ticks, 1, 2, false, out.data()));
  EXPECT_EQ(text.substr(0, 11), ",{\"time\":-5");
  EXPECT_EQ(rows_json(SeriesKind::Ticks, ticks, 1, 1, true, out.data()), 0u);

  const double open[1] = {1.1};
  const double high[1] = {1.10002};
  const double low[1] = {1.09999};
  const double close[1] = {1.10001};
  const uint64_t tick_volume[1] = {100};
  const int32_t spread[1] = {-2147483647 - 1};
  const uint64_t real_volume[1] = {0};
  const SeriesColumns rates{{time, open, high, low, close, tick_volume, spread, real_volume}};
  std::vector<char> r(rows_json_bound(SeriesKind::Rates, 1));
  text.assign(r.data(), rows_json(SeriesKind::Rates, rates, 0, 1, false, r.data()));
  EXPECT_EQ(text,
            ",{\"time\":1704672000,\"open\":1.1,\"high\":1.10002,\"low\":1.09999,\"close\":1.10001,\"tick_volume\":100,"
            "\"spread\":-2147483648,\"real_volume\":0}");
}

TEST(JsonRows, BoundHoldsTheWidestRow) {
  const int64_t i64min[1] = {std::numeric_limits<int64_t>::min()};
  const uint64_t u64max[1] = {std::numeric_limits<uint64_t>::max()};
  const double widest[1] = {-1.2345678901234567e-308};
  const uint32_t u32[1] = {4294967295u};
  const SeriesColumns ticks{{i64min, widest, widest, widest, u64max, i64min, u32, widest}};
  std::vector<char> out(rows_json_bound(SeriesKind::Ticks, 1));
  EXPECT_LE(rows_json(SeriesKind::Ticks, ticks, 0, 1, true, out.data()), out.size());
}

}  // namespace
}  // namespace tradeapi::encode
