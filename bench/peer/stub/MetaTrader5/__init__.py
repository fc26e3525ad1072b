"""A stand-in for the Windows-only ``MetaTrader5`` package, for benchmarking mt5api on Linux.

It serves ticks that tradeapi's simulated terminal exported (bench/export-ticks.ts) to a .npy file
with the real tick dtype, memory-mapped, so that mt5api and tradeapi answer with the very same rows.
Only what mt5api needs for the tick routes (and its start-up) is implemented; everything else
answers like a terminal without that data: ``None`` and ``last_error() == (-4, 'Terminal: Not found')``.

Configuration (environment):
  MT5_STUB_TICKS  comma-separated SYMBOL=path.npy pairs, e.g. EURUSD=/tmp/eurusd.npy

Like the real package, ``copy_ticks_*`` return a fresh array (a copy of the selected rows), not a
view; dates are ``datetime`` (naive = UTC, as the simulator runs at server offset 0) or integer
seconds; ``copy_ticks_range`` includes both ends, to the millisecond.
"""

from __future__ import annotations

import os
from collections import namedtuple
from datetime import datetime, timezone, timedelta

import numpy as np

__author__ = "MetaQuotes Software Corp."
__version__ = "5.0.5120"

# ---------------------------------------------------------------- constants (mt5-reference §5)

TIMEFRAME_M1, TIMEFRAME_M2, TIMEFRAME_M3, TIMEFRAME_M4, TIMEFRAME_M5, TIMEFRAME_M6 = 1, 2, 3, 4, 5, 6
TIMEFRAME_M10, TIMEFRAME_M12, TIMEFRAME_M15, TIMEFRAME_M20, TIMEFRAME_M30 = 10, 12, 15, 20, 30
TIMEFRAME_H1, TIMEFRAME_H2, TIMEFRAME_H3, TIMEFRAME_H4 = 16385, 16386, 16387, 16388
TIMEFRAME_H6, TIMEFRAME_H8, TIMEFRAME_H12, TIMEFRAME_D1 = 16390, 16392, 16396, 16408
TIMEFRAME_W1, TIMEFRAME_MN1 = 32769, 49153

COPY_TICKS_ALL, COPY_TICKS_INFO, COPY_TICKS_TRADE = -1, 1, 2
TICK_FLAG_BID, TICK_FLAG_ASK, TICK_FLAG_LAST, TICK_FLAG_VOLUME = 2, 4, 8, 16
TICK_FLAG_BUY, TICK_FLAG_SELL = 32, 64

ORDER_TYPE_BUY, ORDER_TYPE_SELL, ORDER_TYPE_BUY_LIMIT, ORDER_TYPE_SELL_LIMIT = 0, 1, 2, 3
ORDER_TYPE_BUY_STOP, ORDER_TYPE_SELL_STOP = 4, 5
ORDER_TYPE_BUY_STOP_LIMIT, ORDER_TYPE_SELL_STOP_LIMIT, ORDER_TYPE_CLOSE_BY = 6, 7, 8
ORDER_STATE_STARTED, ORDER_STATE_PLACED, ORDER_STATE_CANCELED, ORDER_STATE_PARTIAL = 0, 1, 2, 3
ORDER_STATE_FILLED, ORDER_STATE_REJECTED, ORDER_STATE_EXPIRED = 4, 5, 6
ORDER_STATE_REQUEST_ADD, ORDER_STATE_REQUEST_MODIFY, ORDER_STATE_REQUEST_CANCEL = 7, 8, 9
ORDER_FILLING_FOK, ORDER_FILLING_IOC, ORDER_FILLING_RETURN, ORDER_FILLING_BOC = 0, 1, 2, 3
ORDER_TIME_GTC, ORDER_TIME_DAY, ORDER_TIME_SPECIFIED, ORDER_TIME_SPECIFIED_DAY = 0, 1, 2, 3
ORDER_REASON_CLIENT, ORDER_REASON_MOBILE, ORDER_REASON_WEB, ORDER_REASON_EXPERT = 0, 1, 2, 3
ORDER_REASON_SL, ORDER_REASON_TP, ORDER_REASON_SO = 4, 5, 6
POSITION_TYPE_BUY, POSITION_TYPE_SELL = 0, 1
POSITION_REASON_CLIENT, POSITION_REASON_MOBILE, POSITION_REASON_WEB, POSITION_REASON_EXPERT = 0, 1, 2, 3

TRADE_ACTION_DEAL, TRADE_ACTION_PENDING, TRADE_ACTION_SLTP = 1, 5, 6
TRADE_ACTION_MODIFY, TRADE_ACTION_REMOVE, TRADE_ACTION_CLOSE_BY = 7, 8, 10

DEAL_TYPE_BUY, DEAL_TYPE_SELL, DEAL_TYPE_BALANCE, DEAL_TYPE_CREDIT, DEAL_TYPE_CHARGE = 0, 1, 2, 3, 4
DEAL_TYPE_CORRECTION, DEAL_TYPE_BONUS, DEAL_TYPE_COMMISSION, DEAL_TYPE_COMMISSION_DAILY = 5, 6, 7, 8
DEAL_TYPE_COMMISSION_MONTHLY, DEAL_TYPE_COMMISSION_AGENT_DAILY = 9, 10
DEAL_TYPE_COMMISSION_AGENT_MONTHLY, DEAL_TYPE_INTEREST = 11, 12
DEAL_TYPE_BUY_CANCELED, DEAL_TYPE_SELL_CANCELED = 13, 14
DEAL_DIVIDEND, DEAL_DIVIDEND_FRANKED, DEAL_TAX = 15, 16, 17
DEAL_ENTRY_IN, DEAL_ENTRY_OUT, DEAL_ENTRY_INOUT, DEAL_ENTRY_OUT_BY = 0, 1, 2, 3
DEAL_REASON_CLIENT, DEAL_REASON_MOBILE, DEAL_REASON_WEB, DEAL_REASON_EXPERT = 0, 1, 2, 3
DEAL_REASON_SL, DEAL_REASON_TP, DEAL_REASON_SO, DEAL_REASON_ROLLOVER = 4, 5, 6, 7
DEAL_REASON_VMARGIN, DEAL_REASON_SPLIT = 8, 9

SYMBOL_CALC_MODE_FOREX, SYMBOL_CALC_MODE_FUTURES, SYMBOL_CALC_MODE_CFD = 0, 1, 2
SYMBOL_CALC_MODE_CFDINDEX, SYMBOL_CALC_MODE_CFDLEVERAGE, SYMBOL_CALC_MODE_FOREX_NO_LEVERAGE = 3, 4, 5
SYMBOL_CALC_MODE_EXCH_STOCKS, SYMBOL_CALC_MODE_EXCH_FUTURES, SYMBOL_CALC_MODE_EXCH_OPTIONS = 32, 33, 34
SYMBOL_CALC_MODE_EXCH_OPTIONS_MARGIN, SYMBOL_CALC_MODE_EXCH_BONDS = 36, 37
SYMBOL_CALC_MODE_EXCH_STOCKS_MOEX, SYMBOL_CALC_MODE_EXCH_BONDS_MOEX = 38, 39
SYMBOL_CALC_MODE_SERV_COLLATERAL = 64
SYMBOL_TRADE_MODE_DISABLED, SYMBOL_TRADE_MODE_LONGONLY, SYMBOL_TRADE_MODE_SHORTONLY = 0, 1, 2
SYMBOL_TRADE_MODE_CLOSEONLY, SYMBOL_TRADE_MODE_FULL = 3, 4
SYMBOL_TRADE_EXECUTION_REQUEST, SYMBOL_TRADE_EXECUTION_INSTANT = 0, 1
SYMBOL_TRADE_EXECUTION_MARKET, SYMBOL_TRADE_EXECUTION_EXCHANGE = 2, 3
SYMBOL_CHART_MODE_BID, SYMBOL_CHART_MODE_LAST = 0, 1
SYMBOL_SWAP_MODE_DISABLED, SYMBOL_SWAP_MODE_POINTS, SYMBOL_SWAP_MODE_CURRENCY_SYMBOL = 0, 1, 2
SYMBOL_SWAP_MODE_CURRENCY_MARGIN, SYMBOL_SWAP_MODE_CURRENCY_DEPOSIT = 3, 4
SYMBOL_SWAP_MODE_INTEREST_CURRENT, SYMBOL_SWAP_MODE_INTEREST_OPEN = 5, 6
SYMBOL_SWAP_MODE_REOPEN_CURRENT, SYMBOL_SWAP_MODE_REOPEN_BID = 7, 8
DAY_OF_WEEK_SUNDAY, DAY_OF_WEEK_MONDAY, DAY_OF_WEEK_TUESDAY, DAY_OF_WEEK_WEDNESDAY = 0, 1, 2, 3
DAY_OF_WEEK_THURSDAY, DAY_OF_WEEK_FRIDAY, DAY_OF_WEEK_SATURDAY = 4, 5, 6
SYMBOL_ORDERS_GTC, SYMBOL_ORDERS_DAILY, SYMBOL_ORDERS_DAILY_NO_STOPS = 0, 1, 2
SYMBOL_OPTION_RIGHT_CALL, SYMBOL_OPTION_RIGHT_PUT = 0, 1
SYMBOL_OPTION_MODE_EUROPEAN, SYMBOL_OPTION_MODE_AMERICAN = 0, 1
BOOK_TYPE_SELL, BOOK_TYPE_BUY, BOOK_TYPE_SELL_MARKET, BOOK_TYPE_BUY_MARKET = 1, 2, 3, 4

ACCOUNT_TRADE_MODE_DEMO, ACCOUNT_TRADE_MODE_CONTEST, ACCOUNT_TRADE_MODE_REAL = 0, 1, 2
ACCOUNT_STOPOUT_MODE_PERCENT, ACCOUNT_STOPOUT_MODE_MONEY = 0, 1
ACCOUNT_MARGIN_MODE_RETAIL_NETTING, ACCOUNT_MARGIN_MODE_EXCHANGE, ACCOUNT_MARGIN_MODE_RETAIL_HEDGING = 0, 1, 2

TRADE_RETCODE_REQUOTE, TRADE_RETCODE_REJECT, TRADE_RETCODE_CANCEL = 10004, 10006, 10007
TRADE_RETCODE_PLACED, TRADE_RETCODE_DONE, TRADE_RETCODE_DONE_PARTIAL = 10008, 10009, 10010
TRADE_RETCODE_ERROR, TRADE_RETCODE_TIMEOUT, TRADE_RETCODE_INVALID = 10011, 10012, 10013
TRADE_RETCODE_INVALID_VOLUME, TRADE_RETCODE_INVALID_PRICE, TRADE_RETCODE_INVALID_STOPS = 10014, 10015, 10016
TRADE_RETCODE_TRADE_DISABLED, TRADE_RETCODE_MARKET_CLOSED, TRADE_RETCODE_NO_MONEY = 10017, 10018, 10019
TRADE_RETCODE_PRICE_CHANGED, TRADE_RETCODE_PRICE_OFF, TRADE_RETCODE_INVALID_EXPIRATION = 10020, 10021, 10022
TRADE_RETCODE_ORDER_CHANGED, TRADE_RETCODE_TOO_MANY_REQUESTS, TRADE_RETCODE_NO_CHANGES = 10023, 10024, 10025
TRADE_RETCODE_SERVER_DISABLES_AT, TRADE_RETCODE_CLIENT_DISABLES_AT = 10026, 10027
TRADE_RETCODE_LOCKED, TRADE_RETCODE_FROZEN, TRADE_RETCODE_INVALID_FILL = 10028, 10029, 10030
TRADE_RETCODE_CONNECTION, TRADE_RETCODE_ONLY_REAL, TRADE_RETCODE_LIMIT_ORDERS = 10031, 10032, 10033
TRADE_RETCODE_LIMIT_VOLUME, TRADE_RETCODE_INVALID_ORDER, TRADE_RETCODE_POSITION_CLOSED = 10034, 10035, 10036
TRADE_RETCODE_INVALID_CLOSE_VOLUME, TRADE_RETCODE_CLOSE_ORDER_EXIST = 10038, 10039
TRADE_RETCODE_LIMIT_POSITIONS, TRADE_RETCODE_REJECT_CANCEL = 10040, 10041
TRADE_RETCODE_LONG_ONLY, TRADE_RETCODE_SHORT_ONLY, TRADE_RETCODE_CLOSE_ONLY = 10042, 10043, 10044
TRADE_RETCODE_FIFO_CLOSE = 10045

RES_S_OK, RES_E_FAIL, RES_E_INVALID_PARAMS, RES_E_NO_MEMORY = 1, -1, -2, -3
RES_E_NOT_FOUND, RES_E_INVALID_VERSION, RES_E_AUTH_FAILED = -4, -5, -6
RES_E_UNSUPPORTED, RES_E_AUTO_TRADING_DISABLED = -7, -8
RES_E_INTERNAL_FAIL, RES_E_INTERNAL_FAIL_SEND, RES_E_INTERNAL_FAIL_RECEIVE = -10000, -10001, -10002
RES_E_INTERNAL_FAIL_INIT, RES_E_INTERNAL_FAIL_CONNECT, RES_E_INTERNAL_FAIL_TIMEOUT = -10003, -10004, -10005

# ---------------------------------------------------------------- records

TICK_DTYPE = np.dtype(
    [("time", "<i8"), ("bid", "<f8"), ("ask", "<f8"), ("last", "<f8"), ("volume", "<u8"),
     ("time_msc", "<i8"), ("flags", "<u4"), ("volume_real", "<f8")]
)
assert TICK_DTYPE.itemsize == 60

AccountInfo = namedtuple(
    "AccountInfo",
    "login trade_mode leverage limit_orders margin_so_mode trade_allowed trade_expert margin_mode "
    "currency_digits fifo_close balance credit profit equity margin margin_free margin_level "
    "margin_so_call margin_so_so margin_initial margin_maintenance assets liabilities "
    "commission_blocked name server currency company",
)
TerminalInfo = namedtuple(
    "TerminalInfo",
    "community_account community_connection connected dlls_allowed trade_allowed tradeapi_disabled "
    "email_enabled ftp_enabled notifications_enabled mqid build maxbars codepage ping_last "
    "community_balance retransmission company name language path data_path commondata_path",
)
# A subset of the real 96-field record: enough for mt5api's symbol routes to answer.
SymbolInfo = namedtuple(
    "SymbolInfo",
    "custom chart_mode select visible digits spread trade_calc_mode trade_mode trade_exemode "
    "bid ask point trade_contract_size volume_min volume_max volume_step "
    "currency_base currency_profit currency_margin description path name",
)
Tick = namedtuple("Tick", "time bid ask last volume time_msc flags volume_real")

# ---------------------------------------------------------------- state

_connected = False
_last_error: tuple[int, str] = (RES_S_OK, "Success")
_ticks: dict[str, np.ndarray] = {}


def _ok() -> None:
    global _last_error
    _last_error = (RES_S_OK, "Success")


def _fail(code: int, text: str):
    global _last_error
    _last_error = (code, text)
    return None


def _load_ticks() -> None:
    spec = os.environ.get("MT5_STUB_TICKS", "")
    for pair in filter(None, (p.strip() for p in spec.split(","))):
        symbol, _, path = pair.partition("=")
        array = np.load(path, mmap_mode="r")
        if array.dtype != TICK_DTYPE:
            raise ValueError(f"{path}: dtype {array.dtype} is not the MetaTrader5 tick dtype")
        _ticks[symbol] = array


def _msc(value) -> int:
    """A date argument (datetime or integer seconds) as epoch milliseconds."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return (value - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(milliseconds=1)
    return int(value) * 1000


def _filter(rows: np.ndarray, flags: int) -> np.ndarray:
    if flags == COPY_TICKS_INFO:
        return rows[(rows["flags"] & (TICK_FLAG_BID | TICK_FLAG_ASK)) != 0]
    if flags == COPY_TICKS_TRADE:
        return rows[(rows["flags"] & (TICK_FLAG_LAST | TICK_FLAG_VOLUME)) != 0]
    return np.array(rows)  # a fresh array, as the real package returns


def _series(symbol: str):
    if not _connected:
        return _fail(RES_E_INTERNAL_FAIL_CONNECT, "No IPC connection")
    series = _ticks.get(symbol)
    if series is None:
        return _fail(RES_E_INVALID_PARAMS, "Terminal: Invalid params")
    return series


# ---------------------------------------------------------------- connection

def initialize(path=None, login=None, password=None, server=None, timeout=60000, portable=False) -> bool:
    global _connected
    if not _ticks:
        _load_ticks()
    _connected = True
    _ok()
    return True


def login(login, password=None, server=None, timeout=60000) -> bool:
    _ok()
    return True


def shutdown() -> None:
    global _connected
    _connected = False


def version():
    if not _connected:
        return _fail(RES_E_INTERNAL_FAIL_CONNECT, "No IPC connection")
    _ok()
    return (500, 5120, "1 Jul 2025")


def last_error() -> tuple[int, str]:
    return _last_error


def account_info():
    if not _connected:
        return _fail(RES_E_INTERNAL_FAIL_CONNECT, "No IPC connection")
    _ok()
    return AccountInfo(
        login=5000000, trade_mode=ACCOUNT_TRADE_MODE_DEMO, leverage=100, limit_orders=200,
        margin_so_mode=ACCOUNT_STOPOUT_MODE_PERCENT, trade_allowed=True, trade_expert=True,
        margin_mode=ACCOUNT_MARGIN_MODE_RETAIL_HEDGING, currency_digits=2, fifo_close=False,
        balance=100000.0, credit=0.0, profit=0.0, equity=100000.0, margin=0.0, margin_free=100000.0,
        margin_level=0.0, margin_so_call=50.0, margin_so_so=30.0, margin_initial=0.0,
        margin_maintenance=0.0, assets=0.0, liabilities=0.0, commission_blocked=0.0,
        name="Bench", server="Stub-Demo", currency="USD", company="Stub",
    )


def terminal_info():
    if not _connected:
        return _fail(RES_E_INTERNAL_FAIL_CONNECT, "No IPC connection")
    _ok()
    return TerminalInfo(
        community_account=False, community_connection=False, connected=True, dlls_allowed=False,
        trade_allowed=True, tradeapi_disabled=False, email_enabled=False, ftp_enabled=False,
        notifications_enabled=False, mqid=False, build=5120, maxbars=100000, codepage=0,
        ping_last=0, community_balance=0.0, retransmission=0.0, company="Stub",
        name="MetaTrader 5", language="English", path="/stub", data_path="/stub", commondata_path="/stub",
    )


# ---------------------------------------------------------------- symbols

def symbols_total():
    _ok()
    return len(_ticks)


def _symbol_record(symbol: str):
    last = _ticks[symbol][-1] if len(_ticks[symbol]) else None
    bid = float(last["bid"]) if last is not None else 0.0
    ask = float(last["ask"]) if last is not None else 0.0
    return SymbolInfo(
        custom=False, chart_mode=SYMBOL_CHART_MODE_BID, select=True, visible=True, digits=5,
        spread=round((ask - bid) * 1e5), trade_calc_mode=SYMBOL_CALC_MODE_FOREX,
        trade_mode=SYMBOL_TRADE_MODE_FULL, trade_exemode=SYMBOL_TRADE_EXECUTION_INSTANT,
        bid=bid, ask=ask, point=1e-5, trade_contract_size=100000.0, volume_min=0.01,
        volume_max=500.0, volume_step=0.01, currency_base=symbol[:3], currency_profit=symbol[3:6],
        currency_margin=symbol[:3], description=symbol, path=f"Forex\\{symbol}", name=symbol,
    )


def symbols_get(group=None):
    _ok()
    return tuple(_symbol_record(s) for s in _ticks)


def symbol_info(symbol):
    if _series(symbol) is None:
        return None
    _ok()
    return _symbol_record(symbol)


def symbol_info_tick(symbol):
    series = _series(symbol)
    if series is None:
        return None
    _ok()
    row = series[-1]
    return Tick(*(row[name].item() for name in TICK_DTYPE.names))


def symbol_select(symbol, enable=None) -> bool:
    if _series(symbol) is None:
        return False
    _ok()
    return True


# ---------------------------------------------------------------- ticks

def copy_ticks_from(symbol, date_from, count, flags):
    series = _series(symbol)
    if series is None:
        return None
    start = int(np.searchsorted(series["time_msc"], _msc(date_from), side="left"))
    _ok()
    return _filter(series[start:start + int(count)], int(flags))


def copy_ticks_range(symbol, date_from, date_to, flags):
    series = _series(symbol)
    if series is None:
        return None
    times = series["time_msc"]
    start = int(np.searchsorted(times, _msc(date_from), side="left"))
    end = int(np.searchsorted(times, _msc(date_to), side="right"))
    _ok()
    return _filter(series[start:end], int(flags))


def _not_found(*args, **kwargs):
    return _fail(RES_E_NOT_FOUND, "Terminal: Not found")


# Not served by the stub (the benchmark pulls ticks only).
copy_rates_from = copy_rates_from_pos = copy_rates_range = _not_found
market_book_add = market_book_get = market_book_release = _not_found
orders_total = orders_get = positions_total = positions_get = _not_found
history_orders_total = history_orders_get = history_deals_total = history_deals_get = _not_found
order_calc_margin = order_calc_profit = order_check = order_send = _not_found
