// Process-wide allocator settings for a long-running server that hands large, short-lived column
// buffers between threads (see allocator.cpp).
#pragma once

namespace tradeapi::napi {

/** Applies the settings once per process; later calls do nothing. */
void TuneAllocator();

}  // namespace tradeapi::napi
