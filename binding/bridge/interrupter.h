// Lets the JS thread unblock the terminal's worker when the terminal is closed. Every open bridge
// connection's socket is registered here; interrupt() shuts them all down, so that a recv() or
// send() blocked on a bridge that stopped answering (or trickles a byte now and then) returns at
// once, and refuses new connections. Without it closing the terminal joined a worker blocked on
// such a bridge and the process could not stop, even on a second SIGTERM (issue 22 item 2).
#pragma once
#include <algorithm>
#include <mutex>
#include <vector>

#include "socket.h"

namespace tradeapi::bridge {

class Interrupter {
 public:
  // Registers an open socket; false once interrupted (the caller closes it and gives up).
  bool add(Socket::Handle h) {
    std::lock_guard<std::mutex> lock(mu_);
    if (interrupted_) return false;
    open_.push_back(h);
    return true;
  }
  // Before the socket is closed: under the lock, so interrupt() never touches a handle that has
  // been closed (and perhaps reused by another file) meanwhile.
  void remove(Socket::Handle h) {
    std::lock_guard<std::mutex> lock(mu_);
    open_.erase(std::remove(open_.begin(), open_.end(), h), open_.end());
  }
  void interrupt() {
    std::lock_guard<std::mutex> lock(mu_);
    interrupted_ = true;
    for (Socket::Handle h : open_) Socket::shutdown_handle(h);
  }
  bool interrupted() {
    std::lock_guard<std::mutex> lock(mu_);
    return interrupted_;
  }

 private:
  std::mutex mu_;
  std::vector<Socket::Handle> open_;
  bool interrupted_ = false;
};

}  // namespace tradeapi::bridge
