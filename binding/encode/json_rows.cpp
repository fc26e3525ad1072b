// See json_rows.h. The layout of each row mirrors src/encode/json-rows.ts (tickRowsJson, rateRowsJson).
#include "json_rows.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <system_error>

namespace tradeapi::encode {
namespace {

constexpr char kDigitPairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// v's decimal digits, most significant first; returns how many.
size_t write_digits(uint64_t v, char* out) {
  char tmp[20];
  char* end = tmp + sizeof tmp;
  char* p = end;
  while (v >= 100) {
    const auto r = static_cast<size_t>(v % 100) * 2;
    v /= 100;
    p -= 2;
    p[0] = kDigitPairs[r];
    p[1] = kDigitPairs[r + 1];
  }
  if (v >= 10) {
    p -= 2;
    p[0] = kDigitPairs[v * 2];
    p[1] = kDigitPairs[v * 2 + 1];
  } else {
    *--p = static_cast<char>('0' + v);
  }
  const auto n = static_cast<size_t>(end - p);
  std::memcpy(out, p, n);
  return n;
}

template <typename T>
T load(const void* column, size_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(column) + i * sizeof(T), sizeof(T));
  return v;
}

// A key written whole (the text is a literal, its length known at compile time).
template <size_t N>
char* put(char* p, const char (&text)[N]) {
  std::memcpy(p, text, N - 1);
  return p + (N - 1);
}

constexpr double kTwo53 = 9007199254740992.0;
constexpr double kTwo50 = 1125899906842624.0;
constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12};

// Prices and quantities (a few decimals) without the general shortest-digits search: the smallest
// d such that some integer m has m / 10^d == x (IEEE division of two exact doubles rounds the
// decimal m·10^-d exactly as reading it does, so that text reads back to x). That text has the
// fewest fractional digits, hence (same magnitude) the fewest digits: it is the shortest one; and
// with m < 2^50 the decimals 10^-d apart are more than one ulp of x apart, so no other text of
// that length reads back to x: it is the one Number::toString prints. x >= 1e-6 and m < 2^50 keep
// it in positional notation. Returns 0 when no d <= 12 qualifies (the general path then).
size_t write_few_decimals(double x, char* out) {
  if (!(x >= 1e-6)) return 0;
  for (size_t d = 1; d < sizeof kPow10 / sizeof kPow10[0]; ++d) {
    const double scaled = x * kPow10[d];
    if (!(scaled < kTwo50)) return 0;
    // The nearest integer (0 <= scaled < 2^50: adding 0.5 is exact, truncation is floor).
    const auto mi = static_cast<uint64_t>(scaled + 0.5);
    if (static_cast<double>(mi) / kPow10[d] != x) continue;
    char digits[20];
    const size_t k = write_digits(mi, digits);
    char* p = out;
    if (k > d) {
      std::memcpy(p, digits, k - d);
      p += k - d;
      *p++ = '.';
      std::memcpy(p, digits + (k - d), d);
      p += d;
    } else {
      *p++ = '0';
      *p++ = '.';
      for (size_t i = k; i < d; ++i) *p++ = '0';
      std::memcpy(p, digits, k);
      p += k;
    }
    return static_cast<size_t>(p - out);
  }
  return 0;
}

}  // namespace

size_t write_uint64(uint64_t v, char* out) { return write_digits(v, out); }

size_t write_int64(int64_t v, char* out) {
  if (v < 0) {
    out[0] = '-';
    // Negated in unsigned arithmetic: INT64_MIN has no positive int64.
    return 1 + write_digits(0 - static_cast<uint64_t>(v), out + 1);
  }
  return write_digits(static_cast<uint64_t>(v), out);
}

size_t write_js_number(double x, char* out) {
  if (x == 0) {  // also -0
    out[0] = '0';
    return 1;
  }
  if (!std::isfinite(x)) {
    std::memcpy(out, "null", 4);
    return 4;
  }
  char* p = out;
  if (x < 0) {
    *p++ = '-';
    x = -x;
  }
  // Integers below 2^53 print as their exact digits (no shorter text reads back to them, since
  // every integer there is a double of its own).
  if (x < kTwo53 && std::floor(x) == x) return static_cast<size_t>(p - out) + write_digits(static_cast<uint64_t>(x), p);
  if (const size_t n = write_few_decimals(x, p)) return static_cast<size_t>(p - out) + n;

  // The shortest round-trip digits, in scientific form: "d[.ddd]e±x".
  char sci[32];
  const std::to_chars_result r = std::to_chars(sci, sci + sizeof sci, x, std::chars_format::scientific);
  char digits[20];
  size_t k = 0;
  const char* s = sci;
  digits[k++] = *s++;
  if (*s == '.') {
    for (++s; *s != 'e'; ++s) digits[k++] = *s;
  }
  ++s;  // 'e'
  const bool negative_exp = *s == '-';
  ++s;  // sign
  int e = 0;
  for (; s < r.ptr; ++s) e = e * 10 + (*s - '0');
  if (negative_exp) e = -e;
  const int n = e + 1;  // x = 0.d1d2...dk * 10^n
  const int ki = static_cast<int>(k);

  if (ki <= n && n <= 21) {
    std::memcpy(p, digits, k);
    p += k;
    for (int i = ki; i < n; ++i) *p++ = '0';
  } else if (0 < n && n <= 21) {
    std::memcpy(p, digits, static_cast<size_t>(n));
    p += n;
    *p++ = '.';
    std::memcpy(p, digits + n, static_cast<size_t>(ki - n));
    p += ki - n;
  } else if (-6 < n && n <= 0) {
    *p++ = '0';
    *p++ = '.';
    for (int i = n; i < 0; ++i) *p++ = '0';
    std::memcpy(p, digits, k);
    p += k;
  } else {
    *p++ = digits[0];
    if (k > 1) {
      *p++ = '.';
      std::memcpy(p, digits + 1, k - 1);
      p += k - 1;
    }
    *p++ = 'e';
    *p++ = e < 0 ? '-' : '+';
    p += write_digits(static_cast<uint64_t>(e < 0 ? -e : e), p);
  }
  return static_cast<size_t>(p - out);
}

namespace {

// Keys, per row: the opening one (`[{"time":` or `,{"time":`), then `,"name":` for the others.
constexpr size_t kTickKeyChars = sizeof(",{\"time\":") - 1 + sizeof(",\"bid\":") - 1 + sizeof(",\"ask\":") - 1 +
                                 sizeof(",\"last\":") - 1 + sizeof(",\"volume\":") - 1 + sizeof(",\"time_msc\":") - 1 +
                                 sizeof(",\"flags\":") - 1 + sizeof(",\"volume_real\":") - 1;
constexpr size_t kRateKeyChars = sizeof(",{\"time\":") - 1 + sizeof(",\"open\":") - 1 + sizeof(",\"high\":") - 1 +
                                 sizeof(",\"low\":") - 1 + sizeof(",\"close\":") - 1 + sizeof(",\"tick_volume\":") - 1 +
                                 sizeof(",\"spread\":") - 1 + sizeof(",\"real_volume\":") - 1;

// A row's opening: `[` for the body's first row, else `,`; then `{"time":`, or the row's symbol opener.
inline char* open_row(char* p, const SeriesColumns& c, size_t i, bool first_row) {
  if (c.symbol == nullptr) return first_row ? put(p, "[{\"time\":") : put(p, ",{\"time\":");
  *p++ = first_row ? '[' : ',';
  const std::string& opener = c.openers[c.symbol[i]];
  std::memcpy(p, opener.data(), opener.size());
  return p + opener.size();
}

size_t tick_rows(const SeriesColumns& c, size_t from, size_t to, bool first, char* out) {
  char* p = out;
  for (size_t i = from; i < to; ++i) {
    p = open_row(p, c, i, first && i == from);
    p += write_int64(load<int64_t>(c.field[0], i), p);
    p = put(p, ",\"bid\":");
    p += write_js_number(load<double>(c.field[1], i), p);
    p = put(p, ",\"ask\":");
    p += write_js_number(load<double>(c.field[2], i), p);
    p = put(p, ",\"last\":");
    p += write_js_number(load<double>(c.field[3], i), p);
    p = put(p, ",\"volume\":");
    p += write_uint64(load<uint64_t>(c.field[4], i), p);
    p = put(p, ",\"time_msc\":");
    p += write_int64(load<int64_t>(c.field[5], i), p);
    p = put(p, ",\"flags\":");
    p += write_uint64(load<uint32_t>(c.field[6], i), p);
    p = put(p, ",\"volume_real\":");
    p += write_js_number(load<double>(c.field[7], i), p);
    *p++ = '}';
  }
  return static_cast<size_t>(p - out);
}

size_t rate_rows(const SeriesColumns& c, size_t from, size_t to, bool first, char* out) {
  char* p = out;
  for (size_t i = from; i < to; ++i) {
    p = open_row(p, c, i, first && i == from);
    p += write_int64(load<int64_t>(c.field[0], i), p);
    p = put(p, ",\"open\":");
    p += write_js_number(load<double>(c.field[1], i), p);
    p = put(p, ",\"high\":");
    p += write_js_number(load<double>(c.field[2], i), p);
    p = put(p, ",\"low\":");
    p += write_js_number(load<double>(c.field[3], i), p);
    p = put(p, ",\"close\":");
    p += write_js_number(load<double>(c.field[4], i), p);
    p = put(p, ",\"tick_volume\":");
    p += write_uint64(load<uint64_t>(c.field[5], i), p);
    p = put(p, ",\"spread\":");
    p += write_int64(load<int32_t>(c.field[6], i), p);
    p = put(p, ",\"real_volume\":");
    p += write_uint64(load<uint64_t>(c.field[7], i), p);
    *p++ = '}';
  }
  return static_cast<size_t>(p - out);
}

}  // namespace

size_t rows_json_bound(SeriesKind kind, size_t rows, size_t opener_chars) {
  const size_t keys = kind == SeriesKind::Ticks ? kTickKeyChars : kRateKeyChars;
  return rows * (keys + opener_chars + 8 * kMaxNumberChars + 1);
}

size_t rows_json(SeriesKind kind, const SeriesColumns& columns, size_t from, size_t to, bool first, char* out) {
  return kind == SeriesKind::Ticks ? tick_rows(columns, from, to, first, out) : rate_rows(columns, from, to, first, out);
}

}  // namespace tradeapi::encode
