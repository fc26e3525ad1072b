#include "row_hash.h"

#include <cstring>
#include <new>
#include <stdexcept>

// xxHash 0.8.x from deps/xxhash (deps/README.md), header-only: XXH_INLINE_ALL makes every function
// static (internal linkage, renamed XXH_INLINE_*), so nothing here can bind to or clash with the
// older copies inside zstd (XXH64 only, XXH_NO_XXH3) and lz4 (0.6), whose headers share the name
// xxhash.h: the path names ours. Not our code: our warning flags stay off for it.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#define XXH_INLINE_ALL
#include "xxhash/xxhash.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static_assert(XXH_VERSION_NUMBER >= 800, "deps/xxhash must be xxHash 0.8 or later (XXH3-128)");

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "row_hash.cpp packs native values as the canonical little-endian form"
#endif

namespace tradeapi::encode {

namespace {

// Rows packed per XXH3 update: a 64 KiB buffer, whole rows.
constexpr size_t kBatchRows = 65536 / kCanonicalRowBytes;

// Byte offset of each field in a canonical row, and its width (same for ticks and rates: six 8-byte
// fields, one 4-byte field, one 8-byte field).
constexpr size_t kWidth[8] = {8, 8, 8, 8, 8, 8, 4, 8};
constexpr size_t kOffset[8] = {0, 8, 16, 24, 32, 40, 48, 52};
static_assert(kOffset[7] + kWidth[7] == kCanonicalRowBytes, "60-byte rows");

}  // namespace

void pack_canonical_rows(const SeriesColumns& columns, size_t from, size_t to, uint8_t* out) {
  const uint8_t* f[8];
  for (size_t c = 0; c < 8; ++c) f[c] = static_cast<const uint8_t*>(columns.field[c]) + from * kWidth[c];
  const size_t n = to - from;
  for (size_t i = 0; i < n; ++i) {
    uint8_t* row = out + i * kCanonicalRowBytes;
    // Fixed-size copies: one load and one store each once compiled.
    std::memcpy(row + kOffset[0], f[0] + i * 8, 8);
    std::memcpy(row + kOffset[1], f[1] + i * 8, 8);
    std::memcpy(row + kOffset[2], f[2] + i * 8, 8);
    std::memcpy(row + kOffset[3], f[3] + i * 8, 8);
    std::memcpy(row + kOffset[4], f[4] + i * 8, 8);
    std::memcpy(row + kOffset[5], f[5] + i * 8, 8);
    std::memcpy(row + kOffset[6], f[6] + i * 4, 4);
    std::memcpy(row + kOffset[7], f[7] + i * 8, 8);
  }
}

struct RowHasher::State {
  XXH3_state_t xxh;  // 64-byte aligned (aligned new)
  alignas(64) uint8_t batch[kBatchRows * kCanonicalRowBytes];
};

RowHasher::RowHasher(SeriesKind kind) : kind_(kind), state_(new State) {
  XXH3_INITSTATE(&state_->xxh);
  if (XXH3_128bits_reset(&state_->xxh) != XXH_OK) throw std::runtime_error("row hash: XXH3 reset failed");
}

RowHasher::~RowHasher() = default;

void RowHasher::update(const SeriesColumns& columns, size_t from, size_t to) {
  if (from > to) throw std::invalid_argument("row hash: from > to");
  for (size_t at = from; at < to;) {
    const size_t n = to - at < kBatchRows ? to - at : kBatchRows;
    pack_canonical_rows(columns, at, at + n, state_->batch);
    XXH3_128bits_update(&state_->xxh, state_->batch, n * kCanonicalRowBytes);
    at += n;
  }
  rows_ += to - from;
}

void RowHasher::update_canonical(const void* data, size_t size) {
  if (size % kCanonicalRowBytes != 0) throw std::invalid_argument("row hash: canonical bytes must be whole 60-byte rows");
  if (size == 0) return;
  XXH3_128bits_update(&state_->xxh, data, size);
  rows_ += size / kCanonicalRowBytes;
}

std::array<uint8_t, 16> RowHasher::digest() const {
  const XXH128_hash_t h = XXH3_128bits_digest(&state_->xxh);
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, h);
  std::array<uint8_t, 16> out;
  std::memcpy(out.data(), canonical.digest, 16);
  return out;
}

std::string RowHasher::hex_digest() const { return to_hex(digest()); }

std::string to_hex(const std::array<uint8_t, 16>& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(32, '0');
  for (size_t i = 0; i < 16; ++i) {
    s[2 * i] = kDigits[bytes[i] >> 4];
    s[2 * i + 1] = kDigits[bytes[i] & 0x0F];
  }
  return s;
}

std::string xxh3_128_hex(const void* data, size_t size) {
  const XXH128_hash_t h = XXH3_128bits(data, size);
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, h);
  std::array<uint8_t, 16> out;
  std::memcpy(out.data(), canonical.digest, 16);
  return to_hex(out);
}

}  // namespace tradeapi::encode
