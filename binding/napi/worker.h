// One worker thread per terminal: every call to that terminal runs here, one at a time (the real
// MetaTrader5 package is not thread-safe). A job's result is handed back to the JS thread through a
// thread-safe function and settles the job's Promise there.
//
// Two lanes, each in arrival order: calls (symbol info, ticks, account, cursor opening...) run
// before bulk jobs (the next chunk of an open series). With 100 streams each waiting for its next
// chunk, a /health or a /symbols/X/tick then waits for at most the one chunk being produced, not
// for a hundred of them. Still one job at a time: the terminal never sees two calls at once.
// A bulk job runs at a lower OS priority while interactive calls are about (thread_priority.h),
// so the JS thread answering them wins the cores from it (docs/architecture.md, "Interactive calls first").
#pragma once
#include <napi.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "terminal/errors.h"

namespace tradeapi::napi {

// Builds the JS value of a result on the JS thread (captures the C++ result by value).
using Builder = std::function<Napi::Value(Napi::Env)>;
// Runs on the worker; returns the builder or throws TerminalError.
using Work = std::function<Builder()>;

enum class Lane { Call, Bulk };

class Worker {
 public:
  // on_busy(true) runs on the JS thread when the first job is submitted, on_busy(false) when the
  // last one settles: the owner uses it to hold a strong reference to itself while work is pending.
  //
  // max_waiting (0 = no cap) bounds the calls waiting in Lane::Call: past it a new call is rejected
  // at once with kind 'unavailable' ("terminal busy"), after the waiting calls whose deadline has
  // passed have been settled (rejected 'timeout') to make room. A stuck terminal then costs each
  // further request one immediate 503, not a queue entry (bulk jobs are bounded by the streams).
  Worker(Napi::Env env, std::chrono::milliseconds queue_timeout, std::function<void(bool)> on_busy,
         size_t max_waiting = 0);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Queues work and returns its Promise. A job still queued after queue_timeout is rejected
  // with kind 'timeout' without running; after Close() every job is rejected 'unavailable'.
  Napi::Promise Submit(Napi::Env env, Work work, Lane lane = Lane::Call);
  // Lets queued jobs finish, then stops the thread. Idempotent.
  void Close();
  bool closed() const { return closed_; }

 private:
  struct Job {
    Work work;
    Napi::Promise::Deferred deferred;
    std::chrono::steady_clock::time_point deadline;
    Builder builder;
    std::optional<TerminalError> error;
  };
  void Run();
  static void Settle(Napi::Env env, Job* job);
  void Done(Napi::Env env);

  std::chrono::milliseconds queue_timeout_;
  size_t max_waiting_;
  std::function<void(bool)> on_busy_;
  Napi::ThreadSafeFunction tsfn_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job*> calls_;  // Lane::Call, run first
  std::deque<Job*> bulk_;   // Lane::Bulk
  bool stopping_ = false;
  bool closed_ = false;
  size_t in_flight_ = 0;  // JS-thread only: jobs submitted and not yet settled (keeps the loop alive)
  std::thread thread_;
};

// Rejection value for a terminal error: an Error with `kind` and `code` properties.
Napi::Error ToJsError(Napi::Env env, const TerminalError& e);

}  // namespace tradeapi::napi
