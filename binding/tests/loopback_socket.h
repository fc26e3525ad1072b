// The few socket calls the tests' loopback servers make, POSIX or Winsock, so that the same tests
// run in the Windows cross build (scripts/build-win.sh --tests) and exercise the bridge client's
// Winsock paths there.
#pragma once
#include <cstddef>
#include <cstdint>

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <winsock2.h>
#include <ws2tcpip.h>
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

namespace loopback {

#ifdef _WIN32
using Sock = SOCKET;
constexpr Sock kNoSock = INVALID_SOCKET;
using AddrLen = int;
inline void init() {
  static const bool started = [] {
    WSADATA data;
    return WSAStartup(MAKEWORD(2, 2), &data) == 0;
  }();
  (void)started;
}
inline void close_sock(Sock s) { closesocket(s); }
// > 0 when s is readable (data, EOF or a pending connection), 0 on timeout, < 0 on error.
// select() rather than WSAPoll: the older call with the fewest known quirks.
inline int wait_readable(Sock s, int timeout_ms) {
  fd_set readable;
  FD_ZERO(&readable);
  FD_SET(s, &readable);
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  return select(0, &readable, nullptr, nullptr, &tv);
}
inline long long send_some(Sock s, const void* p, size_t n) {
  return ::send(s, static_cast<const char*>(p), static_cast<int>(n), 0);
}
inline long long recv_some(Sock s, void* p, size_t n) {
  return ::recv(s, static_cast<char*>(p), static_cast<int>(n), 0);
}
#else
using Sock = int;
constexpr Sock kNoSock = -1;
using AddrLen = socklen_t;
inline void init() {}
inline void close_sock(Sock s) { ::close(s); }
inline int wait_readable(Sock s, int timeout_ms) {
  pollfd p{s, POLLIN, 0};
  return ::poll(&p, 1, timeout_ms);
}
inline long long send_some(Sock s, const void* p, size_t n) { return ::send(s, p, n, MSG_NOSIGNAL); }
inline long long recv_some(Sock s, void* p, size_t n) { return ::recv(s, p, n, 0); }
#endif

}  // namespace loopback
