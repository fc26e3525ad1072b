// See acceptor.h for why. The thread polls two descriptors: the listening socket and the read end
// of a self-pipe that Stop() writes to, so that stopping never depends on a connection arriving.
#include "net/acceptor.h"

#if defined(TRADEAPI_HAS_ACCEPTOR)

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

namespace tradeapi::net {
namespace {

// After EMFILE/ENFILE: retrying at once would spin (the listening socket stays readable); node's
// own handle keeps its emfile trick, this thread just waits for descriptors to free up.
constexpr int kExhaustedBackoffMs = 10;

#if defined(__linux__) || defined(__FreeBSD__)
#define TRADEAPI_HAS_ACCEPT4 1
#else
// Without accept4/pipe2 the flags are set after the fact.
bool SetNonBlockingCloexec(int fd) {
  int fl = ::fcntl(fd, F_GETFL);
  int fdfl = ::fcntl(fd, F_GETFD);
  return fl >= 0 && fdfl >= 0 && ::fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0 &&
         ::fcntl(fd, F_SETFD, fdfl | FD_CLOEXEC) == 0;
}
#endif

int AcceptOne(int listen_fd) {
#if defined(TRADEAPI_HAS_ACCEPT4)
  return ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
#else
  int fd = ::accept(listen_fd, nullptr, nullptr);
  if (fd >= 0 && !SetNonBlockingCloexec(fd)) {
    int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  return fd;
#endif
}

}  // namespace

AcceptResult AcceptBatch(int listen_fd, std::vector<int>& out, std::size_t max_batch) {
  for (;;) {
    if (out.size() >= max_batch) return {AcceptOutcome::kFull, 0};
    int fd = AcceptOne(listen_fd);
    if (fd >= 0) {
      out.push_back(fd);
      continue;
    }
    int err = errno;
    switch (err) {
      case EAGAIN:
#if EWOULDBLOCK != EAGAIN
      case EWOULDBLOCK:
#endif
        return {AcceptOutcome::kDrained, 0};
      case EINTR:
      case ECONNABORTED:
      case EPROTO:
#if defined(__linux__)
      // accept(2): Linux passes pending network errors of the new socket on to accept; like
      // EAGAIN they mean "retry", not that the listening socket failed.
      case ENETDOWN:
      case ENOPROTOOPT:
      case EHOSTDOWN:
      case ENONET:
      case EHOSTUNREACH:
      case EOPNOTSUPP:
      case ENETUNREACH:
#endif
        continue;
      case EMFILE:
      case ENFILE:
      case ENOBUFS:
      case ENOMEM:
        return {AcceptOutcome::kExhausted, err};
      default:
        return {AcceptOutcome::kFailed, err};
    }
  }
}

Acceptor::Acceptor(int listen_fd, Deliver deliver, std::size_t max_batch)
    : listen_fd_(listen_fd), deliver_(std::move(deliver)), max_batch_(max_batch == 0 ? 1 : max_batch) {
  int pipe_fds[2];
#if defined(TRADEAPI_HAS_ACCEPT4)
  // Atomically close-on-exec: a child spawned meanwhile must not inherit the pipe.
  if (::pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "acceptor pipe");
  wake_read_ = pipe_fds[0];
  wake_write_ = pipe_fds[1];
#else
  if (::pipe(pipe_fds) != 0) throw std::system_error(errno, std::generic_category(), "acceptor pipe");
  wake_read_ = pipe_fds[0];
  wake_write_ = pipe_fds[1];
  if (!SetNonBlockingCloexec(wake_read_) || !SetNonBlockingCloexec(wake_write_)) {
    int err = errno;
    ::close(wake_read_);
    ::close(wake_write_);
    throw std::system_error(err, std::generic_category(), "acceptor pipe flags");
  }
#endif
  try {
    thread_ = std::thread([this] { Run(); });
  } catch (...) {
    ::close(wake_read_);
    ::close(wake_write_);
    throw;
  }
}

Acceptor::~Acceptor() {
  Stop();
}

void Acceptor::Stop() {
  if (!thread_.joinable()) return;
  const char byte = 1;
  // The pipe is empty until now (only Stop writes, once), so this cannot block or fail with EAGAIN.
  while (::write(wake_write_, &byte, 1) < 0 && errno == EINTR) {
  }
  thread_.join();
  ::close(wake_read_);
  ::close(wake_write_);
  wake_read_ = wake_write_ = -1;
}

bool Acceptor::WaitForStop(int timeout_ms) const {
  pollfd wake{wake_read_, POLLIN, 0};
  int n = ::poll(&wake, 1, timeout_ms);
  return n > 0;
}

void Acceptor::Run() {
  std::vector<int> batch;
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    int n = ::poll(fds, 2, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    // The listening socket was closed or shut down under us: node's own handle is all there is.
    if ((fds[0].revents & (POLLNVAL | POLLERR | POLLHUP)) != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    batch.clear();
    AcceptResult result = AcceptBatch(listen_fd_, batch, max_batch_);
    // node's own handle may have taken the connection that made the socket readable: nothing then.
    if (!batch.empty()) {
      std::vector<int> handed;
      handed.swap(batch);
      deliver_(std::move(handed));
    }
    if (result.outcome == AcceptOutcome::kFailed) return;
    if (result.outcome == AcceptOutcome::kExhausted && WaitForStop(kExhaustedBackoffMs)) return;
  }
}

}  // namespace tradeapi::net

#endif  // TRADEAPI_HAS_ACCEPTOR
