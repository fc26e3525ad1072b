#include "column_pool.h"

#include <mutex>

namespace tradeapi::napi {

namespace {
std::mutex& pool_mutex() {
  static std::mutex m;
  return m;
}
size_t pooled_bytes = 0;  // guarded by pool_mutex()
uint64_t reused = 0;       // guarded by pool_mutex()

template <typename T>
std::vector<Column<T>>& free_list() {
  static std::vector<Column<T>> list;  // guarded by pool_mutex()
  return list;
}
}  // namespace

template <typename T>
void ColumnPool<T>::give(Column<T>&& v) {
  const size_t bytes = v.capacity() * sizeof(T);
  if (bytes < column_pool::kMinBytes) return;
  std::lock_guard<std::mutex> lock(pool_mutex());
  if (pooled_bytes + bytes > column_pool::kMaxBytes) return;  // v's destructor frees it
  pooled_bytes += bytes;
  v.clear();
  free_list<T>().push_back(std::move(v));
}

template <typename T>
Column<T> ColumnPool<T>::take() {
  std::lock_guard<std::mutex> lock(pool_mutex());
  std::vector<Column<T>>& list = free_list<T>();
  if (list.empty()) return {};
  Column<T> v = std::move(list.back());
  list.pop_back();
  pooled_bytes -= v.capacity() * sizeof(T);
  ++reused;
  return v;
}

column_pool::Stats column_pool::stats() {
  std::lock_guard<std::mutex> lock(pool_mutex());
  return {pooled_bytes, reused};
}

template class ColumnPool<int64_t>;
template class ColumnPool<uint64_t>;
template class ColumnPool<double>;
template class ColumnPool<uint32_t>;
template class ColumnPool<int32_t>;
template class ColumnPool<uint16_t>;

Column<uint16_t> TakeSymbolColumn() { return ColumnPool<uint16_t>::take(); }

void TakeColumns(TickColumns& c) {
  c.time = ColumnPool<int64_t>::take();
  c.bid = ColumnPool<double>::take();
  c.ask = ColumnPool<double>::take();
  c.last = ColumnPool<double>::take();
  c.volume = ColumnPool<uint64_t>::take();
  c.time_msc = ColumnPool<int64_t>::take();
  c.flags = ColumnPool<uint32_t>::take();
  c.volume_real = ColumnPool<double>::take();
}

void TakeColumns(RateColumns& c) {
  c.time = ColumnPool<int64_t>::take();
  c.open = ColumnPool<double>::take();
  c.high = ColumnPool<double>::take();
  c.low = ColumnPool<double>::take();
  c.close = ColumnPool<double>::take();
  c.tick_volume = ColumnPool<uint64_t>::take();
  c.spread = ColumnPool<int32_t>::take();
  c.real_volume = ColumnPool<uint64_t>::take();
}

}  // namespace tradeapi::napi
