// The account's life after its generated history: the ledger holds positions, pending orders and
// the history, and advance(T) plays every event up to T in time order — pending orders triggered
// at the first crossing tick, expiries, SL/TP, stop-out and the trading schedule's actions
// (trading_schedule.h) — so that the account at T is a pure function of (config, T).
// Crossings are found on the M1 aggregates (Market::minute_range); ticks are read only inside the
// minutes whose range reaches a price. Worker thread only, like the market's caches.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../terminal/records.h"
#include "calc_math.h"
#include "history_generator.h"
#include "market.h"

namespace tradeapi::sim {

// The group's margin call and stop-out levels, percent (account_info margin_so_call/margin_so_so).
inline constexpr double kMarginCallPercent = 50.0;
inline constexpr double kStopOutPercent = 30.0;

// An open position and what the account keeps beside it.
struct HeldPosition {
  TradePosition record;       // price_current/profit are the live view's
  calc::MarginLeg leg;        // margin at the open price and opening conversion rate
  int64_t swap_cents = 0;     // swap accrued through swap_through_msc
  int64_t swap_through_msc = 0;
};

class Ledger {
 public:
  Ledger(const Market& market, AccountState state);

  // Plays every event in (through_msc(), to_msc]; an earlier time is a no-op (the clock only moves
  // forward). A state with live_from_msc == 0 (a fixed test state) never changes.
  void advance(int64_t to_msc);
  int64_t through_msc() const { return through_; }
  bool live() const { return live_; }

  const std::vector<HeldPosition>& positions() const { return positions_; }
  const std::vector<TradeOrder>& orders() const { return orders_; }
  const std::vector<TradeOrder>& history_orders() const { return history_orders_; }
  const std::vector<TradeDeal>& history_deals() const { return history_deals_; }
  const std::vector<std::string>& symbols() const { return symbols_; }
  int64_t balance_cents() const { return balance_cents_; }
  // Swap of position k accrued up to msc (rollovers are added once, as the clock passes them).
  int64_t swap_cents(size_t k, int64_t msc);
  // Margin of the open positions (hedged rule per symbol, §6.1), plus an extra leg when given.
  double margin(const SymbolSpec* extra_symbol = nullptr, const calc::MarginLeg* extra = nullptr) const;
  // Floating profit + swaps of the open positions in cents, with each symbol's quote from `quote`.
  int64_t floating_cents(int64_t msc, const calc::QuoteSource& quote);

  // ---- trading at time msc (the schedule's and the tests' hands) ----------------------------
  // Each acts at the last tick at or before msc and returns false (changing nothing) when the
  // symbol has no quote then or its market is closed.
  bool open(const SymbolSpec& s, bool buy, double volume, double sl, double tp, int64_t magic, int64_t msc,
            const std::string& comment = "");
  bool close(size_t k, double volume, int64_t msc);  // volume < position's: a partial close
  bool close_by(size_t k, size_t by, int64_t msc);   // hedging: OUT_BY deals, both at by's open price
  bool modify(size_t k, double sl, double tp, int64_t msc);
  // A pending order: o.type, symbol, volume_initial, price_open (and price_stoplimit, sl, tp,
  // type_time, time_expiration, magic, comment) are the caller's; the rest is filled in.
  bool place(TradeOrder o, int64_t msc);
  bool cancel(size_t k, int64_t msc);

 private:
  struct Hit {
    int64_t msc = 0;
    int kind = 0;  // 0 = pending order triggers, 1 = SL, 2 = TP, 3 = stop-out
    size_t index = 0;
    Tick tick;
  };
  struct StopOutScan {
    double margin = 0;                               // fixed while no position opens or closes
    std::map<const SymbolSpec*, Tick> sticky;        // held symbols: worst quotes of the last minute with ticks
    std::map<const SymbolSpec*, Tick> conversions;   // other symbols' quotes at the scan's start
  };
  std::optional<Hit> first_crossing(int64_t after, int64_t until);
  std::optional<Hit> stop_out_in(StopOutScan& so, int64_t minute, int64_t after, int64_t until);
  bool apply(const Hit& hit);  // false when it changed nothing
  bool stop_out(int64_t msc);
  std::optional<int64_t> next_expiry() const;
  void expire(int64_t msc);

  int64_t next_order();
  int64_t next_deal();
  std::optional<Tick> quote(const SymbolSpec& s, int64_t msc) const;
  calc::QuoteSource quotes_at(int64_t msc) const;
  void fill(const SymbolSpec& s, bool buy, double volume, double price, double sl, double tp, int64_t magic,
            int64_t order, int64_t reason, const std::string& comment, int64_t msc);
  // A filled market order (a new ticket) at msc.
  TradeOrder market_order(const SymbolSpec& s, int64_t type, double volume, double price, int64_t msc, int64_t magic,
                          int64_t position, int64_t reason, const std::string& comment);
  // Closes `volume` of position k at `price`: an order (of `order_reason`) and an OUT deal.
  void settle(size_t k, double volume, double price, int64_t msc, int64_t order_reason, int64_t deal_reason,
              const std::string& comment);
  // The OUT (or OUT_BY) deal of `order` against position k at `price`: its share of the swap,
  // profit at the quotes then; the position shrinks or goes.
  void book_out(size_t k, const TradeOrder& order, double price, int64_t entry, int64_t reason, int64_t commission);
  void to_history(TradeOrder o);

  const Market& market_;
  std::vector<HeldPosition> positions_;
  std::vector<TradeOrder> orders_;
  std::vector<TradeOrder> history_orders_;
  std::vector<TradeDeal> history_deals_;
  std::vector<std::string> symbols_;
  int64_t balance_cents_ = 0;
  int64_t order_ticket_ = 0, deal_ticket_ = 0;
  bool live_ = false;
  int64_t through_ = 0;    // the account is played up to here
  int64_t scan_from_ = 0;  // crossings are looked for after this (a tick can hit several items)
  int64_t acted_ = 0;      // the schedule's last action (a crossing at the same ms does not skip it)
};

}  // namespace tradeapi::sim
