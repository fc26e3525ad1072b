// SimTerminal: calculations, account, order_check, positions, orders and history
// (mt5-reference §2.6-2.8). Market-side methods are in sim_terminal_market.cpp.
#include <algorithm>

#include "sim_terminal.h"

namespace tradeapi::sim {
namespace {

// orders_get / positions_get: `symbol` wins over `ticket` (documented precedence); `group` is
// applied on top of either (combination undocumented [U]; narrowing is the least surprising).
template <typename Record>
std::vector<Record> select(std::vector<Record> records, const TradeFilter& filter) {
  auto keep = [&](const Record& r) {
    if (filter.symbol) {
      if (r.symbol != *filter.symbol) return false;
    } else if (filter.ticket && r.ticket != *filter.ticket) {
      return false;
    }
    return !filter.group || group_match(*filter.group, r.symbol);
  };
  records.erase(std::remove_if(records.begin(), records.end(), [&](const Record& r) { return !keep(r); }),
                records.end());
  return records;
}

void check_range(const std::optional<int64_t>& from, const std::optional<int64_t>& to) {
  if (from && to && *from > *to) throw TerminalError::invalid_params();
}

bool in_range(int64_t time, const HistoryFilter& f) {
  // Inclusive at both ends [U]; a missing end leaves that side open.
  return (!f.date_from || time >= *f.date_from) && (!f.date_to || time <= *f.date_to);
}

bool common_match(const std::string& symbol, const HistoryFilter& f) {
  return (!f.symbol || symbol == *f.symbol) && (!f.group || group_match(*f.group, symbol));
}

// History orders: dated by time_setup [U]; `ticket` is the order ticket, `position` its position_id.
bool matches(const TradeOrder& o, const HistoryFilter& f) {
  return in_range(o.time_setup, f) && (!f.ticket || o.ticket == *f.ticket) &&
         (!f.position || o.position_id == *f.position) && common_match(o.symbol, f);
}

// Deals: dated by time; `ticket` selects the deals of ORDER ticket T (DEAL_ORDER == T, §2.7).
bool matches(const TradeDeal& d, const HistoryFilter& f) {
  return in_range(d.time, f) && (!f.ticket || d.order == *f.ticket) && (!f.position || d.position_id == *f.position) &&
         common_match(d.symbol, f);
}

template <typename Record>
std::vector<Record> select_history(const std::vector<Record>& records, const HistoryFilter& filter) {
  check_range(filter.date_from, filter.date_to);
  std::vector<Record> out;
  for (const Record& r : records)
    if (matches(r, filter)) out.push_back(r);
  return out;
}

template <typename Record>
int64_t count_history(const std::vector<Record>& records, int64_t date_from, int64_t date_to) {
  HistoryFilter range;
  range.date_from = date_from;
  range.date_to = date_to;
  check_range(range.date_from, range.date_to);
  return static_cast<int64_t>(
      std::count_if(records.begin(), records.end(), [&](const Record& r) { return matches(r, range); }));
}

}  // namespace

AccountInfo SimTerminal::account_info() {
  return record([&] { return account_.info(); });
}

double SimTerminal::order_calc_margin(int64_t action, const std::string& symbol, double volume, double price) {
  return record([&] { return calc_.margin(action, spec(symbol), volume, price); });
}

double SimTerminal::order_calc_profit(int64_t action, const std::string& symbol, double volume, double price_open,
                                      double price_close) {
  return record([&] { return calc_.profit(action, spec(symbol), volume, price_open, price_close); });
}

OrderCheckResult SimTerminal::order_check(const TradeRequest& request) {
  return record([&] { return account_.check(request); });
}

int64_t SimTerminal::positions_total() {
  return record([&] { return static_cast<int64_t>(account_.positions().size()); });
}

std::vector<TradePosition> SimTerminal::positions_get(const TradeFilter& filter) {
  return record([&] { return select(account_.positions(), filter); });
}

int64_t SimTerminal::orders_total() {
  return record([&] { return static_cast<int64_t>(account_.orders().size()); });
}

std::vector<TradeOrder> SimTerminal::orders_get(const TradeFilter& filter) {
  return record([&] { return select(account_.orders(), filter); });
}

int64_t SimTerminal::history_orders_total(int64_t date_from, int64_t date_to) {
  return record([&] { return count_history(account_.history_orders(), date_from, date_to); });
}

std::vector<TradeOrder> SimTerminal::history_orders_get(const HistoryFilter& filter) {
  return record([&] { return select_history(account_.history_orders(), filter); });
}

int64_t SimTerminal::history_deals_total(int64_t date_from, int64_t date_to) {
  return record([&] { return count_history(account_.history_deals(), date_from, date_to); });
}

std::vector<TradeDeal> SimTerminal::history_deals_get(const HistoryFilter& filter) {
  return record([&] { return select_history(account_.history_deals(), filter); });
}

}  // namespace tradeapi::sim
