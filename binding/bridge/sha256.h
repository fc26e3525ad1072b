// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), self-contained: the bridge handshake's proofs
// (docs/bridge-protocol.md §4). Not constant-time beyond what the handshake needs (the client
// only compares the bridge's proof, with equal_constant_time).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tradeapi::bridge {

using Digest = std::array<uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t n);
  void update(std::string_view s) { update(s.data(), s.size()); }
  Digest finish();

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

Digest sha256(std::string_view data);
Digest hmac_sha256(std::string_view key, std::string_view message);

std::string to_hex(const void* data, size_t n);
inline std::string to_hex(const Digest& d) { return to_hex(d.data(), d.size()); }
// Lower- or upper-case hex to bytes; false on odd length or a non-hex character.
bool from_hex(std::string_view hex, std::string& out);
bool equal_constant_time(std::string_view a, std::string_view b);

}  // namespace tradeapi::bridge
