// FileMetaData.key_value_metadata (parquet.thrift field 5: list<KeyValue{1: required string key,
// 2: optional string value}>): what the writer puts in a file's footer for its caller (the history
// store's partition proof, issue 33) and the reader gives back, in file order. The bounds keep a
// damaged or planted footer from making the reader hold more than a few hundred KiB for it; the
// writer refuses to write what the reader would refuse.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace tradeapi::parquet {

// (key, value) pairs in file order. A KeyValue without a value reads back as an empty value.
using KeyValueMetadata = std::vector<std::pair<std::string, std::string>>;

inline constexpr size_t kMaxKeyValuePairs = 64;
// Bytes of one key, and of one value, at most.
inline constexpr size_t kMaxKeyValueBytes = 4096;

}  // namespace tradeapi::parquet
