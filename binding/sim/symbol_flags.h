// Bit flags of SymbolInfo.filling_mode / expiration_mode / order_mode. MQL5 values; the Python
// package does not export them, so constants.h deliberately omits them (mt5-reference §5.6).
#pragma once
#include <cstdint>

namespace tradeapi::sim::flags {

inline constexpr int64_t kFillingFok = 1, kFillingIoc = 2, kFillingBoc = 4;
inline constexpr int64_t kExpirationGtc = 1, kExpirationDay = 2, kExpirationSpecified = 4,
                         kExpirationSpecifiedDay = 8;
inline constexpr int64_t kOrderMarket = 1, kOrderLimit = 2, kOrderStop = 4, kOrderStopLimit = 8, kOrderSl = 16,
                         kOrderTp = 32, kOrderCloseBy = 64;

}  // namespace tradeapi::sim::flags
