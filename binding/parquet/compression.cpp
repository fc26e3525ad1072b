#include "compression.h"

#include <lz4.h>
#include <zstd.h>

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

size_t compress_append(Codec codec, int level, const uint8_t* src, size_t n, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  switch (codec) {
    case Codec::Uncompressed:
      out.insert(out.end(), src, src + n);
      return n;
    case Codec::Zstd: {
      out.resize(start + ZSTD_compressBound(n));
      const size_t written = ZSTD_compressCCtx(thread_zstd_context(), out.data() + start, out.size() - start, src, n, level);
      if (ZSTD_isError(written)) {
        out.resize(start);
        throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(written));
      }
      out.resize(start + written);
      return written;
    }
    case Codec::Lz4Raw: {
      if (n > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) throw std::runtime_error("lz4: page too large");
      const int bound = LZ4_compressBound(static_cast<int>(n));
      out.resize(start + static_cast<size_t>(bound));
      const int written = LZ4_compress_fast(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(out.data() + start),
                                            static_cast<int>(n), bound, level);
      if (written <= 0 && n > 0) {
        out.resize(start);
        throw std::runtime_error("lz4: compression failed");
      }
      out.resize(start + static_cast<size_t>(written));
      return static_cast<size_t>(written);
    }
  }
  throw std::runtime_error("unknown codec");
}

}  // namespace tradeapi::parquet
