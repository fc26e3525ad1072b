// Lazy cursors over generated ticks and bars: rows are produced chunk by chunk, so a range of
// tens of millions of ticks never exists whole in memory. Chunking never changes the rows: the
// concatenation of chunks equals one big chunk. Cursors capture "now" when created, so a cursor
// read slowly still describes one consistent moment.
#pragma once
#include <cstdint>
#include <memory>

#include "../terminal/columns.h"
#include "history.h"
#include "timeframe.h"

namespace tradeapi::sim::detail {

// Ticks with lo_ms <= time_msc <= hi_ms (already clipped to history and now), at most `limit`,
// keeping only ticks whose flags intersect `mask` (0 = all ticks).
std::unique_ptr<TickCursor> make_tick_cursor(const PricePath& path, int64_t lo_ms, int64_t hi_ms, uint64_t limit,
                                             uint32_t mask);

// Bars of `tf` with first_open <= open time <= last_open (ticks up to now_ms), empty bars skipped.
// `trade_volume`: real_volume = sum of trade volumes (exchange-like symbols) instead of 0.
// `by_last`: OHLC of the trade prices (SYMBOL_CHART_MODE_LAST) instead of the bids.
std::unique_ptr<RateCursor> make_rate_cursor(History& history, size_t slot, Timeframe tf, int64_t first_open,
                                             int64_t last_open, int64_t now_ms, bool trade_volume, bool by_last);

}  // namespace tradeapi::sim::detail
