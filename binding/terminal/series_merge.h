// The k-way merge of several symbols' series into one, in time order (issue 36 §2): the rows of
// each source stay in their order, rows of equal time go in source order (the order the symbols
// were listed). Works on whatever column chunks the sources hand over (simulator, bridge, store
// alike): only their time key is read to plan the merge, then every column is gathered by the plan.
//
// A source's chunk is a window of its series: the merge may only go on while every source still
// has rows in its window (the next chunk of an exhausted source could hold earlier rows than the
// others' remaining ones), so plan_merge stops right after the row that empties a window; the
// caller refills that source (or drops it once its series has ended) and merges on.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tradeapi {

struct MergeSource {
  uint16_t id;           // the symbol's position in the list asked for: the tie-break and the symbol column's value
  const int64_t* key;    // time_msc (ticks) or time (bars), ascending within the source
  size_t from;           // the next row to take (advanced by plan_merge)
  size_t to;             // one past the window's last row
};

// The plan: for each output row, which source (its position in the sources given) and which row.
struct MergeOrder {
  std::vector<uint16_t> source;
  std::vector<uint32_t> row;
  size_t size = 0;
};

// Plans the next rows in merged order, at most `max_rows`, stopping after the row that empties a
// source's window; `order` is overwritten (size: the rows planned). Plans nothing when a window is
// empty already. At most 65536 sources, windows of fewer than 2^32 rows; throws
// std::invalid_argument when the sources' keys span 2^47 or more (4 000+ years of milliseconds).
size_t plan_merge(std::vector<MergeSource>& sources, size_t max_rows, MergeOrder& order);

// One column gathered by the plan: out[i] = in[order.source[i]][order.row[i]].
template <typename T>
void gather(const MergeOrder& order, const T* const* in, T* out) {
  const uint16_t* s = order.source.data();
  const uint32_t* r = order.row.data();
  for (size_t i = 0; i < order.size; ++i) out[i] = in[s[i]][r[i]];
}

// The symbol column of the plan: each row's source id.
void fill_source_ids(const MergeOrder& order, const std::vector<MergeSource>& sources, uint16_t* out);

}  // namespace tradeapi
