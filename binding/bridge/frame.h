// Frames of the bridge protocol (docs/bridge-protocol.md §2, §3): a 16-byte little-endian header,
// then `length` payload bytes (at most 16 MiB). Header checks happen before any payload is read.
#pragma once
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tradeapi::bridge {

constexpr size_t kHeaderSize = 16;
constexpr uint32_t kMaxPayload = 16u * 1024 * 1024;
// The frame format (the header's version byte): unchanged since protocol 1, so that a gateway
// of any protocol reads any bridge's HELLO and names the versions (§4).
constexpr uint8_t kVersion = 1;
// The protocol this client speaks (HELLO/AUTH `protocol`); it still speaks kLegacyProtocol to an
// older bridge (series as rows, uncompressed).
constexpr int kProtocolVersion = 2;
constexpr int kLegacyProtocol = 1;
// Before AUTH_OK the peer has proved nothing: HELLO, AUTH_OK and a handshake ERROR are a few
// hundred bytes, so a larger frame is refused from its header (nothing reserved, nothing awaited).
constexpr uint32_t kMaxHandshakePayload = 4096;
// JSON payloads nest a few levels (a record inside RESULT's value, a dtype's fields); a deeper
// one is refused while parsing, before it is built: 16 MiB of "[[[[" would otherwise cost ~600 MB.
constexpr int kMaxJsonDepth = 32;

enum class FrameType : uint8_t {
  Hello = 0x01,
  Auth = 0x02,
  AuthOk = 0x03,
  Request = 0x10,
  Result = 0x11,
  Error = 0x12,
  SeriesHead = 0x20,
  SeriesChunk = 0x21,
  SeriesEnd = 0x22,
  SeriesNext = 0x23,
  SeriesCancel = 0x24,
  Ping = 0x30,
  Pong = 0x31,
};

bool is_known_type(uint8_t t);
const char* frame_type_name(FrameType t);

// A violation of the protocol by the peer: the connection is closed (§2).
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FrameHeader {
  FrameType type;
  uint32_t request_id;
  uint32_t length;
};

std::array<uint8_t, kHeaderSize> encode_header(FrameType type, uint32_t request_id, uint32_t length);
// Throws ProtocolError on wrong magic, version, unknown type, non-zero flags/reserved or an
// oversized length.
FrameHeader decode_header(const uint8_t* bytes);

inline uint32_t load_u32le(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}
inline void store_u32le(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace tradeapi::bridge
