// BulkPriority: an RAII guard that lowers the OS scheduling priority of the calling thread for the
// duration of one piece of bulk work (a Parquet row group, a JSON piece, a series page on the
// terminal's worker), and restores the priority it found when it goes out of scope.
//
// Why: on a machine with few cores, a big pull's encoders (libuv pool threads, zstd) and the
// terminal's worker compete for the CPU with the JS thread that parses and answers interactive
// requests (the last tick, /health). Queue order alone cannot help there: the kernel decides who
// runs. A bulk thread at a lower priority still gets every idle cycle (a lone pull is as fast), but
// yields to the JS thread and to interactive work when both want a core.
//
// Linux: setpriority(PRIO_PROCESS, gettid(), nice) sets one thread's nice value (threads are
// scheduled entities there). Raising it needs no privilege; lowering it back to what it was needs
// CAP_SYS_NICE (root has it) or an RLIMIT_NICE soft limit r with 20 - r <= the old nice value
// (`ulimit -e 20` allows going back to 0). So the guard never lowers a priority it could not
// restore: without either (the usual unprivileged default is r = 0) it does nothing at all.
// Windows: SetThreadPriority(THREAD_PRIORITY_BELOW_NORMAL), restored to what GetThreadPriority
// said. Elsewhere (macOS...): nothing.
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

#include <atomic>
#include <chrono>
#include <cstdint>

namespace tradeapi::napi {

// The nice value bulk work runs at (Linux): 10 is the conventional "background" level. The
// scheduler's weight of nice 10 is ~1/10 of nice 0, so a bulk thread that shares a core with the
// JS thread takes ~10 % of it while the JS thread has work, and all of it otherwise.
inline constexpr int kBulkNice = 10;

// Interactive work seen lately: a bulk job lowers its priority only then, so that a lone big pull
// with nothing else to serve runs at full priority (on a machine shared with other processes a
// nice-10 thread would yield to all of them, not only to our JS thread). Interactive calls note
// themselves (TerminalWrap::Call: every terminal call but a series' opening); bulk work asks InteractiveRecently() when it starts.
inline constexpr std::chrono::milliseconds kInteractiveWindow{250};

inline std::atomic<int64_t>& LastInteractiveNs() {
  static std::atomic<int64_t> last{INT64_MIN / 2};
  return last;
}

inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline void NoteInteractive() { LastInteractiveNs().store(NowNs(), std::memory_order_relaxed); }

inline bool InteractiveRecently() {
  return NowNs() - LastInteractiveNs().load(std::memory_order_relaxed) <
         std::chrono::duration_cast<std::chrono::nanoseconds>(kInteractiveWindow).count();
}

class BulkPriority {
 public:
  // lower = false: does nothing (the call sites pass InteractiveRecently()).
  explicit BulkPriority(bool lower = true) {
    if (!lower) return;
#if defined(__linux__)
    tid_ = static_cast<id_t>(::syscall(SYS_gettid));
    errno = 0;
    const int before = ::getpriority(PRIO_PROCESS, tid_);
    if (before == -1 && errno != 0) return;
    if (before >= kBulkNice) return;  // already at or below bulk priority: nothing to do
    if (!CanRestore(before)) return;  // could not undo it: leave the thread as it is
    if (::setpriority(PRIO_PROCESS, tid_, kBulkNice) != 0) return;
    before_ = before;
    lowered_ = true;
#elif defined(_WIN32)
    thread_ = ::GetCurrentThread();
    const int before = ::GetThreadPriority(thread_);
    if (before == THREAD_PRIORITY_ERROR_RETURN || before <= THREAD_PRIORITY_BELOW_NORMAL) return;
    if (!::SetThreadPriority(thread_, THREAD_PRIORITY_BELOW_NORMAL)) return;
    before_ = before;
    lowered_ = true;
#endif
  }

  ~BulkPriority() {
    if (!lowered_) return;
#if defined(__linux__)
    ::setpriority(PRIO_PROCESS, tid_, before_);
#elif defined(_WIN32)
    ::SetThreadPriority(thread_, before_);
#endif
  }

  BulkPriority(const BulkPriority&) = delete;
  BulkPriority& operator=(const BulkPriority&) = delete;

  // Whether this guard changed the thread's priority (and will restore it).
  bool lowered() const { return lowered_; }

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
  bool lowered_ = false;
  int before_ = 0;
#if defined(__linux__)
  id_t tid_ = 0;
#elif defined(_WIN32)
  HANDLE thread_ = nullptr;
#endif
};

}  // namespace tradeapi::napi
