"""One op per operation of the C++ Terminal interface (binding/terminal/terminal.h), plus
bridge_status. Each op validates its args, then runs exactly the package calls it needs on the
worker. Record ops return a JSON value; series ops return a Series (dtype + window generator)."""
import time

from . import columns, errors, series
from .args import validate
from .group import group_match, is_blank
from .records import to_json

S, I, F, B, O = "str", "int", "float", "bool", "object"
REQ, OPT = True, False


class Series(object):
    def __init__(self, dtype, windows=None, symbol=None):
        self.dtype = dtype      # announced if the first window is empty
        self.windows = windows  # iterator of numpy structured arrays, ascending
        self.symbol = symbol
        # {field: ((op, scale), ...)}: how prices may be sent as integer points (columns.py), from
        # the symbol's digits and point; filled by the first package call's job, {} if unknown.
        self.scales = None
        self.package_cpu = 0.0  # CPU seconds of the worker thread inside this series' package calls
        self.credit_wait = 0.0  # seconds the connection waited for the client's credits


# Every date goes to the package as integer seconds of server time (mt5-reference §3.3). The
# package reads a datetime through datetime.timestamp() (a naive one in the bridge host's local
# zone) and keeps whole seconds, so a datetime could only shift dates, never add milliseconds.
PACKAGE_DATE_RESOLUTION_MS = 1000


def package_date_msc(msc: int) -> int:
    """A millisecond date for the package: the integer second that holds it (rounded down; the
    series code drops the rows between that second and msc)."""
    return msc // 1000


def _record(session, fn):
    """A record call: None means failure, read last_error() on the same worker turn."""
    def job(mt5):
        value = fn(mt5)
        if value is None:
            session.fail()
        return to_json(value)
    return session.call(job)


def _boolean(session, fn):
    def job(mt5):
        value = fn(mt5)
        if value is not True:
            session.fail()
        return True
    return session.call(job)


# ---------------------------------------------------------------- terminal, account, symbols

def op_version(s, a): return _record(s, lambda m: m.version())
def op_terminal_info(s, a): return _record(s, lambda m: m.terminal_info())
def op_account_info(s, a): return _record(s, lambda m: m.account_info())
def op_last_error(s, a): return to_json(s.client_last_error())
def op_symbols_total(s, a): return _record(s, lambda m: m.symbols_total())


def op_symbols_get(s, a):
    if "group" in a:
        return _record(s, lambda m: m.symbols_get(group=a["group"]))
    return _record(s, lambda m: m.symbols_get())


def op_symbol_info(s, a): return _record(s, lambda m: m.symbol_info(a["symbol"]))


def op_symbol_info_tick(s, a):
    symbol = a["symbol"]

    def job(mt5):
        tick = mt5.symbol_info_tick(symbol)
        if tick is not None:
            return to_json(tick)
        last_error = tuple(mt5.last_error())
        failure = errors.from_last_error(last_error)
        if failure.kind != errors.CALL_FAILED:
            raise failure  # not_found (unknown symbol), IPC codes, ...: as the package said
        # The package needs the symbol in Market Watch and refuses otherwise with a generic (-1)
        # (mt5-reference §2.3, §8). When the symbol exists but is not selected, say so, so that
        # the gateway can name the remedy (409), as the simulator does. The extra symbol_info()
        # overwrites the package's last_error(): the session remembers the tick's failure instead.
        info = mt5.symbol_info(symbol)
        kind = errors.NOT_SELECTED if info is not None and not info.select else failure.kind
        raise errors.BridgeError(kind, failure.code, failure.message, last_error=last_error)

    return s.call(job)


def op_symbol_select(s, a): return _boolean(s, lambda m: m.symbol_select(a["symbol"], a["enable"]))


# ---------------------------------------------------------------- market depth

def op_market_book_add(s, a):
    result = _boolean(s, lambda m: m.market_book_add(a["symbol"]))
    s.book_added(a["symbol"])  # remembered so that a reconnect re-adds it
    return result


def op_market_book_release(s, a):
    symbol = a["symbol"]
    if not s.book_subscribed(symbol):
        # Same answer as the simulator (binding/sim: release without add -> not_subscribed).
        raise errors.BridgeError(errors.NOT_SUBSCRIBED, errors.RES_E_FAIL, "Terminal: Call failed")
    result = _boolean(s, lambda m: m.market_book_release(symbol))
    s.book_released(symbol)
    return result


def op_market_book_get(s, a):
    symbol = a["symbol"]
    try:
        return _record(s, lambda m: m.market_book_get(symbol))
    except errors.BridgeError as e:
        # The real terminal needs market_book_add first; its refusal is a generic (-1). When we
        # know there is no subscription, say so, so that the gateway can name the remedy (409).
        if e.code == errors.RES_E_FAIL and not s.book_subscribed(symbol):
            raise errors.BridgeError(errors.NOT_SUBSCRIBED, e.code, e.message)
        raise


# ---------------------------------------------------------------- series

PRICE_FIELDS = ("bid", "ask", "last", "open", "high", "low", "close")


def _symbol_scales(session, mt5, symbol):
    """{field: candidates} for a symbol's series, from its symbol_info (asked once per symbol and
    terminal session, on the worker; the encoder checks every chunk, so a stale answer can only
    cost compactness, never exactness). {} when the package does not know the symbol."""
    cache = session.scales_cache
    got = cache.get(symbol)
    if got is None:
        info = mt5.symbol_info(symbol)
        if info is None:
            return {}
        prices = columns.price_scales(int(info.digits), float(info.point))
        got = {name: prices for name in PRICE_FIELDS}
        got["volume_real"] = columns.price_scales(columns.step_digits(float(info.volume_step)))
        cache[symbol] = got
    return got


def _array(session, fn, plan=None):
    """One package call returning an array. With `plan` (the series), its first call also learns
    the symbol's point grid, on the same worker turn and before the call itself, so that
    last_error() still answers for the copy_* call."""
    def job(mt5):
        started = time.thread_time()
        if plan is not None and plan.scales is None:
            plan.scales = _symbol_scales(session, mt5, plan.symbol)
        arr = fn(mt5)
        if plan is not None:
            plan.package_cpu += time.thread_time() - started
        if arr is None:
            session.fail()
        return arr
    # A series' window is bulk work: interactive calls waiting beside it go first (worker.py).
    return session.call(job, bulk=True)


def _check_count(name, value):
    if value < 0:
        raise errors.invalid_params("args.%s: must be >= 0" % name)


def _check_timeframe(tf):
    if tf not in series.TIMEFRAME_SECONDS:
        raise errors.invalid_params("args.timeframe: %d is not a TIMEFRAME_* value" % tf)


def op_copy_rates_from(s, a):
    _check_timeframe(a["timeframe"])
    _check_count("count", a["count"])
    plan = Series(series.RATE_DTYPE, symbol=a["symbol"])
    fetch = lambda: _array(s, lambda m: m.copy_rates_from(a["symbol"], a["timeframe"], a["date_from"], a["count"]), plan)
    plan.windows = series.one_call(fetch)
    return plan


def op_copy_rates_from_pos(s, a):
    _check_timeframe(a["timeframe"])
    _check_count("count", a["count"])
    _check_count("start_pos", a["start_pos"])
    plan = Series(series.RATE_DTYPE, symbol=a["symbol"])
    fetch = lambda: _array(s, lambda m: m.copy_rates_from_pos(a["symbol"], a["timeframe"], a["start_pos"], a["count"]), plan)
    plan.windows = series.one_call(fetch)
    return plan


def op_copy_rates_range(s, a, window_rows):
    _check_timeframe(a["timeframe"])
    state = {"missing": None, "rows": 0}
    plan = Series(series.RATE_DTYPE, symbol=a["symbol"])

    def fetch(lo, hi):
        try:
            return _array(s, lambda m: m.copy_rates_range(a["symbol"], a["timeframe"], lo, hi), plan)
        except errors.BridgeError as e:
            if e.code != errors.RES_E_NOT_FOUND:
                raise
            state["missing"] = e  # no history in this window; fatal only if no window has any
            return None

    def windows():
        for arr in series.rates_range(fetch, a["timeframe"], a["date_from"], a["date_to"], window_rows):
            state["rows"] += len(arr)
            yield arr
        if state["rows"] == 0 and state["missing"] is not None:
            raise state["missing"]  # the whole range is outside history: fail as one call would

    plan.windows = windows()
    return plan


def _tick_fetch(s, a, plan):
    def fetch(cursor_msc, count):
        return _array(s, lambda m: m.copy_ticks_from(a["symbol"], package_date_msc(cursor_msc), count, a["flags"]), plan)
    return fetch


def op_copy_ticks_from(s, a, window_rows):
    _check_count("count", a["count"])
    plan = Series(series.TICK_DTYPE, symbol=a["symbol"])
    plan.windows = series.ticks_from(_tick_fetch(s, a, plan), a["date_from_msc"], a["count"], window_rows,
                                     PACKAGE_DATE_RESOLUTION_MS)
    return plan


def op_copy_ticks_range(s, a, window_rows):
    if a["date_to_msc"] < a["date_from_msc"]:
        raise errors.invalid_params("args.date_to_msc: before date_from_msc")
    plan = Series(series.TICK_DTYPE, symbol=a["symbol"])
    plan.windows = series.ticks_range(_tick_fetch(s, a, plan), a["date_from_msc"], a["date_to_msc"], window_rows,
                                      PACKAGE_DATE_RESOLUTION_MS)
    return plan


# ---------------------------------------------------------------- calculations

def op_order_calc_margin(s, a):
    return _record(s, lambda m: m.order_calc_margin(a["action"], a["symbol"], a["volume"], a["price"]))


def op_order_calc_profit(s, a):
    return _record(s, lambda m: m.order_calc_profit(a["action"], a["symbol"], a["volume"],
                                                    a["price_open"], a["price_close"]))


TRADE_REQUEST_FIELDS = {
    "action": I, "magic": I, "order": I, "symbol": S, "volume": F, "price": F, "stoplimit": F,
    "sl": F, "tp": F, "deviation": I, "type": I, "type_filling": I, "type_time": I,
    "expiration": I, "comment": S, "position": I, "position_by": I,
}


def op_order_check(s, a):
    request = validate("order_check.request", a["request"], {k: (v, OPT) for k, v in TRADE_REQUEST_FIELDS.items()})
    return _record(s, lambda m: m.order_check(request))


# ---------------------------------------------------------------- orders, positions, history

def _trade_filter(s, a, get):
    """orders_get / positions_get: `symbol` wins over `ticket`, `group` narrows either
    (the simulator's rule); the package takes one selector, the rest is applied here."""
    def call(m):
        if "symbol" in a:
            return get(m)(symbol=a["symbol"])
        if "ticket" in a:
            return get(m)(ticket=a["ticket"])
        if "group" in a:
            return get(m)(group=a["group"])
        return get(m)()
    records = _record(s, call)
    if "group" in a and ("symbol" in a or "ticket" in a):
        records = [r for r in records if group_match(a["group"], r["symbol"])]
    return records


def op_orders_total(s, a): return _record(s, lambda m: m.orders_total())
def op_positions_total(s, a): return _record(s, lambda m: m.positions_total())
def op_orders_get(s, a): return _trade_filter(s, a, lambda m: m.orders_get)
def op_positions_get(s, a): return _trade_filter(s, a, lambda m: m.positions_get)


def _check_range(a):
    if "date_from" in a and "date_to" in a and a["date_from"] > a["date_to"]:
        raise errors.invalid_params("args.date_to: before date_from")


def op_history_orders_total(s, a):
    _check_range(a)
    return _record(s, lambda m: m.history_orders_total(a["date_from"], a["date_to"]))


def op_history_deals_total(s, a):
    _check_range(a)
    return _record(s, lambda m: m.history_deals_total(a["date_from"], a["date_to"]))


def _history(s, a, get, time_field, ticket_field):
    """history_*_get: every given member narrows the result (HistoryFilter). The package takes
    ticket, or position, or a date range (+group): use the most selective one, filter the rest."""
    _check_range(a)

    def call(m):
        if "ticket" in a or "position" in a:
            selector = {"ticket": a["ticket"]} if "ticket" in a else {"position": a["position"]}
            records = get(m)(**selector)
            if records is None and m.last_error()[0] == errors.RES_E_NOT_FOUND:
                # The package fails a ticket/position with no records (-4); the Terminal
                # interface (and the simulator) answers an empty list, as for a date range.
                return ()
            return records
        date_from = a.get("date_from", 0)
        # No upper bound given: a year past now covers server clocks ahead of UTC.
        date_to = a.get("date_to", int(time.time()) + 366 * 86400)
        if "group" in a:
            return get(m)(date_from, date_to, group=a["group"])
        return get(m)(date_from, date_to)

    def keep(r):
        return (("date_from" not in a or r[time_field] >= a["date_from"])
                and ("date_to" not in a or r[time_field] <= a["date_to"])
                and ("ticket" not in a or r[ticket_field] == a["ticket"])
                and ("position" not in a or r["position_id"] == a["position"])
                and ("symbol" not in a or r["symbol"] == a["symbol"])
                and ("group" not in a or group_match(a["group"], r["symbol"])))
    return [r for r in _record(s, call) if keep(r)]


HISTORY_ARGS = {"date_from": (I, OPT), "date_to": (I, OPT), "ticket": (I, OPT),
                "position": (I, OPT), "group": (S, OPT), "symbol": (S, OPT)}


# History orders are dated by time_setup and picked by their own ticket; deals by time, and
# `ticket` is the ORDER ticket (mt5-reference §2.7) — as in the simulator.
def op_history_orders_get(s, a): return _history(s, a, lambda m: m.history_orders_get, "time_setup", "ticket")
def op_history_deals_get(s, a): return _history(s, a, lambda m: m.history_deals_get, "time", "order")


def op_bridge_status(s, a):
    return s.status()  # never touches the worker: answers even while the terminal is stuck


# ---------------------------------------------------------------- the table

SYMBOL = {"symbol": (S, REQ)}
TRADE_FILTER = {"symbol": (S, OPT), "group": (S, OPT), "ticket": (I, OPT)}
RANGE = {"date_from": (I, REQ), "date_to": (I, REQ)}

# name -> (handler, args spec, is_series, takes window_rows)
OPS = {
    "version": (op_version, {}, False),
    "terminal_info": (op_terminal_info, {}, False),
    "account_info": (op_account_info, {}, False),
    "last_error": (op_last_error, {}, False),
    "symbols_total": (op_symbols_total, {}, False),
    "symbols_get": (op_symbols_get, {"group": (S, OPT)}, False),
    "symbol_info": (op_symbol_info, SYMBOL, False),
    "symbol_info_tick": (op_symbol_info_tick, SYMBOL, False),
    "symbol_select": (op_symbol_select, {"symbol": (S, REQ), "enable": (B, REQ)}, False),
    "market_book_add": (op_market_book_add, SYMBOL, False),
    "market_book_get": (op_market_book_get, SYMBOL, False),
    "market_book_release": (op_market_book_release, SYMBOL, False),
    "copy_rates_from": (op_copy_rates_from, {"symbol": (S, REQ), "timeframe": (I, REQ),
                                             "date_from": (I, REQ), "count": (I, REQ)}, True),
    "copy_rates_from_pos": (op_copy_rates_from_pos, {"symbol": (S, REQ), "timeframe": (I, REQ),
                                                     "start_pos": (I, REQ), "count": (I, REQ)}, True),
    "copy_rates_range": (op_copy_rates_range, {"symbol": (S, REQ), "timeframe": (I, REQ),
                                               "date_from": (I, REQ), "date_to": (I, REQ)}, True),
    "copy_ticks_from": (op_copy_ticks_from, {"symbol": (S, REQ), "date_from_msc": (I, REQ),
                                             "count": (I, REQ), "flags": (I, REQ)}, True),
    "copy_ticks_range": (op_copy_ticks_range, {"symbol": (S, REQ), "date_from_msc": (I, REQ),
                                               "date_to_msc": (I, REQ), "flags": (I, REQ)}, True),
    "order_calc_margin": (op_order_calc_margin, {"action": (I, REQ), "symbol": (S, REQ),
                                                 "volume": (F, REQ), "price": (F, REQ)}, False),
    "order_calc_profit": (op_order_calc_profit, {"action": (I, REQ), "symbol": (S, REQ), "volume": (F, REQ),
                                                 "price_open": (F, REQ), "price_close": (F, REQ)}, False),
    "order_check": (op_order_check, {"request": (O, REQ)}, False),
    "orders_total": (op_orders_total, {}, False),
    "orders_get": (op_orders_get, TRADE_FILTER, False),
    "positions_total": (op_positions_total, {}, False),
    "positions_get": (op_positions_get, TRADE_FILTER, False),
    "history_orders_total": (op_history_orders_total, RANGE, False),
    "history_orders_get": (op_history_orders_get, HISTORY_ARGS, False),
    "history_deals_total": (op_history_deals_total, RANGE, False),
    "history_deals_get": (op_history_deals_get, HISTORY_ARGS, False),
    "bridge_status": (op_bridge_status, {}, False),
}

WINDOWED = frozenset(("copy_rates_range", "copy_ticks_from", "copy_ticks_range"))


def run(session, op, raw_args, settings):
    """Validate and run one op: a JSON value, or a Series. Raises BridgeError."""
    if not isinstance(op, str) or op not in OPS:
        raise errors.invalid_params("unknown op %r" % (op,))
    handler, spec, _is_series = OPS[op]
    a = validate(op, raw_args, spec)
    if "group" in a and is_blank(a["group"]):
        del a["group"]  # selects everything (the Terminal interface's rule), so no filter at all
    if op == "copy_rates_range":
        # A window must hold fewer bars than the terminal's maxbars, or the package refuses it (-2).
        window = settings.window_bars
        if session.maxbars:
            window = max(1, min(window, session.maxbars - 1))
        return handler(session, a, window)
    if op in WINDOWED:
        return handler(session, a, settings.window_rows)
    return handler(session, a)
