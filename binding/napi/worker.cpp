#include "worker.h"

#include <exception>
#include <string>
#include <vector>

#include "thread_priority.h"

namespace tradeapi::napi {

Napi::Error ToJsError(Napi::Env env, const TerminalError& e) {
  Napi::Error err = Napi::Error::New(env, e.what());
  err.Set("kind", Napi::String::New(env, error_kind_name(e.kind())));
  err.Set("code", Napi::Number::New(env, static_cast<double>(e.code())));
  return err;
}

Worker::Worker(Napi::Env env, std::chrono::milliseconds queue_timeout, std::function<void(bool)> on_busy,
               size_t max_waiting)
    : queue_timeout_(queue_timeout), max_waiting_(max_waiting), on_busy_(std::move(on_busy)) {
  tsfn_ = Napi::ThreadSafeFunction::New(env, Napi::Function(), "tradeapi-terminal", 0, 1);
  tsfn_.Unref(env);  // an idle terminal must not keep the process alive
  thread_ = std::thread([this] { Run(); });
}

Worker::~Worker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  // Jobs still queued here can only exist if the environment is being torn down: drop them.
  for (Job* job : calls_) delete job;
  for (Job* job : bulk_) delete job;
  if (!closed_) tsfn_.Release();
}

Napi::Promise Worker::Submit(Napi::Env env, Work work, Lane lane) {
  auto deferred = Napi::Promise::Deferred::New(env);
  if (closed_) {
    deferred.Reject(ToJsError(env, TerminalError(ErrorKind::Unavailable, -10004, "No IPC connection")).Value());
    return deferred.Promise();
  }
  const auto now = std::chrono::steady_clock::now();
  std::vector<Job*> expired;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lane == Lane::Call && max_waiting_ != 0 && calls_.size() >= max_waiting_) {
      // Full: the waiting calls whose deadline has passed make room (their callers have had
      // their timeout already); if they are not enough, this call is refused.
      size_t live = 0;
      for (Job* j : calls_) live += now > j->deadline ? 0 : 1;
      if (live >= max_waiting_) {
        deferred.Reject(ToJsError(env, TerminalError(ErrorKind::Unavailable, -10004,
                                                      "terminal busy: " + std::to_string(max_waiting_) +
                                                          " calls already waiting"))
                            .Value());
        return deferred.Promise();
      }
      for (auto it = calls_.begin(); it != calls_.end();) {
        if (now > (*it)->deadline) {
          expired.push_back(*it);
          it = calls_.erase(it);
        } else {
          ++it;
        }
      }
    }
  }
  auto* job = new Job{std::move(work), deferred, now + queue_timeout_, {}, {}};
  if (in_flight_++ == 0) {
    tsfn_.Ref(env);
    if (on_busy_) on_busy_(true);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    (lane == Lane::Call ? calls_ : bulk_).push_back(job);
  }
  wake_.notify_one();
  // Settled here, on the JS thread, as the worker would have (deadline passed: 'timeout').
  for (Job* j : expired) {
    j->work = nullptr;
    j->error = TerminalError(ErrorKind::Timeout, -10005, "IPC timeout");
    Settle(env, j);
    Done(env);
  }
  return deferred.Promise();
}

void Worker::Close() {
  if (closed_) return;
  closed_ = true;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  // The worker drains the queue before it exits; settling happens through tsfn_, which stays
  // valid until Release below, and the thread only blocks on the queue, never on the JS thread.
  if (thread_.joinable()) thread_.join();
  tsfn_.Release();
}

void Worker::Run() {
  for (;;) {
    Job* job = nullptr;
    bool bulk = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !calls_.empty() || !bulk_.empty(); });
      bulk = calls_.empty();
      auto& queue = bulk ? bulk_ : calls_;
      if (queue.empty()) return;  // stopping and drained
      job = queue.front();
      queue.pop_front();
    }
    if (std::chrono::steady_clock::now() > job->deadline) {
      job->error = TerminalError(ErrorKind::Timeout, -10005, "IPC timeout");
    } else {
      // A bulk page runs at a lower OS priority (thread_priority.h), restored before the next job:
      // the JS thread answering interactive requests comes first when both want a core.
      std::optional<BulkPriority> low;
      if (bulk) low.emplace(InteractiveRecently());
      try {
        job->builder = job->work();
      } catch (const TerminalError& e) {
        job->error = e;
      } catch (const std::exception& e) {
        job->error = TerminalError(ErrorKind::CallFailed, -1, std::string("Terminal: Call failed: ") + e.what());
      } catch (...) {
        job->error = TerminalError::call_failed();
      }
    }
    job->work = nullptr;  // release captured state on the worker, not the JS thread
    if (tsfn_.BlockingCall(job, [this](Napi::Env env, Napi::Function, Job* j) {
          Settle(env, j);
          Done(env);
        }) != napi_ok) {
      delete job;  // environment shutting down
    }
  }
}

void Worker::Done(Napi::Env env) {
  if (env == nullptr || --in_flight_ != 0) return;
  if (!closed_) tsfn_.Unref(env);
  if (on_busy_) on_busy_(false);
}

void Worker::Settle(Napi::Env env, Job* job) {
  std::unique_ptr<Job> owned(job);
  if (env == nullptr) return;
  Napi::HandleScope scope(env);
  if (job->error) {
    job->deferred.Reject(ToJsError(env, *job->error).Value());
    return;
  }
  try {
    job->deferred.Resolve(job->builder(env));
  } catch (const Napi::Error& e) {
    job->deferred.Reject(e.Value());
  } catch (const TerminalError& e) {
    job->deferred.Reject(ToJsError(env, e).Value());
  }
}

}  // namespace tradeapi::napi
