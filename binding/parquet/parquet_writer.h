// A small Parquet writer for flat tables of INT32 / INT64 / DOUBLE columns, all REQUIRED (no nulls,
// so pages carry no definition or repetition levels), built for streaming and parallel encoding:
//
//   encode_row_group()  one row group -> its bytes (column chunks of data pages V1) and metadata,
//                       with offsets relative to the row group's first byte. Pure function of its
//                       inputs: several row groups may be encoded at once on different threads.
//   encode_footer()     the row groups' metadata, in the order their bytes were written after the
//                       4-byte "PAR1" magic, and the caller's key-value metadata (key_value.h)
//                       -> FileMetaData (Thrift compact) + length + "PAR1".
//
// So a file is "PAR1" + row group bytes in order + footer. Encodings: PLAIN, DELTA_BINARY_PACKED
// for int64 columns marked so (sorted times), BYTE_STREAM_SPLIT for columns marked so (doubles:
// the k-th bytes of all values together), and, for the PLAIN columns when `dictionary` is on and
// the chunk has few distinct values, RLE_DICTIONARY (a dictionary page, then data pages of
// bit-packed indices: dictionary.h). Column chunk statistics (min/max, null_count 0) are written
// with type-defined column orders; every page header carries the page's CRC-32 (page_crc).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compression.h"
#include "key_value.h"

namespace tradeapi::parquet {

// parquet.thrift Type.
enum class PhysicalType : int32_t { Int32 = 1, Int64 = 2, Double = 5, ByteArray = 6 };
// parquet.thrift Encoding.
enum class Encoding : int32_t { Plain = 0, PlainDictionary = 2, Rle = 3, DeltaBinaryPacked = 5, RleDictionary = 8, ByteStreamSplit = 9 };

// The logical types this writer knows (each also written as the matching converted type).
enum class LogicalType {
  None,
  TimestampMillisUtc,  // INT64: TIMESTAMP(isAdjustedToUTC=true, MILLIS) / TIMESTAMP_MILLIS
  Uint32,              // INT32: INTEGER(32, unsigned) / UINT_32
  Uint64,              // INT64: INTEGER(64, unsigned) / UINT_64
  String,              // BYTE_ARRAY: STRING / UTF8
};

struct ColumnSpec {
  std::string name;
  PhysicalType type;
  LogicalType logical = LogicalType::None;
  Encoding encoding = Encoding::Plain;
  // INT64 only: stored value = input value * scale (wrapping), e.g. 1000 for seconds -> ms.
  int64_t scale = 1;
  // BYTE_ARRAY only: the column's fixed dictionary (UTF-8 strings); its input is one uint16 index
  // into it per row, and every row group writes it as the dictionary page of RLE_DICTIONARY pages
  // (the symbol column of a multi-symbol series: a few names, each row an index).
  std::vector<std::string> dictionary = {};
};

using Schema = std::vector<ColumnSpec>;

// ticks: time (s -> ms timestamp), bid, ask, last, volume (uint64), time_msc (ms timestamp),
// flags (uint32), volume_real; the numpy dtype's order. Time columns delta-encoded.
Schema tick_schema();
// rates: time (s -> ms timestamp), open, high, low, close, tick_volume (uint64), spread (int32),
// real_volume (uint64).
Schema rate_schema();
// A STRING column of names given once (`dictionary`), each row a uint16 index into them.
ColumnSpec dictionary_string_column(std::string name, std::vector<std::string> dictionary);
// The schema with every DOUBLE column BYTE_STREAM_SPLIT-encoded.
Schema with_byte_stream_split(Schema schema);

// BYTE_STREAM_SPLIT of n values of `width` bytes: byte k of value i goes to out[k * n + i].
void byte_stream_split(const uint8_t* values, size_t n, size_t width, uint8_t* out);

// A contiguous run of one column's input values: 4-byte elements for INT32 columns, 8-byte ones
// for INT64 and DOUBLE columns, 2-byte dictionary indices for BYTE_ARRAY ones.
struct Segment {
  const void* data;
  size_t rows;
};

// One row group's input: for each schema column, its segments in row order (same total per column).
struct RowGroupInput {
  std::vector<std::vector<Segment>> columns;
};

struct WriterOptions {
  Codec codec = Codec::Zstd;
  int level = 1;
  // Values per data page at most (the last page of a chunk may be shorter).
  size_t page_rows = 131072;
  bool statistics = true;
  // RLE_DICTIONARY for PLAIN columns whose chunk has at most kDictionaryLimit distinct values (and
  // at most half as many as rows). Measured on simulated EURUSD ticks (zstd 1, 128 K-row groups):
  // 3.7 instead of 3.9 bytes a row, and the row group encodes in ~25 instead of ~45-100 ns a row
  // (zstd sees ~10 bits per price instead of 64; Dictionary.PerfSimulatedTicks prints it).
  bool dictionary = true;
  // PageHeader.crc on every page (data and dictionary pages): CRC-32 of the page's bytes after its
  // header (crc32.h), which readers may check (the native reader does, pyarrow on request). Costs
  // ~0.3 ns a row of a zstd tick file (the CRC reads the compressed bytes only).
  bool page_crc = true;
};

inline constexpr size_t kDictionaryLimit = 65536;

struct ColumnChunkMeta {
  int64_t dictionary_page_offset = -1; // relative to the row group's first byte; -1: no dictionary
  int64_t data_page_offset = 0;        // relative to the row group's first byte
  int64_t total_compressed_size = 0;   // page headers included
  int64_t total_uncompressed_size = 0; // page headers included
  int64_t num_values = 0;
  std::optional<std::string> min, max; // PLAIN-encoded bytes of the statistics
};

struct RowGroupMeta {
  int64_t num_rows = 0;
  int64_t byte_size = 0;  // bytes of the row group in the file
  std::vector<ColumnChunkMeta> columns;
};

struct EncodedRowGroup {
  std::vector<uint8_t> bytes;
  RowGroupMeta meta;
};

// Throws std::invalid_argument on inconsistent input (column count, row counts, null data).
EncodedRowGroup encode_row_group(const Schema& schema, const WriterOptions& options, const RowGroupInput& input);

inline constexpr char kMagic[4] = {'P', 'A', 'R', '1'};

// The footer for row groups written, in this order, right after the leading magic; `metadata`
// (when not empty) becomes FileMetaData.key_value_metadata, pairs in the order given. Throws
// std::invalid_argument when it exceeds kMaxKeyValuePairs or kMaxKeyValueBytes (key_value.h).
std::vector<uint8_t> encode_footer(const Schema& schema, const WriterOptions& options,
                                   const std::vector<RowGroupMeta>& row_groups, const std::string& created_by,
                                   const KeyValueMetadata& metadata = {});

// The FileMetaData alone (Thrift compact), row groups starting at byte `first_offset`.
std::vector<uint8_t> encode_file_metadata(const Schema& schema, const WriterOptions& options,
                                          const std::vector<RowGroupMeta>& row_groups, int64_t first_offset,
                                          const std::string& created_by, const KeyValueMetadata& metadata = {});

// Throws std::invalid_argument when `metadata` exceeds the bounds of key_value.h.
void check_key_value_metadata(const KeyValueMetadata& metadata);

// A dictionary page header (Thrift compact): `num_values` PLAIN-encoded values; `crc` (the CRC-32
// of the page's bytes after the header) when given.
void encode_dictionary_page_header(std::vector<uint8_t>& out, int32_t num_values, size_t uncompressed_size,
                                   size_t compressed_size, std::optional<uint32_t> crc = std::nullopt);

// A data page header (Thrift compact) for a REQUIRED column's page; `crc` as above.
void encode_data_page_header(std::vector<uint8_t>& out, int32_t num_values, Encoding encoding, size_t uncompressed_size,
                             size_t compressed_size, std::optional<uint32_t> crc = std::nullopt);

}  // namespace tradeapi::parquet
