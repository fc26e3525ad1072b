// order_check as a function of its inputs, so that it can be exercised with symbol
// specifications the catalogue does not carry (e.g. a symbol whose trading is disabled).
#pragma once
#include <functional>
#include <string>

#include "trading.h"

namespace tradeapi::sim {

// Resolves a symbol name to its specification; nullptr when unknown.
using SymbolLookup = std::function<const SymbolSpec*(const std::string&)>;

// mt5-reference §7. Business failures come back as a retcode; a malformed request (over-long
// comment, unknown symbol, non-finite number) throws TerminalError invalid_params.
OrderCheckResult check_order(const Market& market, const Calculator& calc, const Account& account,
                             const TradeRequest& request, const SymbolLookup& find_symbol);

}  // namespace tradeapi::sim
