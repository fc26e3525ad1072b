// Series chunks as JSON text, byte for byte what the TypeScript encoder (src/encode/json-rows.ts)
// writes, so that the JSON of a big pull can be made on the libuv pool instead of the JS thread:
//
//   [{"time":1704672000,"bid":1.0945,"ask":1.09452,"last":0,"volume":0,"time_msc":1704672000123,
//     "flags":6,"volume_real":0},{...}]
//
// Numbers print as JSON.stringify prints them (ECMAScript Number::toString): doubles with the
// shortest digits that read back to the same value (the closest such, as V8 picks them),
// positional for 1e-6 <= |x| < 1e21 and in exponent form outside (0.000001 but 1e-7,
// 123456789012345680000 but 1e+21), integral ones without ".0"; -0 as "0", NaN and ±Infinity as
// null; integer columns (64-bit ones too, beyond 2^53 as well) as their exact decimal value.
// Output is ASCII. Pure functions: any number of threads may encode at once.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace tradeapi::encode {

// The longest text of one number: "-1.2345678901234567e-308" (24); int64's minimum is 20.
constexpr size_t kMaxNumberChars = 24;

// x as JSON.stringify(x) prints it; returns the characters written (at most kMaxNumberChars).
size_t write_js_number(double x, char* out);
// v in decimal; returns the characters written.
size_t write_int64(int64_t v, char* out);
size_t write_uint64(uint64_t v, char* out);

enum class SeriesKind { Ticks, Rates };

// One chunk's columns in the numpy dtype's field order, each pointing at element 0:
//   ticks: time int64, bid, ask, last double, volume uint64, time_msc int64, flags uint32, volume_real double
//   rates: time int64, open, high, low, close double, tick_volume uint64, spread int32, real_volume uint64
// A multi-symbol series (issue 36) adds `symbol`, one uint16 index per row into `openers`: each
// row then opens with its symbol's text, `{"symbol":"EURUSD","time":`, instead of `{"time":`.
struct SeriesColumns {
  const void* field[8];
  const uint16_t* symbol = nullptr;
  const std::string* openers = nullptr;
};

// An upper bound on the bytes rows_json writes for `rows` rows; `opener_chars`: the longest opener's
// length, for a multi-symbol series.
size_t rows_json_bound(SeriesKind kind, size_t rows, size_t opener_chars = 0);

// Rows [from, to) as `,{...},{...}`, or, when `first`, as `[{...},{...}` (the body's opening
// bracket instead of the leading comma). `out` must hold rows_json_bound(kind, to - from) bytes;
// returns the bytes written.
size_t rows_json(SeriesKind kind, const SeriesColumns& columns, size_t from, size_t to, bool first, char* out);

}  // namespace tradeapi::encode
