// A dedicated accept thread for a listening TCP socket (POSIX only).
//
// Why: libuv ≥ 1.45 (node 20) accepts one connection per event-loop iteration and relies on the
// next poll to report the rest. Under a thousand busy keep-alive connections an iteration takes
// 60–100 ms, so a burst of new connections drains from the kernel's queue at a few dozen a second
// and its tail waits for seconds. This thread waits on the same listening socket and, whenever it
// is readable, takes every queued connection at once and hands the whole batch over in one call.
#pragma once

#if !defined(_WIN32)
#define TRADEAPI_HAS_ACCEPTOR 1

#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace tradeapi::net {

enum class AcceptOutcome {
  kDrained,    // the queue is empty (EAGAIN)
  kFull,       // max_batch reached; more may be waiting
  kExhausted,  // out of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM): back off
  kFailed,     // the listening socket is unusable (EBADF, EINVAL, ENOTSOCK…): stop
};

struct AcceptResult {
  AcceptOutcome outcome;
  int error;  // errno for kExhausted and kFailed, else 0
};

// Accepts from the non-blocking listening socket `listen_fd` until the queue is empty or `out`
// holds max_batch descriptors; each is non-blocking and close-on-exec. Connections the peer gave up
// on before they were taken (ECONNABORTED, EPROTO) and interrupted calls are skipped.
AcceptResult AcceptBatch(int listen_fd, std::vector<int>& out, std::size_t max_batch);

class Acceptor {
 public:
  // Receives each batch on the accept thread and owns its descriptors from then on (it must
  // close those it cannot pass on). Must not throw.
  using Deliver = std::function<void(std::vector<int> fds)>;

  // Starts the thread; throws std::system_error if the wake-up pipe or the thread cannot be made.
  // listen_fd stays owned by the caller and must stay open until Stop() returns.
  Acceptor(int listen_fd, Deliver deliver, std::size_t max_batch = 1024);
  ~Acceptor();
  Acceptor(const Acceptor&) = delete;
  Acceptor& operator=(const Acceptor&) = delete;

  // Wakes the thread and joins it; no batch is delivered after this returns. Idempotent.
  void Stop();

 private:
  void Run();
  // Waits up to timeout_ms for Stop(); true if it came.
  bool WaitForStop(int timeout_ms) const;

  int listen_fd_;
  Deliver deliver_;
  std::size_t max_batch_;
  int wake_read_ = -1;
  int wake_write_ = -1;
  std::thread thread_;
};

}  // namespace tradeapi::net

#endif  // !_WIN32
