// The margin/profit arithmetic behind Calculator, parameterised by where conversion quotes come
// from: Calculator uses the live quotes, the history generator the quotes at the deal's time, so
// that realised profits in the history follow the same rules as order_calc_profit.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "market.h"

namespace tradeapi::sim::calc {

// Returns the quote of a conversion symbol (live or historical).
using QuoteSource = std::function<Tick(const SymbolSpec&)>;

// What a conversion is for; it decides which side of a conversion pair is used (§6.3, [U]).
enum class Purpose {
  MarginBuy,   // margin of a buy-side order: the pair's ask
  MarginSell,  // margin of a sell-side order: the pair's bid
  Profit,      // realised/floating profit: the side that makes the result conservative
};

// The price of the symbol being calculated, used when that symbol is itself the conversion pair
// (§6.3: GBPUSD margin at the order price, USDJPY profit at the trade's own close price).
struct OwnPrice {
  const SymbolSpec* symbol = nullptr;
  double price = 0;
};

// Converts `amount` in currency `from` to the deposit currency. Throws call_failed when no
// direct pair and no two-leg cross via USD exists. Not rounded.
double to_deposit(const Market& market, double amount, const std::string& from, Purpose purpose,
                  const OwnPrice& own, const QuoteSource& quote);

// Margin of one new order in the deposit currency, rounded to cents (§6.1). Validates arguments
// (throws invalid_params).
double margin(const Market& market, int64_t order_type, const SymbolSpec& s, double volume, double price,
              const QuoteSource& quote);

// Profit in the deposit currency, rounded to cents (§6.2); only ORDER_TYPE_BUY/SELL.
double profit(const Market& market, int64_t order_type, const SymbolSpec& s, double volume, double price_open,
              double price_close, const QuoteSource& quote);

// Maps an order type to its direction for margin purposes: true = buy side. Pending types map to
// their direction like MQL5's OrderCalcMargin example; CLOSE_BY and unknown types throw
// invalid_params.
bool is_buy_side(int64_t order_type);

}  // namespace tradeapi::sim::calc
