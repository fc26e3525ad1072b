// Builds the demo account's state deterministically from the config: a year of closed trades,
// cancelled pending orders, the open positions and active pending orders, all with consistent
// tickets (mt5-reference §4.6-4.8, §4.11).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../terminal/records.h"
#include "market.h"

namespace tradeapi::sim {

struct AccountState {
  std::vector<TradePosition> positions;   // price_current/profit are left for the live view
  std::vector<TradeOrder> orders;         // active pending orders
  std::vector<TradeOrder> history_orders; // ascending time_setup (== ascending ticket)
  std::vector<TradeDeal> history_deals;   // ascending time (== ascending ticket)
  // Where the account's life starts (ledger.h): the generated history ends here and events after
  // it are played as the clock advances. 0 = a fixed state that never changes (tests).
  int64_t live_from_msc = 0;
  std::vector<std::string> symbols;       // what the trading schedule trades
};

// What the simulated broker charges per side of a deal, cents (negative): 3.50 per lot on FX.
int64_t commission_cents(const SymbolSpec& s, double volume);
// The filling a Python script would use for a market order on this symbol.
int64_t market_filling(const SymbolSpec& s);

// End of the generated history, seconds: config.account_anchor, or the start of the current UTC
// day of the market clock when it is 0.
int64_t account_anchor(const Market& market);

// With demo_trades == false: only the deposit of config.balance. Otherwise the full demo account.
// Invariant: the sum of profit + commission + swap + fee over all deals == config.balance (cents).
AccountState generate_account(const Market& market);

}  // namespace tradeapi::sim
