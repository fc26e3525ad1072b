// Page compression codecs: none, ZSTD (libzstd) and LZ4_RAW (liblz4's raw block format).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace tradeapi::parquet {

// Values are parquet.thrift's CompressionCodec.
enum class Codec : int32_t { Uncompressed = 0, Zstd = 6, Lz4Raw = 7 };

std::optional<Codec> codec_from_name(std::string_view name);  // "none" | "zstd" | "lz4"
const char* codec_name(Codec codec);

// Default level when none is given (zstd: measured, see parquet-native.ts; lz4: acceleration 1).
int default_level(Codec codec);
// Throws std::invalid_argument for a level the codec does not accept.
void check_level(Codec codec, int level);

// The most bytes compress_into may write for n input bytes.
size_t compress_bound(Codec codec, size_t n);
// Compresses src[0, n) into dst (at least compress_bound(codec, n) bytes); returns the size written.
// The destination is not touched beyond what is written (no zero-fill of the bound, which for
// incompressible pages would cost as much as a copy).
size_t compress_into(Codec codec, int level, const uint8_t* src, size_t n, uint8_t* dst, size_t capacity);

// Appends the compressed form of src[0, n) to `out`; returns the number of bytes appended.
// ZSTD keeps one compression context per thread. Throws std::runtime_error on failure.
size_t compress_append(Codec codec, int level, const uint8_t* src, size_t n, std::vector<uint8_t>& out);

}  // namespace tradeapi::parquet
