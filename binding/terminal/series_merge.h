// The k-way merge of several symbols' series into one, in time order (issue 36 §2): the rows of
// each source stay in their order, rows of equal time go in source order (the order the symbols
// were listed). Works on whatever column chunks the sources hand over (simulator, bridge, store
// alike): only their time key is read to plan the merge, then every column is gathered by runs.
//
// A source's chunk is a window of its series: the merge may only go on while every source still
// has rows in its window (the next chunk of an exhausted source could hold earlier rows than the
// others' remaining ones), so plan_merge stops right after the run that empties a window; the
// caller refills that source (or drops it once its series has ended) and merges on.
#pragma once
#include <algorithm>
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

// `rows` rows of sources[source], from row `from` on, go next in the output.
struct MergeRun {
  uint32_t source;
  size_t from;
  size_t rows;
};

// Appends to `runs` the next rows in merged order, at most `max_rows`, stopping after the run that
// empties a source's window; returns the rows planned. Plans nothing when a window is empty already.
size_t plan_merge(std::vector<MergeSource>& sources, size_t max_rows, std::vector<MergeRun>& runs);

// One column gathered by the runs: out[at ...] = the runs' rows of the sources' arrays `in`.
template <typename T>
void gather_runs(const std::vector<MergeRun>& runs, const T* const* in, T* out) {
  for (const MergeRun& r : runs) {
    const T* src = in[r.source] + r.from;
    if (r.rows == 1) *out = *src;
    else std::copy_n(src, r.rows, out);
    out += r.rows;
  }
}

// The symbol column of the runs: each run's source id, repeated.
void fill_source_ids(const std::vector<MergeRun>& runs, const std::vector<MergeSource>& sources, uint16_t* out);

}  // namespace tradeapi
