// Conversion of margin and profit amounts into the deposit currency (mt5-reference §6.3).
#include <optional>

#include "../terminal/constants.h"
#include "../terminal/errors.h"
#include "calc_math.h"

namespace tradeapi::sim::calc {
namespace {

// The currency crossed through when no direct pair exists (most pairs are quoted against it).
const char* const kCrossCurrency = "USD";

bool is_forex_mode(const SymbolSpec& s) {
  const int64_t mode = s.info.trade_calc_mode;
  return mode == mt5::SYMBOL_CALC_MODE_FOREX || mode == mt5::SYMBOL_CALC_MODE_FOREX_NO_LEVERAGE;
}

// A conversion pair between two currencies: from/to (multiply by its price) or to/from (divide).
struct Pair {
  const SymbolSpec* spec = nullptr;
  bool multiply = true;
};

std::optional<Pair> pair_of(const SymbolSpec& s, const std::string& from, const std::string& to) {
  if (!is_forex_mode(s)) return std::nullopt;
  if (s.info.currency_base == from && s.info.currency_profit == to) return Pair{&s, true};
  if (s.info.currency_base == to && s.info.currency_profit == from) return Pair{&s, false};
  return std::nullopt;
}

// The book's reference implementation searches Market Watch for a FOREX-mode symbol; the symbol
// being calculated is tried first so that its own price is used when it is the pair (§6.3).
std::optional<Pair> find_pair(const Market& market, const std::string& from, const std::string& to,
                              const OwnPrice& own) {
  if (own.symbol != nullptr) {
    if (auto p = pair_of(*own.symbol, from, to)) return p;
  }
  for (const SymbolSpec& s : market.symbols()) {
    if (auto p = pair_of(s, from, to)) return p;
  }
  return std::nullopt;
}

// Which side of the pair is used [U — inferred from recorded numbers, §6.3]:
//  * margin: the side the order trades on, ask for buy-side orders and bid for sell-side ones;
//  * profit: the conservative side, i.e. the one giving the smaller profit or the larger loss.
//    Dividing by the higher ask (or multiplying by the lower bid) shrinks a profit; the other side
//    enlarges a loss. This reproduces the recorded EURJPY tick values on a USD account (profit
//    converted at USDJPY ask, loss at bid).
bool use_ask(Purpose purpose, double amount, bool multiply) {
  switch (purpose) {
    case Purpose::MarginBuy: return true;
    case Purpose::MarginSell: return false;
    case Purpose::Profit: return (amount >= 0) != multiply;
  }
  return true;
}

double convert_leg(double amount, const Pair& pair, Purpose purpose, const OwnPrice& own, const QuoteSource& quote) {
  double rate = 0;
  if (pair.spec == own.symbol) {
    rate = own.price;
  } else {
    const Tick t = quote(*pair.spec);
    rate = use_ask(purpose, amount, pair.multiply) ? t.ask : t.bid;
  }
  if (!(rate > 0)) throw TerminalError::call_failed();  // no usable quote for the conversion
  return pair.multiply ? amount * rate : amount / rate;
}

}  // namespace

double to_deposit(const Market& market, double amount, const std::string& from, Purpose purpose,
                  const OwnPrice& own, const QuoteSource& quote) {
  const std::string& deposit = market.config().currency;
  if (from.empty() || from == deposit) return amount;
  if (auto direct = find_pair(market, from, deposit, own)) return convert_leg(amount, *direct, purpose, own, quote);
  // Two legs through USD, e.g. CHF -> USD -> EUR when CHFEUR/EURCHF are missing.
  if (from != kCrossCurrency && deposit != kCrossCurrency) {
    auto first = find_pair(market, from, kCrossCurrency, own);
    auto second = find_pair(market, kCrossCurrency, deposit, own);
    if (first && second) {
      const double in_usd = convert_leg(amount, *first, purpose, own, quote);
      return convert_leg(in_usd, *second, purpose, own, quote);
    }
  }
  throw TerminalError::call_failed();
}

}  // namespace tradeapi::sim::calc
