// A blocking TCP client socket, POSIX or Winsock (the Winsock paths are built by the mingw-w64
// cross build, scripts/build-win.sh). Failures throw SocketError; a read or write that outlasts the
// I/O timeout throws SocketTimeout.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tradeapi::bridge {

class SocketError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class SocketTimeout : public SocketError {
 public:
  using SocketError::SocketError;
};

class Socket {
 public:
#ifdef _WIN32
  using Handle = uintptr_t;  // SOCKET
#else
  using Handle = int;
#endif
  Socket() = default;
  ~Socket() { close(); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  Socket(Socket&& o) noexcept : fd_(o.fd_) { o.fd_ = kInvalid; }
  Socket& operator=(Socket&& o) noexcept;

  // Resolves host, connects within connect_timeout_ms, then sets TCP_NODELAY, SO_KEEPALIVE and
  // the read/write timeout io_timeout_ms (0 = none).
  static Socket connect(const std::string& host, uint16_t port, int connect_timeout_ms, int io_timeout_ms);

  bool is_open() const { return fd_ != kInvalid; }
  Handle handle() const { return fd_; }
  // Shuts a socket down in both directions from any thread: a recv()/send() blocked on it returns
  // at once (the handle stays open; its owner closes it).
  static void shutdown_handle(Handle h);
  void set_io_timeout(int ms);
  void send_all(const void* data, size_t n);
  // Reads exactly n bytes. Returns false on EOF before the first byte (only when allow_eof);
  // EOF inside the n bytes throws SocketError.
  bool recv_exact(void* data, size_t n, bool allow_eof = false);
  // The same within a deadline for all n bytes, however they are spread: a peer that sends a byte
  // now and then cannot hold the caller beyond it (each recv() waits only for what is left).
  using Deadline = std::chrono::steady_clock::time_point;
  bool recv_exact(void* data, size_t n, bool allow_eof, Deadline deadline);
  void close();
  // Whether a recv() would return at once (bytes, EOF or an error waiting): never blocks.
  bool readable_now() const;

 private:
#ifdef _WIN32
  static constexpr Handle kInvalid = ~Handle{0};
#else
  static constexpr Handle kInvalid = -1;
#endif
  explicit Socket(Handle fd) : fd_(fd) {}
  Handle fd_ = kInvalid;
};

}  // namespace tradeapi::bridge
