// The trading schedule (trading_schedule.h). Time is cut into slots of 1/trades_per_hour hours;
// each slot holds one action at a hashed instant, and a hash of (seed, slot) picks what it does.
// An action that cannot be done then (market closed, nothing to close) is skipped, as an expert
// advisor's OnTick would do nothing.
#include "trading_schedule.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "../terminal/constants.h"
#include "../terminal/errors.h"
#include "hash.h"
#include "ledger.h"
#include "money.h"
#include "sim_time.h"

namespace tradeapi::sim::schedule {
namespace {

using detail::floor_div;

constexpr uint64_t kScheduleKey = 0x5C4ED01E5EEDull;
constexpr size_t kMaxPositions = 10;
constexpr size_t kMaxOrders = 8;
const std::array<int64_t, 3> kMagics = {0, 234000, 100500};

int64_t slot_ms(const SimConfig& c) { return std::max<int64_t>(1, std::llround(3'600'000.0 / c.trades_per_hour)); }

// The action instant of a slot: somewhere inside it, by hash.
int64_t action_in(const SimConfig& c, int64_t slot) {
  const int64_t len = slot_ms(c);
  return slot * len + static_cast<int64_t>(detail::hash2(c.seed ^ kScheduleKey, static_cast<uint64_t>(slot)) %
                                           static_cast<uint64_t>(len));
}

double on_grid(const SymbolSpec& s, double price) {
  const double tick = s.info.trade_tick_size > 0 ? s.info.trade_tick_size : s.info.point;
  return round_price(tick > 0 ? std::round(price / tick) * tick : price, s.info.digits);
}

double lots(const SymbolSpec& s, uint64_t h) {
  const double min = s.info.volume_min;
  const double step = s.info.volume_step > 0 ? s.info.volume_step : min;
  double v = min * static_cast<double>(1 + h % 3);
  if (s.info.volume_max > 0) v = std::min(v, s.info.volume_max);
  v = std::max(min, std::round(v / step) * step);
  return std::round(v * 1e8) / 1e8;
}

// A fraction in [lo, hi) from a hash.
double between(uint64_t h, double lo, double hi) { return lo + (hi - lo) * detail::unit(h); }

// The quote a trade would take at msc; nothing while the symbol's market is closed.
std::optional<Tick> tradable_quote(const Market& market, const SymbolSpec* s, int64_t msc) {
  if (s == nullptr || !market.is_open(*s, msc)) return std::nullopt;
  try {
    return market.tick_at(*s, msc);
  } catch (const TerminalError&) {
    return std::nullopt;
  }
}

// Draws from one slot's hash: r(1), r(2)... are independent.
struct Draw {
  uint64_t key;
  uint64_t operator()(uint64_t k) const { return detail::hash2(key, k); }
};

void open_position(Ledger& ledger, const Market& market, const Draw& r, int64_t msc) {
  if (ledger.symbols().empty() || ledger.positions().size() >= kMaxPositions) return;
  const SymbolSpec* s = market.find(ledger.symbols()[r(1) % ledger.symbols().size()]);
  const std::optional<Tick> t = tradable_quote(market, s, msc);
  if (!t) return;
  const bool buy = r(2) % 2 == 0;
  const double volume = lots(*s, r(3));
  // Keep the margin modest next to the balance, as the generated account does.
  calc::MarginLeg leg;
  leg.buy = buy;
  leg.volume = volume;
  leg.price = buy ? t->ask : t->bid;
  try {
    leg.rate = calc::margin_rate(market, *s, buy, leg.price, [&](const SymbolSpec& q) { return market.tick_at(q, msc); });
  } catch (const TerminalError&) {
    return;
  }
  if (ledger.margin(s, &leg) > 0.3 * static_cast<double>(ledger.balance_cents()) / 100.0) return;
  double sl = 0, tp = 0;
  if (r(4) % 2 == 0) {
    const double away = between(r(5), 0.004, 0.02);
    sl = on_grid(*s, leg.price * (buy ? 1.0 - away : 1.0 + away));
    tp = on_grid(*s, leg.price * (buy ? 1.0 + 1.5 * away : 1.0 - 1.5 * away));
  }
  ledger.open(*s, buy, volume, sl, tp, kMagics[r(6) % kMagics.size()], msc);
}

void close_position(Ledger& ledger, const Market& market, const Draw& r, int64_t msc, bool partial) {
  if (ledger.positions().empty()) return;
  const size_t k = r(1) % ledger.positions().size();
  const TradePosition& p = ledger.positions()[k].record;
  const SymbolSpec* s = market.find(p.symbol);
  if (s == nullptr) return;
  double volume = p.volume;
  if (partial) {
    const double step = s->info.volume_step > 0 ? s->info.volume_step : s->info.volume_min;
    volume = std::round(std::floor(p.volume / 2.0 / step) * step * 1e8) / 1e8;
    if (volume < s->info.volume_min || p.volume - volume < s->info.volume_min - 1e-9) return;
  }
  ledger.close(k, volume, msc);
}

void modify_levels(Ledger& ledger, const Market& market, const Draw& r, int64_t msc) {
  if (ledger.positions().empty()) return;
  const size_t k = r(1) % ledger.positions().size();
  const TradePosition& p = ledger.positions()[k].record;
  const SymbolSpec* s = market.find(p.symbol);
  const std::optional<Tick> t = tradable_quote(market, s, msc);
  if (!t) return;
  const bool buy = p.type == mt5::POSITION_TYPE_BUY;
  const double price = buy ? t->bid : t->ask;  // the side the levels watch
  const double away = between(r(2), 0.003, 0.015);
  const double sl = on_grid(*s, price * (buy ? 1.0 - away : 1.0 + away));
  const double tp = on_grid(*s, price * (buy ? 1.0 + 1.5 * away : 1.0 - 1.5 * away));
  ledger.modify(k, sl, tp, msc);
}

void place_order(Ledger& ledger, const Market& market, const Draw& r, int64_t msc) {
  if (ledger.symbols().empty() || ledger.orders().size() >= kMaxOrders) return;
  const SymbolSpec* s = market.find(ledger.symbols()[r(1) % ledger.symbols().size()]);
  const std::optional<Tick> t = tradable_quote(market, s, msc);
  if (!t) return;
  static const std::array<int64_t, 4> types = {mt5::ORDER_TYPE_BUY_LIMIT, mt5::ORDER_TYPE_SELL_LIMIT,
                                               mt5::ORDER_TYPE_BUY_STOP, mt5::ORDER_TYPE_SELL_STOP};
  TradeOrder o;
  o.type = types[r(2) % types.size()];
  const bool buy = o.type == mt5::ORDER_TYPE_BUY_LIMIT || o.type == mt5::ORDER_TYPE_BUY_STOP;
  const bool below = o.type == mt5::ORDER_TYPE_BUY_LIMIT || o.type == mt5::ORDER_TYPE_SELL_STOP;
  const double market_price = buy ? t->ask : t->bid;
  const double away = between(r(3), 0.001, 0.008);
  o.price_open = on_grid(*s, market_price * (below ? 1.0 - away : 1.0 + away));
  o.volume_initial = lots(*s, r(4));
  o.symbol = s->info.name;
  o.magic = kMagics[r(5) % kMagics.size()];
  if (r(6) % 2 == 0) {
    o.sl = on_grid(*s, o.price_open * (buy ? 0.99 : 1.01));
    o.tp = on_grid(*s, o.price_open * (buy ? 1.015 : 0.985));
  }
  const uint64_t when = r(7) % 10;
  if (when < 6) {
    o.type_time = mt5::ORDER_TIME_GTC;
  } else if (when < 8) {
    o.type_time = mt5::ORDER_TIME_DAY;
  } else {
    o.type_time = mt5::ORDER_TIME_SPECIFIED;
    o.time_expiration = floor_div(msc, 1000) + 600 + static_cast<int64_t>(r(8) % (6 * 3600));
  }
  ledger.place(o, msc);
}

void cancel_order(Ledger& ledger, const Draw& r, int64_t msc) {
  if (ledger.orders().empty()) return;
  ledger.cancel(r(1) % ledger.orders().size(), msc);
}

// Closes the first opposite pair found (hedging); opens a position when there is none.
void close_by(Ledger& ledger, const Market& market, const Draw& r, int64_t msc) {
  const auto& held = ledger.positions();
  for (size_t a = 0; a < held.size(); ++a) {
    for (size_t b = a + 1; b < held.size(); ++b) {
      if (held[a].record.symbol == held[b].record.symbol && held[a].record.type != held[b].record.type) {
        ledger.close_by(a, b, msc);
        return;
      }
    }
  }
  open_position(ledger, market, r, msc);
}

}  // namespace

std::optional<int64_t> next_action(const SimConfig& config, int64_t after_msc) {
  if (!(config.trades_per_hour > 0)) return std::nullopt;
  const int64_t slot = floor_div(after_msc, slot_ms(config));
  const int64_t here = action_in(config, slot);
  return here > after_msc ? here : action_in(config, slot + 1);
}

void act(Ledger& ledger, const Market& market, int64_t msc) {
  const SimConfig& c = market.config();
  const Draw r{detail::hash3(c.seed ^ kScheduleKey, static_cast<uint64_t>(floor_div(msc, slot_ms(c))), 0xAC7)};
  const uint64_t what = r(0) % 100;
  if (what < 30) {
    open_position(ledger, market, r, msc);
  } else if (what < 42) {
    close_position(ledger, market, r, msc, false);
  } else if (what < 52) {
    close_position(ledger, market, r, msc, true);
  } else if (what < 66) {
    modify_levels(ledger, market, r, msc);
  } else if (what < 84) {
    place_order(ledger, market, r, msc);
  } else if (what < 94) {
    cancel_order(ledger, r, msc);
  } else {
    close_by(ledger, market, r, msc);
  }
}

}  // namespace tradeapi::sim::schedule
