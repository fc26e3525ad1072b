// BulkPriority (binding/napi/thread_priority.h): lowers the calling thread's OS priority while it
// lives and restores what it found; never touches another thread; does nothing when the thread
// already runs at bulk priority or lower, or when it could not restore.
#include "napi/thread_priority.h"

#include <gtest/gtest.h>

#include <thread>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

using tradeapi::napi::BulkPriority;
using tradeapi::napi::kBulkNice;

int NiceOf(id_t tid) { return ::getpriority(PRIO_PROCESS, tid); }
id_t Tid() { return static_cast<id_t>(::syscall(SYS_gettid)); }

TEST(BulkPriority, LowersAndRestores) {
  // On a thread of its own, so that the test process's main thread is never changed.
  std::thread([] {
    const id_t tid = Tid();
    const int before = NiceOf(tid);
    ASSERT_LT(before, kBulkNice);
    {
      const BulkPriority bulk;
      if (!BulkPriority::CanRestore(before)) {
        EXPECT_FALSE(bulk.lowered());  // could not undo it: left alone
        EXPECT_EQ(NiceOf(tid), before);
        return;
      }
      EXPECT_TRUE(bulk.lowered());
      EXPECT_EQ(NiceOf(tid), kBulkNice);
    }
    EXPECT_EQ(NiceOf(tid), before);
  }).join();
}

TEST(BulkPriority, OnlyTheCallingThread) {
  const id_t outer = Tid();
  const int outer_before = NiceOf(outer);
  std::thread([outer, outer_before] {
    const BulkPriority bulk;
    EXPECT_EQ(NiceOf(outer), outer_before);
  }).join();
  EXPECT_EQ(NiceOf(outer), outer_before);
}

TEST(BulkPriority, NestedGuardsRestoreInOrder) {
  std::thread([] {
    const id_t tid = Tid();
    const int before = NiceOf(tid);
    if (!BulkPriority::CanRestore(before)) GTEST_SKIP() << "no CAP_SYS_NICE nor RLIMIT_NICE to restore with";
    {
      const BulkPriority outer;
      {
        const BulkPriority inner;  // already at bulk priority: does nothing
        EXPECT_FALSE(inner.lowered());
        EXPECT_EQ(NiceOf(tid), kBulkNice);
      }
      EXPECT_EQ(NiceOf(tid), kBulkNice);  // the inner guard did not restore under the outer one
    }
    EXPECT_EQ(NiceOf(tid), before);
  }).join();
}

TEST(BulkPriority, LeavesALowerPriorityThreadAlone) {
  std::thread([] {
    const id_t tid = Tid();
    ASSERT_EQ(::setpriority(PRIO_PROCESS, tid, kBulkNice + 5), 0);  // raising nice needs no privilege
    {
      const BulkPriority bulk;
      EXPECT_FALSE(bulk.lowered());
      EXPECT_EQ(NiceOf(tid), kBulkNice + 5);
    }
    EXPECT_EQ(NiceOf(tid), kBulkNice + 5);
  }).join();
}

}  // namespace

#else

TEST(BulkPriority, ConstructsAndDestructs) {
  const tradeapi::napi::BulkPriority bulk;
  (void)bulk.lowered();
}

#endif

namespace {

using tradeapi::napi::BulkPriority;

TEST(BulkPriority, NotAskedToLowerDoesNothing) {
  std::thread([] {
    const BulkPriority bulk(false);
    EXPECT_FALSE(bulk.lowered());
#if defined(__linux__)
    EXPECT_LT(::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid))), tradeapi::napi::kBulkNice);
#endif
  }).join();
}

TEST(BulkPriority, InteractiveRecentlyAfterANoteOnly) {
  using namespace std::chrono;
  // Older than the window: not recent.
  tradeapi::napi::LastInteractiveNs().store(tradeapi::napi::NowNs() - duration_cast<nanoseconds>(tradeapi::napi::kInteractiveWindow).count() - 1);
  EXPECT_FALSE(tradeapi::napi::InteractiveRecently());
  tradeapi::napi::NoteInteractive();
  EXPECT_TRUE(tradeapi::napi::InteractiveRecently());
}

}  // namespace
