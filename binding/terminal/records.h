// Records returned by the terminal, field for field (names, order, types) as the
// MetaTrader5 Python package's named tuples (mt5-reference §4). int -> int64_t, float -> double.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tradeapi {

struct Version {
  int64_t terminal_version = 0;
  int64_t build = 0;
  std::string build_date;
};

struct LastError {
  int64_t code = 1;
  std::string description = "Success";
};

struct AccountInfo {
  int64_t login = 0, trade_mode = 0, leverage = 0, limit_orders = 0, margin_so_mode = 0;
  bool trade_allowed = false, trade_expert = false;
  int64_t margin_mode = 0, currency_digits = 0;
  bool fifo_close = false;
  double balance = 0, credit = 0, profit = 0, equity = 0, margin = 0, margin_free = 0, margin_level = 0,
         margin_so_call = 0, margin_so_so = 0, margin_initial = 0, margin_maintenance = 0, assets = 0,
         liabilities = 0, commission_blocked = 0;
  std::string name, server, currency, company;
};

struct TerminalInfo {
  bool community_account = false, community_connection = false, connected = false, dlls_allowed = false,
       trade_allowed = false, tradeapi_disabled = false, email_enabled = false, ftp_enabled = false,
       notifications_enabled = false, mqid = false;
  int64_t build = 0, maxbars = 0, codepage = 0, ping_last = 0;
  double community_balance = 0, retransmission = 0;
  std::string company, name, language, path, data_path, commondata_path;
};

// All 96 fields in tuple order.
struct SymbolInfo {
  bool custom = false;
  int64_t chart_mode = 0;
  bool select = false, visible = false;
  int64_t session_deals = 0, session_buy_orders = 0, session_sell_orders = 0, volume = 0, volumehigh = 0,
          volumelow = 0, time = 0, digits = 0, spread = 0;
  bool spread_float = false;
  int64_t ticks_bookdepth = 0, trade_calc_mode = 0, trade_mode = 0, start_time = 0, expiration_time = 0,
          trade_stops_level = 0, trade_freeze_level = 0, trade_exemode = 0, swap_mode = 0, swap_rollover3days = 0;
  bool margin_hedged_use_leg = false;
  int64_t expiration_mode = 0, filling_mode = 0, order_mode = 0, order_gtc_mode = 0, option_mode = 0,
          option_right = 0;
  double bid = 0, bidhigh = 0, bidlow = 0, ask = 0, askhigh = 0, asklow = 0, last = 0, lasthigh = 0, lastlow = 0,
         volume_real = 0, volumehigh_real = 0, volumelow_real = 0, option_strike = 0, point = 0,
         trade_tick_value = 0, trade_tick_value_profit = 0, trade_tick_value_loss = 0, trade_tick_size = 0,
         trade_contract_size = 0, trade_accrued_interest = 0, trade_face_value = 0, trade_liquidity_rate = 0,
         volume_min = 0, volume_max = 0, volume_step = 0, volume_limit = 0, swap_long = 0, swap_short = 0,
         margin_initial = 0, margin_maintenance = 0, session_volume = 0, session_turnover = 0,
         session_interest = 0, session_buy_orders_volume = 0, session_sell_orders_volume = 0, session_open = 0,
         session_close = 0, session_aw = 0, session_price_settlement = 0, session_price_limit_min = 0,
         session_price_limit_max = 0, margin_hedged = 0, price_change = 0, price_volatility = 0,
         price_theoretical = 0, price_greeks_delta = 0, price_greeks_theta = 0, price_greeks_gamma = 0,
         price_greeks_vega = 0, price_greeks_rho = 0, price_greeks_omega = 0, price_sensitivity = 0;
  std::string basis, category, currency_base, currency_profit, currency_margin, bank, description, exchange,
      formula, isin, name, page, path;
};

struct Tick {
  int64_t time = 0;
  double bid = 0, ask = 0, last = 0;
  uint64_t volume = 0;
  int64_t time_msc = 0;
  uint32_t flags = 0;
  double volume_real = 0;
};

struct BookInfo {
  int64_t type = 0;
  double price = 0;
  int64_t volume = 0;
  double volume_dbl = 0;
};

struct TradeOrder {
  int64_t ticket = 0, time_setup = 0, time_setup_msc = 0, time_done = 0, time_done_msc = 0, time_expiration = 0,
          type = 0, type_time = 0, type_filling = 0, state = 0, magic = 0, position_id = 0, position_by_id = 0,
          reason = 0;
  double volume_initial = 0, volume_current = 0, price_open = 0, sl = 0, tp = 0, price_current = 0,
         price_stoplimit = 0;
  std::string symbol, comment, external_id;
};

struct TradePosition {
  int64_t ticket = 0, time = 0, time_msc = 0, time_update = 0, time_update_msc = 0, type = 0, magic = 0,
          identifier = 0, reason = 0;
  double volume = 0, price_open = 0, sl = 0, tp = 0, price_current = 0, swap = 0, profit = 0;
  std::string symbol, comment, external_id;
};

struct TradeDeal {
  int64_t ticket = 0, order = 0, time = 0, time_msc = 0, type = 0, entry = 0, magic = 0, position_id = 0,
          reason = 0;
  double volume = 0, price = 0, commission = 0, swap = 0, profit = 0, fee = 0;
  std::string symbol, comment, external_id;
};

struct TradeRequest {
  int64_t action = 0, magic = 0, order = 0;
  std::string symbol;
  double volume = 0, price = 0, stoplimit = 0, sl = 0, tp = 0;
  int64_t deviation = 0, type = 0, type_filling = 0, type_time = 0, expiration = 0;
  std::string comment;
  int64_t position = 0, position_by = 0;
};

struct OrderCheckResult {
  int64_t retcode = 0;
  double balance = 0, equity = 0, profit = 0, margin = 0, margin_free = 0, margin_level = 0;
  std::string comment;
  TradeRequest request;
};

}  // namespace tradeapi
