#include "parquet_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>

#include "crc32.h"
#include "delta_binary_packed.h"
#include "dictionary.h"
#include "thrift_compact.h"

namespace tradeapi::parquet {

Schema tick_schema() {
  return {
      {"time", PhysicalType::Int64, LogicalType::TimestampMillisUtc, Encoding::DeltaBinaryPacked, 1000},
      {"bid", PhysicalType::Double},
      {"ask", PhysicalType::Double},
      {"last", PhysicalType::Double},
      {"volume", PhysicalType::Int64, LogicalType::Uint64},
      {"time_msc", PhysicalType::Int64, LogicalType::TimestampMillisUtc, Encoding::DeltaBinaryPacked},
      {"flags", PhysicalType::Int32, LogicalType::Uint32},
      {"volume_real", PhysicalType::Double},
  };
}

Schema rate_schema() {
  return {
      {"time", PhysicalType::Int64, LogicalType::TimestampMillisUtc, Encoding::DeltaBinaryPacked, 1000},
      {"open", PhysicalType::Double},
      {"high", PhysicalType::Double},
      {"low", PhysicalType::Double},
      {"close", PhysicalType::Double},
      {"tick_volume", PhysicalType::Int64, LogicalType::Uint64},
      {"spread", PhysicalType::Int32},
      {"real_volume", PhysicalType::Int64, LogicalType::Uint64},
  };
}

ColumnSpec dictionary_string_column(std::string name, std::vector<std::string> dictionary) {
  ColumnSpec spec{std::move(name), PhysicalType::ByteArray, LogicalType::String, Encoding::RleDictionary};
  spec.dictionary = std::move(dictionary);
  return spec;
}

Schema with_byte_stream_split(Schema schema) {
  for (ColumnSpec& c : schema) {
    if (c.type == PhysicalType::Double) c.encoding = Encoding::ByteStreamSplit;
  }
  return schema;
}

void byte_stream_split(const uint8_t* values, size_t n, size_t width, uint8_t* out) {
  if (width == 8) {
    // Unrolled for doubles: one pass over the input, eight output streams.
    uint8_t* s[8];
    for (size_t k = 0; k < 8; ++k) s[k] = out + k * n;
    for (size_t i = 0; i < n; ++i) {
      const uint8_t* v = values + i * 8;
      for (size_t k = 0; k < 8; ++k) s[k][i] = v[k];
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < width; ++k) out[k * n + i] = values[i * width + k];
  }
}

namespace {

size_t value_size(PhysicalType t) { return t == PhysicalType::Int32 ? 4 : t == PhysicalType::ByteArray ? 2 : 8; }

template <typename T>
std::string le_bytes(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T));  // Parquet PLAIN is little-endian, as are Node's platforms
  return s;
}

// Min/max over a column chunk, in the logical type's sort order.
class Stats {
 public:
  explicit Stats(const ColumnSpec& spec) : spec_(spec) {}

  void add(const uint8_t* values, size_t n) {
    if (n == 0) return;
    switch (spec_.type) {
      case PhysicalType::Int32:
        if (spec_.logical == LogicalType::Uint32) add_range(reinterpret_cast<const uint32_t*>(values), n, u32_);
        else add_range(reinterpret_cast<const int32_t*>(values), n, i32_);
        break;
      case PhysicalType::Int64:
        if (spec_.logical == LogicalType::Uint64) add_range(reinterpret_cast<const uint64_t*>(values), n, u64_);
        else add_range(reinterpret_cast<const int64_t*>(values), n, i64_);
        break;
      case PhysicalType::Double:
        add_doubles(reinterpret_cast<const double*>(values), n);
        break;
      case PhysicalType::ByteArray:
        break;  // dictionary_string_chunk's own statistics
    }
  }

  void store(ColumnChunkMeta& meta) const {
    switch (spec_.type) {
      case PhysicalType::Int32:
        if (spec_.logical == LogicalType::Uint32) set(meta, u32_);
        else set(meta, i32_);
        break;
      case PhysicalType::Int64:
        if (spec_.logical == LogicalType::Uint64) set(meta, u64_);
        else set(meta, i64_);
        break;
      case PhysicalType::Double:
        if (!d_.seen) return;
        // Parquet: a zero min is written as -0.0 and a zero max as +0.0 (readers may not know
        // which sign the values had).
        meta.min = le_bytes(d_.min == 0.0 ? -0.0 : d_.min);
        meta.max = le_bytes(d_.max == 0.0 ? 0.0 : d_.max);
        break;
      case PhysicalType::ByteArray:
        break;
    }
  }

 private:
  template <typename T>
  struct Range {
    bool seen = false;
    T min{}, max{};
  };
  template <typename T>
  static void add_range(const T* v, size_t n, Range<T>& r) {
    T lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; ++i) {
      lo = v[i] < lo ? v[i] : lo;
      hi = v[i] > hi ? v[i] : hi;
    }
    if (!r.seen || lo < r.min) r.min = lo;
    if (!r.seen || hi > r.max) r.max = hi;
    r.seen = true;
  }
  void add_doubles(const double* v, size_t n) {
    // NaN never compares: min/max over the other values (NaN-free runs stay vectorisable).
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      const double x = v[i];
      if (x == x) {
        any = true;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
      }
    }
    if (!any) return;
    if (!d_.seen || lo < d_.min) d_.min = lo;
    if (!d_.seen || hi > d_.max) d_.max = hi;
    d_.seen = true;
  }
  template <typename T>
  static void set(ColumnChunkMeta& meta, const Range<T>& r) {
    if (!r.seen) return;
    meta.min = le_bytes(r.min);
    meta.max = le_bytes(r.max);
  }

  const ColumnSpec& spec_;
  Range<int32_t> i32_;
  Range<uint32_t> u32_;
  Range<int64_t> i64_;
  Range<uint64_t> u64_;
  Range<double> d_;
};

// Reads a column's segments in order, `n` values at a time, into a contiguous buffer.
class SegmentReader {
 public:
  SegmentReader(const std::vector<Segment>& segments, size_t value_bytes) : segments_(segments), bytes_(value_bytes) {}

  void read(size_t n, uint8_t* out) {
    while (n > 0) {
      if (index_ >= segments_.size()) throw std::invalid_argument("parquet: column shorter than the row group");
      const Segment& s = segments_[index_];
      const size_t take = std::min(n, s.rows - offset_);
      std::memcpy(out, static_cast<const uint8_t*>(s.data) + offset_ * bytes_, take * bytes_);
      out += take * bytes_;
      n -= take;
      offset_ += take;
      if (offset_ == s.rows) {
        ++index_;
        offset_ = 0;
      }
    }
  }

 private:
  const std::vector<Segment>& segments_;
  size_t bytes_;
  size_t index_ = 0, offset_ = 0;
};

int32_t checked_i32(size_t v, const char* what) {
  if (v > static_cast<size_t>(std::numeric_limits<int32_t>::max())) throw std::invalid_argument(std::string("parquet: ") + what + " too large");
  return static_cast<int32_t>(v);
}

}  // namespace

// PageHeader.crc is an i32: the CRC's 32 bits as a signed value.
int32_t crc_field(uint32_t crc) {
  int32_t v;
  std::memcpy(&v, &crc, 4);
  return v;
}

void encode_data_page_header(std::vector<uint8_t>& out, int32_t num_values, Encoding encoding, size_t uncompressed_size,
                             size_t compressed_size, std::optional<uint32_t> crc) {
  CompactWriter w(out);
  w.field_i32(1, 0);  // type: DATA_PAGE
  w.field_i32(2, checked_i32(uncompressed_size, "page"));
  w.field_i32(3, checked_i32(compressed_size, "page"));
  if (crc) w.field_i32(4, crc_field(*crc));
  w.begin_struct_field(5);  // data_page_header
  w.field_i32(1, num_values);
  w.field_i32(2, static_cast<int32_t>(encoding));
  w.field_i32(3, static_cast<int32_t>(Encoding::Rle));  // definition_level_encoding (no levels: REQUIRED)
  w.field_i32(4, static_cast<int32_t>(Encoding::Rle));  // repetition_level_encoding
  w.end_struct();
  w.end_message();
}

void encode_dictionary_page_header(std::vector<uint8_t>& out, int32_t num_values, size_t uncompressed_size,
                                   size_t compressed_size, std::optional<uint32_t> crc) {
  CompactWriter w(out);
  w.field_i32(1, 2);  // type: DICTIONARY_PAGE
  w.field_i32(2, checked_i32(uncompressed_size, "page"));
  w.field_i32(3, checked_i32(compressed_size, "page"));
  if (crc) w.field_i32(4, crc_field(*crc));
  w.begin_struct_field(7);  // dictionary_page_header
  w.field_i32(1, num_values);
  w.field_i32(2, static_cast<int32_t>(Encoding::Plain));
  w.end_struct();
  w.end_message();
}

namespace {

// Appends pages to a row group's bytes: header, then the body compressed with the file's codec.
class PageSink {
 public:
  PageSink(std::vector<uint8_t>& staging, const WriterOptions& options) : staging_(staging), options_(options) {}

  enum class Kind { Data, Dictionary };

  void write(Kind kind, int32_t num_values, Encoding encoding, const uint8_t* body, size_t size, ColumnChunkMeta& meta) {
    const uint8_t* payload = body;
    size_t payload_size = size;
    if (options_.codec != Codec::Uncompressed) {
      const size_t bound = compress_bound(options_.codec, size);
      if (scratch_capacity_ < bound) {
        scratch_.reset(new uint8_t[bound]);  // not zero-filled: compress_into writes what it reports
        scratch_capacity_ = bound;
      }
      payload_size = compress_into(options_.codec, options_.level, body, size, scratch_.get(), scratch_capacity_);
      payload = scratch_.get();
    }
    const size_t header_at = staging_.size();
    // The CRC of the bytes after the header: the compressed payload as written.
    const std::optional<uint32_t> crc = options_.page_crc ? std::optional<uint32_t>(crc32(payload, payload_size)) : std::nullopt;
    if (kind == Kind::Dictionary) encode_dictionary_page_header(staging_, num_values, size, payload_size, crc);
    else encode_data_page_header(staging_, num_values, encoding, size, payload_size, crc);
    const size_t header = staging_.size() - header_at;
    staging_.insert(staging_.end(), payload, payload + payload_size);
    meta.total_uncompressed_size += static_cast<int64_t>(header + size);
    meta.total_compressed_size += static_cast<int64_t>(header + payload_size);
  }

 private:
  std::vector<uint8_t>& staging_;
  const WriterOptions& options_;
  // One per thread, reused by every page (the bound of a 1 MiB page is ~1 MiB).
  static thread_local std::unique_ptr<uint8_t[]> scratch_;
  static thread_local size_t scratch_capacity_;
};

thread_local std::unique_ptr<uint8_t[]> PageSink::scratch_;
thread_local size_t PageSink::scratch_capacity_ = 0;

// A column chunk of a fixed-dictionary STRING column (ColumnSpec::dictionary): the dictionary page
// (every name, PLAIN: 4-byte length then bytes), then data pages of the rows' indices; statistics
// are the least and greatest name used, compared as unsigned bytes (the STRING order).
void dictionary_string_chunk(const ColumnSpec& spec, const WriterOptions& options, const std::vector<Segment>& segments, size_t rows,
                             PageSink& pages, std::vector<uint8_t>& staging, std::vector<uint8_t>& body, ColumnChunkMeta& meta) {
  const std::vector<std::string>& names = spec.dictionary;
  if (names.empty() || names.size() > 65536) throw std::invalid_argument("parquet: a dictionary column needs 1 to 65536 names");
  body.clear();
  for (const std::string& name : names) {
    const auto n = static_cast<uint32_t>(name.size());
    for (int b = 0; b < 4; ++b) body.push_back(static_cast<uint8_t>(n >> (8 * b)));
    body.insert(body.end(), name.begin(), name.end());
  }
  meta.dictionary_page_offset = static_cast<int64_t>(staging.size());
  pages.write(PageSink::Kind::Dictionary, checked_i32(names.size(), "dictionary"), Encoding::Plain, body.data(), body.size(), meta);
  meta.data_page_offset = static_cast<int64_t>(staging.size());
  int width = 1;
  while ((size_t{1} << width) < names.size()) ++width;
  thread_local std::vector<uint32_t> indices;
  std::vector<bool> used(names.size(), false);
  size_t segment = 0, offset = 0;
  for (size_t from = 0; from < rows; from += options.page_rows) {
    const size_t n = std::min(options.page_rows, rows - from);
    indices.resize(n);
    for (size_t i = 0; i < n;) {
      if (segment >= segments.size()) throw std::invalid_argument("parquet: column shorter than the row group");
      const Segment& s = segments[segment];
      const size_t take = std::min(n - i, s.rows - offset);
      const auto* v = static_cast<const uint16_t*>(s.data) + offset;
      for (size_t k = 0; k < take; ++k) {
        if (v[k] >= names.size()) throw std::invalid_argument("parquet: a dictionary index past the names");
        indices[i + k] = v[k];
        used[v[k]] = true;
      }
      i += take;
      offset += take;
      if (offset == s.rows) {
        ++segment;
        offset = 0;
      }
    }
    body.clear();
    encode_dictionary_indices(indices.data(), n, width, false, body);
    pages.write(PageSink::Kind::Data, checked_i32(n, "page"), Encoding::RleDictionary, body.data(), body.size(), meta);
  }
  if (!options.statistics) return;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!used[i]) continue;
    if (!meta.min || names[i] < *meta.min) meta.min = names[i];
    if (!meta.max || names[i] > *meta.max) meta.max = names[i];
  }
}

}  // namespace

EncodedRowGroup encode_row_group(const Schema& schema, const WriterOptions& options, const RowGroupInput& input) {
  if (input.columns.size() != schema.size()) throw std::invalid_argument("parquet: one segment list per column expected");
  if (options.page_rows == 0) throw std::invalid_argument("parquet: page_rows must be positive");
  size_t rows = 0;
  for (const Segment& s : input.columns.empty() ? std::vector<Segment>{} : input.columns[0]) rows += s.rows;
  for (const auto& segments : input.columns) {
    size_t total = 0;
    for (const Segment& s : segments) {
      if (s.data == nullptr && s.rows > 0) throw std::invalid_argument("parquet: segment without data");
      total += s.rows;
    }
    if (total != rows) throw std::invalid_argument("parquet: columns of different lengths");
  }

  // Scratch, reused by every row group encoded on this thread.
  thread_local std::vector<uint8_t> plain, delta, staging;
  thread_local DictionaryBuilder dictionary;
  staging.clear();
  PageSink pages(staging, options);

  EncodedRowGroup result;
  result.meta.num_rows = static_cast<int64_t>(rows);
  result.meta.columns.resize(schema.size());
  for (size_t c = 0; c < schema.size(); ++c) {
    const ColumnSpec& spec = schema[c];
    ColumnChunkMeta& meta = result.meta.columns[c];
    meta.num_values = static_cast<int64_t>(rows);
    if (spec.type == PhysicalType::ByteArray) {
      dictionary_string_chunk(spec, options, input.columns[c], rows, pages, staging, delta, meta);
      continue;
    }
    const size_t vbytes = value_size(spec.type);
    const bool delta_encoded = spec.encoding == Encoding::DeltaBinaryPacked;
    if (delta_encoded && spec.type != PhysicalType::Int64) throw std::invalid_argument("parquet: delta encoding is for INT64 columns");
    if (spec.scale != 1 && spec.type != PhysicalType::Int64) throw std::invalid_argument("parquet: scale is for INT64 columns");
    Stats stats(spec);

    const size_t limit = std::min(kDictionaryLimit, std::max<size_t>(1, rows / 2));
    if (options.dictionary && spec.encoding == Encoding::Plain && rows > 0 &&
        dictionary.build(input.columns[c], rows, vbytes, static_cast<uint64_t>(spec.scale), limit)) {
      // The dictionary page, then the indices of each page's rows.
      meta.dictionary_page_offset = static_cast<int64_t>(staging.size());
      pages.write(PageSink::Kind::Dictionary, checked_i32(dictionary.size(), "dictionary"), Encoding::Plain, dictionary.values(),
                  dictionary.values_bytes(), meta);
      if (options.statistics) stats.add(dictionary.values(), dictionary.size());
      meta.data_page_offset = static_cast<int64_t>(staging.size());
      const int width = dictionary.bit_width();
      const bool constant = dictionary.constant();
      for (size_t from = 0; from < rows; from += options.page_rows) {
        const size_t n = std::min(options.page_rows, rows - from);
        delta.clear();
        encode_dictionary_indices(constant ? nullptr : dictionary.indices() + from, n, width, constant, delta);
        pages.write(PageSink::Kind::Data, checked_i32(n, "page"), Encoding::RleDictionary, delta.data(), delta.size(), meta);
      }
      if (options.statistics) stats.store(meta);
      continue;
    }

    meta.data_page_offset = static_cast<int64_t>(staging.size());
    SegmentReader reader(input.columns[c], vbytes);
    for (size_t from = 0; from < rows; from += options.page_rows) {
      const size_t n = std::min(options.page_rows, rows - from);
      plain.resize(n * vbytes);
      reader.read(n, plain.data());
      if (spec.type == PhysicalType::Int64 && spec.scale != 1) {
        auto* v = reinterpret_cast<int64_t*>(plain.data());
        const auto scale = static_cast<uint64_t>(spec.scale);
        for (size_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>(static_cast<uint64_t>(v[i]) * scale);
      }
      if (options.statistics) stats.add(plain.data(), n);
      const std::vector<uint8_t>* body = &plain;
      if (delta_encoded) {
        delta.clear();
        delta_binary_packed_encode(reinterpret_cast<const int64_t*>(plain.data()), n, delta);
        body = &delta;
      } else if (spec.encoding == Encoding::ByteStreamSplit) {
        delta.resize(plain.size());
        byte_stream_split(plain.data(), n, vbytes, delta.data());
        body = &delta;
      }
      pages.write(PageSink::Kind::Data, checked_i32(n, "page"), spec.encoding, body->data(), body->size(), meta);
    }
    if (options.statistics) stats.store(meta);
  }
  result.bytes.assign(staging.begin(), staging.end());  // exact size: the staging capacity stays here
  result.meta.byte_size = static_cast<int64_t>(result.bytes.size());
  // Keep the thread's scratch from growing without bound after one huge row group.
  constexpr size_t kKeep = size_t{64} << 20;
  for (auto* b : {&plain, &delta, &staging}) {
    if (b->capacity() > kKeep) std::vector<uint8_t>().swap(*b);
  }
  return result;
}

namespace {

void write_schema_element(CompactWriter& w, const ColumnSpec& spec) {
  w.begin_struct_element();
  w.field_i32(1, static_cast<int32_t>(spec.type));
  w.field_i32(3, 0);  // repetition_type: REQUIRED
  w.field_string(4, spec.name);
  switch (spec.logical) {
    case LogicalType::None:
      break;
    case LogicalType::TimestampMillisUtc:
      w.field_i32(6, 9);  // converted_type: TIMESTAMP_MILLIS
      w.begin_struct_field(10);  // logicalType
      w.begin_struct_field(8);   // TIMESTAMP
      w.field_bool(1, true);     // isAdjustedToUTC
      w.begin_struct_field(2);   // unit
      w.begin_struct_field(1);   // MILLIS
      w.end_struct();
      w.end_struct();
      w.end_struct();
      w.end_struct();
      break;
    case LogicalType::String:
      w.field_i32(6, 0);         // converted_type: UTF8
      w.begin_struct_field(10);  // logicalType
      w.begin_struct_field(1);   // STRING
      w.end_struct();
      w.end_struct();
      break;
    case LogicalType::Uint32:
    case LogicalType::Uint64: {
      const bool wide = spec.logical == LogicalType::Uint64;
      w.field_i32(6, wide ? 14 : 13);  // converted_type: UINT_64 / UINT_32
      w.begin_struct_field(10);
      w.begin_struct_field(10);  // INTEGER
      w.field_i8(1, wide ? 64 : 32);
      w.field_bool(2, false);  // isSigned
      w.end_struct();
      w.end_struct();
      break;
    }
  }
  w.end_struct();
}

}  // namespace

void check_key_value_metadata(const KeyValueMetadata& metadata) {
  if (metadata.size() > kMaxKeyValuePairs)
    throw std::invalid_argument("parquet: " + std::to_string(metadata.size()) + " key-value pairs, at most " + std::to_string(kMaxKeyValuePairs));
  for (const auto& [key, value] : metadata) {
    if (key.size() > kMaxKeyValueBytes || value.size() > kMaxKeyValueBytes)
      throw std::invalid_argument("parquet: a key or value of key-value metadata longer than " + std::to_string(kMaxKeyValueBytes) + " bytes");
  }
}

std::vector<uint8_t> encode_file_metadata(const Schema& schema, const WriterOptions& options,
                                          const std::vector<RowGroupMeta>& row_groups, int64_t first_offset,
                                          const std::string& created_by, const KeyValueMetadata& metadata) {
  check_key_value_metadata(metadata);
  std::vector<uint8_t> out;
  CompactWriter w(out);
  w.field_i32(1, 2);  // version
  w.begin_list_field(2, CType::Struct, schema.size() + 1);
  w.begin_struct_element();  // the root
  w.field_string(4, "schema");
  w.field_i32(5, static_cast<int32_t>(schema.size()));
  w.end_struct();
  for (const ColumnSpec& spec : schema) write_schema_element(w, spec);
  int64_t total_rows = 0;
  for (const RowGroupMeta& g : row_groups) total_rows += g.num_rows;
  w.field_i64(3, total_rows);
  w.begin_list_field(4, CType::Struct, row_groups.size());
  int64_t offset = first_offset;
  for (size_t g = 0; g < row_groups.size(); ++g) {
    const RowGroupMeta& group = row_groups[g];
    if (group.columns.size() != schema.size()) throw std::invalid_argument("parquet: row group of another schema");
    w.begin_struct_element();
    w.begin_list_field(1, CType::Struct, schema.size());
    int64_t uncompressed = 0, compressed = 0;
    for (size_t c = 0; c < schema.size(); ++c) {
      const ColumnSpec& spec = schema[c];
      const ColumnChunkMeta& m = group.columns[c];
      uncompressed += m.total_uncompressed_size;
      compressed += m.total_compressed_size;
      w.begin_struct_element();         // ColumnChunk
      w.field_i64(2, 0);                // file_offset (deprecated: 0 when no metadata outside the footer)
      w.begin_struct_field(3);          // meta_data
      w.field_i32(1, static_cast<int32_t>(spec.type));
      if (m.dictionary_page_offset >= 0) {
        // As pyarrow lists them: the dictionary page PLAIN, the indices' RLE hybrid, the data pages.
        w.begin_list_field(2, CType::I32, 3);
        w.i32(static_cast<int32_t>(Encoding::Plain));
        w.i32(static_cast<int32_t>(Encoding::Rle));
        w.i32(static_cast<int32_t>(Encoding::RleDictionary));
      } else {
        w.begin_list_field(2, CType::I32, 1);
        w.i32(static_cast<int32_t>(spec.encoding));
      }
      w.begin_list_field(3, CType::Binary, 1);
      w.string(spec.name);
      w.field_i32(4, static_cast<int32_t>(options.codec));
      w.field_i64(5, m.num_values);
      w.field_i64(6, m.total_uncompressed_size);
      w.field_i64(7, m.total_compressed_size);
      w.field_i64(9, offset + m.data_page_offset);
      if (m.dictionary_page_offset >= 0) w.field_i64(11, offset + m.dictionary_page_offset);
      if (m.min && m.max) {
        w.begin_struct_field(12);  // statistics
        w.field_i64(3, 0);         // null_count
        w.field_binary(5, m.max->data(), m.max->size());  // max_value
        w.field_binary(6, m.min->data(), m.min->size());  // min_value
        w.end_struct();
      }
      w.end_struct();
      w.end_struct();
    }
    w.field_i64(2, uncompressed);  // total_byte_size
    w.field_i64(3, group.num_rows);
    // file_offset: the group's first page (its first column's dictionary page when it has one).
    const int64_t first_page = group.columns.empty() ? 0
                               : group.columns[0].dictionary_page_offset >= 0 ? group.columns[0].dictionary_page_offset
                                                                               : group.columns[0].data_page_offset;
    w.field_i64(5, offset + first_page);
    w.field_i64(6, compressed);    // total_compressed_size
    if (g <= static_cast<size_t>(std::numeric_limits<int16_t>::max())) w.field_i16(7, static_cast<int16_t>(g));
    w.end_struct();
    offset += group.byte_size;
  }
  if (!metadata.empty()) {
    w.begin_list_field(5, CType::Struct, metadata.size());  // key_value_metadata
    for (const auto& [key, value] : metadata) {
      w.begin_struct_element();  // KeyValue
      w.field_string(1, key);
      w.field_string(2, value);
      w.end_struct();
    }
  }
  w.field_string(6, created_by);
  if (options.statistics) {
    w.begin_list_field(7, CType::Struct, schema.size());  // column_orders: TYPE_ORDER for every column
    for (size_t c = 0; c < schema.size(); ++c) {
      w.begin_struct_element();
      w.begin_struct_field(1);
      w.end_struct();
      w.end_struct();
    }
  }
  w.end_message();
  return out;
}

std::vector<uint8_t> encode_footer(const Schema& schema, const WriterOptions& options,
                                   const std::vector<RowGroupMeta>& row_groups, const std::string& created_by,
                                   const KeyValueMetadata& metadata) {
  std::vector<uint8_t> out = encode_file_metadata(schema, options, row_groups, sizeof(kMagic), created_by, metadata);
  const auto length = static_cast<uint32_t>(out.size());
  for (int b = 0; b < 4; ++b) out.push_back(static_cast<uint8_t>(length >> (8 * b)));
  out.insert(out.end(), kMagic, kMagic + sizeof(kMagic));
  return out;
}

}  // namespace tradeapi::parquet
