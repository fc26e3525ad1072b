// order_check (mt5-reference §7): validates a request without sending it and predicts the account
// after it. Checks run in the reference's recommended order: request shape (throws, -2) ->
// permissions (10027, 10017, 10042-10044) -> order type / filling (10035, 10030) -> volume
// (10014, 10034) -> prices, stops, expiration (10015, 10016, 10029, 10022) -> funds (10019).
// The market being closed is deliberately not detected (the real check passes; send fails).
#include <cmath>
#include <string>
#include <utility>

#include "../terminal/constants.h"
#include "../terminal/errors.h"
#include "calc_math.h"
#include "money.h"
#include "order_check.h"
#include "symbol_flags.h"

namespace tradeapi::sim {
namespace {

namespace f = flags;

// Comment texts: 'Done', 'AutoTrading disabled by client', 'Unsupported filling mode' and
// 'Invalid stops' are recorded; the others are [U] and follow the MQL5 retcode descriptions.
struct Failure {
  int64_t retcode;
  const char* comment;
};
const Failure kInvalid{mt5::TRADE_RETCODE_INVALID, "Invalid request"};
const Failure kInvalidOrder{mt5::TRADE_RETCODE_INVALID_ORDER, "Invalid order type"};
const Failure kInvalidFill{mt5::TRADE_RETCODE_INVALID_FILL, "Unsupported filling mode"};
const Failure kInvalidVolume{mt5::TRADE_RETCODE_INVALID_VOLUME, "Invalid volume"};
const Failure kInvalidCloseVolume{mt5::TRADE_RETCODE_INVALID_CLOSE_VOLUME, "Invalid close volume"};
const Failure kLimitVolume{mt5::TRADE_RETCODE_LIMIT_VOLUME, "Volume limit reached"};
const Failure kLimitOrders{mt5::TRADE_RETCODE_LIMIT_ORDERS, "Pending orders limit reached"};
const Failure kInvalidPrice{mt5::TRADE_RETCODE_INVALID_PRICE, "Invalid price"};
const Failure kNoPrices{mt5::TRADE_RETCODE_PRICE_OFF, "No prices"};
const Failure kInvalidStops{mt5::TRADE_RETCODE_INVALID_STOPS, "Invalid stops"};
const Failure kFrozen{mt5::TRADE_RETCODE_FROZEN, "Order or position frozen"};
const Failure kNoChanges{mt5::TRADE_RETCODE_NO_CHANGES, "No changes"};
const Failure kInvalidExpiration{mt5::TRADE_RETCODE_INVALID_EXPIRATION, "Invalid expiration"};
const Failure kTradeDisabled{mt5::TRADE_RETCODE_TRADE_DISABLED, "Trade disabled"};
const Failure kClientDisabled{mt5::TRADE_RETCODE_CLIENT_DISABLES_AT, "AutoTrading disabled by client"};
const Failure kLongOnly{mt5::TRADE_RETCODE_LONG_ONLY, "Only long positions allowed"};
const Failure kShortOnly{mt5::TRADE_RETCODE_SHORT_ONLY, "Only short positions allowed"};
const Failure kCloseOnly{mt5::TRADE_RETCODE_CLOSE_ONLY, "Only position closing allowed"};
const Failure kPositionClosed{mt5::TRADE_RETCODE_POSITION_CLOSED, "Position doesn't exist"};
const Failure kNoMoney{mt5::TRADE_RETCODE_NO_MONEY, "No money"};

size_t utf8_length(const std::string& s) {
  size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

// Request shape: the package rejects these before the terminal sees them (None, -2).
void check_shape(const TradeRequest& r, const SimConfig& config) {
  if (static_cast<int64_t>(utf8_length(r.comment)) > config.comment_max_length)
    throw TerminalError::invalid_params("Invalid \"comment\" argument");
  const std::pair<double, const char*> numbers[] = {{r.volume, "volume"}, {r.price, "price"},
                                                    {r.stoplimit, "stoplimit"}, {r.sl, "sl"}, {r.tp, "tp"}};
  for (const auto& [value, name] : numbers)
    if (!std::isfinite(value)) throw TerminalError::invalid_params(std::string("Invalid \"") + name + "\" argument");
}

bool is_pending_type(int64_t type) {
  return type >= mt5::ORDER_TYPE_BUY_LIMIT && type <= mt5::ORDER_TYPE_SELL_STOP_LIMIT;
}

bool order_type_allowed(const SymbolInfo& i, int64_t type) {
  if (i.order_mode == 0) return true;  // unset in a catalogue: nothing restricted
  switch (type) {
    case mt5::ORDER_TYPE_BUY:
    case mt5::ORDER_TYPE_SELL: return (i.order_mode & f::kOrderMarket) != 0;
    case mt5::ORDER_TYPE_BUY_LIMIT:
    case mt5::ORDER_TYPE_SELL_LIMIT: return (i.order_mode & f::kOrderLimit) != 0;
    case mt5::ORDER_TYPE_BUY_STOP:
    case mt5::ORDER_TYPE_SELL_STOP: return (i.order_mode & f::kOrderStop) != 0;
    case mt5::ORDER_TYPE_BUY_STOP_LIMIT:
    case mt5::ORDER_TYPE_SELL_STOP_LIMIT: return (i.order_mode & f::kOrderStopLimit) != 0;
    default: return false;
  }
}

// §5.6: FOK/IOC/RETURN always under Instant/Request execution; under Market execution FOK/IOC
// only with their flag and never RETURN; under Exchange execution FOK/IOC with their flag and
// RETURN always. Pending orders may always RETURN (§4.9); BOC needs its flag and a limit-type
// pending order.
bool filling_allowed(const SymbolInfo& i, int64_t filling, bool pending, int64_t type) {
  const int64_t exe = i.trade_exemode;
  const bool flexible = exe == mt5::SYMBOL_TRADE_EXECUTION_INSTANT || exe == mt5::SYMBOL_TRADE_EXECUTION_REQUEST;
  switch (filling) {
    case mt5::ORDER_FILLING_FOK: return flexible || (i.filling_mode & f::kFillingFok) != 0;
    case mt5::ORDER_FILLING_IOC: return flexible || (i.filling_mode & f::kFillingIoc) != 0;
    case mt5::ORDER_FILLING_RETURN: return pending || flexible || exe == mt5::SYMBOL_TRADE_EXECUTION_EXCHANGE;
    case mt5::ORDER_FILLING_BOC:
      return pending && (i.filling_mode & f::kFillingBoc) != 0 &&
             (type == mt5::ORDER_TYPE_BUY_LIMIT || type == mt5::ORDER_TYPE_SELL_LIMIT ||
              type == mt5::ORDER_TYPE_BUY_STOP_LIMIT || type == mt5::ORDER_TYPE_SELL_STOP_LIMIT);
    default: return false;
  }
}

bool expiration_allowed(const SymbolInfo& i, int64_t type_time) {
  int64_t flag = 0;
  switch (type_time) {
    case mt5::ORDER_TIME_GTC: flag = f::kExpirationGtc; break;
    case mt5::ORDER_TIME_DAY: flag = f::kExpirationDay; break;
    case mt5::ORDER_TIME_SPECIFIED: flag = f::kExpirationSpecified; break;
    case mt5::ORDER_TIME_SPECIFIED_DAY: flag = f::kExpirationSpecifiedDay; break;
    default: return false;
  }
  return i.expiration_mode == 0 || (i.expiration_mode & flag) != 0;
}

// Prices compare with a tolerance of a thousandth of a point (prices are doubles on a grid).
struct Grid {
  double point, tick, level, freeze, eps;
  explicit Grid(const SymbolInfo& i)
      : point(i.point > 0 ? i.point : 1e-5),
        tick(i.trade_tick_size > 0 ? i.trade_tick_size : point),
        level(static_cast<double>(i.trade_stops_level) * point),
        freeze(static_cast<double>(i.trade_freeze_level) * point),
        eps(point * 1e-3) {}
  bool valid(double price) const { return price > 0 && on_grid(price, tick); }
  // `far` lies strictly beyond `near` in the given direction by at least the stops level.
  bool beyond(double far, double near, bool above) const {
    const double distance = above ? far - near : near - far;
    return distance > eps && distance + eps >= level;
  }
};

// A pending price on the side of the market its type requires, outside the stops level.
bool pending_price_ok(const Grid& g, int64_t type, double price, double stoplimit, const Tick& t) {
  if (!g.valid(price)) return false;
  switch (type) {
    case mt5::ORDER_TYPE_BUY_LIMIT: return g.beyond(price, t.ask, false);
    case mt5::ORDER_TYPE_SELL_LIMIT: return g.beyond(price, t.bid, true);
    case mt5::ORDER_TYPE_BUY_STOP: return g.beyond(price, t.ask, true);
    case mt5::ORDER_TYPE_SELL_STOP: return g.beyond(price, t.bid, false);
    // Stop-limit: the stop triggers like a stop order, then a limit is placed at `stoplimit`,
    // below the trigger for buys and above it for sells.
    case mt5::ORDER_TYPE_BUY_STOP_LIMIT:
      return g.beyond(price, t.ask, true) && g.valid(stoplimit) && stoplimit < price + g.eps;
    case mt5::ORDER_TYPE_SELL_STOP_LIMIT:
      return g.beyond(price, t.bid, false) && g.valid(stoplimit) && stoplimit > price - g.eps;
    default: return false;
  }
}

// SL below / TP above the reference price for buys, the reverse for sells, outside the stops level.
bool stops_ok(const Grid& g, bool buy, double reference, double sl, double tp) {
  if (sl < 0 || tp < 0) return false;
  if (sl != 0 && (!g.valid(sl) || !g.beyond(sl, reference, !buy))) return false;
  if (tp != 0 && (!g.valid(tp) || !g.beyond(tp, reference, buy))) return false;
  return true;
}

bool within_freeze(const Grid& g, double level, double market) {
  return g.freeze > 0 && level != 0 && std::fabs(level - market) < g.freeze - g.eps;
}

OrderCheckResult make_result(int64_t retcode, const char* comment, const AccountInfo& a, double margin,
                             const TradeRequest& request) {
  OrderCheckResult r;
  r.retcode = retcode;
  r.comment = comment;
  r.balance = a.balance;
  r.equity = a.equity;
  r.profit = a.profit;
  r.margin = round_money(margin);
  r.margin_free = round_money(a.equity - r.margin);
  r.margin_level = r.margin > 0 ? a.equity / r.margin * 100.0 : 0.0;
  r.request = request;
  return r;
}

}  // namespace

OrderCheckResult check_order(const Market& market, const Calculator& calc, const Account& book, const TradeRequest& req,
                             const SymbolLookup& find_symbol) {
  const SimConfig& config = market.config();
  check_shape(req, config);

  const int64_t action = req.action;
  const bool deal = action == mt5::TRADE_ACTION_DEAL, pending = action == mt5::TRADE_ACTION_PENDING;
  const SymbolSpec* s = nullptr;
  if (deal || pending) {
    s = req.symbol.empty() ? nullptr : find_symbol(req.symbol);
    if (s == nullptr) throw TerminalError::invalid_params("Invalid \"symbol\" argument");
  }

  // Failures report the account as it is now (§7 leaves them [U]; current state is the useful one).
  const AccountInfo account = book.info();
  auto fail = [&](const Failure& why) { return make_result(why.retcode, why.comment, account, account.margin, req); };

  if (!deal && !pending && action != mt5::TRADE_ACTION_SLTP && action != mt5::TRADE_ACTION_MODIFY &&
      action != mt5::TRADE_ACTION_REMOVE && action != mt5::TRADE_ACTION_CLOSE_BY)
    return fail(kInvalid);

  // ---- permissions ---------------------------------------------------------------------------
  if (!config.trade_allowed) return fail(kClientDisabled);

  // Resolve the position/order the request refers to; it also names the symbol for actions that
  // need no `symbol` (a given symbol must agree with it).
  const std::vector<TradePosition> live_positions = book.positions();
  const std::vector<TradeOrder> live_orders = book.orders();
  auto find_position = [&](int64_t ticket) -> const TradePosition* {
    for (const TradePosition& p : live_positions)
      if (p.ticket == ticket) return &p;
    return nullptr;
  };
  const TradePosition* position = nullptr;
  const TradePosition* position_by = nullptr;
  const TradeOrder* order = nullptr;
  if ((deal && req.position != 0) || action == mt5::TRADE_ACTION_SLTP || action == mt5::TRADE_ACTION_CLOSE_BY) {
    if (req.position == 0) return fail(kInvalid);  // hedging accounts identify positions by ticket
    position = find_position(req.position);
    if (position == nullptr) return fail(kPositionClosed);
  }
  if (action == mt5::TRADE_ACTION_CLOSE_BY) {
    position_by = find_position(req.position_by);
    if (position_by == nullptr) return fail(kPositionClosed);
    if (position_by->symbol != position->symbol || position_by->type == position->type) return fail(kInvalid);
  }
  if (action == mt5::TRADE_ACTION_MODIFY || action == mt5::TRADE_ACTION_REMOVE) {
    for (const TradeOrder& o : live_orders)
      if (o.ticket == req.order) order = &o;
    if (order == nullptr) return fail(kInvalid);
  }
  if (s == nullptr) {
    s = find_symbol(position != nullptr ? position->symbol : order->symbol);
    if (s == nullptr) return fail(kInvalid);
  }
  if (!req.symbol.empty() && req.symbol != s->info.name) return fail(kInvalid);
  if (position != nullptr && position->symbol != s->info.name) return fail(kInvalid);
  const SymbolInfo& info = s->info;

  // An opening request adds exposure; closing, SL/TP changes, modifications and removals do not.
  const bool opening = (deal && position == nullptr) || pending;
  const bool typed = deal ? (req.type == mt5::ORDER_TYPE_BUY || req.type == mt5::ORDER_TYPE_SELL)
                          : (pending && is_pending_type(req.type));
  if (info.trade_mode == mt5::SYMBOL_TRADE_MODE_DISABLED) return fail(kTradeDisabled);
  if (opening && typed) {
    const bool buy = calc::is_buy_side(req.type);
    if (info.trade_mode == mt5::SYMBOL_TRADE_MODE_CLOSEONLY) return fail(kCloseOnly);
    if (info.trade_mode == mt5::SYMBOL_TRADE_MODE_LONGONLY && !buy) return fail(kLongOnly);
    if (info.trade_mode == mt5::SYMBOL_TRADE_MODE_SHORTONLY && buy) return fail(kShortOnly);
  }

  // ---- order type, order_mode, filling -------------------------------------------------------
  if ((deal || pending) && (!typed || !order_type_allowed(info, req.type))) return fail(kInvalidOrder);
  if (action == mt5::TRADE_ACTION_CLOSE_BY && info.order_mode != 0 && (info.order_mode & f::kOrderCloseBy) == 0)
    return fail(kInvalidOrder);
  if (deal && position != nullptr) {
    // Closing a position is a deal in the opposite direction.
    const bool closes = (position->type == mt5::POSITION_TYPE_BUY) == (req.type == mt5::ORDER_TYPE_SELL);
    if (!closes) return fail(kInvalid);
  }
  if ((deal || pending) && !filling_allowed(info, req.type_filling, pending, req.type)) return fail(kInvalidFill);

  // ---- volume ----------------------------------------------------------------------------------
  if (deal || pending) {
    const double step = info.volume_step > 0 ? info.volume_step : info.volume_min;
    if (!(req.volume > 0) || req.volume < info.volume_min - 1e-9 ||
        (info.volume_max > 0 && req.volume > info.volume_max + 1e-9) || !on_grid(req.volume, step))
      return fail(kInvalidVolume);
    if (position != nullptr && req.volume > position->volume + 1e-9) return fail(kInvalidCloseVolume);
    if (opening && info.volume_limit > 0) {
      // Open volume in the request's direction: positions plus pending orders (§5.8 10034).
      const bool buy = calc::is_buy_side(req.type);
      double exposure = req.volume;
      for (const TradePosition& p : live_positions)
        if (p.symbol == info.name && (p.type == mt5::POSITION_TYPE_BUY) == buy) exposure += p.volume;
      for (const TradeOrder& o : live_orders)
        if (o.symbol == info.name && calc::is_buy_side(o.type) == buy) exposure += o.volume_current;
      if (exposure > info.volume_limit + 1e-9) return fail(kLimitVolume);
    }
  }
  if (pending && static_cast<int64_t>(live_orders.size()) >= account.limit_orders) return fail(kLimitOrders);

  // ---- prices, stops, expiration ---------------------------------------------------------------
  const Tick tick = market.live_tick(*s);
  if (!(tick.bid > 0) || !(tick.ask > 0)) return fail(kNoPrices);
  const Grid grid(info);
  const bool wants_sl = req.sl != 0, wants_tp = req.tp != 0;
  if (action != mt5::TRADE_ACTION_REMOVE && action != mt5::TRADE_ACTION_CLOSE_BY && info.order_mode != 0 &&
      ((wants_sl && (info.order_mode & f::kOrderSl) == 0) || (wants_tp && (info.order_mode & f::kOrderTp) == 0)))
    return fail(kInvalidStops);

  double open_price = 0;  // the price margin is computed at
  if (deal) {
    const bool buy = req.type == mt5::ORDER_TYPE_BUY;
    // Price 0 takes the market (required fields under Market/Exchange execution, §4.9).
    if (req.price != 0 && !grid.valid(req.price)) return fail(kInvalidPrice);
    open_price = req.price != 0 ? req.price : (buy ? tick.ask : tick.bid);
    // SL/TP of a new position are measured from the price it would close at; a closing deal's are ignored.
    if (position == nullptr && !stops_ok(grid, buy, buy ? tick.bid : tick.ask, req.sl, req.tp))
      return fail(kInvalidStops);
  } else if (pending || action == mt5::TRADE_ACTION_MODIFY) {
    const int64_t type = pending ? req.type : order->type;
    if (!pending_price_ok(grid, type, req.price, req.stoplimit, tick)) return fail(kInvalidPrice);
    const bool stop_limit = type == mt5::ORDER_TYPE_BUY_STOP_LIMIT || type == mt5::ORDER_TYPE_SELL_STOP_LIMIT;
    // Stops of a pending order are measured from the price its position would open at.
    if (!stops_ok(grid, calc::is_buy_side(type), stop_limit ? req.stoplimit : req.price, req.sl, req.tp))
      return fail(kInvalidStops);
    if (!expiration_allowed(info, req.type_time)) return fail(kInvalidExpiration);
    if ((req.type_time == mt5::ORDER_TIME_SPECIFIED || req.type_time == mt5::ORDER_TIME_SPECIFIED_DAY) &&
        req.expiration <= market.now_ms() / 1000)
      return fail(kInvalidExpiration);
    open_price = req.price;
    if (order != nullptr) {
      const double market_price = calc::is_buy_side(type) ? tick.ask : tick.bid;
      if (within_freeze(grid, order->price_open, market_price)) return fail(kFrozen);
      if (req.price == order->price_open && req.sl == order->sl && req.tp == order->tp &&
          req.stoplimit == order->price_stoplimit && req.type_time == order->type_time &&
          req.expiration == order->time_expiration)
        return fail(kNoChanges);
    }
  } else if (action == mt5::TRADE_ACTION_SLTP) {
    const bool buy = position->type == mt5::POSITION_TYPE_BUY;
    const double close_price = buy ? tick.bid : tick.ask;
    if (!stops_ok(grid, buy, close_price, req.sl, req.tp)) return fail(kInvalidStops);
    if (within_freeze(grid, position->sl, close_price) || within_freeze(grid, position->tp, close_price))
      return fail(kFrozen);
    if (req.sl == position->sl && req.tp == position->tp) return fail(kNoChanges);
  } else if (action == mt5::TRADE_ACTION_REMOVE) {
    const double market_price = calc::is_buy_side(order->type) ? tick.ask : tick.bid;
    if (within_freeze(grid, order->price_open, market_price)) return fail(kFrozen);
  }

  // ---- funds -----------------------------------------------------------------------------------
  // `margin` is the account total after the operation (§4.10). A new position joins its symbol's
  // legs under the hedged-margin rule (§6.1), at the order price and today's conversion rate: an
  // opposite-direction deal covers volume, so it keeps or lowers the margin instead of adding a
  // full lot's. A pending order adds margin only on exchange symbols (OTC pending orders reserve
  // nothing, §2.8), charged normally; closing, close-by and modifications leave it unchanged (§7:
  // the check does not model the release of margin).
  double margin = account.margin;
  const int64_t mode = info.trade_calc_mode;
  const bool exchange = mode >= mt5::SYMBOL_CALC_MODE_EXCH_STOCKS && mode != mt5::SYMBOL_CALC_MODE_SERV_COLLATERAL;
  if (deal && opening) {
    calc::MarginLeg leg;
    leg.buy = req.type == mt5::ORDER_TYPE_BUY;
    leg.volume = req.volume;
    leg.price = open_price;
    leg.rate = calc::margin_rate(market, *s, leg.buy, open_price,
                                 [&market](const SymbolSpec& q) { return market.live_tick(q); });
    margin = book.margin(s, &leg);
  } else if (pending && exchange) {
    margin += calc.margin(req.type, *s, req.volume, open_price);
  }
  if (account.equity - round_money(margin) < 0) return fail(kNoMoney);
  return make_result(0, "Done", account, margin, req);
}

OrderCheckResult Account::check(const TradeRequest& request) const {
  return check_order(market_, calc_, *this, request, [this](const std::string& name) { return market_.find(name); });
}

}  // namespace tradeapi::sim
