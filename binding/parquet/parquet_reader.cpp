#include "parquet_reader.h"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>
#include <utility>

#include "crc32.h"
#include "thrift_compact.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "parquet_reader.cpp loads Parquet's little-endian values as native ones"
#endif

namespace tradeapi::parquet {

namespace {

// parquet.thrift enums this reader meets.
constexpr int32_t kPageData = 0, kPageIndex = 1, kPageDictionary = 2, kPageDataV2 = 3;
constexpr int32_t kEncPlain = 0, kEncPlainDictionary = 2, kEncRle = 3, kEncBitPacked = 4, kEncDelta = 5,
                  kEncRleDictionary = 8, kEncByteStreamSplit = 9;
constexpr int32_t kCodecNone = 0, kCodecZstd = 6, kCodecLz4Raw = 7;
constexpr int32_t kRequired = 0;

[[noreturn]] void corrupt(const std::string& what) { throw CorruptError("parquet: corrupt file: " + what); }
[[noreturn]] void unsupported(const std::string& what) { throw UnsupportedError("parquet: unsupported: " + what); }

// --- Thrift compact protocol, read side, bounded by [p, end) -------------------------------------

// Reads the compact protocol from a byte range. Every read checks the range; lengths and list sizes
// are checked against the bytes left before anything is allocated for them (an element takes at
// least one byte), so a damaged footer cannot make it allocate more than the footer's own size.
class CompactReader {
 public:
  CompactReader(const uint8_t* begin, const uint8_t* end, const char* what) : p_(begin), end_(end), what_(what) {}

  size_t consumed(const uint8_t* begin) const { return static_cast<size_t>(p_ - begin); }
  size_t left() const { return static_cast<size_t>(end_ - p_); }

  uint8_t byte() {
    if (p_ >= end_) fail("ends early");
    return *p_++;
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint8_t b = byte();
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return v;
    }
    fail("has a varint longer than 10 bytes");
  }
  int64_t i64() {
    const uint64_t v = varint();
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  int32_t i32() {
    const int64_t v = i64();
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) fail("has an i32 out of range");
    return static_cast<int32_t>(v);
  }
  std::string_view binary() {
    const uint64_t n = varint();
    if (n > left()) fail("has a string longer than its bytes");
    std::string_view s(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
    p_ += n;
    return s;
  }
  // A list (or set) header: its size, and the element type in `element`.
  size_t list(CType& element) {
    const uint8_t h = byte();
    element = static_cast<CType>(h & 0x0F);
    uint64_t n = h >> 4;
    if (n == 15) n = varint();
    if (n > left()) fail("has a list longer than its bytes");
    return static_cast<size_t>(n);
  }

  // Calls on_field(id, type) for each field of a struct until its stop byte; on_field must consume
  // the value (read it or skip(type)). Bool fields carry their value in the type (bool_value()).
  template <typename F>
  void read_struct(F&& on_field) {
    if (++depth_ > kMaxDepth) fail("nests structs too deeply");
    int16_t last = 0;
    for (;;) {
      const uint8_t h = byte();
      if (h == 0) break;
      const auto type = static_cast<CType>(h & 0x0F);
      const int delta = h >> 4;
      int16_t id;
      if (delta != 0) {
        id = static_cast<int16_t>(last + delta);
      } else {
        const int32_t v = i32();
        if (v < std::numeric_limits<int16_t>::min() || v > std::numeric_limits<int16_t>::max()) fail("has a field id out of range");
        id = static_cast<int16_t>(v);
      }
      last = id;
      on_field(id, type);
    }
    --depth_;
  }

  static bool bool_value(CType type) { return type == CType::BoolTrue; }

  // Skips a value of `type` (in a struct field: a bool has no bytes; as an element it has one).
  void skip(CType type, bool element = false) {
    switch (type) {
      case CType::BoolTrue:
      case CType::BoolFalse:
        if (element) byte();
        return;
      case CType::Byte: byte(); return;
      case CType::I16:
      case CType::I32:
      case CType::I64: varint(); return;
      case CType::Double: advance(8); return;
      case CType::Binary: binary(); return;
      case CType::List:
      case CType::Set: {
        if (++depth_ > kMaxDepth) fail("nests lists too deeply");
        CType element_type;
        const size_t n = list(element_type);
        for (size_t i = 0; i < n; ++i) skip(element_type, true);
        --depth_;
        return;
      }
      case CType::Map: {
        if (++depth_ > kMaxDepth) fail("nests maps too deeply");
        const uint64_t n = varint();
        if (n > left()) fail("has a map longer than its bytes");
        if (n > 0) {
          const uint8_t kv = byte();
          for (uint64_t i = 0; i < n; ++i) {
            skip(static_cast<CType>(kv >> 4), true);
            skip(static_cast<CType>(kv & 0x0F), true);
          }
        }
        --depth_;
        return;
      }
      case CType::Struct:
        read_struct([this](int16_t, CType t) { skip(t); });
        return;
    }
    fail("has an unknown field type " + std::to_string(static_cast<int>(type)));
  }

  // The value of an expected type: anything else is damage.
  void expect(CType actual, CType wanted, const char* field) {
    const bool ok = actual == wanted || (wanted == CType::BoolTrue && actual == CType::BoolFalse);
    if (!ok) fail(std::string("has field ") + field + " of the wrong type");
  }

  [[noreturn]] void fail(const std::string& why) const { corrupt(std::string(what_) + " " + why); }

 private:
  void advance(size_t n) {
    if (n > left()) fail("ends early");
    p_ += n;
  }

  static constexpr int kMaxDepth = 32;
  const uint8_t* p_;
  const uint8_t* end_;
  const char* what_;
  int depth_ = 0;
};

// --- FileMetaData ---------------------------------------------------------------------------------

struct SchemaElement {
  std::optional<int32_t> type;
  std::optional<int32_t> repetition;
  std::string name;
  std::optional<int32_t> num_children;
  std::optional<int32_t> converted_type;
  std::optional<bool> integer_signed;  // LogicalType INTEGER's isSigned
};

void read_logical_type(CompactReader& r, SchemaElement& e) {
  r.read_struct([&](int16_t id, CType t) {
    if (id == 10 && t == CType::Struct) {  // INTEGER (IntType: bitWidth 1, isSigned 2)
      r.read_struct([&](int16_t f, CType ft) {
        if (f == 2 && (ft == CType::BoolTrue || ft == CType::BoolFalse)) e.integer_signed = CompactReader::bool_value(ft);
        else r.skip(ft);
      });
    } else {
      r.skip(t);
    }
  });
}

SchemaElement read_schema_element(CompactReader& r) {
  SchemaElement e;
  r.read_struct([&](int16_t id, CType t) {
    switch (id) {
      case 1: r.expect(t, CType::I32, "SchemaElement.type"); e.type = r.i32(); break;
      case 3: r.expect(t, CType::I32, "SchemaElement.repetition_type"); e.repetition = r.i32(); break;
      case 4: r.expect(t, CType::Binary, "SchemaElement.name"); e.name = std::string(r.binary()); break;
      case 5: r.expect(t, CType::I32, "SchemaElement.num_children"); e.num_children = r.i32(); break;
      case 6: r.expect(t, CType::I32, "SchemaElement.converted_type"); e.converted_type = r.i32(); break;
      case 10: r.expect(t, CType::Struct, "SchemaElement.logicalType"); read_logical_type(r, e); break;
      default: r.skip(t);
    }
  });
  return e;
}

void read_statistics(CompactReader& r, ColumnChunkInfo& c) {
  r.read_struct([&](int16_t id, CType t) {
    if (id == 5 && t == CType::Binary) c.max = std::string(r.binary());
    else if (id == 6 && t == CType::Binary) c.min = std::string(r.binary());
    else r.skip(t);
  });
}

struct ChunkMeta {
  ColumnChunkInfo info;
  std::optional<int32_t> type;
  std::vector<std::string> path;
  bool has_file_path = false;
  bool has_meta = false;
  bool encrypted = false;
};

void read_column_meta(CompactReader& r, ChunkMeta& m) {
  m.has_meta = true;
  ColumnChunkInfo& c = m.info;
  r.read_struct([&](int16_t id, CType t) {
    switch (id) {
      case 1: r.expect(t, CType::I32, "ColumnMetaData.type"); m.type = r.i32(); break;
      case 2: {
        r.expect(t, CType::List, "ColumnMetaData.encodings");
        CType element;
        const size_t n = r.list(element);
        if (element != CType::I32) r.fail("has encodings that are not i32");
        c.encodings.reserve(n);
        for (size_t i = 0; i < n; ++i) c.encodings.push_back(r.i32());
        break;
      }
      case 3: {
        r.expect(t, CType::List, "ColumnMetaData.path_in_schema");
        CType element;
        const size_t n = r.list(element);
        if (element != CType::Binary) r.fail("has a path_in_schema that is not strings");
        m.path.reserve(n);
        for (size_t i = 0; i < n; ++i) m.path.emplace_back(r.binary());
        break;
      }
      case 4: r.expect(t, CType::I32, "ColumnMetaData.codec"); c.codec = r.i32(); break;
      case 5: r.expect(t, CType::I64, "ColumnMetaData.num_values"); c.num_values = r.i64(); break;
      case 6: r.expect(t, CType::I64, "ColumnMetaData.total_uncompressed_size"); c.total_uncompressed_size = r.i64(); break;
      case 7: r.expect(t, CType::I64, "ColumnMetaData.total_compressed_size"); c.total_compressed_size = r.i64(); break;
      case 9: r.expect(t, CType::I64, "ColumnMetaData.data_page_offset"); c.data_page_offset = r.i64(); break;
      case 11: r.expect(t, CType::I64, "ColumnMetaData.dictionary_page_offset"); c.dictionary_page_offset = r.i64(); break;
      case 12: r.expect(t, CType::Struct, "ColumnMetaData.statistics"); read_statistics(r, c); break;
      default: r.skip(t);
    }
  });
}

ChunkMeta read_column_chunk(CompactReader& r) {
  ChunkMeta m;
  r.read_struct([&](int16_t id, CType t) {
    switch (id) {
      case 1: m.has_file_path = true; r.skip(t); break;
      case 3: r.expect(t, CType::Struct, "ColumnChunk.meta_data"); read_column_meta(r, m); break;
      case 8:  // crypto_metadata
      case 9:  // encrypted_column_metadata
        m.encrypted = true;
        r.skip(t);
        break;
      default: r.skip(t);
    }
  });
  return m;
}

// Well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF): the key-value
// metadata's strings become JS strings, which must not merge two different keys into one.
bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const uint8_t* const end = p + s.size();
  while (p < end) {
    const uint8_t b = *p;
    if (b < 0x80) {
      ++p;
      continue;
    }
    // Continuation bytes after the lead byte, the lead's payload bits, the smallest code point.
    size_t n = 0;
    uint32_t cp = 0, min = 0;
    if ((b & 0xE0) == 0xC0) {
      n = 1, cp = b & 0x1Fu, min = 0x80;
    } else if ((b & 0xF0) == 0xE0) {
      n = 2, cp = b & 0x0Fu, min = 0x800;
    } else if ((b & 0xF8) == 0xF0) {
      n = 3, cp = b & 0x07u, min = 0x10000;
    } else {
      return false;
    }
    if (static_cast<size_t>(end - p) <= n) return false;
    for (size_t i = 1; i <= n; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    p += n + 1;
  }
  return true;
}

std::pair<std::string, std::string> read_key_value(CompactReader& r) {
  std::optional<std::string> key;
  std::string value;
  r.read_struct([&](int16_t id, CType t) {
    if (id == 1 || id == 2) {
      r.expect(t, CType::Binary, id == 1 ? "KeyValue.key" : "KeyValue.value");
      const std::string_view s = r.binary();
      if (s.size() > kMaxKeyValueBytes)
        unsupported(std::string("key-value metadata with a ") + (id == 1 ? "key" : "value") + " of " + std::to_string(s.size()) +
                    " bytes (at most " + std::to_string(kMaxKeyValueBytes) + ")");
      if (!valid_utf8(s)) unsupported(std::string("key-value metadata with a ") + (id == 1 ? "key" : "value") + " that is not UTF-8");
      (id == 1 ? key.emplace() : value) = std::string(s);
    } else {
      r.skip(t);
    }
  });
  if (!key) corrupt("FileMetaData has a KeyValue without its key");
  return {std::move(*key), std::move(value)};
}

struct RowGroupMetaRead {
  int64_t num_rows = -1;
  std::vector<ChunkMeta> columns;
};

RowGroupMetaRead read_row_group(CompactReader& r) {
  RowGroupMetaRead g;
  r.read_struct([&](int16_t id, CType t) {
    if (id == 1) {
      r.expect(t, CType::List, "RowGroup.columns");
      CType element;
      const size_t n = r.list(element);
      if (element != CType::Struct) r.fail("has RowGroup.columns that are not structs");
      g.columns.reserve(n);
      for (size_t i = 0; i < n; ++i) g.columns.push_back(read_column_chunk(r));
    } else if (id == 3) {
      r.expect(t, CType::I64, "RowGroup.num_rows");
      g.num_rows = r.i64();
    } else {
      r.skip(t);
    }
  });
  return g;
}

const char* type_name(int32_t t) {
  switch (t) {
    case 0: return "BOOLEAN";
    case 1: return "INT32";
    case 2: return "INT64";
    case 3: return "INT96";
    case 4: return "FLOAT";
    case 5: return "DOUBLE";
    case 6: return "BYTE_ARRAY";
    case 7: return "FIXED_LEN_BYTE_ARRAY";
  }
  return "an unknown type";
}

bool known_encoding(int32_t e) {
  // RLE and BIT_PACKED appear in the list for the (absent) levels of V1 pages.
  return e == kEncPlain || e == kEncPlainDictionary || e == kEncRle || e == kEncBitPacked || e == kEncDelta ||
         e == kEncRleDictionary || e == kEncByteStreamSplit;
}

// --- Decompression ----------------------------------------------------------------------------------

struct ZstdDContextDeleter {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

ZSTD_DCtx* thread_zstd_dcontext() {
  // One per thread: decoding runs on several pool threads at once.
  thread_local std::unique_ptr<ZSTD_DCtx, ZstdDContextDeleter> context(ZSTD_createDCtx());
  if (!context) throw std::runtime_error("zstd: cannot create a decompression context");
  return context.get();
}

// The page body [src, src + compressed) as `uncompressed` plain bytes: in place when the chunk is
// not compressed, else decompressed into `scratch` (exactly `uncompressed` bytes or it is damage).
const uint8_t* page_body(int32_t codec, const uint8_t* src, size_t compressed, size_t uncompressed,
                         std::vector<uint8_t>& scratch, const std::string& where) {
  switch (codec) {
    case kCodecNone:
      if (compressed != uncompressed) corrupt(where + ": uncompressed page with two different sizes");
      return src;
    case kCodecZstd: {
      scratch.resize(uncompressed);
      const size_t n = ZSTD_decompressDCtx(thread_zstd_dcontext(), scratch.data(), uncompressed, src, compressed);
      if (ZSTD_isError(n)) corrupt(where + ": zstd: " + ZSTD_getErrorName(n));
      if (n != uncompressed) corrupt(where + ": page decompresses to another size than its header says");
      return scratch.data();
    }
    case kCodecLz4Raw: {
      scratch.resize(uncompressed);
      // Sizes come from i32 page header fields, so they fit an int.
      const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(scratch.data()),
                                        static_cast<int>(compressed), static_cast<int>(uncompressed));
      if (n < 0 || static_cast<size_t>(n) != uncompressed) corrupt(where + ": lz4 page does not decompress to its stated size");
      return scratch.data();
    }
  }
  unsupported(where + ": codec " + std::to_string(codec));
}

// --- Bit unpacking ----------------------------------------------------------------------------------

// 32 values of W bits, LSB first, from `in` (4 * W bytes, readable up to 9 bytes beyond: the
// caller's padded copy). W is a template argument so that every shift is a constant.
template <int W>
void unpack32(const uint8_t* in, uint64_t* out) {
  if constexpr (W == 0) {
    std::fill(out, out + 32, uint64_t{0});
  } else {
    constexpr uint64_t mask = W == 64 ? ~uint64_t{0} : (uint64_t{1} << W) - 1;
    for (int i = 0; i < 32; ++i) {
      const size_t bit = static_cast<size_t>(i) * W;
      const size_t at = bit >> 3;
      const unsigned shift = static_cast<unsigned>(bit & 7);
      uint64_t v;
      std::memcpy(&v, in + at, 8);
      v >>= shift;
      if constexpr (W > 56) {
        if (shift + W > 64) v |= static_cast<uint64_t>(in[at + 8]) << (64 - shift);  // shift > 0 here
      }
      out[i] = v & mask;
    }
  }
}

using Unpack32 = void (*)(const uint8_t*, uint64_t*);

template <size_t... W>
constexpr std::array<Unpack32, sizeof...(W)> unpack_table(std::index_sequence<W...>) {
  return {&unpack32<static_cast<int>(W)>...};
}
constexpr auto kUnpack32 = unpack_table(std::make_index_sequence<65>());

// Bytes of slack after a copied run, for unpack32's 8-byte loads (+1 for widths above 56).
constexpr size_t kUnpackSlack = 16;

// A bounded cursor over a decoded page body.
struct Cursor {
  const uint8_t* p;
  const uint8_t* end;
  const char* what;

  size_t left() const { return static_cast<size_t>(end - p); }
  void need(size_t n) const {
    if (n > left()) corrupt(std::string(what) + " ends early");
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      need(1);
      const uint8_t b = *p++;
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return v;
    }
    corrupt(std::string(what) + " has a varint longer than 10 bytes");
  }
  uint64_t zigzag() {
    const uint64_t v = varint();
    return (v >> 1) ^ (~(v & 1) + 1);
  }
};

template <typename T>
void store_values(void* out, size_t at, const uint64_t* v, size_t n) {
  T* o = static_cast<T*>(out) + at;
  for (size_t i = 0; i < n; ++i) o[i] = static_cast<T>(v[i]);
}

}  // namespace

size_t value_width(ReadType type) { return type == ReadType::Int32 ? 4 : 8; }

int FileInfo::find(const std::string& name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::optional<std::pair<int64_t, int64_t>> FileInfo::int_range(size_t row_group, size_t column) const {
  if (row_group >= row_groups.size() || column >= columns.size()) return std::nullopt;
  const ColumnDescriptor& d = columns[column];
  // Unsigned columns' statistics sort as unsigned: not comparable as int64.
  if (d.type == ReadType::Double || !d.is_signed) return std::nullopt;
  const ColumnChunkInfo& c = row_groups[row_group].columns[column];
  if (!c.min || !c.max) return std::nullopt;
  const size_t width = value_width(d.type);
  if (c.min->size() != width || c.max->size() != width) return std::nullopt;
  if (width == 8) {
    int64_t lo, hi;
    std::memcpy(&lo, c.min->data(), 8);
    std::memcpy(&hi, c.max->data(), 8);
    return std::make_pair(lo, hi);
  }
  int32_t lo, hi;
  std::memcpy(&lo, c.min->data(), 4);
  std::memcpy(&hi, c.max->data(), 4);
  return std::make_pair(int64_t{lo}, int64_t{hi});
}

FileInfo read_metadata(const uint8_t* data, size_t size) {
  if (size < 12) corrupt("shorter than the magic, the footer length and the magic again (" + std::to_string(size) + " bytes)");
  if (std::memcmp(data, "PAR1", 4) != 0) {
    if (std::memcmp(data + size - 4, "PARE", 4) == 0) unsupported("encrypted file");
    corrupt("no PAR1 magic at the start");
  }
  if (std::memcmp(data + size - 4, "PAR1", 4) != 0) corrupt("no PAR1 magic at the end (truncated?)");
  uint32_t footer_length;
  std::memcpy(&footer_length, data + size - 8, 4);
  if (footer_length > size - 12) corrupt("footer length " + std::to_string(footer_length) + " beyond the file's " + std::to_string(size) + " bytes");
  const size_t footer_at = size - 8 - footer_length;
  CompactReader r(data + footer_at, data + size - 8, "FileMetaData");

  std::vector<SchemaElement> schema;
  std::vector<RowGroupMetaRead> groups;
  FileInfo info;
  bool have_rows = false;
  r.read_struct([&](int16_t id, CType t) {
    switch (id) {
      case 2: {
        r.expect(t, CType::List, "FileMetaData.schema");
        CType element;
        const size_t n = r.list(element);
        if (element != CType::Struct) r.fail("has a schema that is not structs");
        schema.reserve(n);
        for (size_t i = 0; i < n; ++i) schema.push_back(read_schema_element(r));
        break;
      }
      case 3: r.expect(t, CType::I64, "FileMetaData.num_rows"); info.num_rows = r.i64(); have_rows = true; break;
      case 4: {
        r.expect(t, CType::List, "FileMetaData.row_groups");
        CType element;
        const size_t n = r.list(element);
        if (element != CType::Struct) r.fail("has row groups that are not structs");
        groups.reserve(n);
        for (size_t i = 0; i < n; ++i) groups.push_back(read_row_group(r));
        break;
      }
      case 5: {
        r.expect(t, CType::List, "FileMetaData.key_value_metadata");
        CType element;
        const size_t n = r.list(element);
        if (element != CType::Struct) r.fail("has key_value_metadata that is not structs");
        if (n > kMaxKeyValuePairs)
          unsupported("key-value metadata of " + std::to_string(n) + " pairs (at most " + std::to_string(kMaxKeyValuePairs) + ")");
        info.key_value_metadata.reserve(n);
        for (size_t i = 0; i < n; ++i) info.key_value_metadata.push_back(read_key_value(r));
        break;
      }
      case 6: r.expect(t, CType::Binary, "FileMetaData.created_by"); info.created_by = std::string(r.binary()); break;
      default: r.skip(t);
    }
  });
  for (size_t i = 0; i < info.key_value_metadata.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (info.key_value_metadata[i].first == info.key_value_metadata[j].first)
        unsupported("key-value metadata with the key \"" + info.key_value_metadata[i].first + "\" twice");
    }
  }
  if (schema.empty()) corrupt("FileMetaData has no schema");
  if (!have_rows || info.num_rows < 0) corrupt("FileMetaData has no valid num_rows");

  // Flat: the root's children are all the leaves, none of which has children of its own.
  const SchemaElement& root = schema[0];
  if (!root.num_children || *root.num_children < 0 || static_cast<size_t>(*root.num_children) != schema.size() - 1)
    unsupported("nested schema (the root's children are not all the columns)");
  info.columns.reserve(schema.size() - 1);
  for (size_t i = 1; i < schema.size(); ++i) {
    const SchemaElement& e = schema[i];
    if (e.num_children && *e.num_children > 0) unsupported("nested schema (group \"" + e.name + "\")");
    if (!e.type) corrupt("column \"" + e.name + "\" has no type");
    if (!e.repetition || *e.repetition != kRequired) unsupported("column \"" + e.name + "\" is not REQUIRED (nullable or repeated)");
    if (*e.type != 1 && *e.type != 2 && *e.type != 5)
      unsupported("column \"" + e.name + "\" of type " + type_name(*e.type));
    ColumnDescriptor d;
    d.name = e.name;
    d.type = static_cast<ReadType>(*e.type);
    d.converted_type = e.converted_type;
    // ConvertedType UINT_8..UINT_64 are 11..14.
    d.is_signed = e.integer_signed.value_or(!(e.converted_type && *e.converted_type >= 11 && *e.converted_type <= 14));
    info.columns.push_back(std::move(d));
  }

  int64_t total_rows = 0;
  info.row_groups.reserve(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    RowGroupMetaRead& rg = groups[g];
    const std::string where = "row group " + std::to_string(g);
    if (rg.num_rows < 0) corrupt(where + " has no valid num_rows");
    if (rg.num_rows > kMaxRowGroupRows) unsupported(where + " has more than " + std::to_string(kMaxRowGroupRows) + " rows");
    if (rg.columns.size() != info.columns.size()) corrupt(where + " has " + std::to_string(rg.columns.size()) + " columns, the schema " + std::to_string(info.columns.size()));
    total_rows += rg.num_rows;  // both <= 2^25 * groups: no overflow for any list the footer can hold
    RowGroupInfo out;
    out.num_rows = rg.num_rows;
    out.columns.reserve(rg.columns.size());
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      ChunkMeta& m = rg.columns[c];
      const ColumnDescriptor& d = info.columns[c];
      const std::string at = where + " column \"" + d.name + "\"";
      if (m.has_file_path) unsupported(at + " is in another file");
      if (m.encrypted) unsupported(at + " is encrypted");
      if (!m.has_meta) corrupt(at + " has no metadata");
      if (!m.type || *m.type != static_cast<int32_t>(d.type)) corrupt(at + " has another type than the schema's");
      if (m.path.size() != 1 || m.path[0] != d.name) corrupt(at + " has another path than the schema's column");
      ColumnChunkInfo& ci = m.info;
      if (ci.codec != kCodecNone && ci.codec != kCodecZstd && ci.codec != kCodecLz4Raw) unsupported(at + ": codec " + std::to_string(ci.codec));
      for (int32_t e : ci.encodings) {
        if (!known_encoding(e)) unsupported(at + ": encoding " + std::to_string(e));
      }
      if (ci.num_values != rg.num_rows) corrupt(at + " has " + std::to_string(ci.num_values) + " values for " + std::to_string(rg.num_rows) + " rows");
      // Bounds: the chunk lies between the leading magic and the footer.
      int64_t start = ci.data_page_offset;
      if (ci.dictionary_page_offset && *ci.dictionary_page_offset > 0 && *ci.dictionary_page_offset < start) start = *ci.dictionary_page_offset;
      const auto limit = static_cast<int64_t>(footer_at);
      if (start < 4 || ci.total_compressed_size < 0 || start > limit || ci.total_compressed_size > limit - start)
        corrupt(at + " lies outside the file's data");
      if (ci.data_page_offset < start || ci.data_page_offset > start + ci.total_compressed_size) corrupt(at + " has a bad data_page_offset");
      out.columns.push_back(std::move(ci));
    }
    info.row_groups.push_back(std::move(out));
  }
  if (total_rows != info.num_rows) corrupt("row groups hold " + std::to_string(total_rows) + " rows, FileMetaData says " + std::to_string(info.num_rows));
  return info;
}

size_t delta_binary_packed_decode(const uint8_t* in, size_t size, size_t n, size_t width, void* out) {
  if (width != 4 && width != 8) throw std::invalid_argument("delta_binary_packed_decode: width must be 4 or 8");
  Cursor c{in, in + size, "DELTA_BINARY_PACKED page"};
  const uint64_t block = c.varint();
  const uint64_t miniblocks = c.varint();
  const uint64_t total = c.varint();
  uint64_t value = c.zigzag();
  // The spec: block a multiple of 128, miniblocks of a multiple of 32 values. The caps keep a
  // damaged header from asking for absurd loops (real writers use 128 / 4).
  if (block == 0 || block % 128 != 0 || block > (1u << 20) || miniblocks == 0 || block % miniblocks != 0 ||
      (block / miniblocks) % 32 != 0)
    corrupt("DELTA_BINARY_PACKED page has a bad block size " + std::to_string(block) + " / " + std::to_string(miniblocks));
  if (total != n) corrupt("DELTA_BINARY_PACKED page holds " + std::to_string(total) + " values, its header says " + std::to_string(n));
  const size_t per_mini = static_cast<size_t>(block / miniblocks);
  // Up to 64 bits for INT32 too: a writer that takes INT32 differences in 64 bits (this project's
  // does, widening) needs 33; the sums are taken modulo 2^64 and truncated, which is the same value.
  constexpr unsigned max_width = 64;
  const auto store = width == 8 ? &store_values<uint64_t> : &store_values<uint32_t>;
  if (n == 0) return static_cast<size_t>(c.p - in);
  store(out, 0, &value, 1);
  size_t done = 1;
  uint64_t deltas[32];
  uint8_t padded[4 * 64 + kUnpackSlack] = {};
  while (done < n) {
    const uint64_t min_delta = c.zigzag();
    c.need(static_cast<size_t>(miniblocks));
    const uint8_t* widths = c.p;
    c.p += miniblocks;
    for (size_t m = 0; m < miniblocks && done < n; ++m) {
      const unsigned w = widths[m];
      if (w > max_width) corrupt("DELTA_BINARY_PACKED miniblock of " + std::to_string(w) + " bits");
      const size_t bytes = per_mini / 8 * w;
      c.need(bytes);
      for (size_t g = 0; g < per_mini && done < n; g += 32) {
        std::memcpy(padded, c.p + g / 8 * w, 4 * w);
        kUnpack32[w](padded, deltas);
        const size_t take = std::min<size_t>(32, n - done);
        for (size_t i = 0; i < take; ++i) {
          value += min_delta + deltas[i];  // wraps modulo 2^64 as the encoder's differences did
          deltas[i] = value;
        }
        store(out, done, deltas, take);
        done += take;
      }
      c.p += bytes;
    }
  }
  return static_cast<size_t>(c.p - in);
}

namespace {

// Walks the RLE / bit-packed hybrid runs of `n` indices at `bit_width` (0..32) in in[0, size),
// each checked to be < `limit`: sink.run(index, count) for an RLE run, sink.values(indices, count)
// for up to 32 bit-packed ones. A template so that the dictionary gather happens in the same pass
// (no index buffer, an RLE run of one value is a fill).
template <typename Sink>
void rle_hybrid_walk(const uint8_t* in, size_t size, int bit_width, size_t n, uint32_t limit, Sink& sink) {
  if (bit_width < 0 || bit_width > 32) corrupt("RLE run of " + std::to_string(bit_width) + " bits");
  Cursor c{in, in + size, "RLE_DICTIONARY page"};
  const auto w = static_cast<size_t>(bit_width);
  const size_t value_bytes = (w + 7) / 8;
  size_t done = 0;
  uint64_t values[32];
  uint8_t padded[4 * 32 + kUnpackSlack] = {};
  auto bad = [limit](uint64_t v) {
    corrupt("dictionary index " + std::to_string(v) + " beyond the dictionary's " + std::to_string(limit) + " values");
  };
  while (done < n) {
    const uint64_t header = c.varint();
    if (header & 1) {
      // Bit-packed: (header >> 1) groups of 8 values, w bytes per group.
      const uint64_t groups = header >> 1;
      if (w > 0 && groups > c.left() / w) corrupt("RLE_DICTIONARY bit-packed run longer than its page");
      const size_t bytes = static_cast<size_t>(groups) * w;
      const size_t count = static_cast<size_t>(std::min<uint64_t>(groups, (n - done + 7) / 8)) * 8;
      for (size_t g = 0; g < count && done < n; g += 32) {
        // 32 values at a time; the run's last, shorter stretch is zero-padded in the copy.
        const size_t stretch = std::min<size_t>(32, count - g);
        if (stretch < 32) std::memset(padded, 0, sizeof padded);
        std::memcpy(padded, c.p + g / 8 * w, stretch / 8 * w);
        kUnpack32[w](padded, values);
        const size_t take = std::min(stretch, n - done);
        uint64_t top = 0;
        for (size_t i = 0; i < take; ++i) top = values[i] > top ? values[i] : top;
        if (top >= limit) bad(top);
        sink.values(values, take);
        done += take;
      }
      c.p += bytes;
    } else {
      const uint64_t count = header >> 1;
      c.need(value_bytes);
      uint32_t v = 0;
      for (size_t b = 0; b < value_bytes; ++b) v |= static_cast<uint32_t>(c.p[b]) << (8 * b);
      c.p += value_bytes;
      const size_t take = static_cast<size_t>(std::min<uint64_t>(count, n - done));
      if (take > 0) {
        if (v >= limit) bad(v);
        sink.run(v, take);
      }
      done += take;
    }
  }
}

// The indices themselves (rle_hybrid_decode).
struct IndexSink {
  uint32_t* out;
  void run(uint32_t v, size_t count) {
    std::fill(out, out + count, v);
    out += count;
  }
  void values(const uint64_t* v, size_t count) {
    for (size_t i = 0; i < count; ++i) out[i] = static_cast<uint32_t>(v[i]);
    out += count;
  }
};

// The dictionary's values at the indices (W: the values' width in bytes; indices checked by the
// walk). Moved as bytes with fixed-size memcpy (one load and store each once compiled): the
// buffers are byte arrays to this code, whatever type JS later sees in them.
template <size_t W>
struct GatherSink {
  const uint8_t* dictionary;
  uint8_t* out;
  void run(uint32_t v, size_t count) {
    const uint8_t* value = dictionary + size_t{v} * W;
    for (size_t i = 0; i < count; ++i) std::memcpy(out + i * W, value, W);
    out += count * W;
  }
  void values(const uint64_t* v, size_t count) {
    for (size_t i = 0; i < count; ++i) std::memcpy(out + i * W, dictionary + v[i] * W, W);
    out += count * W;
  }
};

}  // namespace

void rle_hybrid_decode(const uint8_t* in, size_t size, int bit_width, size_t n, uint32_t limit, uint32_t* out) {
  IndexSink sink{out};
  rle_hybrid_walk(in, size, bit_width, n, limit, sink);
}

namespace {

struct PageHeader {
  int32_t type = -1;
  int32_t uncompressed = -1;
  int32_t compressed = -1;
  std::optional<int32_t> crc;
  bool has_data = false;
  int32_t data_values = -1;
  int32_t data_encoding = -1;
  bool has_dictionary = false;
  int32_t dictionary_values = -1;
  int32_t dictionary_encoding = -1;
};

PageHeader read_page_header(CompactReader& r) {
  PageHeader h;
  r.read_struct([&](int16_t id, CType t) {
    switch (id) {
      case 1: r.expect(t, CType::I32, "PageHeader.type"); h.type = r.i32(); break;
      case 2: r.expect(t, CType::I32, "PageHeader.uncompressed_page_size"); h.uncompressed = r.i32(); break;
      case 3: r.expect(t, CType::I32, "PageHeader.compressed_page_size"); h.compressed = r.i32(); break;
      case 4: r.expect(t, CType::I32, "PageHeader.crc"); h.crc = r.i32(); break;
      case 5:
        r.expect(t, CType::Struct, "PageHeader.data_page_header");
        h.has_data = true;
        r.read_struct([&](int16_t f, CType ft) {
          if (f == 1) { r.expect(ft, CType::I32, "DataPageHeader.num_values"); h.data_values = r.i32(); }
          else if (f == 2) { r.expect(ft, CType::I32, "DataPageHeader.encoding"); h.data_encoding = r.i32(); }
          else r.skip(ft);
        });
        break;
      case 7:
        r.expect(t, CType::Struct, "PageHeader.dictionary_page_header");
        h.has_dictionary = true;
        r.read_struct([&](int16_t f, CType ft) {
          if (f == 1) { r.expect(ft, CType::I32, "DictionaryPageHeader.num_values"); h.dictionary_values = r.i32(); }
          else if (f == 2) { r.expect(ft, CType::I32, "DictionaryPageHeader.encoding"); h.dictionary_encoding = r.i32(); }
          else r.skip(ft);
        });
        break;
      default: r.skip(t);
    }
  });
  return h;
}

// Scratch buffers of one decoding thread, kept between pages and chunks (bounded below).
struct Scratch {
  std::vector<uint8_t> page, dictionary;
};

}  // namespace

void decode_column(const uint8_t* data, size_t size, const FileInfo& info, size_t row_group, size_t column, void* out,
                   size_t out_bytes) {
  if (row_group >= info.row_groups.size()) throw std::out_of_range("parquet: no row group " + std::to_string(row_group));
  if (column >= info.columns.size()) throw std::out_of_range("parquet: no column " + std::to_string(column));
  const ColumnDescriptor& d = info.columns[column];
  const ColumnChunkInfo& chunk = info.row_groups[row_group].columns[column];
  const size_t width = value_width(d.type);
  const auto rows = static_cast<size_t>(chunk.num_values);  // >= 0, <= kMaxRowGroupRows (read_metadata)
  if (out_bytes != rows * width) throw std::invalid_argument("parquet: output buffer of the wrong size for column \"" + d.name + "\"");
  const std::string where = "row group " + std::to_string(row_group) + " column \"" + d.name + "\"";

  int64_t start = chunk.data_page_offset;
  if (chunk.dictionary_page_offset && *chunk.dictionary_page_offset > 0 && *chunk.dictionary_page_offset < start)
    start = *chunk.dictionary_page_offset;
  // read_metadata checked that [start, start + total_compressed_size) lies within the file.
  if (start < 0 || chunk.total_compressed_size < 0 || static_cast<uint64_t>(start) > size ||
      static_cast<uint64_t>(chunk.total_compressed_size) > size - static_cast<uint64_t>(start))
    corrupt(where + " lies outside the file");
  const uint8_t* p = data + start;
  const uint8_t* const end = p + chunk.total_compressed_size;

  thread_local Scratch scratch;
  size_t dictionary_values = 0;
  bool have_dictionary = false;
  size_t done = 0;
  auto* const o = static_cast<uint8_t*>(out);
  while (done < rows) {
    if (p >= end) corrupt(where + " ends after " + std::to_string(done) + " of its " + std::to_string(rows) + " values");
    CompactReader r(p, end, "PageHeader");
    const PageHeader h = read_page_header(r);
    p += r.consumed(p);
    if (h.compressed < 0 || h.uncompressed < 0) corrupt(where + ": page without valid sizes");
    if (h.uncompressed > kMaxPageBytes) unsupported(where + ": page of " + std::to_string(h.uncompressed) + " bytes");
    if (static_cast<size_t>(h.compressed) > static_cast<size_t>(end - p)) corrupt(where + ": page longer than its column chunk");
    const uint8_t* const raw = p;
    p += h.compressed;
    const auto compressed = static_cast<size_t>(h.compressed);
    const auto uncompressed = static_cast<size_t>(h.uncompressed);
    // A page that carries a CRC (this project's writer puts one on every page) must match it:
    // the CRC-32 of the page's bytes after its header, as written (compressed).
    if (h.crc && static_cast<uint32_t>(*h.crc) != crc32(raw, compressed))
      corrupt("page CRC mismatch in column \"" + d.name + "\" (row group " + std::to_string(row_group) + ", page at byte " +
              std::to_string(raw - data) + ")");

    if (h.type == kPageIndex) continue;  // unused by any writer; nothing to decode
    if (h.type == kPageDataV2) unsupported(where + ": data page V2");
    if (h.type == kPageDictionary) {
      if (!h.has_dictionary) corrupt(where + ": dictionary page without its header");
      if (have_dictionary || done > 0) corrupt(where + ": a second dictionary page, or one after data pages");
      if (h.dictionary_encoding != kEncPlain && h.dictionary_encoding != kEncPlainDictionary)
        unsupported(where + ": dictionary page encoding " + std::to_string(h.dictionary_encoding));
      if (h.dictionary_values < 0 || static_cast<size_t>(h.dictionary_values) * width != uncompressed)
        corrupt(where + ": dictionary page of " + std::to_string(h.dictionary_values) + " values in " + std::to_string(uncompressed) + " bytes");
      const uint8_t* body = page_body(chunk.codec, raw, compressed, uncompressed, scratch.page, where);
      scratch.dictionary.assign(body, body + uncompressed);
      dictionary_values = static_cast<size_t>(h.dictionary_values);
      have_dictionary = true;
      continue;
    }
    if (h.type != kPageData) unsupported(where + ": page type " + std::to_string(h.type));
    if (!h.has_data) corrupt(where + ": data page without its header");
    if (h.data_values < 0 || static_cast<size_t>(h.data_values) > rows - done)
      corrupt(where + ": data page of " + std::to_string(h.data_values) + " values where " + std::to_string(rows - done) + " are left");
    const auto n = static_cast<size_t>(h.data_values);
    uint8_t* const dst = o + done * width;
    switch (h.data_encoding) {
      case kEncPlain: {
        if (uncompressed != n * width) corrupt(where + ": PLAIN page of " + std::to_string(n) + " values in " + std::to_string(uncompressed) + " bytes");
        const uint8_t* body = page_body(chunk.codec, raw, compressed, uncompressed, scratch.page, where);
        if (n > 0) std::memcpy(dst, body, n * width);
        break;
      }
      case kEncByteStreamSplit: {
        if (uncompressed != n * width) corrupt(where + ": BYTE_STREAM_SPLIT page of " + std::to_string(n) + " values in " + std::to_string(uncompressed) + " bytes");
        const uint8_t* body = page_body(chunk.codec, raw, compressed, uncompressed, scratch.page, where);
        if (width == 8) {
          // Unrolled for doubles: eight input streams, one pass over the output.
          const uint8_t* s[8];
          for (size_t k = 0; k < 8; ++k) s[k] = body + k * n;
          for (size_t i = 0; i < n; ++i) {
            uint8_t* v = dst + i * 8;
            for (size_t k = 0; k < 8; ++k) v[k] = s[k][i];
          }
        } else {
          for (size_t i = 0; i < n; ++i) {
            for (size_t k = 0; k < width; ++k) dst[i * width + k] = body[k * n + i];
          }
        }
        break;
      }
      case kEncDelta: {
        if (d.type == ReadType::Double) corrupt(where + ": DELTA_BINARY_PACKED on a DOUBLE column");
        const uint8_t* body = page_body(chunk.codec, raw, compressed, uncompressed, scratch.page, where);
        delta_binary_packed_decode(body, uncompressed, n, width, dst);
        break;
      }
      case kEncRleDictionary:
      case kEncPlainDictionary: {
        if (!have_dictionary) corrupt(where + ": dictionary-encoded page without a dictionary page");
        const uint8_t* body = page_body(chunk.codec, raw, compressed, uncompressed, scratch.page, where);
        if (uncompressed < 1) corrupt(where + ": dictionary-encoded page without its bit width");
        // The dictionary has at most kMaxPageBytes / 4 values: it fits a uint32_t.
        const auto limit = static_cast<uint32_t>(dictionary_values);
        if (width == 8) {
          GatherSink<8> sink{scratch.dictionary.data(), dst};
          rle_hybrid_walk(body + 1, uncompressed - 1, body[0], n, limit, sink);
        } else {
          GatherSink<4> sink{scratch.dictionary.data(), dst};
          rle_hybrid_walk(body + 1, uncompressed - 1, body[0], n, limit, sink);
        }
        break;
      }
      default:
        unsupported(where + ": data page encoding " + std::to_string(h.data_encoding));
    }
    done += n;
  }
  // Keep one huge page or dictionary from pinning its memory on this pool thread for good.
  constexpr size_t kKeep = size_t{16} << 20;
  if (scratch.page.capacity() > kKeep) std::vector<uint8_t>().swap(scratch.page);
  if (scratch.dictionary.capacity() > kKeep) std::vector<uint8_t>().swap(scratch.dictionary);
}

}  // namespace tradeapi::parquet
