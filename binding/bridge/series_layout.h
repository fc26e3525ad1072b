// Series rows (docs/bridge-protocol.md §7): SERIES_HEAD's numpy dtype becomes a field table, and
// each SERIES_CHUNK's packed rows are transposed into the columns the simulator also produces
// (one memcpy per field and row, no per-row JS).
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "frame.h"
#include "terminal/columns.h"

namespace tradeapi::bridge {

enum class DType { I8, U8, F8, I4, U4 };
size_t dtype_size(DType t);

struct RowField {
  std::string name;
  DType type;
  size_t offset;
};

struct RowLayout {
  size_t itemsize = 0;
  std::vector<RowField> fields;
};

// {"itemsize": n, "fields": [{"name", "type", "offset"}, ...]}; throws ProtocolError on anything
// else (unknown type string, a field outside the row, itemsize 0).
RowLayout parse_dtype(const nlohmann::json& dtype);

template <typename T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<int64_t>() { return DType::I8; }
template <> constexpr DType dtype_of<uint64_t>() { return DType::U8; }
template <> constexpr DType dtype_of<double>() { return DType::F8; }
template <> constexpr DType dtype_of<int32_t>() { return DType::I4; }
template <> constexpr DType dtype_of<uint32_t>() { return DType::U4; }

// The columns of each series, in the package's field order.
template <typename F> void for_each_column(TickColumns& c, F&& f) {
  f("time", c.time); f("bid", c.bid); f("ask", c.ask); f("last", c.last); f("volume", c.volume);
  f("time_msc", c.time_msc); f("flags", c.flags); f("volume_real", c.volume_real);
}
template <typename F> void for_each_column(RateColumns& c, F&& f) {
  f("time", c.time); f("open", c.open); f("high", c.high); f("low", c.low); f("close", c.close);
  f("tick_volume", c.tick_volume); f("spread", c.spread); f("real_volume", c.real_volume);
}

// Appends packed rows to Columns. Every column must be in the layout with exactly its type.
// Rows are little-endian (the wire order); the addon only builds for little-endian hosts.
template <typename Columns>
class Transposer {
 public:
  explicit Transposer(const RowLayout& layout) : itemsize_(layout.itemsize) {
    Columns probe;
    for_each_column(probe, [&](const char* name, auto& col) {
      using T = typename std::decay_t<decltype(col)>::value_type;
      for (const auto& f : layout.fields) {
        if (f.name != name) continue;
        if (f.type != dtype_of<T>())
          throw ProtocolError(std::string("series field ") + name + " has an unexpected type");
        offsets_.push_back(f.offset);
        return;
      }
      throw ProtocolError(std::string("series dtype lacks field ") + name);
    });
  }

  size_t itemsize() const { return itemsize_; }

  void append(const uint8_t* rows, size_t n, Columns& out) const {
    size_t i = 0;
    for_each_column(out, [&](const char*, auto& col) {
      using T = typename std::decay_t<decltype(col)>::value_type;
      size_t base = col.size();
      col.resize(base + n);
      T* dst = col.data() + base;
      const uint8_t* src = rows + offsets_[i++];
      for (size_t r = 0; r < n; ++r, src += itemsize_) std::memcpy(dst + r, src, sizeof(T));
    });
  }

 private:
  size_t itemsize_;
  std::vector<size_t> offsets_;
};

template <typename Columns>
void clear_columns(Columns& c) {
  for_each_column(c, [](const char*, auto& col) { col.clear(); });
}

}  // namespace tradeapi::bridge
