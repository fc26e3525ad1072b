// The simulated broker's symbols, in server order (Forex majors first, as MetaQuotes-Demo lists
// them), with specifications modelled on typical retail ECN brokers. Live fields (bid, ask, time,
// spread, day statistics) stay 0 here; Market::symbol_info fills them.
#include <map>
#include <string>
#include <vector>

#include "../terminal/constants.h"
#include "factor_model.h"
#include "market.h"

namespace tradeapi::sim {

namespace {

namespace m = tradeapi::mt5;

// Bit flags the package does not export (mt5-reference §5.6).
constexpr int64_t kFillingFokIoc = 1 | 2;
constexpr int64_t kExpirationAll = 1 | 2 | 4 | 8;  // GTC, DAY, SPECIFIED, SPECIFIED_DAY
constexpr int64_t kOrderModeAll = 127;

double pow10_neg(int64_t digits) {
  double p = 1.0;
  for (int64_t i = 0; i < digits; ++i) p *= 10.0;
  return 1.0 / p;
}

// Fields shared by every symbol of this server.
SymbolSpec common(const std::string& name, const std::string& description, const std::string& path, int64_t digits,
                  double contract_size) {
  SymbolSpec s;
  SymbolInfo& i = s.info;
  i.name = name;
  i.description = description;
  i.path = path;
  i.custom = false;
  i.chart_mode = 0;  // SYMBOL_CHART_MODE_BID: bars are built from bids
  i.digits = digits;
  i.point = pow10_neg(digits);
  i.trade_tick_size = i.point;
  i.trade_contract_size = contract_size;
  i.margin_hedged = contract_size;  // hedged volume charged as a full lot (no discount)
  i.spread_float = true;
  i.ticks_bookdepth = 10;
  i.trade_mode = m::SYMBOL_TRADE_MODE_FULL;
  i.trade_exemode = m::SYMBOL_TRADE_EXECUTION_MARKET;
  i.filling_mode = kFillingFokIoc;
  i.expiration_mode = kExpirationAll;
  i.order_mode = kOrderModeAll;
  i.order_gtc_mode = 0;  // SYMBOL_ORDERS_GTC
  i.swap_mode = 1;       // SYMBOL_SWAP_MODE_POINTS
  i.swap_rollover3days = 3;  // Wednesday
  i.trade_stops_level = 0;
  i.trade_freeze_level = 0;
  i.bank = "Tradeapi Liquidity";
  return s;
}

// Price level and volatility come from the factor model (factor_model.cpp): a pair is the ratio of
// its currencies' USD values, which is what keeps the crosses in line with the majors.
SymbolSpec forex(const std::string& base, const std::string& quote, const std::string& description,
                 double spread_points, double swap_long, double swap_short, int64_t stops_level = 0) {
  const std::string name = base + quote;
  const int64_t digits = quote == "JPY" ? 3 : 5;
  SymbolSpec s = common(name, description, "Forex\\" + name, digits, 100000.0);
  SymbolInfo& i = s.info;
  i.trade_calc_mode = m::SYMBOL_CALC_MODE_FOREX;
  i.currency_base = base;
  i.currency_profit = quote;
  i.currency_margin = base;
  i.volume_min = 0.01;
  i.volume_max = 500.0;
  i.volume_step = 0.01;
  i.swap_long = swap_long;
  i.swap_short = swap_short;
  i.trade_stops_level = stops_level;
  i.category = "Forex";
  i.basis = name;
  s.base_price = factors::usd_level(base) / factors::usd_level(quote);
  s.drivers = factors::pair_drivers(base, quote);
  s.volatility = factors::total_vol(s.drivers);
  s.spread_points = spread_points;
  s.session = SessionKind::Forex;
  return s;
}

SymbolSpec metal(const std::string& name, const std::string& description, int64_t digits, double contract_size,
                 double price, double spread_points, double swap_long, double swap_short,
                 std::vector<Driver> drivers) {
  SymbolSpec s = common(name, description, "Metals\\" + name, digits, contract_size);
  SymbolInfo& i = s.info;
  i.trade_calc_mode = m::SYMBOL_CALC_MODE_CFDLEVERAGE;
  i.currency_base = name.substr(0, 3);
  i.currency_profit = "USD";
  i.currency_margin = "USD";
  i.volume_min = 0.01;
  i.volume_max = 100.0;
  i.volume_step = 0.01;
  i.swap_long = swap_long;
  i.swap_short = swap_short;
  i.trade_stops_level = 10;
  i.category = "Metals";
  i.basis = name;
  s.base_price = price;
  s.drivers = std::move(drivers);
  s.volatility = factors::total_vol(s.drivers);
  s.spread_points = spread_points;
  s.session = SessionKind::Metal;
  return s;
}

SymbolSpec index_cfd(const std::string& name, const std::string& description, const std::string& currency,
                     int64_t digits, double contract_size, double price, double volatility, double spread_points,
                     const std::string& exchange, double equity_beta) {
  SymbolSpec s = common(name, description, "Indices\\" + name, digits, contract_size);
  SymbolInfo& i = s.info;
  i.trade_calc_mode = m::SYMBOL_CALC_MODE_CFD;  // L * CS * P: CFDINDEX would need TV/TS in the same currency
  i.currency_base = currency;
  i.currency_profit = currency;
  i.currency_margin = currency;
  i.volume_min = 0.1;
  i.volume_max = 100.0;
  i.volume_step = 0.1;
  i.swap_long = -4.5;
  i.swap_short = -1.2;
  i.trade_stops_level = 20;
  s.margin_rate = 0.05;  // 1:20, the retail index CFD leverage (e.g. ESMA's cap for major indices)
  i.category = "Indices";
  i.exchange = exchange;
  i.basis = name;
  s.base_price = price;
  s.volatility = volatility;
  s.drivers = factors::asset_drivers(name, volatility, {{factors::kEquity, equity_beta}});
  s.spread_points = spread_points;
  // Hours of the futures the CFD follows: Eurex for DE40, ICE London for UK100, CME Globex for
  // the US indices and JP225 (its CFDs usually track the CME's Nikkei contract).
  s.session = exchange == "EUREX" ? SessionKind::IndexDE : exchange == "ICE" ? SessionKind::IndexUK : SessionKind::IndexUS;
  return s;
}

SymbolSpec stock(const std::string& name, const std::string& description, const std::string& isin,
                 const std::string& category, double price, double volatility, double spread_points) {
  SymbolSpec s = common(name, description, "Stocks\\US\\" + name, 2, 1.0);
  SymbolInfo& i = s.info;
  i.trade_calc_mode = m::SYMBOL_CALC_MODE_CFD;
  i.currency_base = "USD";
  i.currency_profit = "USD";
  i.currency_margin = "USD";
  i.volume_min = 1.0;
  i.volume_max = 5000.0;
  i.volume_step = 1.0;
  i.swap_long = -12.5;
  i.swap_short = -4.0;
  i.trade_stops_level = 5;
  i.ticks_bookdepth = name == "AAPL" || name == "MSFT" ? 10 : 0;  // depth only for the most liquid
  s.margin_rate = 0.20;  // 1:5, the usual share CFD leverage
  i.category = category;
  i.exchange = "NASDAQ";
  i.isin = isin;
  i.page = "https://www.nasdaq.com/market-activity/stocks/" + std::string(1, static_cast<char>(name[0] | 0x20)) +
           name.substr(1);
  i.basis = name;
  s.base_price = price;
  s.volatility = volatility;
  s.drivers = factors::asset_drivers(name, volatility, {{factors::kEquity, 0.55}});
  s.spread_points = spread_points;
  s.session = SessionKind::Stock;
  s.trade_ticks = false;  // an OTC CFD: the broker quotes bid/ask; the exchange's trades are not its data
  return s;
}

// A share traded on the exchange itself (exchange execution, 100 % margin, no swaps): its feed
// carries the exchange's trades (LAST/VOLUME/BUY/SELL ticks, real volume) and charts by LAST.
SymbolSpec exchange_stock(const std::string& name, const std::string& description, const std::string& isin,
                          const std::string& category, double price, double volatility, double spread_points) {
  SymbolSpec s = stock(name, description, isin, category, price, volatility, spread_points);
  SymbolInfo& i = s.info;
  i.path = "Stocks\\NASDAQ\\" + name;
  i.trade_calc_mode = m::SYMBOL_CALC_MODE_EXCH_STOCKS;
  i.trade_exemode = m::SYMBOL_TRADE_EXECUTION_EXCHANGE;
  i.chart_mode = 1;  // SYMBOL_CHART_MODE_LAST
  i.swap_mode = 0;   // SYMBOL_SWAP_MODE_DISABLED: a cash share is not financed
  i.swap_long = 0;
  i.swap_short = 0;
  i.ticks_bookdepth = 10;
  s.margin_rate = 1.0;
  s.trade_ticks = true;
  return s;
}

SymbolSpec crypto(const std::string& base, const std::string& description, double volume_max, double price,
                  double volatility, double spread_points, double margin_rate) {
  const std::string name = base + "USD";
  SymbolSpec s = common(name, description, "Crypto\\" + name, 2, 1.0);
  SymbolInfo& i = s.info;
  // L * CS * P at a margin rate, independent of the account leverage: crypto CFDs are offered at
  // 1:2 to 1:10 whatever the account's FX leverage.
  i.trade_calc_mode = m::SYMBOL_CALC_MODE_CFD;
  s.margin_rate = margin_rate;
  i.currency_base = base;
  i.currency_profit = "USD";
  i.currency_margin = "USD";
  i.volume_min = 0.01;
  i.volume_max = volume_max;
  i.volume_step = 0.01;
  i.swap_mode = 5;  // SYMBOL_SWAP_MODE_INTEREST_CURRENT: crypto financing is a yearly rate
  i.swap_long = -20.0;
  i.swap_short = -20.0;
  i.swap_rollover3days = 5;  // Friday: weekends are charged although crypto trades 24/7
  i.trade_stops_level = 50;
  i.ticks_bookdepth = 5;
  i.category = "Crypto";
  i.basis = name;
  s.base_price = price;
  s.volatility = volatility;
  s.drivers = factors::asset_drivers(name, volatility, {{factors::kEquity, 0.30}});
  s.spread_points = spread_points;
  s.session = SessionKind::Crypto;
  return s;
}

// Static tick values in USD at the catalogue's base prices (the account currency of the default
// config); Market::symbol_info recomputes them live through the conversion rate (§6.3).
void set_static_tick_values(std::vector<SymbolSpec>& all) {
  std::map<std::string, double> usd_per;  // USD value of one unit of a currency
  usd_per["USD"] = 1.0;
  for (const SymbolSpec& s : all) {
    if (s.info.trade_calc_mode != m::SYMBOL_CALC_MODE_FOREX) continue;
    if (s.info.currency_profit == "USD") usd_per[s.info.currency_base] = s.base_price;
    if (s.info.currency_base == "USD") usd_per[s.info.currency_profit] = 1.0 / s.base_price;
  }
  for (SymbolSpec& s : all) {
    SymbolInfo& i = s.info;
    auto it = usd_per.find(i.currency_profit);
    const double rate = it != usd_per.end() ? it->second : 1.0;
    i.trade_tick_value = i.trade_tick_size * i.trade_contract_size * rate;
    i.trade_tick_value_profit = i.trade_tick_value;
    i.trade_tick_value_loss = i.trade_tick_value;
  }
}

}  // namespace

std::vector<SymbolSpec> symbol_catalogue() {
  std::vector<SymbolSpec> all = {
      // Majors                                                          spread swap long/short (points)
      forex("EUR", "USD", "Euro vs US Dollar", 8, -7.2, 1.9),
      forex("GBP", "USD", "Great Britain Pound vs US Dollar", 12, -4.1, -1.3),
      forex("USD", "CHF", "US Dollar vs Swiss Franc", 14, 5.6, -12.4, 5),
      forex("USD", "JPY", "US Dollar vs Japanese Yen", 10, 14.8, -28.9),
      forex("USD", "CAD", "US Dollar vs Canadian Dollar", 15, 1.2, -8.7, 5),
      forex("AUD", "USD", "Australian Dollar vs US Dollar", 10, -3.9, -0.6),
      forex("NZD", "USD", "New Zealand Dollar vs US Dollar", 16, -2.8, -1.1, 5),
      // Crosses
      forex("EUR", "JPY", "Euro vs Japanese Yen", 18, 9.6, -24.1, 5),
      forex("EUR", "GBP", "Euro vs Great Britain Pound", 15, -6.3, 0.8, 5),
      forex("EUR", "CHF", "Euro vs Swiss Franc", 20, 2.1, -9.8, 5),
      forex("EUR", "CAD", "Euro vs Canadian Dollar", 25, -9.4, 1.6, 10),
      forex("EUR", "AUD", "Euro vs Australian Dollar", 28, -12.6, 3.2, 10),
      forex("GBP", "JPY", "Great Britain Pound vs Japanese Yen", 25, 12.3, -31.5, 10),
      forex("GBP", "CHF", "Great Britain Pound vs Swiss Franc", 30, 3.9, -14.2, 10),
      forex("AUD", "JPY", "Australian Dollar vs Japanese Yen", 20, 4.4, -13.8, 10),
      forex("CHF", "JPY", "Swiss Franc vs Japanese Yen", 25, 6.8, -21.7, 10),
      forex("CAD", "JPY", "Canadian Dollar vs Japanese Yen", 22, 5.1, -16.3, 10),
      forex("AUD", "CAD", "Australian Dollar vs Canadian Dollar", 24, -3.2, -4.5, 10),
      forex("NZD", "JPY", "New Zealand Dollar vs Japanese Yen", 24, 3.7, -12.9, 10),
      forex("AUD", "NZD", "Australian Dollar vs New Zealand Dollar", 26, -5.1, -2.4, 10),
      // Metals: gold leans against the dollar; silver follows gold.
      metal("XAUUSD", "Gold vs US Dollar", 2, 100.0, 2000.0, 25, -38.5, 18.2,
            factors::asset_drivers("XAUUSD", 0.15, {{factors::kDollar, 0.45}})),
      metal("XAGUSD", "Silver vs US Dollar", 3, 5000.0, 23.50, 25, -9.6, 2.3,
            factors::asset_drivers("XAGUSD", 0.25, {{factors::kDollar, 0.35}, {"XAUUSD", 0.70}})),
      // Index CFDs (on the global equity factor)                             equity beta
      index_cfd("US500", "US 500 Cash Index", "USD", 2, 1.0, 5000.0, 0.16, 50, "CME", 0.95),
      index_cfd("US30", "Wall Street 30 Cash Index", "USD", 2, 1.0, 38500.0, 0.15, 250, "CME", 0.90),
      index_cfd("USTEC", "US Tech 100 Cash Index", "USD", 2, 1.0, 17500.0, 0.20, 120, "CME", 0.90),
      index_cfd("DE40", "Germany 40 Cash Index", "EUR", 2, 1.0, 17800.0, 0.17, 100, "EUREX", 0.70),
      index_cfd("UK100", "UK 100 Cash Index", "GBP", 2, 1.0, 7700.0, 0.14, 100, "ICE", 0.65),
      index_cfd("JP225", "Japan 225 Cash Index", "JPY", 0, 10.0, 38500.0, 0.20, 8, "OSE", 0.60),
      // Stock CFDs (OTC, cash hours only, quotes without trades)
      stock("AAPL", "Apple Inc.", "US0378331005", "Technology", 185.00, 0.28, 6),
      stock("MSFT", "Microsoft Corporation", "US5949181045", "Technology", 410.00, 0.26, 8),
      stock("TSLA", "Tesla Inc.", "US88160R1014", "Consumer Cyclical", 220.00, 0.55, 10),
      stock("NVDA", "NVIDIA Corporation", "US67066G1040", "Technology", 700.00, 0.50, 12),
      // Exchange-traded shares (NASDAQ, cash hours, with the exchange's trades)
      exchange_stock("AMZN", "Amazon.com Inc.", "US0231351067", "Consumer Cyclical", 175.00, 0.32, 4),
      exchange_stock("GOOGL", "Alphabet Inc. Class A", "US02079K3059", "Communication Services", 150.00, 0.30, 4),
      // Crypto CFDs (24/7)
      crypto("BTC", "Bitcoin vs US Dollar", 20.0, 60000.0, 0.55, 2500, 0.20),   // 1:5
      crypto("ETH", "Ethereum vs US Dollar", 200.0, 3000.0, 0.70, 180, 0.50),   // 1:2
  };
  set_static_tick_values(all);
  return all;
}

}  // namespace tradeapi::sim
