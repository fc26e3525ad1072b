// Column buffers handed to JS come back here when the GC frees their ArrayBuffers, and the worker
// fills later chunks into them. Without it every chunk was fresh memory: with buffers mmapped
// (allocator.cpp) each one is page-faulted and zeroed by the kernel and unmapped again at its free,
// which measured as half the CPU of producing ticks for JS (889 K page faults, 2.1 s of system
// time for 60 M ticks). The pool is bounded (kMaxBytes over all columns), so memory given back by
// the GC beyond it is still returned to the system.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../terminal/columns.h"

namespace tradeapi::napi {

namespace column_pool {
inline constexpr size_t kMaxBytes = size_t{64} << 20;
inline constexpr size_t kMinBytes = size_t{64} << 10;  // smaller buffers come from malloc's arenas cheaply

// For tests and benchmarks (the addon's columnPoolStats()): whether released columns really come back.
struct Stats {
  size_t pooled_bytes;  // capacity held in the free lists now
  uint64_t reused;      // take() calls answered from a free list, since the process started
};
Stats stats();
}  // namespace column_pool

// One free list per element type (a buffer keeps its type: a vector's storage cannot change it).
template <typename T>
class ColumnPool {
 public:
  // Keeps v's storage if the budget allows (cleared, capacity kept); otherwise v frees it.
  static void give(Column<T>&& v);
  // A cleared vector with pooled capacity, or an empty one.
  static Column<T> take();
};

extern template class ColumnPool<int64_t>;
extern template class ColumnPool<uint64_t>;
extern template class ColumnPool<double>;
extern template class ColumnPool<uint32_t>;
extern template class ColumnPool<int32_t>;
extern template class ColumnPool<uint16_t>;

// Every column of a chunk from the pool.
void TakeColumns(TickColumns& c);
void TakeColumns(RateColumns& c);
// The symbol column of a merged chunk (merge_js.cpp), from the pool.
Column<uint16_t> TakeSymbolColumn();

}  // namespace tradeapi::napi
