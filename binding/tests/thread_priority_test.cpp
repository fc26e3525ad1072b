// BulkPriority and InteractiveCall (binding/napi/thread_priority.h): a bulk piece's thread runs at
// bulk priority exactly while an interactive call is in flight, whether the call began before or
// during the piece, and goes back to what it was as soon as none is; only the piece's own thread
// is touched; a thread already at bulk priority or lower, a nested guard, and a thread whose
// priority could not be restored are left alone.
#include "napi/thread_priority.h"

#include <gtest/gtest.h>

#include <optional>
#include <thread>

namespace {

using tradeapi::napi::BulkPriority;
using tradeapi::napi::BulkRegistry;
using tradeapi::napi::InteractiveCall;

TEST(BulkPriority, InteractiveCallsBalance) {
  const int before = BulkRegistry::Get().interactive();
  {
    const InteractiveCall a;
    const InteractiveCall b;
    EXPECT_EQ(BulkRegistry::Get().interactive(), before + 2);
  }
  EXPECT_EQ(BulkRegistry::Get().interactive(), before);
}

TEST(BulkPriority, NotTrackedDoesNothing) {
  std::thread([] {
    BulkPriority bulk(false);
    const InteractiveCall call;
    EXPECT_FALSE(bulk.tracked());
    EXPECT_FALSE(bulk.lowered());
  }).join();
}

}  // namespace

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

using tradeapi::napi::kBulkNice;

int NiceOf(id_t tid) { return ::getpriority(PRIO_PROCESS, tid); }
id_t Tid() { return static_cast<id_t>(::syscall(SYS_gettid)); }

TEST(BulkPriority, NoInteractiveCallNoChange) {
  // On a thread of its own, so that the test process's main thread is never changed.
  std::thread([] {
    const id_t tid = Tid();
    const int before = NiceOf(tid);
    ASSERT_LT(before, kBulkNice);
    BulkPriority bulk;
    EXPECT_FALSE(bulk.lowered());
    EXPECT_EQ(NiceOf(tid), before);  // a lone pull runs at full priority, also on a loaded host
  }).join();
}

TEST(BulkPriority, LoweredWhileACallIsInFlightOnly) {
  std::thread([] {
    const id_t tid = Tid();
    const int before = NiceOf(tid);
    BulkPriority bulk;
    if (!BulkPriority::CanRestore(before)) {
      EXPECT_FALSE(bulk.tracked());  // could not undo it: left alone
      const InteractiveCall call;
      EXPECT_EQ(NiceOf(tid), before);
      return;
    }
    {
      std::optional<InteractiveCall> first(std::in_place);
      EXPECT_TRUE(bulk.lowered());
      EXPECT_EQ(NiceOf(tid), kBulkNice);
      {
        const InteractiveCall second;  // overlapping calls: still lowered, once
        EXPECT_EQ(NiceOf(tid), kBulkNice);
      }
      EXPECT_EQ(NiceOf(tid), kBulkNice);  // `first` still waits
      first.reset();
      EXPECT_FALSE(bulk.lowered());
      EXPECT_EQ(NiceOf(tid), before);  // no call left: back at once, the piece still running
    }
  }).join();
}

TEST(BulkPriority, APieceStartedDuringACallStartsLowAndRestoresAtItsEnd) {
  std::thread([] {
    const id_t tid = Tid();
    const int before = NiceOf(tid);
    if (!BulkPriority::CanRestore(before)) GTEST_SKIP() << "no CAP_SYS_NICE nor RLIMIT_NICE to restore with";
    const InteractiveCall call;
    {
      BulkPriority bulk;
      EXPECT_TRUE(bulk.lowered());
      EXPECT_EQ(NiceOf(tid), kBulkNice);
    }
    EXPECT_EQ(NiceOf(tid), before);  // the piece ended while the call was still in flight
  }).join();
}

TEST(BulkPriority, OnlyThePiecesThread) {
  const id_t outer = Tid();
  const int outer_before = NiceOf(outer);
  std::thread([outer, outer_before] {
    BulkPriority bulk;
    const InteractiveCall call;
    EXPECT_EQ(NiceOf(outer), outer_before);
  }).join();
  EXPECT_EQ(NiceOf(outer), outer_before);
}

TEST(BulkPriority, NestedGuardsFollowTheOuterOne) {
  std::thread([] {
    const id_t tid = Tid();
    const int before = NiceOf(tid);
    if (!BulkPriority::CanRestore(before)) GTEST_SKIP() << "no CAP_SYS_NICE nor RLIMIT_NICE to restore with";
    BulkPriority outer;
    const InteractiveCall call;
    {
      BulkPriority inner;
      EXPECT_FALSE(inner.tracked());
      EXPECT_EQ(NiceOf(tid), kBulkNice);
    }
    EXPECT_EQ(NiceOf(tid), kBulkNice);  // the inner guard did not restore under the outer one
    EXPECT_TRUE(outer.lowered());
  }).join();
}

TEST(BulkPriority, LeavesALowerPriorityThreadAlone) {
  std::thread([] {
    const id_t tid = Tid();
    ASSERT_EQ(::setpriority(PRIO_PROCESS, tid, kBulkNice + 5), 0);  // raising nice needs no privilege
    {
      BulkPriority bulk;
      const InteractiveCall call;
      EXPECT_FALSE(bulk.tracked());
      EXPECT_EQ(NiceOf(tid), kBulkNice + 5);
    }
    EXPECT_EQ(NiceOf(tid), kBulkNice + 5);
  }).join();
}

}  // namespace

#else

TEST(BulkPriority, ConstructsAndDestructs) {
  tradeapi::napi::BulkPriority bulk;
  const tradeapi::napi::InteractiveCall call;
  (void)bulk.lowered();
}

#endif
