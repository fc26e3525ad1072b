// Tests of the native Parquet reader (binding/parquet/parquet_reader.h): files of the project's
// writer read back column for column (ticks and rates, every codec, BYTE_STREAM_SPLIT, several row
// groups and pages), hand-made RLE_DICTIONARY chunks (a dictionary page, then a data page with an
// RLE run and a bit-packed run), the DELTA_BINARY_PACKED and RLE-hybrid decoders alone, what is
// refused as unsupported, and damaged files, which must throw and never read out of bounds (the
// ASan build of these tests checks the latter).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "parquet/compression.h"
#include "parquet/delta_binary_packed.h"
#include "parquet/parquet_reader.h"
#include "parquet/parquet_writer.h"
#include "parquet/thrift_compact.h"

namespace tradeapi::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

// A table of 8-byte (INT64 / DOUBLE) or 4-byte (INT32) columns, one raw byte vector per column.
struct Table {
  size_t rows = 0;
  std::vector<Bytes> columns;
};

template <typename T>
void put(Bytes& b, T v) {
  const size_t at = b.size();
  b.resize(at + sizeof(T));
  std::memcpy(b.data() + at, &v, sizeof(T));
}

template <typename T>
T get(const Bytes& b, size_t i) {
  T v;
  std::memcpy(&v, b.data() + i * sizeof(T), sizeof(T));
  return v;
}

// Ticks (or rates) with sorted times, prices on a grid, some NaN and zero-signed values.
Table make_table(const Schema& schema, size_t rows, uint32_t seed) {
  std::mt19937_64 rng(seed);
  Table t;
  t.rows = rows;
  t.columns.resize(schema.size());
  int64_t msc = 1704700800000;  // 2024-01-08
  for (size_t i = 0; i < rows; ++i) {
    msc += static_cast<int64_t>(rng() % 900);
    for (size_t c = 0; c < schema.size(); ++c) {
      const ColumnSpec& s = schema[c];
      Bytes& col = t.columns[c];
      if (s.name == "time") put<int64_t>(col, msc / 1000);
      else if (s.name == "time_msc") put<int64_t>(col, msc);
      else if (s.type == PhysicalType::Double) {
        double v = 1.1 + static_cast<double>(rng() % 1000) * 1e-5;
        if (rng() % 97 == 0) v = std::numeric_limits<double>::quiet_NaN();
        if (rng() % 89 == 0) v = -0.0;
        put<double>(col, v);
      } else if (s.type == PhysicalType::Int64) put<uint64_t>(col, rng() % 3 == 0 ? rng() : rng() % 100);
      else put<uint32_t>(col, static_cast<uint32_t>(rng()));
    }
  }
  return t;
}

// The file the writer makes of `t`, in row groups of `group_rows`.
Bytes write_file(const Schema& schema, const WriterOptions& options, const Table& t, size_t group_rows,
                 const KeyValueMetadata& metadata = {}) {
  Bytes file(kMagic, kMagic + 4);
  std::vector<RowGroupMeta> metas;
  for (size_t from = 0; from < t.rows; from += group_rows) {
    const size_t n = std::min(group_rows, t.rows - from);
    RowGroupInput input;
    for (size_t c = 0; c < schema.size(); ++c) {
      const size_t w = schema[c].type == PhysicalType::Int32 ? 4 : 8;
      input.columns.push_back({Segment{t.columns[c].data() + from * w, n}});
    }
    EncodedRowGroup g = encode_row_group(schema, options, input);
    file.insert(file.end(), g.bytes.begin(), g.bytes.end());
    metas.push_back(std::move(g.meta));
  }
  const Bytes footer = encode_footer(schema, options, metas, "test", metadata);
  file.insert(file.end(), footer.begin(), footer.end());
  return file;
}

// Every column of every row group decoded and compared with the input (time back from ms).
void expect_round_trip(const Schema& schema, const Bytes& file, const Table& t, size_t group_rows) {
  const FileInfo info = read_metadata(file.data(), file.size());
  ASSERT_EQ(info.columns.size(), schema.size());
  EXPECT_EQ(static_cast<size_t>(info.num_rows), t.rows);
  ASSERT_EQ(info.row_groups.size(), (t.rows + group_rows - 1) / group_rows);
  size_t from = 0;
  for (size_t g = 0; g < info.row_groups.size(); ++g) {
    const auto n = static_cast<size_t>(info.row_groups[g].num_rows);
    for (size_t c = 0; c < schema.size(); ++c) {
      EXPECT_EQ(info.columns[c].name, schema[c].name);
      const size_t w = value_width(info.columns[c].type);
      Bytes out(n * w);
      decode_column(file.data(), file.size(), info, g, c, out.data(), out.size());
      const bool time = schema[c].scale != 1;
      for (size_t i = 0; i < n; ++i) {
        if (time) {
          ASSERT_EQ(get<int64_t>(out, i), get<int64_t>(t.columns[c], from + i) * 1000) << schema[c].name << " row " << from + i;
        } else {
          ASSERT_EQ(std::memcmp(out.data() + i * w, t.columns[c].data() + (from + i) * w, w), 0) << schema[c].name << " row " << from + i;
        }
      }
    }
    from += n;
  }
}

TEST(ParquetReader, RoundTripsTheWritersTicksAndRates) {
  for (const bool rates : {false, true}) {
    for (const Codec codec : {Codec::Uncompressed, Codec::Zstd, Codec::Lz4Raw}) {
      for (const bool split : {false, true}) {
        SCOPED_TRACE(std::string(rates ? "rates " : "ticks ") + codec_name(codec) + (split ? " byte_stream_split" : ""));
        Schema schema = rates ? rate_schema() : tick_schema();
        if (split) schema = with_byte_stream_split(schema);
        WriterOptions options;
        options.codec = codec;
        options.level = default_level(codec);
        options.page_rows = 1000;  // several pages per chunk, the last one short
        const Table t = make_table(schema, 5321, rates ? 7 : 11);
        const Bytes file = write_file(schema, options, t, 2048);  // three row groups, the last short
        expect_round_trip(schema, file, t, 2048);
      }
    }
  }
}

TEST(ParquetReader, ColumnTypesAndStatistics) {
  const Schema schema = tick_schema();
  const Table t = make_table(schema, 3000, 3);
  const Bytes file = write_file(schema, WriterOptions{}, t, 1000);
  const FileInfo info = read_metadata(file.data(), file.size());
  EXPECT_EQ(info.created_by, "test");
  const int msc = info.find("time_msc");
  ASSERT_GE(msc, 0);
  EXPECT_EQ(info.find("nope"), -1);
  EXPECT_EQ(info.columns[static_cast<size_t>(info.find("volume"))].is_signed, false);
  EXPECT_EQ(info.columns[static_cast<size_t>(info.find("flags"))].is_signed, false);
  EXPECT_EQ(info.columns[static_cast<size_t>(msc)].is_signed, true);
  EXPECT_EQ(info.columns[static_cast<size_t>(info.find("flags"))].type, ReadType::Int32);
  for (size_t g = 0; g < 3; ++g) {
    auto range = info.int_range(g, static_cast<size_t>(msc));
    ASSERT_TRUE(range.has_value());
    const size_t c = static_cast<size_t>(msc);
    EXPECT_EQ(range->first, get<int64_t>(t.columns[c], g * 1000));
    EXPECT_EQ(range->second, get<int64_t>(t.columns[c], g * 1000 + 999));
    EXPECT_FALSE(info.int_range(g, static_cast<size_t>(info.find("volume"))).has_value());  // unsigned: not as int64
    EXPECT_FALSE(info.int_range(g, static_cast<size_t>(info.find("bid"))).has_value());
  }
  // Without statistics, no range.
  WriterOptions bare;
  bare.statistics = false;
  const Bytes plain = write_file(schema, bare, t, 1000);
  const FileInfo none = read_metadata(plain.data(), plain.size());
  EXPECT_FALSE(none.int_range(0, static_cast<size_t>(msc)).has_value());
}

TEST(ParquetReader, EmptyFileAndEmptyRowGroups) {
  const Schema schema = tick_schema();
  Bytes file(kMagic, kMagic + 4);
  const Bytes footer = encode_footer(schema, WriterOptions{}, {}, "x");
  file.insert(file.end(), footer.begin(), footer.end());
  const FileInfo info = read_metadata(file.data(), file.size());
  EXPECT_EQ(info.num_rows, 0);
  EXPECT_TRUE(info.row_groups.empty());
}

TEST(DeltaBinaryPackedDecode, RoundTripsInt64AndInt32) {
  std::mt19937_64 rng(5);
  for (size_t n : {0, 1, 2, 31, 32, 33, 127, 128, 129, 1000, 4097}) {
    std::vector<int64_t> v(n);
    for (size_t i = 0; i < n; ++i) {
      switch (i % 5) {
        case 0: v[i] = static_cast<int64_t>(rng()); break;  // every width up to 64
        case 1: v[i] = std::numeric_limits<int64_t>::min(); break;
        case 2: v[i] = std::numeric_limits<int64_t>::max(); break;
        default: v[i] = static_cast<int64_t>(rng() % 1000) - 500;
      }
    }
    Bytes enc;
    delta_binary_packed_encode(v.data(), n, enc);
    std::vector<int64_t> out(n);
    EXPECT_EQ(delta_binary_packed_decode(enc.data(), enc.size(), n, 8, out.data()), enc.size());
    EXPECT_EQ(out, v) << n;
    // INT32 values (widened to encode, as writers of INT32 DELTA pages do).
    std::vector<int64_t> w(n);
    for (size_t i = 0; i < n; ++i) w[i] = static_cast<int32_t>(rng());
    enc.clear();
    delta_binary_packed_encode(w.data(), n, enc);
    std::vector<int32_t> out32(n);
    delta_binary_packed_decode(enc.data(), enc.size(), n, 4, out32.data());
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out32[i], w[i]) << i;
  }
}

TEST(DeltaBinaryPackedDecode, RefusesDamage) {
  std::vector<int64_t> v(300);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i * i);
  Bytes enc;
  delta_binary_packed_encode(v.data(), v.size(), enc);
  std::vector<int64_t> out(v.size());
  // Every truncation ends early.
  for (size_t len = 0; len < enc.size(); ++len) {
    EXPECT_THROW(delta_binary_packed_decode(enc.data(), len, v.size(), 8, out.data()), CorruptError) << len;
  }
  // Another value count than the page's.
  EXPECT_THROW(delta_binary_packed_decode(enc.data(), enc.size(), 299, 8, out.data()), CorruptError);
  // A bad block size (not a multiple of 128), a miniblock wider than 64 bits.
  Bytes bad = enc;
  bad[0] = 100;
  EXPECT_THROW(delta_binary_packed_decode(bad.data(), bad.size(), v.size(), 8, out.data()), CorruptError);
  bad = enc;
  // Header: 128 (2 bytes), 4, 300 (2 bytes), first value 0; then min delta, then the 4 widths.
  bad[7] = 65;
  EXPECT_THROW(delta_binary_packed_decode(bad.data(), bad.size(), v.size(), 8, out.data()), CorruptError);
}

TEST(RleHybridDecode, RunsAndBitPackedGroups) {
  // bit width 3: RLE run of 5 x 6, bit-packed 1 group (8 values 0..7), RLE run of 2 x 1.
  Bytes b{0x0A, 0x06};  // header 5 << 1, value 6 (1 byte)
  b.push_back(0x03);    // 1 group << 1 | 1
  // 0..7 at 3 bits, LSB first: 0b10001000 0b11000110 0b11111010
  b.push_back(0x88);
  b.push_back(0xC6);
  b.push_back(0xFA);
  b.push_back(0x04);  // 2 << 1
  b.push_back(0x01);
  std::vector<uint32_t> out(15);
  rle_hybrid_decode(b.data(), b.size(), 3, 15, 8, out.data());
  EXPECT_EQ(out, (std::vector<uint32_t>{6, 6, 6, 6, 6, 0, 1, 2, 3, 4, 5, 6, 7, 1, 1}));
  // Fewer values wanted than the runs hold: the rest is ignored.
  std::vector<uint32_t> few(7);
  rle_hybrid_decode(b.data(), b.size(), 3, 7, 8, few.data());
  EXPECT_EQ(few, (std::vector<uint32_t>{6, 6, 6, 6, 6, 0, 1}));
  // An index beyond the dictionary; runs that end early; an absurd bit-packed group count.
  EXPECT_THROW(rle_hybrid_decode(b.data(), b.size(), 3, 15, 7, out.data()), CorruptError);
  EXPECT_THROW(rle_hybrid_decode(b.data(), b.size(), 3, 16, 8, out.data()), CorruptError);
  const Bytes huge{0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00};
  EXPECT_THROW(rle_hybrid_decode(huge.data(), huge.size(), 3, 15, 8, out.data()), CorruptError);
  EXPECT_THROW(rle_hybrid_decode(b.data(), b.size(), 33, 15, 8, out.data()), CorruptError);
  // Bit width 0: every index 0.
  const Bytes zero{0x03};
  std::vector<uint32_t> z(8, 9);
  rle_hybrid_decode(zero.data(), zero.size(), 0, 8, 1, z.data());
  EXPECT_EQ(z, std::vector<uint32_t>(8, 0));
}

// --- Hand-made files ---------------------------------------------------------------------------

// One column chunk's pages, and what its metadata says of them.
struct HandChunk {
  Bytes pages;
  std::vector<int32_t> encodings;
  std::optional<int64_t> dictionary_offset;  // relative to the chunk
  int64_t data_offset = 0;                  // relative to the chunk
};

void page_header(Bytes& out, int32_t type, size_t uncompressed, size_t compressed, int32_t values, int32_t encoding) {
  CompactWriter w(out);
  w.field_i32(1, type);
  w.field_i32(2, static_cast<int32_t>(uncompressed));
  w.field_i32(3, static_cast<int32_t>(compressed));
  if (type == 2) {
    w.begin_struct_field(7);  // dictionary_page_header
    w.field_i32(1, values);
    w.field_i32(2, encoding);
    w.end_struct();
  } else if (type == 3) {
    w.begin_struct_field(8);  // data_page_header_v2: num_values, num_nulls, num_rows, encoding, sizes
    w.field_i32(1, values);
    w.field_i32(2, 0);
    w.field_i32(3, values);
    w.field_i32(4, encoding);
    w.field_i32(5, 0);
    w.field_i32(6, 0);
    w.end_struct();
  } else {
    w.begin_struct_field(5);
    w.field_i32(1, values);
    w.field_i32(2, encoding);
    w.field_i32(3, 3);
    w.field_i32(4, 3);
    w.end_struct();
  }
  w.end_message();
}

void add_page(Bytes& out, Codec codec, int32_t type, const Bytes& body, int32_t values, int32_t encoding) {
  Bytes compressed;
  compress_append(codec, default_level(codec), body.data(), body.size(), compressed);
  page_header(out, type, body.size(), compressed.size(), values, encoding);
  out.insert(out.end(), compressed.begin(), compressed.end());
}

struct HandOptions {
  int32_t physical = 2;      // INT64
  int32_t repetition = 0;    // REQUIRED
  int32_t codec = 0;
  bool nested = false;
  bool file_path = false;
  // Writes more FileMetaData fields after row_groups (field 4), e.g. key_value_metadata (5).
  std::function<void(CompactWriter&)> after_row_groups;
};

// "PAR1" + the chunk + a footer for one column "v" of `rows` rows.
Bytes hand_file(const HandChunk& chunk, int64_t rows, const HandOptions& o = {}) {
  // Sized once and filled in place (GCC 12 at -O3 takes inserting into a vector built from the
  // 4-byte magic for an out-of-bounds copy: -Warray-bounds).
  Bytes file(4 + chunk.pages.size());
  std::memcpy(file.data(), kMagic, 4);
  if (!chunk.pages.empty()) std::memcpy(file.data() + 4, chunk.pages.data(), chunk.pages.size());
  const int64_t at = 4;
  Bytes meta;
  CompactWriter w(meta);
  w.field_i32(1, 2);
  w.begin_list_field(2, CType::Struct, o.nested ? 3 : 2);
  w.begin_struct_element();
  w.field_string(4, "schema");
  w.field_i32(5, 1);
  w.end_struct();
  if (o.nested) {
    w.begin_struct_element();
    w.field_i32(3, 0);
    w.field_string(4, "g");
    w.field_i32(5, 1);
    w.end_struct();
  }
  w.begin_struct_element();
  w.field_i32(1, o.physical);
  w.field_i32(3, o.repetition);
  w.field_string(4, "v");
  w.end_struct();
  w.field_i64(3, rows);
  w.begin_list_field(4, CType::Struct, 1);
  w.begin_struct_element();
  w.begin_list_field(1, CType::Struct, 1);
  w.begin_struct_element();
  if (o.file_path) w.field_string(1, "other.parquet");
  w.field_i64(2, 0);
  w.begin_struct_field(3);
  w.field_i32(1, o.physical);
  w.begin_list_field(2, CType::I32, chunk.encodings.size());
  for (int32_t e : chunk.encodings) w.i32(e);
  w.begin_list_field(3, CType::Binary, 1);
  w.string("v");
  w.field_i32(4, o.codec);
  w.field_i64(5, rows);
  w.field_i64(6, static_cast<int64_t>(chunk.pages.size()));
  w.field_i64(7, static_cast<int64_t>(chunk.pages.size()));
  w.field_i64(9, at + chunk.data_offset);
  if (chunk.dictionary_offset) w.field_i64(11, at + *chunk.dictionary_offset);
  w.end_struct();
  w.end_struct();
  w.field_i64(2, static_cast<int64_t>(chunk.pages.size()));
  w.field_i64(3, rows);
  w.end_struct();
  if (o.after_row_groups) o.after_row_groups(w);
  w.end_message();
  file.insert(file.end(), meta.begin(), meta.end());
  const auto length = static_cast<uint32_t>(meta.size());
  for (int b = 0; b < 4; ++b) file.push_back(static_cast<uint8_t>(length >> (8 * b)));
  file.insert(file.end(), kMagic, kMagic + 4);
  return file;
}

// A dictionary of three INT64 values, then a data page of an RLE run (5 x index 2) and a
// bit-packed run (8 values: 0 1 2 0 1 2 0 1) at bit width 2, and a second data page (PLAIN_
// DICTIONARY, the old name) of one RLE run (3 x index 1): 16 values.
HandChunk dictionary_chunk(Codec codec, int32_t second_page_encoding = 2) {
  HandChunk c;
  c.encodings = {0, 8, 2};
  c.dictionary_offset = 0;
  Bytes dict;
  for (int64_t v : {int64_t{-7}, int64_t{1704700800123}, std::numeric_limits<int64_t>::max()}) put<int64_t>(dict, v);
  add_page(c.pages, codec, 2, dict, 3, 0);
  c.data_offset = static_cast<int64_t>(c.pages.size());
  // indices 0 1 2 0 1 2 0 1 at 2 bits: 0b10_01_00 -> byte0 = 00 01 10 00 (LSB first) ...
  const uint8_t packed[2] = {0x24, 0x49};  // (0|1<<2|2<<4|0<<6) = 0x24, (1|2<<2|0<<4|1<<6) = 0x49
  Bytes body{2, 0x0A, 0x02, 0x03, packed[0], packed[1]};
  add_page(c.pages, codec, 0, body, 13, 8);
  Bytes body2{2, 0x06, 0x01};
  add_page(c.pages, codec, 0, body2, 3, second_page_encoding);
  return c;
}

const std::vector<int64_t> kDictionaryValues = {
    std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max(),
    std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max(), -7, 1704700800123,
    std::numeric_limits<int64_t>::max(), -7, 1704700800123, std::numeric_limits<int64_t>::max(), -7, 1704700800123,
    1704700800123, 1704700800123, 1704700800123};

TEST(ParquetReader, HandMadeRleDictionaryPages) {
  for (const Codec codec : {Codec::Uncompressed, Codec::Zstd, Codec::Lz4Raw}) {
    SCOPED_TRACE(codec_name(codec));
    HandOptions o;
    o.codec = static_cast<int32_t>(codec);
    const Bytes file = hand_file(dictionary_chunk(codec), 16, o);
    const FileInfo info = read_metadata(file.data(), file.size());
    std::vector<int64_t> out(16);
    decode_column(file.data(), file.size(), info, 0, 0, out.data(), out.size() * 8);
    EXPECT_EQ(out, kDictionaryValues);
  }
}

TEST(ParquetReader, HandMadeInt32DictionaryAtNineBits) {
  // 300 INT32 values in the dictionary: indices need 9 bits, an RLE value takes 2 bytes.
  HandChunk c;
  c.encodings = {0, 8};
  c.dictionary_offset = 0;
  Bytes dict;
  for (int32_t i = 0; i < 300; ++i) put<int32_t>(dict, i * 3 - 100);
  add_page(c.pages, Codec::Uncompressed, 2, dict, 300, 0);
  c.data_offset = static_cast<int64_t>(c.pages.size());
  Bytes body{9, 0x08, 0x2B, 0x01};  // RLE run of 4 x 299 (0x12B)
  body.push_back(0x03);              // bit-packed: 1 group of 8 values, 9 bytes
  const uint64_t idx[8] = {0, 1, 255, 256, 257, 298, 299, 7};
  Bytes packed;
  bit_pack(idx, 8, 9, packed);
  body.insert(body.end(), packed.begin(), packed.end());
  add_page(c.pages, Codec::Uncompressed, 0, body, 12, 8);
  HandOptions o;
  o.physical = 1;
  const Bytes file = hand_file(c, 12, o);
  const FileInfo info = read_metadata(file.data(), file.size());
  std::vector<int32_t> out(12);
  decode_column(file.data(), file.size(), info, 0, 0, out.data(), out.size() * 4);
  std::vector<int32_t> want{797, 797, 797, 797};
  for (uint64_t i : idx) want.push_back(static_cast<int32_t>(i) * 3 - 100);
  EXPECT_EQ(out, want);
}

TEST(ParquetReader, DamagedDictionaryChunksThrow) {
  const Bytes good = hand_file(dictionary_chunk(Codec::Uncompressed), 16);
  std::vector<int64_t> out(16);
  auto decode = [&out](const Bytes& file) {
    const FileInfo info = read_metadata(file.data(), file.size());
    decode_column(file.data(), file.size(), info, 0, 0, out.data(), out.size() * 8);
  };
  EXPECT_NO_THROW(decode(good));
  // An index beyond the dictionary (RLE value 3 of 3).
  HandChunk c = dictionary_chunk(Codec::Uncompressed);
  const size_t rle_value = c.pages.size() - 1;  // last page's RLE value byte
  c.pages[rle_value] = 3;
  EXPECT_THROW(decode(hand_file(c, 16)), CorruptError);
  // The data pages without their dictionary page (metadata pointing past it).
  c = dictionary_chunk(Codec::Uncompressed);
  HandChunk no_dict;
  no_dict.encodings = c.encodings;
  no_dict.pages.assign(c.pages.begin() + c.data_offset, c.pages.end());
  EXPECT_THROW(decode(hand_file(no_dict, 16)), CorruptError);
  // More rows stated than the pages hold.
  EXPECT_THROW(
      {
        const Bytes f = hand_file(dictionary_chunk(Codec::Uncompressed), 17);
        const FileInfo info = read_metadata(f.data(), f.size());
        std::vector<int64_t> o17(17);
        decode_column(f.data(), f.size(), info, 0, 0, o17.data(), o17.size() * 8);
      },
      CorruptError);
  // A dictionary page whose size does not match its value count.
  HandChunk bad;
  bad.encodings = {0, 8};
  bad.dictionary_offset = 0;
  Bytes dict(20, 0);
  add_page(bad.pages, Codec::Uncompressed, 2, dict, 3, 0);
  bad.data_offset = static_cast<int64_t>(bad.pages.size());
  add_page(bad.pages, Codec::Uncompressed, 0, Bytes{1, 0x20, 0x00}, 16, 8);
  EXPECT_THROW(decode(hand_file(bad, 16)), CorruptError);
}

TEST(ParquetReader, RefusesWhatItDoesNotKnowAsUnsupported) {
  const HandChunk c = dictionary_chunk(Codec::Uncompressed);
  auto metadata = [](const Bytes& f) { return read_metadata(f.data(), f.size()); };
  HandOptions optional;
  optional.repetition = 1;
  EXPECT_THROW(metadata(hand_file(c, 16, optional)), UnsupportedError);
  HandOptions nested;
  nested.nested = true;
  EXPECT_THROW(metadata(hand_file(c, 16, nested)), UnsupportedError);
  HandOptions bytes;
  bytes.physical = 6;  // BYTE_ARRAY
  EXPECT_THROW(metadata(hand_file(c, 16, bytes)), UnsupportedError);
  HandOptions snappy;
  snappy.codec = 1;
  EXPECT_THROW(metadata(hand_file(c, 16, snappy)), UnsupportedError);
  HandOptions external;
  external.file_path = true;
  EXPECT_THROW(metadata(hand_file(c, 16, external)), UnsupportedError);
  HandChunk odd = c;
  odd.encodings.push_back(6);  // DELTA_LENGTH_BYTE_ARRAY
  EXPECT_THROW(metadata(hand_file(odd, 16)), UnsupportedError);

  auto decode = [](const Bytes& f, size_t rows) {
    const FileInfo info = read_metadata(f.data(), f.size());
    std::vector<int64_t> out(rows);
    decode_column(f.data(), f.size(), info, 0, 0, out.data(), out.size() * 8);
  };
  // A data page V2.
  HandChunk v2;
  v2.encodings = {0};
  Bytes values;
  for (int64_t i = 0; i < 4; ++i) put<int64_t>(values, i);
  add_page(v2.pages, Codec::Uncompressed, 3, values, 4, 0);
  EXPECT_THROW(decode(hand_file(v2, 4), 4), UnsupportedError);
  // A page encoding the list did not announce (DELTA_BYTE_ARRAY on INT64).
  HandChunk unknown;
  unknown.encodings = {0};
  add_page(unknown.pages, Codec::Uncompressed, 0, values, 4, 7);
  EXPECT_THROW(decode(hand_file(unknown, 4), 4), UnsupportedError);
  // The same chunk with PLAIN decodes.
  HandChunk plain;
  plain.encodings = {0};
  add_page(plain.pages, Codec::Uncompressed, 0, values, 4, 0);
  EXPECT_NO_THROW(decode(hand_file(plain, 4), 4));
}

// --- Key-value metadata (FileMetaData field 5) -------------------------------------------------------

TEST(ParquetReader, KeyValueMetadataRoundTrips) {
  const Schema schema = tick_schema();
  const Table t = make_table(schema, 700, 21);
  const KeyValueMetadata kv = {{"tradeapi.symbol", "EURUSD"},
                               {"tradeapi.rows", "700"},
                               {"tradeapi.hash", "4ca8fe8806e07716ac061842477b351b"},
                               {"empty", ""},
                               {"\xC3\xBCnicode \xE2\x82\xAC", "\xF0\x9F\x93\x88 ok"},
                               {"a", "order kept, not sorted"}};
  const Bytes file = write_file(schema, WriterOptions{}, t, 256, kv);
  const FileInfo info = read_metadata(file.data(), file.size());
  EXPECT_EQ(info.key_value_metadata, kv);
  expect_round_trip(schema, file, t, 256);
  // None written: none read; and the footer is byte for byte what it was without the argument.
  const Bytes bare = write_file(schema, WriterOptions{}, t, 256);
  EXPECT_TRUE(read_metadata(bare.data(), bare.size()).key_value_metadata.empty());
  EXPECT_EQ(encode_footer(schema, WriterOptions{}, {}, "x", {}), encode_footer(schema, WriterOptions{}, {}, "x"));
  // The limits exactly: 64 pairs of 4096-byte keys and values.
  KeyValueMetadata full;
  for (size_t i = 0; i < kMaxKeyValuePairs; ++i) {
    std::string key(kMaxKeyValueBytes, 'k');
    key.replace(0, 4, std::to_string(1000 + i));
    full.emplace_back(std::move(key), std::string(kMaxKeyValueBytes, static_cast<char>('a' + i % 26)));
  }
  const Bytes big = write_file(schema, WriterOptions{}, t, 700, full);
  EXPECT_EQ(read_metadata(big.data(), big.size()).key_value_metadata, full);
}

TEST(ParquetWriter, KeyValueMetadataBeyondTheBoundsIsRefused) {
  const Schema schema = tick_schema();
  KeyValueMetadata many;
  for (size_t i = 0; i <= kMaxKeyValuePairs; ++i) many.emplace_back("k" + std::to_string(i), "v");
  EXPECT_THROW(encode_footer(schema, WriterOptions{}, {}, "x", many), std::invalid_argument);
  EXPECT_THROW(encode_footer(schema, WriterOptions{}, {}, "x", {{std::string(kMaxKeyValueBytes + 1, 'k'), "v"}}), std::invalid_argument);
  EXPECT_THROW(encode_footer(schema, WriterOptions{}, {}, "x", {{"k", std::string(kMaxKeyValueBytes + 1, 'v')}}), std::invalid_argument);
}

// A one-column file whose footer carries key_value_metadata written by `write` (KeyValue structs).
Bytes file_with_key_values(size_t pairs, const std::function<void(CompactWriter&, size_t)>& write) {
  HandChunk c;
  c.encodings = {0};
  Bytes body;
  put<int64_t>(body, 42);
  add_page(c.pages, Codec::Uncompressed, 0, body, 1, 0);
  HandOptions o;
  o.after_row_groups = [&](CompactWriter& w) {
    w.begin_list_field(5, CType::Struct, pairs);
    for (size_t i = 0; i < pairs; ++i) {
      w.begin_struct_element();
      write(w, i);
      w.end_struct();
    }
  };
  return hand_file(c, 1, o);
}

TEST(ParquetReader, KeyValueMetadataBoundsAndDamage) {
  auto pair = [](std::string key, std::string value) {
    return [key, value](CompactWriter& w, size_t) {
      w.field_string(1, key);
      w.field_string(2, value);
    };
  };
  auto metadata = [](const Bytes& f) { return read_metadata(f.data(), f.size()).key_value_metadata; };
  // A KeyValue without a value reads as an empty value; unknown fields are skipped.
  EXPECT_EQ(metadata(file_with_key_values(2, [](CompactWriter& w, size_t i) {
              w.field_string(1, "k" + std::to_string(i));
              if (i == 1) w.field_i32(7, 5);
            })),
            (KeyValueMetadata{{"k0", ""}, {"k1", ""}}));
  // 64 pairs are read, 65 refused (before any is read).
  auto numbered = [](CompactWriter& w, size_t i) {
    w.field_string(1, "k" + std::to_string(i));
    w.field_string(2, "v");
  };
  EXPECT_EQ(metadata(file_with_key_values(kMaxKeyValuePairs, numbered)).size(), kMaxKeyValuePairs);
  EXPECT_THROW(metadata(file_with_key_values(kMaxKeyValuePairs + 1, numbered)), UnsupportedError);
  // Keys and values longer than the bound, a key twice, strings that are not UTF-8.
  const std::string too_long(kMaxKeyValueBytes + 1, 'x');
  EXPECT_NO_THROW(metadata(file_with_key_values(1, pair(std::string(kMaxKeyValueBytes, 'x'), std::string(kMaxKeyValueBytes, 'y')))));
  EXPECT_THROW(metadata(file_with_key_values(1, pair(too_long, "v"))), UnsupportedError);
  EXPECT_THROW(metadata(file_with_key_values(1, pair("k", too_long))), UnsupportedError);
  EXPECT_THROW(metadata(file_with_key_values(2, [](CompactWriter& w, size_t i) {
                 w.field_string(1, "same");
                 w.field_string(2, std::to_string(i));
               })),
               UnsupportedError);
  for (const char* bad : {"\xFF", "\xC0\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80", "ab\xE2\x82", "\x80"}) {
    EXPECT_THROW(metadata(file_with_key_values(1, pair(bad, "v"))), UnsupportedError) << bad;
    EXPECT_THROW(metadata(file_with_key_values(1, pair("k", bad))), UnsupportedError) << bad;
  }
  EXPECT_NO_THROW(metadata(file_with_key_values(1, pair("\xF4\x8F\xBF\xBF \xEF\xBF\xBF \xC2\x80", "\x7F"))));
  // Damage: no key, a key of another type, a list of something else than structs.
  EXPECT_THROW(metadata(file_with_key_values(1, [](CompactWriter& w, size_t) { w.field_string(2, "v"); })), CorruptError);
  EXPECT_THROW(metadata(file_with_key_values(1, [](CompactWriter& w, size_t) { w.field_i32(1, 3); })), CorruptError);
  HandChunk c;
  c.encodings = {0};
  Bytes body;
  put<int64_t>(body, 42);
  add_page(c.pages, Codec::Uncompressed, 0, body, 1, 0);
  HandOptions o;
  o.after_row_groups = [](CompactWriter& w) {
    w.begin_list_field(5, CType::I32, 1);
    w.i32(1);
  };
  const Bytes ints = hand_file(c, 1, o);
  EXPECT_THROW(read_metadata(ints.data(), ints.size()), CorruptError);
}

// --- Page CRCs -----------------------------------------------------------------------------------------

TEST(ParquetReader, PageCrcCatchesAFlippedByteInsideAPage) {
  for (const Codec codec : {Codec::Uncompressed, Codec::Zstd, Codec::Lz4Raw}) {
    SCOPED_TRACE(codec_name(codec));
    const Schema schema = tick_schema();
    WriterOptions options;
    options.codec = codec;
    options.level = default_level(codec);
    options.page_rows = 500;
    const Table t = make_table(schema, 1800, 23);
    const Bytes file = write_file(schema, options, t, 1024);
    expect_round_trip(schema, file, t, 1024);  // every CRC checks out
    WriterOptions bare = options;
    bare.page_crc = false;
    const Bytes unchecked = write_file(schema, bare, t, 1024);
    EXPECT_GT(file.size(), unchecked.size()) << "every page header carries a CRC";
    expect_round_trip(schema, unchecked, t, 1024);  // pages without one are read as before
    const FileInfo info = read_metadata(file.data(), file.size());
    const FileInfo bare_info = read_metadata(unchecked.data(), unchecked.size());
    size_t dictionaries = 0;
    for (size_t g = 0; g < info.row_groups.size(); ++g) {
      for (size_t c = 0; c < info.columns.size(); ++c) {
        const ColumnChunkInfo& chunk = info.row_groups[g].columns[c];
        // The chunk's last byte is its last page's last byte; the byte before the first data page
        // is the dictionary page's last one.
        std::vector<size_t> targets{static_cast<size_t>(chunk.data_page_offset + chunk.total_compressed_size - 1)};
        if (chunk.dictionary_page_offset) {
          ++dictionaries;
          targets = {static_cast<size_t>(*chunk.dictionary_page_offset + chunk.total_compressed_size - 1),
                     static_cast<size_t>(chunk.data_page_offset - 1)};
        }
        for (const size_t at : targets) {
          for (const uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}}) {
            Bytes bad = file;
            bad[at] ^= mask;
            const size_t w = value_width(info.columns[c].type);
            Bytes out(static_cast<size_t>(info.row_groups[g].num_rows) * w);
            try {
              decode_column(bad.data(), bad.size(), info, g, c, out.data(), out.size());
              ADD_FAILURE() << "a flipped byte at " << at << " in column " << info.columns[c].name << " was read";
            } catch (const CorruptError& e) {
              EXPECT_NE(std::string(e.what()).find("page CRC mismatch in column \"" + info.columns[c].name + "\""), std::string::npos)
                  << e.what();
            }
          }
        }
        // The same byte of the file without CRCs: whatever happens, it is not a CRC mismatch.
        const ColumnChunkInfo& b = bare_info.row_groups[g].columns[c];
        Bytes bad = unchecked;
        bad[static_cast<size_t>(b.data_page_offset + b.total_compressed_size - 1)] ^= 0x01;
        Bytes out(static_cast<size_t>(bare_info.row_groups[g].num_rows) * value_width(bare_info.columns[c].type));
        try {
          decode_column(bad.data(), bad.size(), bare_info, g, c, out.data(), out.size());
        } catch (const std::runtime_error& e) {
          EXPECT_EQ(std::string(e.what()).find("CRC"), std::string::npos) << e.what();
        }
      }
    }
    EXPECT_GT(dictionaries, 0u) << "dictionary pages were checked too";
  }
}

// --- Damaged files --------------------------------------------------------------------------------

// Reads the whole file as the store's reader would; damage may throw only std::runtime_error.
void read_everything(const Bytes& file) {
  const FileInfo info = read_metadata(file.data(), file.size());
  for (size_t g = 0; g < info.row_groups.size(); ++g) {
    const auto rows = static_cast<size_t>(info.row_groups[g].num_rows);
    if (rows > (size_t{1} << 20)) continue;  // allowed (kMaxRowGroupRows), but slow under ASan
    for (size_t c = 0; c < info.columns.size(); ++c) {
      Bytes out(rows * value_width(info.columns[c].type));
      decode_column(file.data(), file.size(), info, g, c, out.data(), out.size());
    }
  }
}

TEST(ParquetReader, TruncatedFilesThrow) {
  const Schema schema = tick_schema();
  WriterOptions options;
  options.page_rows = 100;
  const Table t = make_table(schema, 500, 9);
  const Bytes file = write_file(schema, options, t, 256);
  EXPECT_NO_THROW(read_everything(file));
  for (size_t len = 0; len < file.size(); ++len) {
    const Bytes cut(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(len));
    EXPECT_THROW(read_everything(cut), std::runtime_error) << len;
  }
}

TEST(ParquetReader, BadLengthsThrow) {
  const Schema schema = rate_schema();
  const Table t = make_table(schema, 300, 13);
  const Bytes file = write_file(schema, WriterOptions{}, t, 300);
  // The footer length beyond the file, and pointing into the middle of the row group.
  Bytes bad = file;
  const size_t length_at = bad.size() - 8;
  bad[length_at + 3] = 0x7F;
  EXPECT_THROW(read_everything(bad), CorruptError);
  uint32_t footer_length;
  std::memcpy(&footer_length, file.data() + length_at, 4);
  bad = file;
  const uint32_t longer = footer_length + 40;
  std::memcpy(bad.data() + length_at, &longer, 4);
  EXPECT_THROW(read_everything(bad), CorruptError);
  // No magic at either end.
  bad = file;
  bad[0] = 'X';
  EXPECT_THROW(read_everything(bad), CorruptError);
  bad = file;
  bad.back() = 'X';
  EXPECT_THROW(read_everything(bad), CorruptError);
  // A page whose compressed size runs past its chunk: the first page header of the first chunk
  // starts at byte 4 with field 1 (type), then field 2 (uncompressed) and 3 (compressed) varints.
  bad = file;
  const FileInfo info = read_metadata(bad.data(), bad.size());
  const auto first = static_cast<size_t>(info.row_groups[0].columns[0].data_page_offset);
  EXPECT_EQ(first, 4u);
  // Rewrite the header with a compressed size of 2^30.
  Bytes header;
  page_header(header, 0, 100, size_t{1} << 30, 300, 5);
  Bytes rebuilt(bad.begin(), bad.begin() + 4);
  rebuilt.insert(rebuilt.end(), header.begin(), header.end());
  rebuilt.insert(rebuilt.end(), bad.begin() + 4 + static_cast<std::ptrdiff_t>(header.size()), bad.end());
  EXPECT_THROW(read_everything(rebuilt), std::runtime_error);
}

TEST(ParquetReader, FlippedBytesNeverCrash) {
  // Every byte of a small file (zstd and uncompressed) flipped in turn, and random multi-byte
  // damage: reading must succeed or throw std::runtime_error; ASan checks every read stays inside.
  const Schema schema = tick_schema();
  for (const Codec codec : {Codec::Uncompressed, Codec::Zstd, Codec::Lz4Raw}) {
    WriterOptions options;
    options.codec = codec;
    options.level = default_level(codec);
    options.page_rows = 64;
    const Table t = make_table(schema, 200, 17);
    const Bytes file = write_file(schema, options, t, 128);
    for (size_t i = 0; i < file.size(); ++i) {
      for (const uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
        Bytes bad = file;
        bad[i] ^= mask;
        try {
          read_everything(bad);
        } catch (const std::runtime_error&) {
        }
      }
    }
    std::mt19937 rng(static_cast<uint32_t>(codec));
    for (int round = 0; round < 2000; ++round) {
      Bytes bad = file;
      const int hits = 1 + static_cast<int>(rng() % 4);
      for (int h = 0; h < hits; ++h) bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
      try {
        read_everything(bad);
      } catch (const std::runtime_error&) {
      }
    }
  }
  // Same for a hand-made dictionary chunk.
  const Bytes dict = hand_file(dictionary_chunk(Codec::Uncompressed), 16);
  for (size_t i = 0; i < dict.size(); ++i) {
    for (int v = 0; v < 256; v += 5) {
      Bytes bad = dict;
      bad[i] = static_cast<uint8_t>(v);
      try {
        read_everything(bad);
      } catch (const std::runtime_error&) {
      }
    }
  }
}

}  // namespace
}  // namespace tradeapi::parquet
