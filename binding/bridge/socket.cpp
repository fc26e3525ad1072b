#include "socket.h"

#include <algorithm>
#include <cstring>
#include <string>

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <winsock2.h>
#include <ws2tcpip.h>
// ws2_32 is linked by CMakeLists.txt (MSVC and mingw alike).
#else
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#endif

namespace tradeapi::bridge {
namespace {

#ifdef _WIN32
struct WsaInit {
  WsaInit() {
    WSADATA data;
    WSAStartup(MAKEWORD(2, 2), &data);
  }
};
void ensure_wsa() { static WsaInit once; }
int last_error() { return WSAGetLastError(); }
bool is_timeout(int e) { return e == WSAETIMEDOUT || e == WSAEWOULDBLOCK; }
std::string error_text(int e) {
  char text[256] = {};
  DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr, static_cast<DWORD>(e),
                           0, text, sizeof text, nullptr);
  while (n > 0 && (text[n - 1] == '\r' || text[n - 1] == '\n' || text[n - 1] == '.')) text[--n] = '\0';
  return n > 0 ? std::string(text, n) + " (winsock error " + std::to_string(e) + ")"
               : "winsock error " + std::to_string(e);
}
void close_handle(Socket::Handle h) { closesocket(static_cast<SOCKET>(h)); }
#else
void ensure_wsa() {}
int last_error() { return errno; }
bool is_timeout(int e) { return e == EAGAIN || e == EWOULDBLOCK || e == ETIMEDOUT; }
std::string error_text(int e) { return std::strerror(e); }
void close_handle(Socket::Handle h) { ::close(h); }
#endif

void apply_io_timeout(Socket::Handle fd, int ms) {
#ifdef _WIN32
  DWORD tv = static_cast<DWORD>(ms);
  setsockopt(static_cast<SOCKET>(fd), SOL_SOCKET, SO_RCVTIMEO, reinterpret_cast<const char*>(&tv), sizeof tv);
  setsockopt(static_cast<SOCKET>(fd), SOL_SOCKET, SO_SNDTIMEO, reinterpret_cast<const char*>(&tv), sizeof tv);
#else
  timeval tv{};
  tv.tv_sec = ms / 1000;
  tv.tv_usec = static_cast<suseconds_t>((ms % 1000) * 1000);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
#endif
}

// The receive timeout alone (sends keep theirs), at least 1 ms: 0 would mean "wait for ever".
void apply_recv_timeout(Socket::Handle fd, int ms) {
  if (ms < 1) ms = 1;
#ifdef _WIN32
  DWORD tv = static_cast<DWORD>(ms);
  setsockopt(static_cast<SOCKET>(fd), SOL_SOCKET, SO_RCVTIMEO, reinterpret_cast<const char*>(&tv), sizeof tv);
#else
  timeval tv{};
  tv.tv_sec = ms / 1000;
  tv.tv_usec = static_cast<suseconds_t>((ms % 1000) * 1000);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
#endif
}

void set_blocking(Socket::Handle fd, bool blocking) {
#ifdef _WIN32
  u_long mode = blocking ? 0 : 1;
  ioctlsocket(static_cast<SOCKET>(fd), FIONBIO, &mode);
#else
  int flags = fcntl(fd, F_GETFL, 0);
  fcntl(fd, F_SETFL, blocking ? (flags & ~O_NONBLOCK) : (flags | O_NONBLOCK));
#endif
}

// Connects one resolved address within timeout_ms; returns an error text or "" on success.
std::string connect_one(Socket::Handle fd, const addrinfo* ai, int timeout_ms) {
  set_blocking(fd, false);
#ifdef _WIN32
  int rc = ::connect(static_cast<SOCKET>(fd), ai->ai_addr, static_cast<int>(ai->ai_addrlen));
  if (rc != 0 && WSAGetLastError() != WSAEWOULDBLOCK) return error_text(WSAGetLastError());
  if (rc != 0) {
    fd_set wr, ex;
    FD_ZERO(&wr); FD_ZERO(&ex);
    FD_SET(static_cast<SOCKET>(fd), &wr);
    FD_SET(static_cast<SOCKET>(fd), &ex);
    timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    int n = select(0, nullptr, &wr, &ex, &tv);
    if (n == 0) return "connect timed out";
    if (n < 0) return error_text(WSAGetLastError());
    int err = 0;
    int len = static_cast<int>(sizeof err);
    getsockopt(static_cast<SOCKET>(fd), SOL_SOCKET, SO_ERROR, reinterpret_cast<char*>(&err), &len);
    if (err != 0) return error_text(err);
  }
#else
  int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
  if (rc != 0 && errno != EINPROGRESS) return error_text(errno);
  if (rc != 0) {
    pollfd p{fd, POLLOUT, 0};
    int n;
    do n = poll(&p, 1, timeout_ms); while (n < 0 && errno == EINTR);
    if (n == 0) return "connect timed out";
    if (n < 0) return error_text(errno);
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return error_text(err);
  }
#endif
  set_blocking(fd, true);
  return "";
}

}  // namespace

Socket& Socket::operator=(Socket&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    o.fd_ = kInvalid;
  }
  return *this;
}

Socket Socket::connect(const std::string& host, uint16_t port, int connect_timeout_ms, int io_timeout_ms) {
  ensure_wsa();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_protocol = IPPROTO_TCP;
  addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
  if (rc != 0 || res == nullptr) throw SocketError("cannot resolve " + host);
  std::string why = "no address";
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
#ifdef _WIN32
    // Not inherited by child processes (what SOCK_CLOEXEC does below).
    SOCKET s = WSASocketW(ai->ai_family, ai->ai_socktype, ai->ai_protocol, nullptr, 0,
                          WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT);
    if (s == INVALID_SOCKET) { why = error_text(WSAGetLastError()); continue; }
    Handle fd = static_cast<Handle>(s);
#else
    Handle fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) { why = error_text(errno); continue; }
#endif
    why = connect_one(fd, ai, connect_timeout_ms);
    if (!why.empty()) {
      close_handle(fd);
      continue;
    }
    freeaddrinfo(res);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, reinterpret_cast<const char*>(&one), sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, reinterpret_cast<const char*>(&one), sizeof one);
    if (io_timeout_ms > 0) apply_io_timeout(fd, io_timeout_ms);
    return Socket(fd);
  }
  freeaddrinfo(res);
  throw SocketError("cannot connect to " + host + ":" + service + ": " + why);
}

void Socket::send_all(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
#ifdef _WIN32
    int chunk = n > (1u << 30) ? (1 << 30) : static_cast<int>(n);
    int sent = ::send(static_cast<SOCKET>(fd_), p, chunk, 0);
#else
    ssize_t sent = ::send(fd_, p, n, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
#endif
    if (sent <= 0) {
      int e = last_error();
      if (is_timeout(e)) throw SocketTimeout("send timed out");
      throw SocketError("send failed: " + error_text(e));
    }
    p += sent;
    n -= static_cast<size_t>(sent);
  }
}

bool Socket::readable_now() const {
  if (fd_ == kInvalid) return false;
#ifdef _WIN32
  fd_set rd;
  FD_ZERO(&rd);
  FD_SET(static_cast<SOCKET>(fd_), &rd);
  timeval tv{0, 0};
  return select(0, &rd, nullptr, nullptr, &tv) > 0;
#else
  pollfd p{fd_, POLLIN, 0};
  int n;
  do n = poll(&p, 1, 0); while (n < 0 && errno == EINTR);
  return n > 0;
#endif
}

bool Socket::recv_exact(void* data, size_t n, bool allow_eof) { return recv_exact(data, n, allow_eof, Deadline::max()); }

bool Socket::recv_exact(void* data, size_t n, bool allow_eof, Deadline deadline) {
  char* p = static_cast<char*>(data);
  size_t got = 0;
  while (got < n) {
    if (deadline != Deadline::max()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) throw SocketTimeout("no complete frame from the bridge in time");
      apply_recv_timeout(fd_, static_cast<int>(std::min<long long>(left, 1LL << 30)));
    }
#ifdef _WIN32
    size_t want = n - got;
    int r = ::recv(static_cast<SOCKET>(fd_), p + got, want > (1u << 30) ? (1 << 30) : static_cast<int>(want), 0);
#else
    ssize_t r = ::recv(fd_, p + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
#endif
    if (r == 0) {
      if (got == 0 && allow_eof) return false;
      throw SocketError("connection closed by the bridge");
    }
    if (r < 0) {
      int e = last_error();
      if (is_timeout(e)) throw SocketTimeout("no answer from the bridge in time");
      throw SocketError("receive failed: " + error_text(e));
    }
    got += static_cast<size_t>(r);
  }
  return true;
}

void Socket::set_io_timeout(int ms) {
  if (fd_ != kInvalid) apply_io_timeout(fd_, ms);
}

void Socket::shutdown_handle(Handle h) {
  if (h == kInvalid) return;
#ifdef _WIN32
  ::shutdown(static_cast<SOCKET>(h), SD_BOTH);
#else
  ::shutdown(h, SHUT_RDWR);
#endif
}

void Socket::close() {
  if (fd_ != kInvalid) {
    close_handle(fd_);
    fd_ = kInvalid;
  }
}

}  // namespace tradeapi::bridge
