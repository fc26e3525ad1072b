// A small Parquet reader for exactly what this project's writer (parquet_writer.h) produces, so the
// local history store can be read back without parquet-wasm (which decoded ~8 M ticks per CPU
// second, the bottleneck of serving from the store):
//
//   flat schema, every column REQUIRED (no definition or repetition levels), types INT32 / INT64 /
//   DOUBLE, data pages V1 (and one dictionary page per chunk), codecs UNCOMPRESSED / ZSTD /
//   LZ4_RAW, encodings PLAIN, DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT, RLE_DICTIONARY (and its old
//   name PLAIN_DICTIONARY).
//
// Anything else throws UnsupportedError, so that the caller can fall back to a general reader.
// The input is a file from disk that may be damaged: every read is bounded by the buffer, no
// allocation exceeds what the file's own sizes allow (plus the fixed caps below), and damage throws
// CorruptError (both are std::runtime_error, with a message that says what and where).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "compression.h"
#include "key_value.h"

namespace tradeapi::parquet {

// The file is not in the subset this reader knows (it may well be valid Parquet).
class UnsupportedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// The file is damaged: it contradicts itself or its bytes end too early.
class CorruptError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// parquet.thrift Type values this reader decodes (others are refused when the schema is read).
enum class ReadType : int32_t { Int32 = 1, Int64 = 2, Double = 5 };

// Bytes per value of a type (4 or 8): the width of a decoded column's elements.
size_t value_width(ReadType type);

// A leaf column of the (flat) schema.
struct ColumnDescriptor {
  std::string name;
  ReadType type = ReadType::Int64;
  std::optional<int32_t> converted_type;  // parquet.thrift ConvertedType (e.g. 9 TIMESTAMP_MILLIS, 14 UINT_64)
  // LogicalType INTEGER's isSigned, or the converted type's (UINT_*); true when neither says.
  bool is_signed = true;
};

struct ColumnChunkInfo {
  int32_t codec = 0;                 // parquet.thrift CompressionCodec
  std::vector<int32_t> encodings;    // as listed in ColumnMetaData
  int64_t num_values = 0;
  int64_t data_page_offset = 0;
  std::optional<int64_t> dictionary_page_offset;
  int64_t total_compressed_size = 0;
  int64_t total_uncompressed_size = 0;
  // Statistics.min_value / max_value (PLAIN bytes), when written.
  std::optional<std::string> min, max;
};

struct RowGroupInfo {
  int64_t num_rows = 0;
  std::vector<ColumnChunkInfo> columns;  // one per schema column, in schema order
};

struct FileInfo {
  std::vector<ColumnDescriptor> columns;
  int64_t num_rows = 0;
  std::vector<RowGroupInfo> row_groups;
  std::string created_by;
  // FileMetaData.key_value_metadata in file order (a KeyValue without a value: an empty value).
  // More than kMaxKeyValuePairs pairs, a key or value longer than kMaxKeyValueBytes or not UTF-8,
  // or a key twice is refused as UnsupportedError (key_value.h); a KeyValue without its key is
  // CorruptError.
  KeyValueMetadata key_value_metadata;

  // Index of the column so named, or -1.
  int find(const std::string& name) const;
  // A column chunk's statistics as an INT64 (or INT32, widened) min/max; nullopt when not written
  // or not 8/4 bytes, or when the column is not an integer column.
  std::optional<std::pair<int64_t, int64_t>> int_range(size_t row_group, size_t column) const;
};

// Row groups larger than this are refused (UnsupportedError): it caps what decoding one row group
// may allocate (RLE runs make a huge row count cost only a few bytes of file). The project's writer
// writes at most 1 M rows per group (MAX_ROW_GROUP_ROWS in src/encode/series-encoder.ts).
inline constexpr int64_t kMaxRowGroupRows = int64_t{1} << 25;
// Largest page (uncompressed) accepted; the writer's pages are ~1 MB (131072 values of 8 bytes).
inline constexpr int64_t kMaxPageBytes = int64_t{1} << 28;

// Parses the footer of the file data[0, size): magic, FileMetaData. Checks that every column is
// one this reader decodes and that each column chunk lies within the file. Throws UnsupportedError
// or CorruptError.
FileInfo read_metadata(const uint8_t* data, size_t size);

// Decodes column `column` of row group `row_group` into out[0, rows * value_width): every value of
// the chunk, in order. A page whose header carries a CRC (PageHeader.crc) is checked against it
// first (CRC-32 of its bytes after the header, crc32.h): a mismatch is CorruptError "page CRC
// mismatch in column X". `out_bytes` must be exactly that size. Throws UnsupportedError (a page type,
// encoding or codec this reader does not know) or CorruptError; `out` is then partly written.
void decode_column(const uint8_t* data, size_t size, const FileInfo& info, size_t row_group, size_t column, void* out,
                   size_t out_bytes);

// The pieces, exposed for the tests.

// Decodes `n` DELTA_BINARY_PACKED values (INT64, or INT32 when `width` is 4) from in[0, size) into
// out (n * width bytes); returns the bytes consumed.
size_t delta_binary_packed_decode(const uint8_t* in, size_t size, size_t n, size_t width, void* out);
// Decodes `n` indices of the RLE / bit-packed hybrid at `bit_width` (0..32) from in[0, size) into
// out, each checked to be < `limit`.
void rle_hybrid_decode(const uint8_t* in, size_t size, int bit_width, size_t n, uint32_t limit, uint32_t* out);

}  // namespace tradeapi::parquet
