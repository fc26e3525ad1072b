// Tests of the native Parquet writer's pieces: Thrift compact encoding (varints, zigzag, field
// headers, lists, nested structs), bit packing and DELTA_BINARY_PACKED (checked by decoding it
// back), page headers, row groups (decompressed and compared) and the footer's framing. Reading
// whole files back with independent readers (hyparquet, pyarrow) is test/encode/parquet-native.test.ts.
#include <gtest/gtest.h>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "parquet/compression.h"
#include "parquet/crc32.h"
#include "parquet/delta_binary_packed.h"
#include "parquet/dictionary.h"
#include "parquet/parquet_writer.h"
#include "parquet/thrift_compact.h"
#include "sim/market.h"
#include "sim/sim_time.h"
#include "terminal/constants.h"

namespace tradeapi::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes varint(uint64_t v) {
  Bytes out;
  put_varint(out, v);
  return out;
}

// --- A minimal reader side, for the tests only. ---

struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      EXPECT_LT(p, end);
      const uint8_t b = *p++;
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return v;
    }
  }
  int64_t zigzag() {
    const uint64_t v = varint();
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
};

std::vector<int64_t> decode_delta(const uint8_t* data, size_t size, const uint8_t** stop = nullptr) {
  Reader r{data, data + size};
  const uint64_t block = r.varint();
  const uint64_t miniblocks = r.varint();
  const uint64_t total = r.varint();
  int64_t value = r.zigzag();
  std::vector<int64_t> out;
  if (total > 0) out.push_back(value);
  const uint64_t per_mini = block / miniblocks;
  while (out.size() < total) {
    const int64_t min_delta = r.zigzag();
    std::vector<int> widths(miniblocks);
    for (auto& w : widths) w = *r.p++;
    for (uint64_t m = 0; m < miniblocks && out.size() < total; ++m) {
      const int w = widths[m];
      uint64_t bitpos = 0;
      for (uint64_t i = 0; i < per_mini; ++i) {
        uint64_t d = 0;
        for (int b = 0; b < w; ++b, ++bitpos) d |= static_cast<uint64_t>((r.p[bitpos / 8] >> (bitpos % 8)) & 1) << b;
        if (out.size() < total) {
          value = static_cast<int64_t>(static_cast<uint64_t>(value) + static_cast<uint64_t>(min_delta) + d);
          out.push_back(value);
        }
      }
      r.p += per_mini * static_cast<uint64_t>(w) / 8;
    }
  }
  if (stop) *stop = r.p;
  return out;
}

// --- Thrift compact protocol ---

TEST(ThriftCompact, Varints) {
  EXPECT_EQ(varint(0), (Bytes{0x00}));
  EXPECT_EQ(varint(1), (Bytes{0x01}));
  EXPECT_EQ(varint(127), (Bytes{0x7F}));
  EXPECT_EQ(varint(128), (Bytes{0x80, 0x01}));
  EXPECT_EQ(varint(300), (Bytes{0xAC, 0x02}));
  EXPECT_EQ(varint(UINT64_MAX), (Bytes{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}));
}

TEST(ThriftCompact, ZigZag) {
  EXPECT_EQ(zigzag32(0), 0u);
  EXPECT_EQ(zigzag32(-1), 1u);
  EXPECT_EQ(zigzag32(1), 2u);
  EXPECT_EQ(zigzag32(-2), 3u);
  EXPECT_EQ(zigzag32(INT32_MAX), 0xFFFFFFFEu);
  EXPECT_EQ(zigzag32(INT32_MIN), 0xFFFFFFFFu);
  EXPECT_EQ(zigzag64(INT64_MIN), UINT64_MAX);
  EXPECT_EQ(zigzag64(INT64_MAX), UINT64_MAX - 1);
  EXPECT_EQ(zigzag64(-3), 5u);
}

TEST(ThriftCompact, FieldHeadersShortAndLong) {
  Bytes out;
  CompactWriter w(out);
  w.field_i32(1, 2);      // delta 1: 0x15, zigzag(2)=4
  w.field_i64(3, -1);     // delta 2: 0x26, zigzag(-1)=1
  w.field_i32(20, 0);     // delta 17 > 15: long form 0x05, zigzag16(20)=40
  w.field_i32(10, 1);     // negative delta: long form 0x05, 20, value 2
  w.field_bool(11, true); // delta 1, type 1
  w.field_bool(12, false);// delta 1, type 2
  w.field_i8(13, -2);     // delta 1, type 3, raw byte
  w.end_message();
  EXPECT_EQ(out, (Bytes{0x15, 0x04, 0x26, 0x01, 0x05, 40, 0x00, 0x05, 20, 0x02, 0x11, 0x12, 0x13, 0xFE, 0x00}));
}

TEST(ThriftCompact, StringsListsAndNestedStructs) {
  Bytes out;
  CompactWriter w(out);
  w.field_string(4, "ab");             // 0x48, len 2, 'a' 'b'
  w.begin_struct_field(5);             // 0x1C
  w.field_i32(15, 7);                  // inner ids restart at 0: delta 15 -> 0xF5, 14
  w.end_struct();                      // 0x00
  w.field_i32(6, 1);                   // outer last id is 5 again: delta 1 -> 0x15, 2
  w.begin_list_field(7, CType::I32, 2);  // 0x19, list header 0x25
  w.i32(-1);
  w.i32(1);
  w.begin_list_field(8, CType::Struct, 20);  // 0x19, long list header 0xFC, varint 20
  for (int i = 0; i < 20; ++i) {
    w.begin_struct_element();
    w.end_struct();
  }
  w.end_message();
  Bytes want{0x48, 2, 'a', 'b', 0x1C, 0xF5, 14, 0x00, 0x15, 0x02, 0x19, 0x25, 0x01, 0x02, 0x19, 0xFC, 20};
  want.insert(want.end(), 20, 0x00);
  want.push_back(0x00);
  EXPECT_EQ(out, want);
}

TEST(ThriftCompact, DataPageHeader) {
  Bytes out;
  encode_data_page_header(out, 3, Encoding::Plain, 24, 10);
  // type 0, uncompressed 24, compressed 10, data_page_header {num_values 3, PLAIN, RLE, RLE}.
  EXPECT_EQ(out, (Bytes{0x15, 0x00, 0x15, 48, 0x15, 20, 0x2C, 0x15, 6, 0x15, 0, 0x15, 6, 0x15, 6, 0x00, 0x00}));
}

TEST(ThriftCompact, PageHeadersWithCrc) {
  Bytes out;
  encode_data_page_header(out, 3, Encoding::Plain, 24, 10, 0xCBF43926u);
  // As above, with field 4 (crc, i32: the 32 bits as a signed value, zigzag varint) after field 3.
  Bytes want{0x15, 0x00, 0x15, 48, 0x15, 20, 0x15};
  put_varint(want, zigzag32(static_cast<int32_t>(0xCBF43926u - 0x100000000ull)));
  for (uint8_t b : {0x1C, 0x15, 6, 0x15, 0, 0x15, 6, 0x15, 6, 0x00, 0x00}) want.push_back(b);
  EXPECT_EQ(out, want);
  Bytes dict;
  encode_dictionary_page_header(dict, 2, 16, 16, 1u);
  EXPECT_EQ(dict, (Bytes{0x15, 0x04, 0x15, 32, 0x15, 32, 0x15, 2, 0x3C, 0x15, 4, 0x15, 0, 0x00, 0x00}));
}

// --- CRC-32 ---

uint32_t crc32_bitwise(const uint8_t* p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

TEST(Crc32, KnownValuesAndPieces) {
  EXPECT_EQ(crc32("123456789", 9), 0xCBF43926u);  // the check value of CRC-32/ISO-HDLC (zlib's crc32)
  EXPECT_EQ(crc32("", 0), 0u);
  EXPECT_EQ(crc32("a", 1), 0xE8B7BE43u);
  EXPECT_EQ(crc32("The quick brown fox jumps over the lazy dog", 43), 0x414FA339u);
  std::mt19937 rng(3);
  Bytes data(4099);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  // Every length and alignment up to several 64-byte blocks, against the bit-at-a-time definition,
  // by both ways (the folding one where the CPU has it).
  for (size_t at = 0; at < 17; ++at) {
    for (size_t n = 0; n + at <= 400; ++n) {
      const uint32_t want = crc32_bitwise(data.data() + at, n);
      ASSERT_EQ(crc32(data.data() + at, n), want) << at << "+" << n;
      ASSERT_EQ(detail::crc32_tables(data.data() + at, n), want) << at << "+" << n;
    }
  }
  EXPECT_EQ(crc32(data.data(), data.size()), crc32_bitwise(data.data(), data.size()));
  EXPECT_EQ(crc32(data.data(), data.size(), 0x12345678u), detail::crc32_tables(data.data(), data.size(), 0x12345678u));
  // Continued over pieces.
  const uint32_t whole = crc32(data.data(), data.size());
  for (size_t cut : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{2048}, size_t{4099}}) {
    EXPECT_EQ(crc32(data.data() + cut, data.size() - cut, crc32(data.data(), cut)), whole) << cut;
  }
}

TEST(Crc32, Perf) {
  // 64 MiB, best of 5 (GB/s; no assertion on time).
  Bytes data(size_t{64} << 20);
  std::mt19937_64 rng(1);
  for (size_t i = 0; i + 8 <= data.size(); i += 8) {
    const uint64_t v = rng();
    std::memcpy(data.data() + i, &v, 8);
  }
  uint32_t seen = 0;
  auto best = [&](uint32_t (*f)(const void*, size_t, uint32_t)) {
    double b = 1e300;
    for (int round = 0; round < 5; ++round) {
      const auto t0 = std::chrono::steady_clock::now();
      seen ^= f(data.data(), data.size(), 0);
      b = std::min(b, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return static_cast<double>(data.size()) / b / 1e9;
  };
  const double tables = best(&detail::crc32_tables);
  const double used = best(&crc32);
  EXPECT_EQ(crc32(data.data(), data.size()), detail::crc32_tables(data.data(), data.size()));
  std::printf("[ perf     ] crc32: %.2f GB/s (%s); slicing-by-16 alone %.2f GB/s (%08x)\n", used,
              detail::crc32_uses_clmul() ? "PCLMULQDQ folding" : "slicing-by-16", tables, seen);
}

// --- Bit packing and DELTA_BINARY_PACKED ---

TEST(BitPack, LsbFirst) {
  const uint64_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  Bytes out;
  bit_pack(v, 8, 3, out);
  // The Parquet spec's example: 0..7 at 3 bits -> 10001000 11000110 11111010.
  EXPECT_EQ(out, (Bytes{0x88, 0xC6, 0xFA}));
  out.clear();
  bit_pack(v, 8, 0, out);
  EXPECT_TRUE(out.empty());
  const uint64_t wide[8] = {UINT64_MAX, 0, 1, UINT64_MAX - 1, 5, 6, 7, 8};
  bit_pack(wide, 8, 64, out);
  ASSERT_EQ(out.size(), 64u);
  uint64_t back[8];
  std::memcpy(back, out.data(), 64);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(back[i], wide[i]);
}

TEST(DeltaBinaryPacked, RoundTripsEdgeCases) {
  std::mt19937_64 rng(7);
  std::vector<std::vector<int64_t>> cases = {
      {},
      {42},
      {5, 5},
      {INT64_MIN, INT64_MAX, INT64_MIN, 0, -1, INT64_MAX},  // wrapping deltas, width 64
  };
  for (size_t n : {31u, 32u, 33u, 127u, 128u, 129u, 1000u, 4097u}) {
    std::vector<int64_t> sorted(n), noisy(n);
    int64_t t = 1704888000000;
    for (size_t i = 0; i < n; ++i) {
      t += static_cast<int64_t>(rng() % 700);
      sorted[i] = t;
      noisy[i] = static_cast<int64_t>(rng());
    }
    cases.push_back(sorted);
    cases.push_back(noisy);
  }
  for (const auto& values : cases) {
    Bytes out;
    delta_binary_packed_encode(values.data(), values.size(), out);
    const uint8_t* stop = nullptr;
    EXPECT_EQ(decode_delta(out.data(), out.size(), &stop), values) << values.size() << " values";
    EXPECT_EQ(stop, out.data() + out.size()) << "no trailing bytes, " << values.size() << " values";
  }
}

TEST(DeltaBinaryPacked, SortedTimesPackSmall) {
  std::vector<int64_t> ms(131072);
  for (size_t i = 0; i < ms.size(); ++i) ms[i] = 1704888000000 + static_cast<int64_t>(i) * 250;
  Bytes out;
  delta_binary_packed_encode(ms.data(), ms.size(), out);
  EXPECT_LT(out.size(), ms.size() / 10) << "constant deltas: width 0 miniblocks";
  EXPECT_EQ(decode_delta(out.data(), out.size()), ms);
}

// --- Row groups and the footer ---

struct Tick {
  std::vector<int64_t> time, time_msc;
  std::vector<double> bid, ask, last, volume_real;
  std::vector<uint64_t> volume;
  std::vector<uint32_t> flags;
  explicit Tick(size_t n) : time(n), time_msc(n), bid(n), ask(n), last(n), volume_real(n), volume(n), flags(n) {
    for (size_t i = 0; i < n; ++i) {
      time_msc[i] = 1704888000000 + static_cast<int64_t>(i) * 137;
      time[i] = time_msc[i] / 1000;
      bid[i] = 1.1 + static_cast<double>(i % 100) * 1e-5;
      ask[i] = bid[i] + 1.2e-4;
      volume[i] = i % 5 == 0 ? UINT64_MAX : i;
      flags[i] = i % 2 ? 0x80000000u : 6u;
    }
  }
  RowGroupInput input(size_t from, size_t to) const {
    RowGroupInput in;
    const void* cols[] = {time.data(), bid.data(), ask.data(), last.data(), volume.data(), time_msc.data(), flags.data(), volume_real.data()};
    const size_t sizes[] = {8, 8, 8, 8, 8, 8, 4, 8};
    for (size_t c = 0; c < 8; ++c) {
      // Two segments per column, to exercise the gathering.
      const size_t mid = from + (to - from) / 3;
      const auto* base = static_cast<const uint8_t*>(cols[c]);
      in.columns.push_back({{base + from * sizes[c], mid - from}, {base + mid * sizes[c], to - mid}});
    }
    return in;
  }
};

// Splits a column chunk into pages: (header bytes consumed are skipped by locating the
// data_page_header's / dictionary_page_header's fields through the known layout of our own
// headers) -> decompressed bodies; `dictionary` (if given) gets the dictionary page's body.
std::vector<Bytes> page_bodies(const uint8_t* p, size_t size, Codec codec, Bytes* dictionary = nullptr) {
  std::vector<Bytes> bodies;
  const uint8_t* end = p + size;
  while (p < end) {
    Reader r{p, end};
    EXPECT_EQ(*r.p++, 0x15);  // type
    const int64_t type = r.zigzag();
    EXPECT_EQ(*r.p++, 0x15);
    const auto uncompressed = static_cast<size_t>(r.zigzag());
    EXPECT_EQ(*r.p++, 0x15);
    const auto compressed = static_cast<size_t>(r.zigzag());
    // crc (field 4, i32), on every page the writer writes (page_crc, the default): the CRC-32 of the
    // page's bytes after the header.
    std::optional<uint32_t> crc;
    if (*r.p == 0x15) {
      ++r.p;
      crc = static_cast<uint32_t>(static_cast<int32_t>(r.zigzag()));
    }
    // data_page_header (field 5) or dictionary_page_header (field 7), a struct of i32 fields
    EXPECT_EQ(*r.p++, (type == 2 ? 0x40 : 0x20) - (crc ? 0x10 : 0) + 0x0C);
    while (*r.p != 0) {
      ++r.p;
      r.varint();
    }
    ++r.p;
    EXPECT_EQ(*r.p++, 0x00);  // end of PageHeader
    EXPECT_TRUE(crc.has_value()) << "a page without its CRC";
    if (crc) {
      EXPECT_EQ(*crc, crc32(r.p, compressed)) << "the page's CRC";
    }
    Bytes body(uncompressed);
    if (codec == Codec::Zstd) {
      EXPECT_EQ(ZSTD_decompress(body.data(), body.size(), r.p, compressed), uncompressed);
    } else {
      EXPECT_EQ(compressed, uncompressed);
      std::memcpy(body.data(), r.p, compressed);
    }
    if (type == 2) {
      EXPECT_NE(dictionary, nullptr) << "a dictionary page where none was expected";
      EXPECT_TRUE(bodies.empty()) << "the dictionary page comes first";
      if (dictionary) *dictionary = std::move(body);
    } else {
      bodies.push_back(std::move(body));
    }
    p = r.p + compressed;
  }
  return bodies;
}

// The indices of an RLE_DICTIONARY data page body: bit width, then RLE / bit-packed runs.
std::vector<uint32_t> decode_indices(const Bytes& body, size_t n) {
  Reader r{body.data() + 1, body.data() + body.size()};
  const int width = body.at(0);
  std::vector<uint32_t> out;
  while (out.size() < n && r.p < r.end) {
    const uint64_t header = r.varint();
    if (header & 1) {  // bit-packed: (header >> 1) groups of 8
      const size_t count = static_cast<size_t>(header >> 1) * 8;
      uint64_t acc = 0;
      int filled = 0;
      for (size_t i = 0; i < count; ++i) {
        while (filled < width) {
          acc |= static_cast<uint64_t>(*r.p++) << filled;
          filled += 8;
        }
        if (out.size() < n) out.push_back(static_cast<uint32_t>(acc & ((uint64_t{1} << width) - 1)));
        acc >>= width;
        filled -= width;
      }
    } else {  // RLE: (header >> 1) copies of one value of ceil(width / 8) bytes
      uint32_t v = 0;
      for (int b = 0; b < (width + 7) / 8; ++b) v |= static_cast<uint32_t>(*r.p++) << (8 * b);
      out.insert(out.end(), static_cast<size_t>(header >> 1), v);
    }
  }
  return out;
}

TEST(RowGroup, ValuesStatisticsAndPages) {
  const Tick t(1000);
  const Schema schema = tick_schema();
  for (bool dictionary : {false, true}) {
  for (Codec codec : {Codec::Zstd, Codec::Uncompressed}) {
    SCOPED_TRACE(std::string(dictionary ? "dictionary, " : "plain, ") + codec_name(codec));
    WriterOptions options;
    options.codec = codec;
    options.dictionary = dictionary;
    options.page_rows = 300;  // 3 pages per column
    const EncodedRowGroup g = encode_row_group(schema, options, t.input(100, 1000));
    EXPECT_EQ(g.meta.num_rows, 900);
    EXPECT_EQ(g.meta.byte_size, static_cast<int64_t>(g.bytes.size()));
    ASSERT_EQ(g.meta.columns.size(), 8u);
    auto chunk_start = [](const ColumnChunkMeta& m) { return m.dictionary_page_offset >= 0 ? m.dictionary_page_offset : m.data_page_offset; };
    for (size_t c = 0; c < 8; ++c) {
      const ColumnChunkMeta& m = g.meta.columns[c];
      const int64_t next = c + 1 < 8 ? chunk_start(g.meta.columns[c + 1]) : g.meta.byte_size;
      EXPECT_EQ(chunk_start(m) + m.total_compressed_size, next) << "chunks are contiguous";
      EXPECT_EQ(m.num_values, 900);
      // time and time_msc are delta-encoded, never dictionary; volume (i) has too many distinct
      // values; the others have few.
      const bool eligible = c != 0 && c != 5 && c != 4;
      EXPECT_EQ(m.dictionary_page_offset >= 0, dictionary && eligible) << "column " << c;
      if (m.dictionary_page_offset >= 0) {
        EXPECT_LT(m.dictionary_page_offset, m.data_page_offset);
      }
    }
    // time: seconds * 1000, delta-encoded, over 3 pages.
    const ColumnChunkMeta& time = g.meta.columns[0];
    auto pages = page_bodies(g.bytes.data() + time.data_page_offset, static_cast<size_t>(time.total_compressed_size), codec);
    ASSERT_EQ(pages.size(), 3u);
    std::vector<int64_t> decoded;
    for (const Bytes& body : pages) {
      auto part = decode_delta(body.data(), body.size());
      decoded.insert(decoded.end(), part.begin(), part.end());
    }
    ASSERT_EQ(decoded.size(), 900u);
    for (size_t i = 0; i < 900; ++i) ASSERT_EQ(decoded[i], t.time[100 + i] * 1000);
    // flags: PLAIN uint32, or a dictionary of its two values and 1-bit indices.
    const ColumnChunkMeta& flags = g.meta.columns[6];
    Bytes dict;
    pages = page_bodies(g.bytes.data() + chunk_start(flags), static_cast<size_t>(flags.total_compressed_size), codec, &dict);
    ASSERT_EQ(pages.size(), 3u);
    Bytes all;
    if (dictionary) {
      ASSERT_EQ(dict.size(), 2u * 4);
      std::vector<uint32_t> values(2);
      std::memcpy(values.data(), dict.data(), 8);
      EXPECT_EQ(values, (std::vector<uint32_t>{6u, 0x80000000u})) << "first seen first: row 100 is even";
      for (size_t p = 0; p < 3; ++p) {
        EXPECT_EQ(pages[p].at(0), 1) << "bit width";
        for (uint32_t i : decode_indices(pages[p], 300)) {
          const uint32_t v = values.at(i);
          all.insert(all.end(), reinterpret_cast<const uint8_t*>(&v), reinterpret_cast<const uint8_t*>(&v) + 4);
        }
      }
    } else {
      for (const Bytes& body : pages) all.insert(all.end(), body.begin(), body.end());
    }
    ASSERT_EQ(all.size(), 900u * 4);
    EXPECT_EQ(std::memcmp(all.data(), t.flags.data() + 100, all.size()), 0);
    // Statistics in the logical type's order: unsigned for volume and flags.
    uint64_t vmax = 0, vmin = 1;
    std::memcpy(&vmax, g.meta.columns[4].max->data(), 8);
    std::memcpy(&vmin, g.meta.columns[4].min->data(), 8);
    EXPECT_EQ(vmax, UINT64_MAX);
    EXPECT_EQ(vmin, 101u);
    uint32_t fmax = 0;
    std::memcpy(&fmax, g.meta.columns[6].max->data(), 4);
    EXPECT_EQ(fmax, 0x80000000u);
    double lmin = 1, lmax = 1;  // `last` is all zeros: min -0.0, max +0.0
    std::memcpy(&lmin, g.meta.columns[3].min->data(), 8);
    std::memcpy(&lmax, g.meta.columns[3].max->data(), 8);
    EXPECT_TRUE(lmin == 0.0 && std::signbit(lmin));
    EXPECT_TRUE(lmax == 0.0 && !std::signbit(lmax));
  }
  }
}

// Decodes one dictionary-encoded column chunk back to its values (8-byte values).
std::vector<uint64_t> dictionary_values(const EncodedRowGroup& g, size_t column, size_t rows, Codec codec, size_t page_rows = 300) {
  const ColumnChunkMeta& m = g.meta.columns[column];
  EXPECT_GE(m.dictionary_page_offset, 0);
  Bytes dict;
  const auto pages = page_bodies(g.bytes.data() + m.dictionary_page_offset, static_cast<size_t>(m.total_compressed_size), codec, &dict);
  std::vector<uint64_t> values(dict.size() / 8);
  std::memcpy(values.data(), dict.data(), dict.size());
  std::vector<uint64_t> out;
  size_t left = rows;
  for (const Bytes& body : pages) {
    for (uint32_t i : decode_indices(body, std::min<size_t>(left, page_rows))) out.push_back(values.at(i));
    left -= std::min<size_t>(left, page_rows);
  }
  return out;
}

TEST(Dictionary, KeepsEveryValuesBitsAndFallsBackToPlain) {
  // Bits that compare equal as doubles but are not the same value (-0.0, NaN payloads) stay apart.
  const size_t n = 1000;
  Tick t(n);
  const double nan1 = std::numeric_limits<double>::quiet_NaN();
  double nan2;
  uint64_t bits;
  std::memcpy(&bits, &nan1, 8);
  bits ^= 1;
  std::memcpy(&nan2, &bits, 8);
  for (size_t i = 0; i < n; ++i) t.last[i] = i % 4 == 0 ? 0.0 : i % 4 == 1 ? -0.0 : i % 4 == 2 ? nan1 : nan2;
  for (size_t i = 0; i < n; ++i) t.volume_real[i] = 2.5;  // constant: one RLE run
  for (size_t i = 0; i < n; ++i) t.ask[i] = static_cast<double>(i) * 0.25;  // all distinct: PLAIN
  for (Codec codec : {Codec::Zstd, Codec::Uncompressed}) {
    WriterOptions options;
    options.codec = codec;
    options.page_rows = 300;
    const EncodedRowGroup g = encode_row_group(tick_schema(), options, t.input(0, n));
    const std::vector<uint64_t> last = dictionary_values(g, 3, n, codec);
    ASSERT_EQ(last.size(), n);
    EXPECT_EQ(std::memcmp(last.data(), t.last.data(), n * 8), 0);
    const std::vector<uint64_t> real = dictionary_values(g, 7, n, codec);
    ASSERT_EQ(real.size(), n);
    EXPECT_EQ(std::memcmp(real.data(), t.volume_real.data(), n * 8), 0);
    EXPECT_EQ(g.meta.columns[2].dictionary_page_offset, -1) << "more distinct values than half the rows: PLAIN";
    Bytes none;
    const auto pages = page_bodies(g.bytes.data() + g.meta.columns[2].data_page_offset,
                                   static_cast<size_t>(g.meta.columns[2].total_compressed_size), codec, &none);
    Bytes all;
    for (const Bytes& body : pages) all.insert(all.end(), body.begin(), body.end());
    ASSERT_EQ(all.size(), n * 8);
    EXPECT_EQ(std::memcmp(all.data(), t.ask.data(), all.size()), 0);
  }
}

TEST(Dictionary, WideIndicesPackAcrossWords) {
  // 3 000 rows over 1 500 distinct values: 11-bit indices, which straddle the packer's 32-bit words.
  const size_t n = 3000;
  Tick t(n);
  for (size_t i = 0; i < n; ++i) t.bid[i] = 1.0 + static_cast<double>((i * 7919) % 1500) * 1e-5;
  WriterOptions options;
  options.page_rows = 300;
  const EncodedRowGroup g = encode_row_group(tick_schema(), options, t.input(0, n));
  const std::vector<uint64_t> bid = dictionary_values(g, 1, n, options.codec);
  ASSERT_EQ(bid.size(), n);
  EXPECT_EQ(std::memcmp(bid.data(), t.bid.data(), n * 8), 0);
}

// The builder against a reference (first-seen order, keyed by bits) on keys chosen to stress the
// table: its empty slots' filler keys (0, 1, 2...), -0.0 and NaN payloads, values that collide
// in their home slots, enough distinct values to grow it several times, scale on int64 (wrapping,
// so that distinct inputs may meet), 4-byte values, and exactly the limit / one over it.
template <typename T>
void expect_like_reference(DictionaryBuilder& dict, const std::vector<T>& input, uint64_t scale, size_t limit, size_t pieces = 3) {
  std::vector<Segment> segments;
  for (size_t p = 0; p < pieces; ++p) {  // several segments, some empty
    const size_t from = input.size() * p / pieces, to = input.size() * (p + 1) / pieces;
    segments.push_back({input.data() + from, to - from});
  }
  std::vector<T> values;
  std::vector<uint32_t> indices;
  {
    std::map<T, uint32_t> seen;
    for (T v : input) {
      const T key = static_cast<T>(static_cast<uint64_t>(v) * scale);
      auto it = seen.emplace(key, static_cast<uint32_t>(values.size())).first;
      if (it->second == values.size()) values.push_back(key);
      indices.push_back(it->second);
    }
  }
  const bool fits = !input.empty() && values.size() <= limit && limit > 0;
  ASSERT_EQ(dict.build(segments, input.size(), sizeof(T), scale, limit), fits) << values.size() << " distinct, limit " << limit;
  if (!fits) return;
  ASSERT_EQ(dict.size(), values.size());
  ASSERT_EQ(dict.values_bytes(), values.size() * sizeof(T));
  EXPECT_EQ(std::memcmp(dict.values(), values.data(), dict.values_bytes()), 0);
  EXPECT_EQ(dict.constant(), values.size() == 1);
  if (!dict.constant()) {
    EXPECT_EQ(std::memcmp(dict.indices(), indices.data(), indices.size() * 4), 0);
  }
  EXPECT_GE(size_t{1} << dict.bit_width(), values.size());
}

TEST(Dictionary, BuilderMatchesReference) {
  DictionaryBuilder dict;  // one builder throughout, as the writer's thread_local one
  std::mt19937_64 rng(5);
  {
    std::vector<uint64_t> small;  // the filler keys and their neighbours, repeated in a shuffle
    for (int r = 0; r < 50; ++r)
      for (uint64_t v = 0; v < 40; ++v) small.push_back(v);
    std::shuffle(small.begin(), small.end(), rng);
    expect_like_reference(dict, small, 1, kDictionaryLimit);
    small.insert(small.begin(), 0);  // 0 first
    expect_like_reference(dict, small, 1, kDictionaryLimit);
  }
  {
    std::vector<double> d;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (int i = 0; i < 2000; ++i) {
      uint64_t bits;
      std::memcpy(&bits, &nan, 8);
      bits |= static_cast<uint64_t>(i % 7);
      double payload;
      std::memcpy(&payload, &bits, 8);
      const double choices[] = {0.0, -0.0, payload, -payload, std::numeric_limits<double>::infinity(), 1.10001, 1.10002};
      d.push_back(choices[rng() % 7]);
    }
    std::vector<uint64_t> bits(d.size());
    std::memcpy(bits.data(), d.data(), d.size() * 8);
    expect_like_reference(dict, bits, 1, kDictionaryLimit);
  }
  {
    // Keys that differ only in their top bits share low product bits: many home-slot collisions.
    std::vector<uint64_t> top;
    for (int i = 0; i < 5000; ++i) top.push_back((rng() % 600) << 52);
    expect_like_reference(dict, top, 1, kDictionaryLimit);
    // A price walk with thousands of distinct values: the table grows past its size thresholds.
    std::vector<uint64_t> walk;
    int64_t p = 108000;
    for (int i = 0; i < 131072; ++i) {
      p += static_cast<int64_t>(rng() % 61) - 30;
      const double v = static_cast<double>(p) / 1e5;
      uint64_t b;
      std::memcpy(&b, &v, 8);
      walk.push_back(b);
    }
    expect_like_reference(dict, walk, 1, kDictionaryLimit);
    // All distinct: up to the limit, exactly at it, one over it.
    std::vector<uint64_t> distinct(20000);
    for (size_t i = 0; i < distinct.size(); ++i) distinct[i] = rng();
    expect_like_reference(dict, distinct, 1, 20000);
    expect_like_reference(dict, distinct, 1, 19999);
    expect_like_reference(dict, distinct, 1, 0);
    expect_like_reference(dict, std::vector<uint64_t>{}, 1, 10);
    expect_like_reference(dict, walk, 1, kDictionaryLimit);  // after a fallback, all is reset
  }
  {
    // int64 with scale: wrapping products, distinct inputs that meet (2^62 apart times 4).
    std::vector<int64_t> t;
    for (int i = 0; i < 3000; ++i) t.push_back(static_cast<int64_t>(rng() % 50) + (i % 2 ? (int64_t{1} << 62) : 0) - 25);
    expect_like_reference(dict, t, 1000, kDictionaryLimit);
    expect_like_reference(dict, t, 4, kDictionaryLimit);
    expect_like_reference(dict, t, static_cast<uint64_t>(-7), kDictionaryLimit);
    expect_like_reference(dict, std::vector<int64_t>(100, 3), 1000, kDictionaryLimit);  // constant, scaled
  }
  {
    std::vector<uint32_t> u;
    for (int i = 0; i < 4000; ++i) u.push_back(i % 3 == 0 ? 0x80000000u : static_cast<uint32_t>(rng() % 300));
    expect_like_reference(dict, u, 1, kDictionaryLimit);
    expect_like_reference(dict, std::vector<uint32_t>(77, 0u), 1, kDictionaryLimit);
    expect_like_reference(dict, std::vector<uint32_t>{0u, 1u}, 1, 1);
  }
}

// encode_dictionary_indices against a bit-at-a-time reference packer, byte for byte (zero padding
// of the last group included), for every width and counts around multiples of 8; appended after
// what the buffer already holds.
TEST(Dictionary, IndicesPackEveryWidth) {
  std::mt19937_64 rng(9);
  for (int width = 1; width <= 32; ++width) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{7}, size_t{8}, size_t{9}, size_t{15}, size_t{16},
                     size_t{17}, size_t{63}, size_t{64}, size_t{65}, size_t{1000}, size_t{1001}, size_t{4099}}) {
      SCOPED_TRACE("width " + std::to_string(width) + ", " + std::to_string(n) + " values");
      std::vector<uint32_t> indices(n);
      const uint64_t bound = uint64_t{1} << width;
      for (uint32_t& i : indices) i = static_cast<uint32_t>(rng() % bound);
      if (n > 0) indices[0] = static_cast<uint32_t>(bound - 1);  // all ones
      Bytes expected = {0xAB, 0xCD};
      expected.push_back(static_cast<uint8_t>(width));
      if (n > 0) {
        const size_t groups = (n + 7) / 8;
        const Bytes header = varint((groups << 1) | 1);
        expected.insert(expected.end(), header.begin(), header.end());
        const size_t at = expected.size();
        expected.resize(at + groups * static_cast<size_t>(width), 0);
        for (size_t i = 0; i < n; ++i)
          for (int b = 0; b < width; ++b)
            if ((indices[i] >> b) & 1) {
              const size_t bit = i * static_cast<size_t>(width) + static_cast<size_t>(b);
              expected[at + bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
            }
      }
      Bytes out = {0xAB, 0xCD};
      encode_dictionary_indices(indices.data(), n, width, false, out);
      ASSERT_EQ(out, expected);
      EXPECT_EQ(decode_indices(Bytes(out.begin() + 2, out.end()), n), indices);
    }
  }
  Bytes out;
  encode_dictionary_indices(nullptr, 1000, 1, true, out);  // constant: one RLE run of index 0
  EXPECT_EQ(decode_indices(out, 1000), std::vector<uint32_t>(1000, 0));
  const uint32_t one = 0;
  EXPECT_THROW(encode_dictionary_indices(&one, 1, 0, false, out), std::invalid_argument);
  EXPECT_THROW(encode_dictionary_indices(&one, 1, 33, false, out), std::invalid_argument);
}

// Simulated EURUSD ticks (the market tests' simulator): 8 row groups of 128 K rows, zstd level 1.
// Prints ns/row of the dictionary build of the bid / ask columns, of their indices' bit packing,
// and of whole row groups with the dictionary on and off (best of a few rounds; no assertions on
// time, only that the dictionary path round-trips).
TEST(Dictionary, PerfSimulatedTicks) {
  sim::SimConfig config;
  config.seed = 42;
  const int64_t day = sim::detail::days_from_civil(2024, 3, 15) * 86400;
  config.now_ms = (day + 15 * 3600) * 1000;
  config.history_start = sim::detail::days_from_civil(2023, 1, 1) * 86400;
  config.symbols = {"EURUSD"};
  config.demo_trades = false;
  sim::Market mk(config);
  const size_t group_rows = 131072, groups = 8, rows = group_rows * groups;
  TickColumns all, part;
  auto cursor = mk.ticks_range(*mk.find("EURUSD"), sim::detail::days_from_civil(2024, 2, 1) * 86400 * 1000, config.now_ms - 1, mt5::COPY_TICKS_ALL);
  while (all.rows() < rows && cursor->next(1 << 16, part)) {
    all.time.insert(all.time.end(), part.time.begin(), part.time.end());
    all.bid.insert(all.bid.end(), part.bid.begin(), part.bid.end());
    all.ask.insert(all.ask.end(), part.ask.begin(), part.ask.end());
    all.last.insert(all.last.end(), part.last.begin(), part.last.end());
    all.volume.insert(all.volume.end(), part.volume.begin(), part.volume.end());
    all.time_msc.insert(all.time_msc.end(), part.time_msc.begin(), part.time_msc.end());
    all.flags.insert(all.flags.end(), part.flags.begin(), part.flags.end());
    all.volume_real.insert(all.volume_real.end(), part.volume_real.begin(), part.volume_real.end());
  }
  ASSERT_GE(all.rows(), rows);
  auto input = [&](size_t g) {
    RowGroupInput in;
    const void* cols[] = {all.time.data(), all.bid.data(), all.ask.data(), all.last.data(), all.volume.data(), all.time_msc.data(), all.flags.data(), all.volume_real.data()};
    const size_t sizes[] = {8, 8, 8, 8, 8, 8, 4, 8};
    for (size_t c = 0; c < 8; ++c) in.columns.push_back({{static_cast<const uint8_t*>(cols[c]) + g * group_rows * sizes[c], group_rows}});
    return in;
  };
  using clock = std::chrono::steady_clock;
  auto ns = [](clock::duration d) { return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count()); };
  const Schema schema = tick_schema();
  double best_build = 1e300, best_pack = 1e300, best_on = 1e300, best_off = 1e300;
  size_t distinct = 0, bytes_on = 0, bytes_off = 0;
  DictionaryBuilder dict;
  std::vector<uint8_t> packed;
  for (int round = 0; round < 5; ++round) {
    double build = 0, pack = 0, on = 0, off = 0;
    distinct = bytes_on = bytes_off = 0;
    for (size_t g = 0; g < groups; ++g) {
      for (const double* col : {all.bid.data(), all.ask.data()}) {
        const std::vector<Segment> segs{{col + g * group_rows, group_rows}};
        const auto t0 = clock::now();
        ASSERT_TRUE(dict.build(segs, group_rows, 8, 1, kDictionaryLimit));
        const auto t1 = clock::now();
        packed.clear();
        encode_dictionary_indices(dict.indices(), group_rows, dict.bit_width(), false, packed);
        const auto t2 = clock::now();
        build += ns(t1 - t0);
        pack += ns(t2 - t1);
        distinct += dict.size();
      }
      const RowGroupInput in = input(g);
      WriterOptions options;
      options.dictionary = true;
      const auto t0 = clock::now();
      const EncodedRowGroup a = encode_row_group(schema, options, in);
      const auto t1 = clock::now();
      options.dictionary = false;
      const EncodedRowGroup b = encode_row_group(schema, options, in);
      const auto t2 = clock::now();
      on += ns(t1 - t0);
      off += ns(t2 - t1);
      bytes_on += a.bytes.size();
      bytes_off += b.bytes.size();
      if (round == 0) {  // the bid column decodes back to its bits
        const std::vector<uint64_t> bid = dictionary_values(a, 1, group_rows, options.codec, group_rows);
        ASSERT_EQ(bid.size(), group_rows);
        ASSERT_EQ(std::memcmp(bid.data(), all.bid.data() + g * group_rows, group_rows * 8), 0);
      }
    }
    best_build = std::min(best_build, build / static_cast<double>(2 * rows));
    best_pack = std::min(best_pack, pack / static_cast<double>(2 * rows));
    best_on = std::min(best_on, on / static_cast<double>(rows));
    best_off = std::min(best_off, off / static_cast<double>(rows));
  }
  std::printf("[ perf     ] %zu EURUSD ticks, 128K-row groups, zstd 1: bid/ask dictionary build %.2f ns/value (%.0f distinct a chunk), "
              "index packing %.2f ns/value\n", rows, best_build, static_cast<double>(distinct) / (2.0 * groups), best_pack);
  std::printf("[ perf     ] row group: dictionary on %.1f ns/row (%.2f B/row), off %.1f ns/row (%.2f B/row)\n", best_on,
              static_cast<double>(bytes_on) / static_cast<double>(rows), best_off, static_cast<double>(bytes_off) / static_cast<double>(rows));
}

TEST(RowGroup, RejectsInconsistentInput) {
  const Tick t(10);
  RowGroupInput in = t.input(0, 10);
  in.columns[3].pop_back();
  EXPECT_THROW(encode_row_group(tick_schema(), WriterOptions{}, in), std::invalid_argument);
  in.columns.pop_back();
  EXPECT_THROW(encode_row_group(tick_schema(), WriterOptions{}, in), std::invalid_argument);
}

TEST(Footer, FramingAndOffsets) {
  const Tick t(500);
  const Schema schema = tick_schema();
  WriterOptions options;
  std::vector<RowGroupMeta> groups;
  Bytes file(kMagic, kMagic + 4);
  for (size_t from = 0; from < 500; from += 200) {
    EncodedRowGroup g = encode_row_group(schema, options, t.input(from, std::min<size_t>(500, from + 200)));
    file.insert(file.end(), g.bytes.begin(), g.bytes.end());
    groups.push_back(std::move(g.meta));
  }
  const Bytes footer = encode_footer(schema, options, groups, "tradeapi test");
  file.insert(file.end(), footer.begin(), footer.end());
  ASSERT_GE(file.size(), 12u);
  EXPECT_EQ(std::memcmp(file.data() + file.size() - 4, "PAR1", 4), 0);
  uint32_t length = 0;
  std::memcpy(&length, file.data() + file.size() - 8, 4);
  EXPECT_EQ(length + 8, footer.size());
  const Bytes metadata = encode_file_metadata(schema, options, groups, 4, "tradeapi test");
  EXPECT_EQ(Bytes(footer.begin(), footer.begin() + length), metadata);
  // FileMetaData starts with version 2 (field 1, i32) and the schema list of 9 structs.
  EXPECT_EQ(metadata[0], 0x15);
  EXPECT_EQ(metadata[1], 0x04);
  EXPECT_EQ(metadata[2], 0x19);
  EXPECT_EQ(metadata[3], 0x9C);
  // The second row group's first data page offset: magic + first group's bytes.
  const auto second = 4 + groups[0].byte_size;
  Bytes needle{0x26};  // field 9 (data_page_offset) after field 7: delta 2, type i64
  put_varint(needle, zigzag64(second));
  const std::string hay(metadata.begin(), metadata.end());
  EXPECT_NE(hay.find(std::string(needle.begin(), needle.end())), std::string::npos);
  // An empty file (no row groups) still carries the schema.
  const Bytes empty = encode_footer(schema, options, {}, "t");
  EXPECT_GT(empty.size(), 100u);
}

TEST(Compression, CodecsAndLevels) {
  EXPECT_EQ(codec_from_name("zstd"), Codec::Zstd);
  EXPECT_EQ(codec_from_name("lz4"), Codec::Lz4Raw);
  EXPECT_EQ(codec_from_name("none"), Codec::Uncompressed);
  EXPECT_FALSE(codec_from_name("snappy").has_value());
  EXPECT_THROW(check_level(Codec::Zstd, 0), std::invalid_argument);
  EXPECT_THROW(check_level(Codec::Zstd, 23), std::invalid_argument);
  EXPECT_NO_THROW(check_level(Codec::Zstd, 3));
  EXPECT_THROW(check_level(Codec::Lz4Raw, 0), std::invalid_argument);
  Bytes src(100000);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i % 7);
  Bytes out{0xAA};
  const size_t n = compress_append(Codec::Zstd, 1, src.data(), src.size(), out);
  EXPECT_EQ(out.size(), 1 + n);
  EXPECT_EQ(out[0], 0xAA);
  Bytes back(src.size());
  EXPECT_EQ(ZSTD_decompress(back.data(), back.size(), out.data() + 1, n), src.size());
  EXPECT_EQ(back, src);
}

}  // namespace
}  // namespace tradeapi::parquet

namespace tradeapi::parquet {
namespace {

TEST(ByteStreamSplit, TransposesBytes) {
  const double v[3] = {1.0, -2.5, 3.25};
  uint8_t in[24], out[24];
  std::memcpy(in, v, 24);
  byte_stream_split(in, 3, 8, out);
  for (size_t i = 0; i < 3; ++i)
    for (size_t k = 0; k < 8; ++k) EXPECT_EQ(out[k * 3 + i], in[i * 8 + k]);
  const uint8_t small[6] = {1, 2, 3, 4, 5, 6};
  uint8_t split[6];
  byte_stream_split(small, 3, 2, split);
  EXPECT_EQ(std::vector<uint8_t>(split, split + 6), (std::vector<uint8_t>{1, 3, 5, 2, 4, 6}));
  const Schema s = with_byte_stream_split(tick_schema());
  EXPECT_EQ(s[1].encoding, Encoding::ByteStreamSplit);
  EXPECT_EQ(s[0].encoding, Encoding::DeltaBinaryPacked);
  EXPECT_EQ(s[4].encoding, Encoding::Plain);
}

}  // namespace
}  // namespace tradeapi::parquet
