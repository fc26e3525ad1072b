// Tests of the native accept loop (net/acceptor.h) on real loopback sockets: a batch takes every
// queued connection, descriptors come out non-blocking and close-on-exec, the thread delivers
// bursts and stops promptly with nothing pending.
#include "net/acceptor.h"

#if defined(TRADEAPI_HAS_ACCEPTOR)

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace tradeapi::net {
namespace {

// A non-blocking listener on an ephemeral loopback port.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(fd_, 1024), 0);
    socklen_t len = sizeof addr;
    EXPECT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port_ = ntohs(addr.sin_port);
  }
  ~Listener() { ::close(fd_); }
  int fd() const { return fd_; }

  // A blocking connect: on loopback it returns once the kernel has queued the connection.
  int Connect() const {
    int c = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port_);
    EXPECT_EQ(::connect(c, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    return c;
  }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

void CloseAll(const std::vector<int>& fds) {
  for (int fd : fds) ::close(fd);
}

TEST(AcceptBatch, TakesEveryQueuedConnectionThenReportsDrained) {
  Listener listener;
  std::vector<int> clients;
  for (int i = 0; i < 50; ++i) clients.push_back(listener.Connect());
  std::vector<int> accepted;
  AcceptResult r = AcceptBatch(listener.fd(), accepted, 1024);
  EXPECT_EQ(r.outcome, AcceptOutcome::kDrained);
  EXPECT_EQ(accepted.size(), 50u);
  for (int fd : accepted) {
    EXPECT_NE(::fcntl(fd, F_GETFL) & O_NONBLOCK, 0) << "accepted descriptors are non-blocking";
    EXPECT_NE(::fcntl(fd, F_GETFD) & FD_CLOEXEC, 0) << "and close-on-exec";
  }
  // Each accepted descriptor is a live connection: a byte written by the client arrives.
  ASSERT_EQ(::write(clients[7], "x", 1), 1);
  bool arrived = false;
  for (int fd : accepted) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 0) == 1) arrived = true;
  }
  EXPECT_TRUE(arrived);
  CloseAll(accepted);
  CloseAll(clients);
}

TEST(AcceptBatch, EmptyQueueIsDrainedAtOnce) {
  Listener listener;
  std::vector<int> accepted;
  EXPECT_EQ(AcceptBatch(listener.fd(), accepted, 16).outcome, AcceptOutcome::kDrained);
  EXPECT_TRUE(accepted.empty());
}

TEST(AcceptBatch, StopsAtTheBatchLimit) {
  Listener listener;
  std::vector<int> clients;
  for (int i = 0; i < 10; ++i) clients.push_back(listener.Connect());
  std::vector<int> accepted;
  EXPECT_EQ(AcceptBatch(listener.fd(), accepted, 4).outcome, AcceptOutcome::kFull);
  EXPECT_EQ(accepted.size(), 4u);
  EXPECT_EQ(AcceptBatch(listener.fd(), accepted, 100).outcome, AcceptOutcome::kDrained);
  EXPECT_EQ(accepted.size(), 10u);
  CloseAll(accepted);
  CloseAll(clients);
}

TEST(AcceptBatch, ABadDescriptorFails) {
  std::vector<int> accepted;
  AcceptResult r = AcceptBatch(-1, accepted, 16);
  EXPECT_EQ(r.outcome, AcceptOutcome::kFailed);
  EXPECT_EQ(r.error, EBADF);
}

// Collects what the thread delivers.
struct Sink {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<int> fds;
  int batches = 0;

  Acceptor::Deliver deliver() {
    return [this](std::vector<int> batch) {
      std::lock_guard<std::mutex> lock(mutex);
      fds.insert(fds.end(), batch.begin(), batch.end());
      ++batches;
      changed.notify_all();
    };
  }
  bool WaitFor(std::size_t count) {
    std::unique_lock<std::mutex> lock(mutex);
    return changed.wait_for(lock, std::chrono::seconds(10), [&] { return fds.size() >= count; });
  }
};

TEST(Acceptor, DeliversABurstInBatches) {
  Listener listener;
  Sink sink;
  Acceptor acceptor(listener.fd(), sink.deliver());
  std::vector<int> clients;
  for (int i = 0; i < 200; ++i) clients.push_back(listener.Connect());
  ASSERT_TRUE(sink.WaitFor(200));
  acceptor.Stop();
  EXPECT_EQ(sink.fds.size(), 200u);
  EXPECT_LE(sink.batches, 200);
  CloseAll(sink.fds);
  CloseAll(clients);
}

TEST(Acceptor, StopsPromptlyWhileIdle) {
  Listener listener;
  Sink sink;
  Acceptor acceptor(listener.fd(), sink.deliver());
  auto started = std::chrono::steady_clock::now();
  acceptor.Stop();
  acceptor.Stop();  // idempotent
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
  // Nothing is accepted after Stop: the connection waits in the kernel's queue.
  int client = listener.Connect();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(sink.batches, 0);
  std::vector<int> accepted;
  EXPECT_EQ(AcceptBatch(listener.fd(), accepted, 16).outcome, AcceptOutcome::kDrained);
  EXPECT_EQ(accepted.size(), 1u);
  CloseAll(accepted);
  ::close(client);
}

TEST(Acceptor, EndsItsThreadWhenTheListenerIsShutDown) {
  Listener listener;
  Sink sink;
  Acceptor acceptor(listener.fd(), sink.deliver());
  // shutdown() on a listening socket makes poll report it hung up: the thread leaves on its own
  // and Stop() still joins cleanly.
  ::shutdown(listener.fd(), SHUT_RDWR);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  acceptor.Stop();
  EXPECT_EQ(sink.batches, 0);
}

}  // namespace
}  // namespace tradeapi::net

#endif  // TRADEAPI_HAS_ACCEPTOR
