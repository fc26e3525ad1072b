// Series leave the terminal as columns: one contiguous typed buffer per field, so that the
// JS side can wrap each buffer as an external ArrayBuffer (no copy) and then as an Arrow vector.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace tradeapi {

// std::allocator, except that a value-initialisation (resize(n), emplace_back()) default-initialises
// instead: producers size a column and then write every row through data(), and for the arithmetic
// types of the columns the zero-fill that resize would do first was pure waste (~6 % of the CPU of
// a big tick pull, as __memset). Anything constructed from a value (push_back, assign, insert) is
// unchanged. Only use resize(n) where every new row is written before it is read.
template <typename T>
struct DefaultInitAllocator {
  using value_type = T;
  DefaultInitAllocator() noexcept = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT: allocators convert implicitly
  T* allocate(size_t n) { return std::allocator<T>().allocate(n); }
  void deallocate(T* p, size_t n) noexcept { std::allocator<T>().deallocate(p, n); }
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <typename T, typename U>
bool operator==(const DefaultInitAllocator<T>&, const DefaultInitAllocator<U>&) noexcept { return true; }
template <typename T, typename U>
bool operator!=(const DefaultInitAllocator<T>&, const DefaultInitAllocator<U>&) noexcept { return false; }

// The storage of one column (of ticks or bars alike, so that one buffer pool serves both).
template <typename T>
using Column = std::vector<T, DefaultInitAllocator<T>>;

struct TickColumns {
  Column<int64_t> time;       // seconds, == time_msc / 1000
  Column<double> bid, ask, last;
  Column<uint64_t> volume;
  Column<int64_t> time_msc;
  Column<uint32_t> flags;     // TICK_FLAG_* bits of what changed
  Column<double> volume_real;

  size_t rows() const { return time.size(); }
  void reserve(size_t n) {
    time.reserve(n); bid.reserve(n); ask.reserve(n); last.reserve(n); volume.reserve(n);
    time_msc.reserve(n); flags.reserve(n); volume_real.reserve(n);
  }
};

struct RateColumns {
  Column<int64_t> time;       // bar open time, seconds
  Column<double> open, high, low, close;
  Column<uint64_t> tick_volume;
  Column<int32_t> spread;     // minimum spread in the bar, points
  Column<uint64_t> real_volume;

  size_t rows() const { return time.size(); }
  void reserve(size_t n) {
    time.reserve(n); open.reserve(n); high.reserve(n); low.reserve(n); close.reserve(n);
    tick_volume.reserve(n); spread.reserve(n); real_volume.reserve(n);
  }
};

// A forward-only reader over a series. Each call fills `out` (cleared first) with at most
// `max_rows` rows, ascending in time, and returns false once nothing is left (out then empty).
template <typename Columns>
class SeriesCursor {
 public:
  virtual ~SeriesCursor() = default;
  virtual bool next(size_t max_rows, Columns& out) = 0;
};

using TickCursor = SeriesCursor<TickColumns>;
using RateCursor = SeriesCursor<RateColumns>;

}  // namespace tradeapi
