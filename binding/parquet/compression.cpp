#include "compression.h"

#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace tradeapi::parquet {

std::optional<Codec> codec_from_name(std::string_view name) {
  if (name == "none") return Codec::Uncompressed;
  if (name == "zstd") return Codec::Zstd;
  if (name == "lz4") return Codec::Lz4Raw;
  return std::nullopt;
}

const char* codec_name(Codec codec) {
  switch (codec) {
    case Codec::Uncompressed: return "none";
    case Codec::Zstd: return "zstd";
    case Codec::Lz4Raw: return "lz4";
  }
  return "?";
}

int default_level(Codec codec) {
  switch (codec) {
    case Codec::Zstd: return 1;
    case Codec::Lz4Raw: return 1;
    case Codec::Uncompressed: return 0;
  }
  return 0;
}

void check_level(Codec codec, int level) {
  switch (codec) {
    case Codec::Zstd:
      if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel() || level == 0)
        throw std::invalid_argument("zstd level must be in " + std::to_string(ZSTD_minCLevel()) + ".." +
                                    std::to_string(ZSTD_maxCLevel()) + " and not 0");
      return;
    case Codec::Lz4Raw:
      if (level < 1 || level > 65537) throw std::invalid_argument("lz4 level (acceleration) must be in 1..65537");
      return;
    case Codec::Uncompressed:
      return;
  }
}

namespace {

struct ZstdContextDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

ZSTD_CCtx* thread_zstd_context() {
  thread_local std::unique_ptr<ZSTD_CCtx, ZstdContextDeleter> context(ZSTD_createCCtx());
  if (!context) throw std::runtime_error("zstd: cannot create a compression context");
  return context.get();
}

}  // namespace

size_t compress_bound(Codec codec, size_t n) {
  switch (codec) {
    case Codec::Uncompressed: return n;
    case Codec::Zstd: return ZSTD_compressBound(n);
    case Codec::Lz4Raw:
      if (n > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) throw std::runtime_error("lz4: page too large");
      return static_cast<size_t>(LZ4_compressBound(static_cast<int>(n)));
  }
  throw std::runtime_error("unknown codec");
}

size_t compress_into(Codec codec, int level, const uint8_t* src, size_t n, uint8_t* dst, size_t capacity) {
  if (capacity < compress_bound(codec, n)) throw std::runtime_error("compression: destination smaller than the bound");
  switch (codec) {
    case Codec::Uncompressed:
      if (n > 0) std::memcpy(dst, src, n);
      return n;
    case Codec::Zstd: {
      const size_t written = ZSTD_compressCCtx(thread_zstd_context(), dst, capacity, src, n, level);
      if (ZSTD_isError(written)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(written));
      return written;
    }
    case Codec::Lz4Raw: {
      const int written = LZ4_compress_fast(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(dst), static_cast<int>(n),
                                            static_cast<int>(capacity > static_cast<size_t>(LZ4_compressBound(static_cast<int>(n)))
                                                                 ? static_cast<size_t>(LZ4_compressBound(static_cast<int>(n)))
                                                                 : capacity),
                                            level);
      if (written <= 0 && n > 0) throw std::runtime_error("lz4: compression failed");
      return static_cast<size_t>(written);
    }
  }
  throw std::runtime_error("unknown codec");
}

size_t compress_append(Codec codec, int level, const uint8_t* src, size_t n, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  out.resize(start + compress_bound(codec, n));
  size_t written = 0;
  try {
    written = compress_into(codec, level, src, n, out.data() + start, out.size() - start);
  } catch (...) {
    out.resize(start);
    throw;
  }
  out.resize(start + written);
  return written;
}

}  // namespace tradeapi::parquet
