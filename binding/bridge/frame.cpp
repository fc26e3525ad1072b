#include "frame.h"

namespace tradeapi::bridge {

bool is_known_type(uint8_t t) {
  switch (t) {
    case 0x01: case 0x02: case 0x03: case 0x10: case 0x11: case 0x12: case 0x20: case 0x21: case 0x22:
    case 0x23: case 0x24: case 0x30: case 0x31:
      return true;
    default:
      return false;
  }
}

const char* frame_type_name(FrameType t) {
  switch (t) {
    case FrameType::Hello: return "HELLO";
    case FrameType::Auth: return "AUTH";
    case FrameType::AuthOk: return "AUTH_OK";
    case FrameType::Request: return "REQUEST";
    case FrameType::Result: return "RESULT";
    case FrameType::Error: return "ERROR";
    case FrameType::SeriesHead: return "SERIES_HEAD";
    case FrameType::SeriesChunk: return "SERIES_CHUNK";
    case FrameType::SeriesEnd: return "SERIES_END";
    case FrameType::SeriesNext: return "SERIES_NEXT";
    case FrameType::SeriesCancel: return "SERIES_CANCEL";
    case FrameType::Ping: return "PING";
    case FrameType::Pong: return "PONG";
  }
  return "?";
}

std::array<uint8_t, kHeaderSize> encode_header(FrameType type, uint32_t request_id, uint32_t length) {
  if (length > kMaxPayload) throw ProtocolError("frame payload over 16 MiB");
  std::array<uint8_t, kHeaderSize> h{};
  h[0] = 'T';
  h[1] = 'B';
  h[2] = kVersion;
  h[3] = static_cast<uint8_t>(type);
  store_u32le(&h[8], request_id);
  store_u32le(&h[12], length);
  return h;
}

FrameHeader decode_header(const uint8_t* b) {
  if (b[0] != 'T' || b[1] != 'B') throw ProtocolError("bad frame magic");
  if (b[2] != kVersion) throw ProtocolError("unsupported frame version " + std::to_string(b[2]));
  if (!is_known_type(b[3])) throw ProtocolError("unknown frame type " + std::to_string(b[3]));
  if (b[4] != 0 || b[5] != 0 || b[6] != 0 || b[7] != 0) throw ProtocolError("non-zero frame flags/reserved");
  uint32_t length = load_u32le(b + 12);
  if (length > kMaxPayload) throw ProtocolError("frame length " + std::to_string(length) + " over 16 MiB");
  return FrameHeader{static_cast<FrameType>(b[3]), load_u32le(b + 8), length};
}

}  // namespace tradeapi::bridge
