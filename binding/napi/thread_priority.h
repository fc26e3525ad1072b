// BulkPriority: an RAII guard that marks the calling thread as doing one piece of bulk work (a
// Parquet row group, a JSON piece, a series page on the terminal's worker). While the piece runs,
// the thread's OS scheduling priority is lowered exactly while an interactive terminal call is
// queued or running, and put back the moment none is; the guard restores what it found when it
// goes out of scope.
//
// Why: on a machine with few cores, a big pull's encoders (libuv pool threads) and the terminal's
// worker compete for the CPU with the JS thread that parses and answers interactive requests (the
// last tick, /health). Queue order alone cannot help there: the kernel decides who runs.
// Why only while a call is in flight, and not "for a while after one": a lowered thread yields to
// every other process on the host, not only to our JS thread. A piece that started just after a
// call (a D1 page of four years of history takes seconds) and kept nice 10 to its end ran 10x
// slower on a loaded host with nobody waiting for it (CI, stop 38). So the registry below
// re-prioritises the running pieces from the thread that starts or ends an interactive call.
//
// Linux: setpriority(PRIO_PROCESS, tid, nice) sets one thread's nice value, also from another
// thread of the process. Raising it needs no privilege; lowering it back needs CAP_SYS_NICE (root
// has it) or an RLIMIT_NICE soft limit r with 20 - r <= the old nice value (`ulimit -e 20` allows
// going back to 0). So a guard never lowers a priority it could not restore: without either (the
// usual unprivileged default is r = 0) it does nothing at all.
// Windows: SetThreadPriority(THREAD_PRIORITY_BELOW_NORMAL) on a handle to the guard's thread,
// restored to what GetThreadPriority said. Elsewhere (macOS...): nothing.
//
// Header-only and free of Node: the C++ core tests include it (binding/tests/thread_priority_test.cpp).
#pragma once

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#elif defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX  // no min/max macros in the files that include this one
#endif
#include <windows.h>
#endif

#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

namespace tradeapi::napi {

// The nice value bulk work runs at (Linux) while an interactive call waits: 10 is the conventional
// "background" level. The scheduler's weight of nice 10 is ~1/10 of nice 0, so a bulk thread that
// shares a core with the JS thread takes ~10 % of it while the JS thread has work.
inline constexpr int kBulkNice = 10;

class BulkPriority;

// The process's interactive calls in flight and its running bulk pieces. Every method takes one
// mutex held for a few syscalls; calls begin and end at most a few thousand times a second.
class BulkRegistry {
 public:
  static BulkRegistry& Get() {
    static BulkRegistry registry;
    return registry;
  }
  // An interactive call was queued (TerminalWrap::Call) / has settled or been dropped.
  inline void InteractiveBegin();
  inline void InteractiveEnd();
  int interactive() {
    std::lock_guard<std::mutex> lock(mutex_);
    return interactive_;
  }

 private:
  friend class BulkPriority;
  // False (and nothing registered) when the thread already runs a tracked piece: nested guards.
  inline bool Add(BulkPriority* piece);
  inline void Remove(BulkPriority* piece);

  std::mutex mutex_;
  int interactive_ = 0;
  std::vector<BulkPriority*> pieces_;
};

class BulkPriority {
 public:
  // track = false: a plain guard that never changes anything (kept for call sites that know the
  // work is not bulk).
  explicit BulkPriority(bool track = true) {
    if (!track) return;
#if defined(__linux__)
    tid_ = static_cast<id_t>(::syscall(SYS_gettid));
    errno = 0;
    const int before = ::getpriority(PRIO_PROCESS, tid_);
    if (before == -1 && errno != 0) return;
    if (before >= kBulkNice) return;  // already at or below bulk priority: nothing to do
    if (!CanRestore(before)) return;  // could not undo it: leave the thread as it is
    before_ = before;
#elif defined(_WIN32)
    thread_ = ::OpenThread(THREAD_SET_INFORMATION | THREAD_QUERY_INFORMATION, FALSE, ::GetCurrentThreadId());
    if (thread_ == nullptr) return;
    const int before = ::GetThreadPriority(thread_);
    if (before == THREAD_PRIORITY_ERROR_RETURN || before <= THREAD_PRIORITY_BELOW_NORMAL) {
      ::CloseHandle(thread_);
      thread_ = nullptr;
      return;
    }
    before_ = before;
#else
    return;
#endif
    tracked_ = BulkRegistry::Get().Add(this);
#if defined(_WIN32)
    if (!tracked_) {
      ::CloseHandle(thread_);
      thread_ = nullptr;
    }
#endif
  }

  ~BulkPriority() {
    if (!tracked_) return;
    BulkRegistry::Get().Remove(this);  // restores it if lowered
#if defined(_WIN32)
    ::CloseHandle(thread_);
#endif
  }

  BulkPriority(const BulkPriority&) = delete;
  BulkPriority& operator=(const BulkPriority&) = delete;

  // Whether the thread runs at bulk priority now because of this guard.
  bool lowered() {
    std::lock_guard<std::mutex> lock(BulkRegistry::Get().mutex_);
    return lowered_;
  }
  // Whether this guard follows the interactive calls (false: it will never change anything).
  bool tracked() const { return tracked_; }

#if defined(__linux__)
  // Whether a thread at nice `kBulkNice` may go back to nice `before`: root may (CAP_SYS_NICE in
  // practice); otherwise RLIMIT_NICE's soft limit r must allow nice values down to 20 - r <= before.
  static bool CanRestore(int before) {
    if (::geteuid() == 0) return true;
    struct rlimit limit {};
    if (::getrlimit(RLIMIT_NICE, &limit) != 0) return false;
    if (limit.rlim_cur == RLIM_INFINITY) return true;
    return 20 - static_cast<long long>(limit.rlim_cur) <= before;
  }
#endif

 private:
  friend class BulkRegistry;
  // Both called with the registry's mutex held, from any thread of the process.
  void Lower() {
    if (lowered_) return;
#if defined(__linux__)
    lowered_ = ::setpriority(PRIO_PROCESS, tid_, kBulkNice) == 0;
#elif defined(_WIN32)
    lowered_ = ::SetThreadPriority(thread_, THREAD_PRIORITY_BELOW_NORMAL) != 0;
#endif
  }
  void Restore() {
    if (!lowered_) return;
#if defined(__linux__)
    ::setpriority(PRIO_PROCESS, tid_, before_);
#elif defined(_WIN32)
    ::SetThreadPriority(thread_, before_);
#endif
    lowered_ = false;
  }

  std::thread::id thread_id_ = std::this_thread::get_id();
  bool tracked_ = false;
  bool lowered_ = false;  // guarded by the registry's mutex
  int before_ = 0;
#if defined(__linux__)
  id_t tid_ = 0;
#elif defined(_WIN32)
  HANDLE thread_ = nullptr;
#endif
};

inline void BulkRegistry::InteractiveBegin() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (interactive_++ == 0) {
    for (BulkPriority* piece : pieces_) piece->Lower();
  }
}

inline void BulkRegistry::InteractiveEnd() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (interactive_ == 0) return;  // unbalanced: never below zero
  if (--interactive_ == 0) {
    for (BulkPriority* piece : pieces_) piece->Restore();
  }
}

inline bool BulkRegistry::Add(BulkPriority* piece) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const BulkPriority* other : pieces_) {
    if (other->thread_id_ == piece->thread_id_) return false;  // the outer guard already follows
  }
  pieces_.push_back(piece);
  if (interactive_ > 0) piece->Lower();
  return true;
}

inline void BulkRegistry::Remove(BulkPriority* piece) {
  std::lock_guard<std::mutex> lock(mutex_);
  piece->Restore();
  pieces_.erase(std::remove(pieces_.begin(), pieces_.end(), piece), pieces_.end());
}

// One interactive call in flight for as long as it lives (held by the worker's job).
class InteractiveCall {
 public:
  InteractiveCall() { BulkRegistry::Get().InteractiveBegin(); }
  ~InteractiveCall() { BulkRegistry::Get().InteractiveEnd(); }
  InteractiveCall(const InteractiveCall&) = delete;
  InteractiveCall& operator=(const InteractiveCall&) = delete;
};

}  // namespace tradeapi::napi
