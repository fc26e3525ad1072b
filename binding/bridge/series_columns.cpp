#include "series_columns.h"

#include <zstd.h>

namespace tradeapi::bridge {

struct ZstdDecoder::Impl {
  ZSTD_DCtx* ctx = nullptr;
};

ZstdDecoder::ZstdDecoder() : impl_(std::make_unique<Impl>()) {}
ZstdDecoder::~ZstdDecoder() {
  if (impl_->ctx) ZSTD_freeDCtx(impl_->ctx);
}

void ZstdDecoder::decompress(const uint8_t* src, size_t n, size_t length, std::string& out) {
  if (!impl_->ctx) impl_->ctx = ZSTD_createDCtx();
  if (!impl_->ctx) throw std::bad_alloc();
  out.resize(length);
  // Into exactly `length` bytes: a frame that holds more fails (dstSize_tooSmall) before it costs
  // more memory, one that holds less is caught below.
  size_t got = ZSTD_decompressDCtx(impl_->ctx, out.data(), length, src, n);
  if (ZSTD_isError(got)) throw ProtocolError(std::string("SERIES_CHUNK zstd body: ") + ZSTD_getErrorName(got));
  if (got != length)
    throw ProtocolError("SERIES_CHUNK zstd body holds " + std::to_string(got) + " bytes, its head says " +
                        std::to_string(length));
}

namespace {

size_t block_rows_bytes(uint8_t width, size_t rows) { return rows > 0 ? (rows - 1) * width : 0; }

}  // namespace

void ColumnChunk::reset(const RowLayout& layout, std::string payload, ZstdDecoder& zstd) {
  rows_ = pos_ = body_length_ = 0;
  blocks_.clear();
  payload_ = std::move(payload);
  body_.clear();
  const auto* p = reinterpret_cast<const uint8_t*>(payload_.data());
  if (payload_.size() < kChunkHeadSize) throw ProtocolError("SERIES_CHUNK shorter than its 12-byte head");
  const size_t rows = load_u32le(p);
  const uint8_t codec = p[4];
  const size_t length = load_u32le(p + 8);
  if (p[5] != 0 || p[6] != 0 || p[7] != 0) throw ProtocolError("SERIES_CHUNK head's reserved bytes are not zero");
  if (rows == 0) throw ProtocolError("SERIES_CHUNK of 0 rows");
  // A chunk stands for at most a frame's worth of the package's rows, and its body is never much
  // more than those rows: both bound what one chunk may cost here, whatever a head claims.
  if (rows > kMaxPayload / layout.itemsize)
    throw ProtocolError("SERIES_CHUNK of " + std::to_string(rows) + " rows: more than 16 MiB of rows");
  if (length > rows * layout.itemsize + layout.fields.size() * kMaxBlockOverhead)
    throw ProtocolError("SERIES_CHUNK body of " + std::to_string(length) + " bytes for " + std::to_string(rows) +
                        " rows");
  const uint8_t* body;
  if (codec == static_cast<uint8_t>(ChunkCodec::None)) {
    if (payload_.size() - kChunkHeadSize != length)
      throw ProtocolError("SERIES_CHUNK body of " + std::to_string(payload_.size() - kChunkHeadSize) +
                          " bytes, its head says " + std::to_string(length));
    body = p + kChunkHeadSize;
  } else if (codec == static_cast<uint8_t>(ChunkCodec::Zstd)) {
    zstd.decompress(p + kChunkHeadSize, payload_.size() - kChunkHeadSize, length, body_);
    body = reinterpret_cast<const uint8_t*>(body_.data());
  } else {
    throw ProtocolError("SERIES_CHUNK codec " + std::to_string(codec) + " is not none (0) or zstd (1)");
  }

  size_t at = 0;
  auto need = [&](size_t n, const std::string& what) {
    if (n > length - at) throw ProtocolError("SERIES_CHUNK " + what + " runs past the body");
  };
  bool seconds = false, have_msc = false;
  blocks_.resize(layout.fields.size());
  for (size_t i = 0; i < layout.fields.size(); ++i) {
    const RowField& f = layout.fields[i];
    ColumnBlock& b = blocks_[i];
    b.type = f.type;
    need(1, "block of " + f.name);
    const uint8_t enc = body[at++];
    switch (enc) {
      case static_cast<uint8_t>(BlockEncoding::Raw): {
        b.encoding = BlockEncoding::Raw;
        const size_t n = rows * dtype_size(f.type);
        need(n, "RAW block of " + f.name);
        b.data = body + at;
        at += n;
        break;
      }
      case static_cast<uint8_t>(BlockEncoding::Delta):
      case static_cast<uint8_t>(BlockEncoding::Scaled): {
        const bool scaled = enc == static_cast<uint8_t>(BlockEncoding::Scaled);
        b.encoding = scaled ? BlockEncoding::Scaled : BlockEncoding::Delta;
        if (scaled && f.type != DType::F8) throw ProtocolError("SERIES_CHUNK SCALED block for the non-float64 field " + f.name);
        if (!scaled && f.type == DType::F8) throw ProtocolError("SERIES_CHUNK DELTA block for the float64 field " + f.name);
        if (scaled) {
          need(9, "SCALED block of " + f.name);
          const uint8_t op = body[at];
          if (op > 1) throw ProtocolError("SERIES_CHUNK SCALED op " + std::to_string(op) + " of " + f.name);
          b.divide = op == 0;
          std::memcpy(&b.scale, body + at + 1, 8);
          at += 9;
        }
        need(9, "block of " + f.name);
        b.width = body[at];
        if (b.width != 0 && b.width != 1 && b.width != 2 && b.width != 4 && b.width != 8)
          throw ProtocolError("SERIES_CHUNK delta width " + std::to_string(b.width) + " of " + f.name);
        std::memcpy(&b.value, body + at + 1, 8);
        at += 9;
        const size_t n = block_rows_bytes(b.width, rows);
        need(n, "deltas of " + f.name);
        b.data = body + at;
        at += n;
        break;
      }
      case static_cast<uint8_t>(BlockEncoding::Seconds):
        if (f.name != "time" || f.type != DType::I8) throw ProtocolError("SERIES_CHUNK SECONDS block for " + f.name);
        b.encoding = BlockEncoding::Seconds;
        seconds = true;
        break;
      default:
        throw ProtocolError("SERIES_CHUNK encoding " + std::to_string(enc) + " of " + f.name);
    }
    if (f.name == "time_msc" && f.type == DType::I8) have_msc = true;
  }
  if (at != length) throw ProtocolError("SERIES_CHUNK body has " + std::to_string(length - at) + " bytes past its blocks");
  if (seconds && !have_msc) throw ProtocolError("SERIES_CHUNK SECONDS block without an int64 time_msc");
  rows_ = rows;
  body_length_ = length;
}

}  // namespace tradeapi::bridge
