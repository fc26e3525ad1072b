// The margin/profit arithmetic behind Calculator, parameterised by where conversion quotes come
// from: Calculator uses the live quotes, the history generator the quotes at the deal's time, so
// that realised profits in the history follow the same rules as order_calc_profit.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

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

// An amount and the currency it is expressed in.
struct Money {
  double amount = 0;
  const std::string* currency = nullptr;
};

// Margin of `lots` at `price` by the symbol's calculation mode, in the currency the formula gives
// (§6.1), neither converted nor rounded. hedged = true prices covered volume: margin_hedged takes
// the place of the contract size (or of the per-lot margin_initial). Throws call_failed for an
// unknown mode.
Money native_margin(const Market& market, const SymbolSpec& s, double lots, double price, bool hedged);

// Deposit currency per unit of the symbol's native margin (the conversion rate of §6.3) for a
// buy- or sell-side position opened at `price`, with conversion quotes from `quote`.
double margin_rate(const Market& market, const SymbolSpec& s, bool buy, double price, const QuoteSource& quote);

// One position (or the order being checked) of a symbol, as MT5's hedged-margin rule sees it: its
// side, volume, open price and the margin conversion rate at its opening.
struct MarginLeg {
  bool buy = true;
  double volume = 0, price = 0, rate = 0;
};

// The margin a hedging account charges for all positions of one symbol (§6.1), in the deposit
// currency, rounded to cents. Prices and rates are volume-weighted per leg:
//  * margin_hedged_use_leg: the larger of the buy leg's and the sell leg's margin;
//  * otherwise the uncovered volume |buy - sell| at the larger leg's average price and rate, plus
//    the covered volume min(buy, sell) at margin_hedged per lot, at the average price and rate
//    of all positions.
double symbol_margin(const Market& market, const SymbolSpec& s, const std::vector<MarginLeg>& legs);

// Maps an order type to its direction for margin purposes: true = buy side. Pending types map to
// their direction like MQL5's OrderCalcMargin example; CLOSE_BY and unknown types throw
// invalid_params.
bool is_buy_side(int64_t order_type);

}  // namespace tradeapi::sim::calc
