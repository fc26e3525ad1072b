"""A stand-in for the official, Windows-only ``MetaTrader5`` package (5.0.6231), for tests.

Put ``bridge/tests/stand_in`` first on ``sys.path`` and ``import MetaTrader5`` loads this module.
It behaves like the real package seen from Python: the same constants (generated from the real
wheel, ``_constants.py``), the same functions with the same argument conventions, records with the
same field names and order, packed numpy structured arrays with the real dtypes, and ``None``/``False``
plus ``last_error()`` on failure. It never trades. Data is deterministic, generated from a seed.

How the real extension takes arguments (read from ``strings _core.pyd`` and from field reports):

* Positional-only functions (``copy_*``, ``symbol_info*``, ``symbol_select``, ``market_book_*``,
  ``order_calc_*``, ``history_*_total``): any keyword argument raises ``TypeError``
  ("X() takes no keyword arguments", as reported for ``order_calc_profit``); a wrong number or type
  of arguments returns ``None`` with ``(-2, 'Invalid arguments')``.
* Keyword filters (``symbols_get``, ``orders_get``, ``positions_get``; ``group=``/``position=``/``ticket=``
  of ``history_*_get``): keyword-only; a positional filter returns ``None`` with
  ``(-2, 'Unnamed arguments not allowed')``. An unknown keyword raises ``TypeError`` here (stricter
  than the real module, which is believed to ignore it).
* ``order_check``/``order_send`` take the request dict positionally, or its fields as keywords;
  both at once returns ``None`` with ``(-2, 'Unnamed arguments not allowed')``. (The real module
  also refuses ``order_send(req, **{})`` — an empty keyword mapping; pure Python cannot see that.)
* Dates are a ``datetime`` or integer seconds. Like the real module (it calls
  ``datetime.timestamp()``), a naive datetime is read in the *local time zone of this process* and an
  aware one is converted to true epoch seconds; the number is then compared as is with the
  terminal's stamps, which are **server wall-clock time written as if UTC** (mt5-reference §3.3).
  Pass integer seconds of server time.
* Records are struct sequences in the real module (``PyStructSequence`` + an ``_asdict`` method):
  they index, iterate, compare like tuples and have attribute access and ``_asdict()`` (a ``dict`` in
  field order), ``n_fields`` and ``__match_args__`` — but **no** ``_fields``/``_replace``/``_make``.
  This stand-in builds the same shape.

Behaviour that matters to a gateway:

* ``symbol_info_tick`` answers only for symbols in Market Watch (``(-1, 'Terminal: Call failed')``
  otherwise); USDJPY and AAPL start hidden. ``market_book_get`` needs ``market_book_add`` first
  (and ``ticks_bookdepth > 0``, symbol selected). Hiding a symbol with an open position fails.
* ``copy_rates_*`` refuse any request for ``terminal_info().maxbars`` bars or more (by count or
  by a range holding that many) with ``(-2, 'Terminal: Invalid params')``.
* ``copy_ticks_range`` includes both ends, to the millisecond; ``copy_ticks_from`` starts at or
  after ``date_from``. Several ticks may share one ``time_msc``. Arrays are fresh copies.
* Unknown symbol: ``(-4, 'Terminal: Not found')``. Before ``initialize()``, after ``shutdown()``
  or after a lost terminal: ``(-10004, 'No IPC connection')``.

Data (``_configure(seed=...)``): EURUSD, GBPUSD, USDJPY (FX, Mon–Fri all day), XAUUSD (CFD,
daily break 00:00–01:00), AAPL (exchange stock, 16:30–23:00, trade ticks with last/volume),
all in server wall-clock time. Ticks (~2 per second by default) follow a random walk through
hourly anchors; each hour is generated independently from (seed, symbol, hour), vectorised, so any
window costs only its own ticks. Bars are aggregated from those very ticks (Bid; Last for AAPL).
A symbol's ticks can instead come from a ``.npy`` file with the real tick dtype
(``_configure(ticks={'EURUSD': path})`` or env ``MT5_STUB_TICKS=EURUSD=/path.npy,...``, like
``bench/peer/stub``); its bars are then aggregated from those ticks.
The account (USD, hedging, 1:100) has two open positions (EURUSD buy, XAUUSD sell), one pending
order (GBPUSD buy limit) and a short history (a deposit; a closed USDJPY trade around the March DST
change; the opening deals and orders of the positions).

Test hooks (module functions starting with ``_``; the real module has none of them):

* ``_configure(server_tz=, seed=, maxbars=, symbols=, now=, history_start=, ticks=, tick_rate=)`` —
  change settings (unnamed ones keep their value) and reset all state (connection, Market Watch,
  books, errors, hooks, caches). ``server_tz``: ``'UTC'`` (default), a fixed offset ``'+02:00'`` or
  seconds, ``'EU+2'`` (UTC+2 winter / UTC+3 summer on the EU dates: last Sunday of March and of
  October, 01:00 UTC), or an IANA name if ``zoneinfo`` knows it. ``now``: the terminal's clock as
  true UTC (datetime or epoch seconds; default 2024-12-20 16:00 UTC). ``history_start``: first
  server day with data (default 2024-01-01). ``symbols``: names of the built-in symbols to offer.
* ``_configure(world='/dir')`` or env ``MT5_STUB_WORLD=/dir`` — world mode: the data functions serve a
  world exported from another terminal (``_world.py``; test/helpers/sim-world.ts exports the simulator's).
* ``_reset()`` — back to the defaults.
* ``_lose_terminal(code=-10001)`` — the terminal goes away: the next call fails with ``code``, later
  calls with ``(-10004, 'No IPC connection')``; ``terminal_info()`` returns ``None``;
  ``initialize()`` fails with ``(-10003, 'IPC initialize failed, MetaTrader 5 x64 not found')``.
* ``_restore_terminal(reconnect=False)`` — the terminal is back; calls keep failing with -10004
  until ``initialize()`` is called again, and it has no depth subscriptions (``reconnect=True``:
  the old connection works again, with its subscriptions, unless a call already dropped it).
* ``_set_delay(seconds)`` — every call (except ``last_error``) sleeps first: a slow terminal.
* env ``MT5_STUB_SERIES_MS=ms`` — every ``copy_*`` call sleeps that long first, without CPU: the time
  a real terminal takes to produce a series window in its own process (bench/priority.ts).
* env ``MT5_STUB_WALL_SCRIPT=/path.json`` — ``_script`` steps (a JSON list) that carry ``wall_ms``
  instead of ``at``: each happens once the wall clock (not the stand-in's) reaches it, so that a
  bench can time when a change reached a client (bench/account-events.ts --terminal bridge).
* ``_advance(ms)`` — the clock moves on by ``ms`` with all state kept: new ticks appear, as live
  (returns the new now in server ms).
* ``_script(steps)`` — scripted trading at given times: positions opened, modified, partly or
  wholly closed, pending orders placed, modified, cancelled, each with its deals and history, when
  the clock (``_advance``) reaches the step's ``at`` (see ``_script``'s docstring).
* ``_fail_next(function_name, code, message=None, after=0)`` — the next call of that function
  fails with that ``last_error`` (``None``/``False``/…); with ``after=N`` the N calls before it run
  normally and the (N+1)-th fails (e.g. a failure midway through a paged series). ``message``
  defaults to the real text for the code.
* ``_book_subscriptions()`` — sorted symbols with a ``market_book_add`` in force on the current
  connection (``[]`` while the terminal is lost or not connected). Subscriptions belong to a
  connection: ``shutdown()``, a call that drops the connection and ``_restore_terminal()`` without
  ``reconnect`` (a restarted terminal) all clear them.
* ``_calls(clear=False)`` — the log of calls: a list of ``(name, args, kwargs)`` (``last_error`` not
  logged), e.g. to assert that a bridge pages in bounded windows.
* ``_server_offset(utc_seconds)``, ``_utc_to_server(utc_seconds)``, ``_server_to_utc(server_seconds)``
  — the configured zone, for time-zone tests.
* ``_ticks_chunks(symbol, from_msc, to_msc)`` — yields the tick arrays hour by hour (bounded memory),
  e.g. to export 10 M ticks.
"""

import calendar
import json
import operator
import os
import threading
import time as _time
from datetime import datetime, timedelta, timezone

import numpy as np

from . import _constants

for _name in _constants.NAMES:
    globals()[_name] = getattr(_constants, _name)
del _name

__version__ = _constants.PACKAGE_VERSION
__author__ = "MetaQuotes Ltd."

# ====================================================================== records

_RECORD_FIELDS = {
    "AccountInfo": (
        "login trade_mode leverage limit_orders margin_so_mode trade_allowed trade_expert margin_mode "
        "currency_digits fifo_close balance credit profit equity margin margin_free margin_level "
        "margin_so_call margin_so_so margin_initial margin_maintenance assets liabilities "
        "commission_blocked name server currency company"),
    "TerminalInfo": (
        "community_account community_connection connected dlls_allowed trade_allowed tradeapi_disabled "
        "email_enabled ftp_enabled notifications_enabled mqid build maxbars codepage ping_last "
        "community_balance retransmission company name language path data_path commondata_path"),
    "SymbolInfo": (
        "custom chart_mode select visible session_deals session_buy_orders session_sell_orders volume "
        "volumehigh volumelow time digits spread spread_float ticks_bookdepth trade_calc_mode trade_mode "
        "start_time expiration_time trade_stops_level trade_freeze_level trade_exemode swap_mode "
        "swap_rollover3days margin_hedged_use_leg expiration_mode filling_mode order_mode order_gtc_mode "
        "option_mode option_right bid bidhigh bidlow ask askhigh asklow last lasthigh lastlow volume_real "
        "volumehigh_real volumelow_real option_strike point trade_tick_value trade_tick_value_profit "
        "trade_tick_value_loss trade_tick_size trade_contract_size trade_accrued_interest trade_face_value "
        "trade_liquidity_rate volume_min volume_max volume_step volume_limit swap_long swap_short "
        "margin_initial margin_maintenance session_volume session_turnover session_interest "
        "session_buy_orders_volume session_sell_orders_volume session_open session_close session_aw "
        "session_price_settlement session_price_limit_min session_price_limit_max margin_hedged "
        "price_change price_volatility price_theoretical price_greeks_delta price_greeks_theta "
        "price_greeks_gamma price_greeks_vega price_greeks_rho price_greeks_omega price_sensitivity basis "
        "category currency_base currency_profit currency_margin bank description exchange formula isin "
        "name page path"),
    "Tick": "time bid ask last volume time_msc flags volume_real",
    "BookInfo": "type price volume volume_dbl",
    "TradeOrder": (
        "ticket time_setup time_setup_msc time_done time_done_msc time_expiration type type_time "
        "type_filling state magic position_id position_by_id reason volume_initial volume_current "
        "price_open sl tp price_current price_stoplimit symbol comment external_id"),
    "TradePosition": (
        "ticket time time_msc time_update time_update_msc type magic identifier reason volume price_open "
        "sl tp price_current swap profit symbol comment external_id"),
    "TradeDeal": (
        "ticket order time time_msc type entry magic position_id reason volume price commission swap "
        "profit fee symbol comment external_id"),
    "TradeRequest": (
        "action magic order symbol volume price stoplimit sl tp deviation type type_filling type_time "
        "expiration comment position position_by"),
    "OrderCheckResult": "retcode balance equity profit margin margin_free margin_level comment request",
    "OrderSendResult": (
        "retcode deal order volume price bid ask comment request_id retcode_external request"),
}
_RECORD_DOCS = {
    "AccountInfo": "This is a structure for storing account information",
    "TerminalInfo": "This is a structure for storing terminal information",
    "SymbolInfo": "This is a structure for storing symbol information",
    "Tick": "This is a structure for storing latest symbol prices",
    "BookInfo": "This is a structure for storing Depth of Market information",
    "TradeOrder": "Trade order structure",
    "TradePosition": "Trade position structure",
    "TradeDeal": "Trade deal structure",
    "TradeRequest": "Trade request structure",
    "OrderCheckResult": "order_check result structure",
    "OrderSendResult": "order_send result structure",
}


def _record_type(name, fields, doc):
    """A tuple type shaped like the real module's PyStructSequence records."""
    fields = tuple(fields.split())
    n = len(fields)

    def __new__(cls, sequence, dict=None):
        values = tuple(sequence)
        if len(values) != n:
            raise TypeError("%s() takes a %d-sequence (%d-sequence given)" % (name, n, len(values)))
        return tuple.__new__(cls, values)

    def __repr__(self):
        return "%s(%s)" % (name, ", ".join("%s=%r" % pair for pair in zip(fields, self)))

    def _asdict(self):
        """Convert named tuple object to dictionary"""
        return dict(zip(fields, self))

    def __reduce__(self):
        return (type(self), (tuple(self),))

    namespace = {
        "__slots__": (), "__doc__": doc, "__new__": __new__, "__repr__": __repr__,
        "_asdict": _asdict, "__reduce__": __reduce__, "n_fields": n, "n_sequence_fields": n,
        "n_unnamed_fields": 0, "__match_args__": fields, "__module__": __name__,
    }
    for i, field in enumerate(fields):
        namespace[field] = property(operator.itemgetter(i))
    return type(name, (tuple,), namespace)


AccountInfo = TerminalInfo = SymbolInfo = Tick = BookInfo = None  # bound just below
TradeOrder = TradePosition = TradeDeal = TradeRequest = OrderCheckResult = OrderSendResult = None
for _name, _fields in _RECORD_FIELDS.items():
    globals()[_name] = _record_type(_name, _fields, _RECORD_DOCS[_name])
del _name, _fields

# ====================================================================== arrays

TICK_DTYPE = np.dtype([("time", "<i8"), ("bid", "<f8"), ("ask", "<f8"), ("last", "<f8"),
                       ("volume", "<u8"), ("time_msc", "<i8"), ("flags", "<u4"),
                       ("volume_real", "<f8")])
RATE_DTYPE = np.dtype([("time", "<i8"), ("open", "<f8"), ("high", "<f8"), ("low", "<f8"),
                       ("close", "<f8"), ("tick_volume", "<u8"), ("spread", "<i4"),
                       ("real_volume", "<u8")])
assert TICK_DTYPE.itemsize == 60 and RATE_DTYPE.itemsize == 60

# ====================================================================== errors

_MESSAGES = {
    1: "Success",
    -1: "Terminal: Call failed",
    -2: "Terminal: Invalid params",
    -3: "Terminal: Out of memory",
    -4: "Terminal: Not found",
    -5: "Terminal: Incompatible versions, please install the latest version of Terminal and Python module",
    -6: "Terminal: Authorization failed",
    -7: "Terminal: Unsupported function",
    -8: "Auto-Trading using Python API disabled in Terminal",
    -10000: "IPC call failed",
    -10001: "IPC send failed",
    -10002: "IPC recv failed",
    -10003: "IPC initialize failed, MetaTrader 5 x64 not found",
    -10004: "No IPC connection",
    -10005: "IPC timeout",
}
_INVALID_ARGS = "Invalid arguments"
_UNNAMED = "Unnamed arguments not allowed"


class _Fail(Exception):
    """Raised inside an API function: the call fails with (code, message)."""

    def __init__(self, code, message=None):
        Exception.__init__(self, code, message)
        self.code = code
        self.message = _MESSAGES.get(code, "Terminal: Call failed") if message is None else message


# ====================================================================== server time zone

def _last_sunday_0100_utc(year, month):
    last = calendar.monthrange(year, month)[1]
    day = last - (calendar.weekday(year, month, last) + 1) % 7
    return calendar.timegm((year, month, day, 1, 0, 0))


class _EUZone(object):
    """Fixed winter offset, +1 h from the last Sunday of March to the last Sunday of October (01:00 UTC)."""

    def __init__(self, winter):
        self.winter = winter

    def offset(self, utc):
        year = datetime.fromtimestamp(utc, timezone.utc).year
        summer = _last_sunday_0100_utc(year, 3) <= utc < _last_sunday_0100_utc(year, 10)
        return self.winter + (3600 if summer else 0)


class _FixedZone(object):
    def __init__(self, seconds):
        self.seconds = seconds

    def offset(self, utc):
        return self.seconds


class _IanaZone(object):
    def __init__(self, name):
        from zoneinfo import ZoneInfo  # Python 3.9+, needs the system's or the tzdata package's data
        self.zone = ZoneInfo(name)

    def offset(self, utc):
        return int(datetime.fromtimestamp(utc, self.zone).utcoffset().total_seconds())


def _parse_zone(spec):
    if spec is None or spec in ("UTC", "Z", "utc", 0):
        return _FixedZone(0)
    if isinstance(spec, int):
        return _FixedZone(spec)
    if isinstance(spec, timedelta):
        return _FixedZone(int(spec.total_seconds()))
    text = str(spec).strip()
    if text.upper().startswith("EU"):
        return _EUZone(int(float(text[2:] or 2) * 3600))
    if text[:1] in "+-" and ":" in text:
        sign = -1 if text[0] == "-" else 1
        hours, minutes = text[1:].split(":")
        return _FixedZone(sign * (int(hours) * 3600 + int(minutes) * 60))
    return _IanaZone(text)


def _server_offset(utc_seconds):
    """Seconds to add to true UTC to get the server's wall clock at that instant."""
    return _S.zone.offset(int(utc_seconds))


def _utc_to_server(utc_seconds):
    return int(utc_seconds) + _server_offset(utc_seconds)


def _server_to_utc(server_seconds):
    """True UTC of a server wall-clock stamp (the earlier instant in a repeated autumn hour)."""
    s = int(server_seconds)
    guess = s - _server_offset(s)
    for candidate in sorted({s - _server_offset(guess - 7200), s - _server_offset(guess),
                             s - _server_offset(guess + 7200)}):
        if _utc_to_server(candidate) == s:
            return candidate
    return guess


# ====================================================================== symbols

class _Spec(object):
    def __init__(self, name, digits, price, vol, spread, calc, contract, base, profit, margin,
                 path, description, session, chart=0, book=0, trades=False, rate=2.0,
                 selected=True, exemode=2, filling=2, volume_min=0.01, volume_step=0.01,
                 volume_max=500.0, exchange="", isin=""):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        self.currency_base, self.currency_profit, self.currency_margin = base, profit, margin
        self.point = 10.0 ** -digits


_BUILTIN = [
    _Spec("EURUSD", 5, 1.1000, 0.0006, 8, SYMBOL_CALC_MODE_FOREX, 100000.0, "EUR", "USD", "EUR",
          "Forex\\EURUSD", "Euro vs US Dollar", "fx", book=10),
    _Spec("GBPUSD", 5, 1.2700, 0.0007, 10, SYMBOL_CALC_MODE_FOREX, 100000.0, "GBP", "USD", "GBP",
          "Forex\\GBPUSD", "Great Britain Pound vs US Dollar", "fx"),
    _Spec("USDJPY", 3, 145.00, 0.0007, 9, SYMBOL_CALC_MODE_FOREX, 100000.0, "USD", "JPY", "USD",
          "Forex\\USDJPY", "US Dollar vs Japanese Yen", "fx", selected=False),
    _Spec("XAUUSD", 2, 2050.0, 0.0012, 20, SYMBOL_CALC_MODE_CFDLEVERAGE, 100.0, "XAU", "USD", "USD",
          "Metals\\XAUUSD", "Gold vs US Dollar", "metal", book=5, rate=1.5),
    _Spec("AAPL", 2, 190.0, 0.0030, 2, SYMBOL_CALC_MODE_EXCH_STOCKS, 1.0, "USD", "USD", "USD",
          "Stocks\\NASDAQ\\AAPL", "Apple Inc.", "stock", chart=SYMBOL_CHART_MODE_LAST, book=10,
          trades=True, rate=1.0, selected=False, exemode=SYMBOL_TRADE_EXECUTION_EXCHANGE, filling=3,
          volume_min=1.0, volume_step=1.0, volume_max=10000.0, exchange="NASDAQ", isin="US0378331005"),
]

# session minutes of the day (server wall clock), Monday..Friday only
_SESSIONS = {"fx": (0, 1440), "metal": (60, 1440), "stock": (990, 1380)}


def _session_minute_mask(kind):
    lo, hi = _SESSIONS[kind]
    mask = np.zeros(1440, dtype=bool)
    mask[lo:hi] = True
    return mask


_SESSION_MASKS = dict((k, _session_minute_mask(k)) for k in _SESSIONS)


def _weekday(days):
    """Monday = 0 for days since 1970-01-01 (a Thursday)."""
    return (np.asarray(days) + 3) % 7

# ====================================================================== state

_DEFAULTS = dict(server_tz="UTC", seed=20240101, maxbars=100000, symbols=None,
                 now=calendar.timegm((2024, 12, 20, 16, 0, 0)),
                 history_start=calendar.timegm((2024, 1, 1, 0, 0, 0)), ticks=None, tick_rate=1.0, world=None)


class _State(object):
    pass


_S = _State()
_LOCK = threading.RLock()


def _as_epoch(value):
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return int(value.timestamp())
    return int(value)


def _apply(settings):
    _S.settings = settings
    _S.zone = _parse_zone(settings["server_tz"])
    _S.seed = int(settings["seed"])
    _S.maxbars = int(settings["maxbars"])
    _S.now_utc = _as_epoch(settings["now"])
    _S.now_server_ms = _utc_to_server(_S.now_utc) * 1000
    _S.history_start = _as_epoch(settings["history_start"])
    names = settings["symbols"]
    specs = [s for s in _BUILTIN if names is None or s.name in names]
    _S.specs = dict((s.name, s) for s in specs)
    _S.order = [s.name for s in specs]
    _S.index = dict((s.name, i) for i, s in enumerate(_BUILTIN))
    _S.arrays = {}
    _S.array_times = {}
    ticks = dict(settings["ticks"] or {})
    env = os.environ.get("MT5_STUB_TICKS", "")
    for pair in filter(None, (p.strip() for p in env.split(","))):
        symbol, _, path = pair.partition("=")
        ticks.setdefault(symbol, path)
    for symbol, source in ticks.items():
        array = np.load(source, mmap_mode="r") if isinstance(source, str) else np.asarray(source)
        if array.dtype != TICK_DTYPE:
            raise ValueError("%s: dtype %s is not the MetaTrader5 tick dtype" % (symbol, array.dtype))
        _S.arrays[symbol] = array
        if symbol not in _S.specs:
            base = _BUILTIN[0]
            spec = _Spec(symbol, base.digits, base.price, base.vol, base.spread, base.calc, base.contract,
                         symbol[:3], symbol[3:6] or "USD", symbol[:3], "Custom\\" + symbol, symbol, "fx")
            _S.specs[symbol] = spec
            _S.order.append(symbol)
    _S.rate_scale = float(settings["tick_rate"])
    _S.connected = False
    _S.lost = False
    _S.lost_first = None
    _S.last_error = (1, "Success")
    _S.selected = set(n for n in _S.order if _S.specs[n].selected)
    _S.books = set()
    _S.delay = 0.0
    _S.series_delay = float(os.environ.get("MT5_STUB_SERIES_MS", "0") or 0) / 1000.0
    _S.fail_next = {}
    _S.calls = []
    _S.anchors = {}
    _S.m1_cache = {}
    _S.tick_cache = {}
    _S.account = None
    _S.script = []
    wall = os.environ.get("MT5_STUB_WALL_SCRIPT")
    if wall:
        with open(wall) as f:
            _S.wall_script = sorted((dict(step) for step in json.load(f)), key=lambda st: st["wall_ms"])
    else:
        _S.wall_script = []
    _S.request_id = 0
    # World mode (_world.py): an exported world serves the data functions instead of the generator.
    from . import _world
    _S.world = _world.load(settings["world"] or os.environ.get("MT5_STUB_WORLD"))


def _configure(**settings):
    """Change settings (see the module docstring) and reset all state."""
    unknown = set(settings) - set(_DEFAULTS)
    if unknown:
        raise TypeError("unknown settings: %s" % ", ".join(sorted(unknown)))
    with _LOCK:
        merged = dict(_S.settings)
        merged.update(settings)
        _apply(merged)


def _reset():
    with _LOCK:
        _apply(dict(_DEFAULTS))


def _lose_terminal(code=-10001):
    with _LOCK:
        _S.lost = True
        _S.lost_first = code


def _restore_terminal(reconnect=False):
    with _LOCK:
        _S.lost = False
        _S.lost_first = None
        if not reconnect:
            _S.connected = False
            _S.books.clear()  # a restarted terminal has no depth subscriptions


def _set_delay(seconds):
    _S.delay = float(seconds)


def _advance(ms):
    """The terminal's clock moves on by ``ms`` milliseconds, everything else kept (connection,
    subscriptions): the ticks up to the new now appear, as they would live."""
    with _LOCK:
        before = _S.now_server_ms
        _S.now_server_ms += int(ms)
        _S.now_utc = _server_to_utc(_S.now_server_ms // 1000)
        # Only what holds the cut at the old now: the hour and the day it fell in (and none after).
        # Earlier ones are whole and stay: rebuilding a day of ticks at every step (the M1 bars of
        # symbol_info's day range) took seconds a call at a high tick rate, longer than a call's
        # deadline on a loaded machine.
        hour, day = before // _HOUR_MS, before // 86400000
        for key in [k for k in _S.tick_cache if k[1] >= hour]:
            del _S.tick_cache[key]
        for key in [k for k in _S.m1_cache if k[1] >= day]:
            del _S.m1_cache[key]
    return _S.now_server_ms


def _fail_next(function_name, code, message=None, after=0):
    if function_name not in _API:
        raise ValueError("no such function: %r" % (function_name,))
    if int(after) < 0:
        raise ValueError("after must be >= 0")
    text = _MESSAGES.get(code, "Terminal: Call failed") if message is None else message
    with _LOCK:
        _S.fail_next[function_name] = [int(after), code, text]


def _book_subscriptions():
    with _LOCK:
        return sorted(_S.books) if _S.connected and not _S.lost else []


def _calls(clear=False):
    with _LOCK:
        out = list(_S.calls)
        if clear:
            del _S.calls[:]
        return out

# ====================================================================== tick generation

_HOUR_MS = 3600000


def _anchors(symbol):
    """Log prices at every server hour from history start to now + 1 h (a random walk)."""
    a = _S.anchors.get(symbol)
    if a is None:
        spec = _S.specs[symbol]
        first = _S.history_start // 3600
        last = _S.now_server_ms // _HOUR_MS + 2
        rng = np.random.Generator(np.random.PCG64([_S.seed, _S.index.get(symbol, 99), 0xA11C]))
        steps = rng.standard_normal(last - first) * spec.vol
        steps[0] = 0.0
        a = (first, np.log(spec.price) + np.cumsum(steps))
        _S.anchors[symbol] = a
    return a


def _generate_hour(symbol, hour):
    """Every tick of one server hour (before the now cut), generated from (seed, symbol, hour)."""
    spec = _S.specs[symbol]
    day, hour_of_day = divmod(hour, 24)
    if _weekday(day) >= 5 or hour * 3600 < _S.history_start:
        return np.empty(0, TICK_DTYPE)
    minute_open = _SESSION_MASKS[spec.session][hour_of_day * 60:(hour_of_day + 1) * 60]
    if not minute_open.any():
        return np.empty(0, TICK_DTYPE)
    first, anchors = _anchors(symbol)
    a0, a1 = anchors[hour - first], anchors[hour - first + 1]
    rng = np.random.Generator(np.random.PCG64([_S.seed, _S.index.get(symbol, 99), hour]))
    counts = rng.poisson(spec.rate * _S.rate_scale * 60, 60) + 1
    counts[~minute_open] = 0
    n = int(counts.sum())
    within = np.repeat(np.arange(60, dtype=np.int64) * 60000, counts) + rng.integers(0, 60000, n)
    within.sort()
    frac = within / float(_HOUR_MS)
    walk = np.cumsum(rng.standard_normal(n)) * (spec.vol * 0.6 / np.sqrt(n))
    bridge = walk - np.arange(1, n + 1) / float(n) * walk[-1]
    bid = np.round(np.exp(a0 + frac * (a1 - a0) + bridge), spec.digits)
    spread = spec.spread + rng.geometric(0.45, n) - 1
    ask = np.round(bid + spread * spec.point, spec.digits)
    ticks = np.zeros(n, TICK_DTYPE)
    ticks["time_msc"] = hour * _HOUR_MS + within
    ticks["time"] = ticks["time_msc"] // 1000
    ticks["bid"] = bid
    ticks["ask"] = ask
    flags = np.zeros(n, np.uint32)
    flags[1:] |= np.where(bid[1:] != bid[:-1], TICK_FLAG_BID, 0).astype(np.uint32)
    flags[1:] |= np.where(ask[1:] != ask[:-1], TICK_FLAG_ASK, 0).astype(np.uint32)
    flags[0] = TICK_FLAG_BID | TICK_FLAG_ASK
    if spec.trades:
        trade = rng.random(n) < 0.3
        trade[0] = True
        buy = rng.random(n) < 0.5
        price = np.where(buy, ask, bid)
        size = rng.integers(1, 500, n).astype(np.uint64)
        carry = np.maximum.accumulate(np.where(trade, np.arange(n), 0))
        ticks["last"] = price[carry]
        ticks["volume"] = size[carry]
        ticks["volume_real"] = size[carry].astype(np.float64)
        flags |= np.where(trade, TICK_FLAG_LAST | TICK_FLAG_VOLUME, 0).astype(np.uint32)
        flags |= np.where(trade & buy, TICK_FLAG_BUY, 0).astype(np.uint32)
        flags |= np.where(trade & ~buy, TICK_FLAG_SELL, 0).astype(np.uint32)
    # a tick exists only when something changed; the first tick of each minute always stays
    minute_first = np.ones(n, dtype=bool)
    minute_first[1:] = (within[1:] // 60000) != (within[:-1] // 60000)
    flags[minute_first & (flags == 0)] = TICK_FLAG_BID | TICK_FLAG_ASK
    ticks["flags"] = flags
    ticks = ticks[flags != 0]
    if (hour + 1) * _HOUR_MS > _S.now_server_ms:
        ticks = ticks[ticks["time_msc"] <= _S.now_server_ms]
    return ticks


def _hour_ticks(symbol, hour):
    key = (symbol, hour)
    cached = _S.tick_cache.get(key)
    if cached is None:
        cached = _generate_hour(symbol, hour)
        if len(_S.tick_cache) > 64:
            del _S.tick_cache[next(iter(_S.tick_cache))]  # the oldest hour made (not all: a day is 24)
        _S.tick_cache[key] = cached
    return cached


def _array_times(symbol, field):
    """A contiguous copy of a file-served symbol's time column, made once: np.searchsorted on the
    strided field of a structured (memory-mapped) array copies the whole column on every call."""
    key = (symbol, field)
    times = _S.array_times.get(key)
    if times is None:
        times = _S.array_times[key] = np.ascontiguousarray(_S.arrays[symbol][field])
    return times


def _ticks_chunks(symbol, from_msc, to_msc):
    """Yield the ticks with from_msc <= time_msc <= to_msc, one bounded array at a time."""
    from_msc = max(int(from_msc), _S.history_start * 1000)
    to_msc = min(int(to_msc), _S.now_server_ms)
    if to_msc < from_msc:
        return
    array = _S.arrays.get(symbol)
    if array is not None:
        times = _array_times(symbol, "time_msc")
        lo = int(np.searchsorted(times, from_msc, "left"))
        hi = int(np.searchsorted(times, to_msc, "right"))
        # Views of the (memory-mapped) file, 64 K rows at a time: every caller copies only the rows it
        # returns (np.concatenate), as the real package hands out fresh arrays. Copying whole 1 M-row
        # blocks here made a 100 000-row call cost a 63 MB copy (bench/bigpull.ts's bridge path).
        for start in range(lo, hi, 1 << 16):
            yield array[start:min(hi, start + (1 << 16))]
        return
    for hour in range(from_msc // _HOUR_MS, to_msc // _HOUR_MS + 1):
        # Cached (a clock step drops only the hour the old now cut): symbol_info's day range read a
        # whole day of generated hours at every call (1.7 CPU-s at 40 ticks/s).
        ticks = _hour_ticks(symbol, hour)
        if len(ticks) and (ticks["time_msc"][0] < from_msc or ticks["time_msc"][-1] > to_msc):
            ticks = ticks[(ticks["time_msc"] >= from_msc) & (ticks["time_msc"] <= to_msc)]
        if len(ticks):
            yield ticks


def _ticks_between(symbol, from_msc, to_msc):
    parts = list(_ticks_chunks(symbol, from_msc, to_msc))
    return np.concatenate(parts) if parts else np.empty(0, TICK_DTYPE)


def _last_tick(symbol):
    """The latest tick at or before now, or None."""
    array = _S.arrays.get(symbol)
    if array is not None:
        i = int(np.searchsorted(_array_times(symbol, "time_msc"), _S.now_server_ms, "right"))
        return array[i - 1] if i else None
    hour = _S.now_server_ms // _HOUR_MS
    for h in range(hour, max(hour - 24 * 10, _S.history_start // 3600 - 1), -1):
        ticks = _hour_ticks(symbol, h)
        if len(ticks):
            return ticks[-1]
    return None


def _tick_filter(ticks, flags):
    if flags == COPY_TICKS_INFO:
        return ticks[(ticks["flags"] & (TICK_FLAG_BID | TICK_FLAG_ASK)) != 0]
    if flags == COPY_TICKS_TRADE:
        return ticks[(ticks["flags"] & (TICK_FLAG_LAST | TICK_FLAG_VOLUME)) != 0]
    return ticks

# ====================================================================== bars

def _tf_seconds(tf):
    unit, n = tf >> 14, tf & 0x3FFF
    return {0: 60, 1: 3600, 2: 7 * 86400, 3: 31 * 86400}[unit] * n


_TIMEFRAMES = frozenset(getattr(_constants, n) for n in _constants.NAMES if n.startswith("TIMEFRAME_"))


def _bar_open(times, tf):
    t = np.asarray(times, dtype=np.int64)
    if tf == TIMEFRAME_W1:
        days = t // 86400
        return (days - (days + 4) % 7) * 86400  # weeks open on Sunday
    if tf == TIMEFRAME_MN1:
        return t.astype("datetime64[s]").astype("datetime64[M]").astype("datetime64[s]").astype(np.int64)
    step = _tf_seconds(tf)
    return t - t % step


def _aggregate(keys, opens, highs, lows, closes, volumes, spreads, real):
    if len(keys) == 0:
        return np.empty(0, RATE_DTYPE)
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    ends = np.r_[starts[1:], len(keys)]
    bars = np.zeros(len(starts), RATE_DTYPE)
    bars["time"] = keys[starts]
    bars["open"] = opens[starts]
    bars["close"] = closes[ends - 1]
    bars["high"] = np.maximum.reduceat(highs, starts)
    bars["low"] = np.minimum.reduceat(lows, starts)
    bars["tick_volume"] = np.add.reduceat(volumes, starts)
    bars["spread"] = np.minimum.reduceat(spreads, starts)
    bars["real_volume"] = np.add.reduceat(real, starts)
    return bars


def _m1_from_ticks(symbol, ticks):
    spec = _S.specs[symbol]
    if spec.chart == SYMBOL_CHART_MODE_LAST:
        spreads_all = np.round((ticks["ask"] - ticks["bid"]) / spec.point).astype(np.int32)
        trade = (ticks["flags"] & TICK_FLAG_LAST) != 0
        ticks, spreads = ticks[trade], spreads_all[trade]
        price = ticks["last"]
        real = ticks["volume"].astype(np.uint64)
    else:
        spreads = np.round((ticks["ask"] - ticks["bid"]) / spec.point).astype(np.int32)
        price = ticks["bid"]
        real = np.zeros(len(ticks), np.uint64)
    keys = ticks["time"] - ticks["time"] % 60
    return _aggregate(keys, price, price, price, price, np.ones(len(ticks), np.uint64), spreads, real)


def _m1_day(symbol, day):
    key = (symbol, day)
    bars = _S.m1_cache.get(key)
    if bars is None:
        start = day * 86400000
        bars = _m1_from_ticks(symbol, _ticks_between(symbol, start, start + 86400000 - 1))
        _S.m1_cache[key] = bars
    return bars


def _bars_days(symbol, tf, day_lo, day_hi):
    """Bars of timeframe tf built from the M1 bars of server days day_lo..day_hi."""
    first = _S.history_start // 86400
    last = _S.now_server_ms // 86400000
    days = range(max(day_lo, first), min(day_hi, last) + 1)
    parts = [_m1_day(symbol, d) for d in days]
    m1 = np.concatenate(parts) if parts else np.empty(0, RATE_DTYPE)
    if tf == TIMEFRAME_M1:
        return m1
    return _aggregate(_bar_open(m1["time"], tf), m1["open"], m1["high"], m1["low"], m1["close"],
                      m1["tick_volume"], m1["spread"], m1["real_volume"])


def _session_bar_count(symbol, tf, from_s, to_s):
    """How many bars [from_s, to_s] holds (cheap: from session minutes, or the ticks of a .npy)."""
    lo = max(from_s, _S.history_start)
    hi = min(to_s + _tf_seconds(tf), _S.now_server_ms // 1000)
    if hi < lo:
        return 0
    if symbol in _S.arrays:
        times = _array_times(symbol, "time")
        a, b = np.searchsorted(times, lo, "left"), np.searchsorted(times, hi, "right")
        minutes = np.unique(np.asarray(times[a:b]) // 60 * 60)
    else:
        days = np.arange(lo // 86400, hi // 86400 + 1, dtype=np.int64)
        days = days[_weekday(days) < 5]
        mask = _SESSION_MASKS[_S.specs[symbol].session]
        minutes = (days[:, None] * 86400 + np.flatnonzero(mask)[None, :] * 60).ravel()
        minutes = minutes[(minutes >= lo) & (minutes <= hi)]
    keys = np.unique(_bar_open(minutes, tf))
    return int(np.count_nonzero((keys >= from_s) & (keys <= to_s)))


def _bars_back(symbol, tf, end_s, count, skip=0):
    """The count bars before the skip most recent ones with open time <= end_s."""
    need = count + skip
    step = _tf_seconds(tf)
    span_days = max(2, int(need * step * 7 / 5 / 86400) + 2)
    first_day = _S.history_start // 86400
    end_day = end_s // 86400
    while True:
        bars = _bars_days(symbol, tf, end_day - span_days, end_day)
        bars = bars[bars["time"] <= end_s]
        if len(bars) >= need or end_day - span_days <= first_day:
            break
        span_days *= 2
    if skip:
        bars = bars[:max(0, len(bars) - skip)]
    return np.array(bars[-count:]) if count else np.empty(0, RATE_DTYPE)

# ====================================================================== account

_LOGIN = 5000001
_SERVER = "StandIn-Demo"
_COMPANY = "tradeapi stand-in"


def _mid(symbol):
    t = _last_tick(symbol)
    return (float(t["bid"]), float(t["ask"])) if t is not None else (0.0, 0.0)


def _to_usd(amount, currency, for_profit=True):
    if currency == "USD":
        return amount
    for name, spec in _S.specs.items():
        if spec.calc == SYMBOL_CALC_MODE_FOREX and spec.currency_base == currency and spec.currency_profit == "USD":
            bid, ask = _mid(name)
            return amount * (bid if for_profit else ask)
        if spec.calc == SYMBOL_CALC_MODE_FOREX and spec.currency_base == "USD" and spec.currency_profit == currency:
            bid, ask = _mid(name)
            return amount / (ask if for_profit else bid)
    if currency == "XAU" and "XAUUSD" in _S.specs:
        return amount * _mid("XAUUSD")[0]
    return amount


def _margin(action, symbol, volume, price):
    spec = _S.specs[symbol]
    leverage = 100
    if spec.calc == SYMBOL_CALC_MODE_FOREX:
        m = volume * spec.contract / leverage
        if spec.currency_margin != "USD" and spec.currency_profit == "USD":
            return m * price  # base currency at the order's own price (mt5-reference §6.3)
    elif spec.calc == SYMBOL_CALC_MODE_CFDLEVERAGE:
        m = volume * spec.contract * price / leverage
        return _to_usd(m, spec.currency_profit, False)
    else:  # exchange stocks
        m = volume * spec.contract * price
        return _to_usd(m, spec.currency_profit, False)
    return _to_usd(m, spec.currency_margin, False)


def _profit(action, symbol, volume, price_open, price_close):
    spec = _S.specs[symbol]
    delta = (price_close - price_open) if action == ORDER_TYPE_BUY else (price_open - price_close)
    return round(_to_usd(delta * spec.contract * volume, spec.currency_profit, delta >= 0), 2)


def _stamp(utc_seconds, ms=0):
    s = _utc_to_server(utc_seconds)
    return s, s * 1000 + ms


def _build_account():
    """Positions, orders and history: fixed true-UTC instants before now, stamped in server time."""
    now = _S.now_utc
    positions, orders, deals, horders = [], [], [], []
    names = _S.specs
    t_dep = min(now - 90 * 86400, calendar.timegm((2024, 3, 1, 9, 0, 0)))
    s, ms = _stamp(t_dep)
    deals.append(TradeDeal((100001, 0, s, ms, DEAL_TYPE_BALANCE, DEAL_ENTRY_IN, 0, 0, DEAL_REASON_CLIENT,
                            0.0, 0.0, 0.0, 0.0, 10000.0, 0.0, "", "D-deposit", "")))
    closed_profit = 0.0
    if "USDJPY" in names:
        # a trade opened before the March 2024 EU DST change and closed after it
        t_in, t_out = calendar.timegm((2024, 3, 29, 12, 0, 0)), calendar.timegm((2024, 4, 2, 12, 0, 0))
        p_in, p_out = 151.250, 151.700
        profit = _profit(ORDER_TYPE_BUY, "USDJPY", 0.1, p_in, p_out)
        closed_profit += profit
        for ticket, t, typ, entry, price, pr in ((200001, t_in, DEAL_TYPE_BUY, DEAL_ENTRY_IN, p_in, 0.0),
                                                 (200002, t_out, DEAL_TYPE_SELL, DEAL_ENTRY_OUT, p_out, profit)):
            s, ms = _stamp(t, 250)
            otype = ORDER_TYPE_BUY if typ == DEAL_TYPE_BUY else ORDER_TYPE_SELL
            deals.append(TradeDeal((100000 + ticket - 200000 + 1, ticket, s, ms, typ, entry, 0, 200001,
                                    DEAL_REASON_EXPERT, 0.1, price, 0.0, 0.0, pr, 0.0, "USDJPY", "", "")))
            horders.append(TradeOrder((ticket, s, ms - 2, s, ms, 0, otype, ORDER_TIME_GTC, ORDER_FILLING_IOC,
                                       ORDER_STATE_FILLED, 0, 200001, 0, ORDER_REASON_EXPERT, 0.1, 0.0, price,
                                       0.0, 0.0, price, 0.0, "USDJPY", "", "")))
    for ticket, sym, ptype, volume, days_ago, sl, tp in ((300001, "EURUSD", POSITION_TYPE_BUY, 0.1, 3, 0.0, 0.0),
                                                        (300002, "XAUUSD", POSITION_TYPE_SELL, 0.05, 1, 0.0, 0.0)):
        if sym not in names:
            continue
        t = now - days_ago * 86400
        s, ms = _stamp(t, 500)
        first, anchors = _anchors(sym)
        price = round(float(np.exp(anchors[min(len(anchors) - 1, max(0, s // 3600 - first))])), names[sym].digits)
        bid, ask = _mid(sym)
        current = bid if ptype == POSITION_TYPE_BUY else ask
        otype = ORDER_TYPE_BUY if ptype == POSITION_TYPE_BUY else ORDER_TYPE_SELL
        profit = _profit(otype, sym, volume, price, current)
        positions.append(TradePosition((ticket, s, ms, s, ms, ptype, 0, ticket, POSITION_REASON_EXPERT, volume,
                                        price, sl, tp, current, 0.0, profit, sym, "", "")))
        horders.append(TradeOrder((ticket, s, ms - 3, s, ms, 0, otype, ORDER_TIME_GTC, ORDER_FILLING_IOC,
                                   ORDER_STATE_FILLED, 0, ticket, 0, ORDER_REASON_EXPERT, volume, 0.0, price, sl,
                                   tp, current, 0.0, sym, "", "")))
        deals.append(TradeDeal((ticket + 100000, ticket, s, ms, DEAL_TYPE_BUY if otype == ORDER_TYPE_BUY else
                                DEAL_TYPE_SELL, DEAL_ENTRY_IN, 0, ticket, DEAL_REASON_EXPERT, volume, price,
                                0.0, 0.0, 0.0, 0.0, sym, "", "")))
    if "GBPUSD" in names:
        s, ms = _stamp(now - 2 * 3600, 100)
        bid, ask = _mid("GBPUSD")
        price = round(bid - 0.0050, 5)
        orders.append(TradeOrder((300003, s, ms, 0, 0, 0, ORDER_TYPE_BUY_LIMIT, ORDER_TIME_GTC, ORDER_FILLING_RETURN,
                                  ORDER_STATE_PLACED, 0, 0, 0, ORDER_REASON_EXPERT, 0.2, 0.2, price, 0.0, 0.0, ask,
                                  0.0, "GBPUSD", "", "")))
    deals.sort(key=lambda d: (d.time_msc, d.ticket))
    horders.sort(key=lambda o: (o.time_setup_msc, o.ticket))
    balance = 10000.0 + closed_profit
    profit = round(sum(p.profit for p in positions), 2)
    margin = round(sum(_margin(p.type, p.symbol, p.volume, p.price_open) for p in positions), 2)
    _S.account = dict(balance=balance, profit=profit, margin=margin, positions=positions, orders=orders,
                      deals=deals, history_orders=horders)
    return _S.account


def _acct():
    account = _S.account or _build_account()
    while _S.script and _S.script[0]["at"] <= _S.now_server_ms:
        _trade(account, _S.script.pop(0))
    if _S.wall_script:
        wall_ms = _time.time() * 1000
        while _S.wall_script and _S.wall_script[0]["wall_ms"] <= wall_ms:
            step = _S.wall_script.pop(0)
            step.setdefault("at", _S.now_server_ms)
            _trade(account, step)
    return account


def _script(steps):
    """Scripted trading: each step (a dict) happens when the stand-in's clock reaches its ``at``
    (server ms; default now: at once; ``_advance`` moves the clock). Steps, MetaTrader's way:
    ``{"op": "open", "ticket", "deal", "symbol", "type" (POSITION_TYPE_*), "volume", "price", "sl", "tp"}``
    (an in deal and the position), ``{"op": "modify", "ticket", "sl", "tp"}``, ``{"op": "close",
    "ticket", "deal", "volume" (default all: a partial close otherwise), "price", "profit"}`` (an out
    deal; the balance takes the profit), ``{"op": "place", "ticket", "symbol", "type" (ORDER_TYPE_*),
    "volume", "price"}``, ``{"op": "modify_order", "ticket", "price", "sl", "tp"}``, ``{"op": "cancel",
    "ticket"}`` (the order into history, cancelled). Returns the steps still waiting."""
    with _LOCK:
        for step in steps:
            step = dict(step)
            step.setdefault("at", _S.now_server_ms)
            _S.script.append(step)
        _S.script.sort(key=lambda st: st["at"])
        _acct()
        return len(_S.script)


def _with(record, **fields):
    d = record._asdict()
    d.update(fields)
    return type(record)(tuple(d.values()))


def _trade(account, step):
    op, ticket, at = step["op"], int(step["ticket"]), int(step["at"])
    s, ms = at // 1000, at
    positions = dict((p.ticket, p) for p in account["positions"])
    orders = dict((o.ticket, o) for o in account["orders"])
    if op == "open":
        ptype, volume, price = int(step.get("type", POSITION_TYPE_BUY)), float(step.get("volume", 0.1)), float(step.get("price", 1.1))
        symbol = step.get("symbol", "EURUSD")
        positions[ticket] = TradePosition((ticket, s, ms, s, ms, ptype, 0, ticket, POSITION_REASON_EXPERT, volume, price,
                                           float(step.get("sl", 0.0)), float(step.get("tp", 0.0)), price, 0.0, 0.0, symbol, "", ""))
        account["deals"].append(TradeDeal((int(step["deal"]), ticket, s, ms, DEAL_TYPE_BUY if ptype == POSITION_TYPE_BUY else DEAL_TYPE_SELL,
                                           DEAL_ENTRY_IN, 0, ticket, DEAL_REASON_EXPERT, volume, price, 0.0, 0.0, 0.0, 0.0, symbol, "", "")))
    elif op == "modify":
        positions[ticket] = _with(positions[ticket], sl=float(step.get("sl", positions[ticket].sl)),
                                  tp=float(step.get("tp", positions[ticket].tp)), time_update=s, time_update_msc=ms)
    elif op == "close":
        p = positions[ticket]
        volume = float(step.get("volume", p.volume))
        profit = float(step.get("profit", 0.0))
        account["deals"].append(TradeDeal((int(step["deal"]), int(step["deal"]), s, ms,
                                           DEAL_TYPE_SELL if p.type == POSITION_TYPE_BUY else DEAL_TYPE_BUY, DEAL_ENTRY_OUT, 0, ticket,
                                           DEAL_REASON_EXPERT, volume, float(step.get("price", p.price_current)), 0.0, 0.0, profit,
                                           0.0, p.symbol, "", "")))
        account["balance"] = round(account["balance"] + profit, 2)
        if volume >= p.volume:
            del positions[ticket]
        else:
            positions[ticket] = _with(p, volume=round(p.volume - volume, 8), time_update=s, time_update_msc=ms)
    elif op == "place":
        volume, price = float(step.get("volume", 0.1)), float(step.get("price", 1.0))
        orders[ticket] = TradeOrder((ticket, s, ms, 0, 0, 0, int(step.get("type", ORDER_TYPE_BUY_LIMIT)), ORDER_TIME_GTC,
                                     ORDER_FILLING_RETURN, ORDER_STATE_PLACED, 0, 0, 0, ORDER_REASON_EXPERT, volume, volume, price,
                                     0.0, 0.0, price, 0.0, step.get("symbol", "EURUSD"), "", ""))
    elif op == "modify_order":
        o = orders[ticket]
        orders[ticket] = _with(o, price_open=float(step.get("price", o.price_open)), sl=float(step.get("sl", o.sl)),
                               tp=float(step.get("tp", o.tp)))
    elif op == "cancel":
        o = orders.pop(ticket)
        account["history_orders"].append(_with(o, state=ORDER_STATE_CANCELED, time_done=s, time_done_msc=ms, volume_current=0.0))
    else:
        raise ValueError("unknown scripted op %r" % (op,))
    account["positions"] = sorted(positions.values(), key=lambda p: p.ticket)
    account["orders"] = sorted(orders.values(), key=lambda o: o.ticket)

# ====================================================================== argument handling

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _seconds(value):
    """A date argument as the real module reads it: datetime.timestamp() or an integer."""
    if isinstance(value, datetime):
        return int(value.timestamp())
    if isinstance(value, bool):
        raise _Fail(-2, _INVALID_ARGS)
    try:
        return operator.index(value)
    except TypeError:
        raise _Fail(-2, _INVALID_ARGS)


def _int(value):
    if isinstance(value, bool):
        return int(value)
    try:
        return operator.index(value)
    except TypeError:
        raise _Fail(-2, _INVALID_ARGS)


def _float(value):
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return float(value)
    raise _Fail(-2, _INVALID_ARGS)


def _str(value):
    if not isinstance(value, str):
        raise _Fail(-2, _INVALID_ARGS)
    return value


def _positional(name, args, kwargs, counts):
    """METH_VARARGS: keywords are a TypeError, a wrong count a -2 failure."""
    if kwargs:
        raise TypeError("%s() takes no keyword arguments" % name)
    if len(args) not in counts:
        raise _Fail(-2, _INVALID_ARGS)
    return args


def _keywords(name, args, kwargs, allowed):
    if args:
        raise _Fail(-2, _UNNAMED)
    unknown = set(kwargs) - set(allowed)
    if unknown:
        raise TypeError("%s() got an unexpected keyword argument %r" % (name, sorted(unknown)[0]))
    return kwargs


def _symbol(name, require_selected=False):
    spec = _S.specs.get(_str(name))
    if spec is None:
        raise _Fail(-4)
    if require_selected and name not in _S.selected:
        raise _Fail(-1)
    return spec


def _group_match(names, group):
    """Comma-separated masks, '*' anywhere, '!' excludes, applied in order (mt5-reference §2.4).
    Only '*' is special: fnmatch's '?' and '[' are escaped."""
    import fnmatch
    chosen = []
    for cond in (c.strip() for c in _str(group).split(",")):
        if not cond:
            continue
        if cond.startswith("!"):
            pat = cond[1:].replace("[", "[[]").replace("?", "[?]")
            chosen = [n for n in chosen if not fnmatch.fnmatchcase(n, pat)]
        else:
            pat = cond.replace("[", "[[]").replace("?", "[?]")
            chosen += [n for n in names if fnmatch.fnmatchcase(n, pat) and n not in chosen]
    return set(chosen)

# ====================================================================== dispatch

_API = {}
_NEEDS_CONNECTION = True
_FAIL_VALUE = {}


def _api(failure=None, connection=True):
    def wrap(fn):
        name = fn.__name__

        def call(*args, **kwargs):
            with _LOCK:
                _S.calls.append((name, args, dict(kwargs)))
                delay = _S.delay + (_S.series_delay if name.startswith("copy_") else 0.0)
            if delay:
                _time.sleep(delay)
            with _LOCK:
                try:
                    forced = _S.fail_next.get(name)
                    if forced is not None:
                        if forced[0] == 0:
                            del _S.fail_next[name]
                            raise _Fail(forced[1], forced[2])
                        forced[0] -= 1
                    if connection:
                        _check_connection()
                    impl = _S.world.api.get(name, fn) if _S.world is not None else fn
                    result = impl(*args, **kwargs)
                except _Fail as f:
                    _S.last_error = (f.code, f.message)
                    return failure
                _S.last_error = (1, "Success")
                return result

        call.__name__ = call.__qualname__ = name
        call.__doc__ = fn.__doc__
        call.__module__ = __name__
        _API[name] = call
        return call
    return wrap


def _check_connection():
    if _S.lost:
        code = _S.lost_first
        if code is not None:
            _S.lost_first = None
            _S.connected = False
            _S.books.clear()  # the connection is gone, and its depth subscriptions with it
            raise _Fail(code)
        raise _Fail(-10004)
    if not _S.connected:
        raise _Fail(-10004)

# ====================================================================== connection


@_api(False, connection=False)
def initialize(*args, **kwargs):
    """initialize([path],[server="SERVER"],[login=LOGIN],[password="PASSWORD"])

Establish connection to MetaTrader 5 terminal"""
    if len(args) > 1:
        raise _Fail(-2, _INVALID_ARGS)
    allowed = ("path", "login", "password", "server", "timeout", "portable")
    unknown = set(kwargs) - set(allowed)
    if unknown:
        raise TypeError("initialize() got an unexpected keyword argument %r" % sorted(unknown)[0])
    path = args[0] if args else kwargs.get("path")
    if path is not None and not isinstance(path, str):
        raise _Fail(-2, 'Invalid "path" argument')
    _check_credentials(kwargs)
    if "timeout" in kwargs and not isinstance(kwargs["timeout"], int):
        raise _Fail(-2, 'Invalid "timeout" argument')
    if _S.lost:
        raise _Fail(-10003)
    _S.connected = True
    return True


def _check_credentials(kwargs):
    login_ = kwargs.get("login")
    if login_ is not None and (isinstance(login_, bool) or not isinstance(login_, int)):
        raise _Fail(-2, 'Invalid "login" argument')
    for key in ("password", "server"):
        if key in kwargs and not isinstance(kwargs[key], str):
            raise _Fail(-2, 'Invalid "%s" argument' % key)
    if login_ is not None and login_ != _LOGIN:
        raise _Fail(-6)
    if kwargs.get("server") not in (None, _SERVER):
        raise _Fail(-6)


@_api(False)
def login(*args, **kwargs):
    """login(login,[server="SERVER"],[password="PASSWORD"])

Log in to specific account"""
    if len(args) > 1 or (not args and "login" not in kwargs):
        raise _Fail(-2, _INVALID_ARGS)
    allowed = ("login", "password", "server", "timeout")
    unknown = set(kwargs) - set(allowed)
    if unknown:
        raise TypeError("login() got an unexpected keyword argument %r" % sorted(unknown)[0])
    creds = dict(kwargs)
    if args:
        creds["login"] = args[0]
    _check_credentials(creds)
    return True


@_api(None, connection=False)
def shutdown():
    """shutdown()

Disconnect from MetaTrader 5 terminal"""
    _S.connected = False
    _S.books.clear()
    return None


@_api(None)
def version():
    """version()

Get MetaTrader 5 terminal version"""
    return (500, 5430, "14 Nov 2025")


def last_error():
    """last_error()

Return last error code and description"""
    return _S.last_error


@_api(None)
def terminal_info():
    """terminal_info()

Get parameters of MetaTrader 5 terminal"""
    return TerminalInfo((False, False, True, False, False, False, False, False, False, False, 5430,
                         _S.maxbars, 0, 1500, 0.0, 0.0, _COMPANY, "MetaTrader 5", "English",
                         "C:\\Program Files\\MetaTrader 5", "C:\\Users\\standin\\AppData\\Roaming\\MetaQuotes\\Terminal\\0",
                         "C:\\Users\\standin\\AppData\\Roaming\\MetaQuotes\\Terminal\\Common"))


@_api(None)
def account_info():
    """account_info()

Return information on the current account"""
    a = _acct()
    equity = round(a["balance"] + a["profit"], 2)
    margin = a["margin"]
    level = round(equity / margin * 100, 2) if margin else 0.0
    return AccountInfo((_LOGIN, ACCOUNT_TRADE_MODE_DEMO, 100, 200, ACCOUNT_STOPOUT_MODE_PERCENT, True, True,
                        ACCOUNT_MARGIN_MODE_RETAIL_HEDGING, 2, False, a["balance"], 0.0, a["profit"], equity,
                        margin, round(equity - margin, 2), level, 50.0, 30.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                        "Stand-in Tester", _SERVER, "USD", _COMPANY))

# ====================================================================== symbols


def _symbol_info(name):
    spec = _S.specs[name]
    t = _last_tick(name)
    bid = float(t["bid"]) if t is not None else 0.0
    ask = float(t["ask"]) if t is not None else 0.0
    last = float(t["last"]) if t is not None else 0.0
    tsec = int(t["time"]) if t is not None else 0
    volume = int(t["volume"]) if t is not None else 0
    spread = int(round((ask - bid) / spec.point)) if t is not None else 0
    day = _m1_day(name, _S.now_server_ms // 86400000) if t is not None else np.empty(0, RATE_DTYPE)
    hi = float(day["high"].max()) if len(day) else bid
    lo = float(day["low"].min()) if len(day) else bid
    is_last = spec.chart == SYMBOL_CHART_MODE_LAST
    tick_value = _to_usd(spec.point * spec.contract, spec.currency_profit, True)
    tick_value_loss = _to_usd(spec.point * spec.contract, spec.currency_profit, False)
    selected = name in _S.selected
    v = dict.fromkeys(_RECORD_FIELDS["SymbolInfo"].split(), 0.0)  # doubles default to 0.0
    v.update(
        custom=False, chart_mode=spec.chart, select=selected, visible=selected, session_deals=0,
        session_buy_orders=0, session_sell_orders=0, volume=volume, volumehigh=volume, volumelow=0,
        time=tsec, digits=spec.digits, spread=spread, spread_float=True, ticks_bookdepth=spec.book,
        trade_calc_mode=spec.calc, trade_mode=SYMBOL_TRADE_MODE_FULL, start_time=0, expiration_time=0,
        trade_stops_level=0, trade_freeze_level=0, trade_exemode=spec.exemode,
        swap_mode=SYMBOL_SWAP_MODE_POINTS, swap_rollover3days=DAY_OF_WEEK_WEDNESDAY,
        margin_hedged_use_leg=False, expiration_mode=15, filling_mode=spec.filling, order_mode=127,
        order_gtc_mode=SYMBOL_ORDERS_GTC, option_mode=SYMBOL_OPTION_MODE_EUROPEAN,
        option_right=SYMBOL_OPTION_RIGHT_CALL, bid=bid, bidhigh=hi, bidlow=lo, ask=ask,
        askhigh=hi + (ask - bid), asklow=lo + (ask - bid), last=last, lasthigh=hi if is_last else 0.0,
        lastlow=lo if is_last else 0.0, volume_real=float(volume), volumehigh_real=float(volume),
        point=spec.point, trade_tick_value=tick_value, trade_tick_value_profit=tick_value,
        trade_tick_value_loss=tick_value_loss, trade_tick_size=spec.point, trade_contract_size=spec.contract,
        volume_min=spec.volume_min, volume_max=spec.volume_max, volume_step=spec.volume_step,
        swap_long=-5.0, swap_short=1.5, margin_hedged=spec.contract, basis="", category="",
        currency_base=spec.currency_base, currency_profit=spec.currency_profit,
        currency_margin=spec.currency_margin, bank="", description=spec.description, exchange=spec.exchange,
        formula="", isin=spec.isin, name=name, page="", path=spec.path)
    values = tuple(v.values())
    return SymbolInfo(values)


@_api(None)
def symbols_total():
    """symbols_total()

Return the number of all available symbols"""
    return len(_S.order)


@_api(None)
def symbols_get(*args, **kwargs):
    """symbols_get([group="GROUP"])

Return all available symbols or filtred by group"""
    kw = _keywords("symbols_get", args, kwargs, ("group",))
    names = _S.order
    if "group" in kw:
        chosen = _group_match(names, kw["group"])
        names = [n for n in names if n in chosen]
    return tuple(_symbol_info(n) for n in names)


@_api(None)
def symbol_info(*args, **kwargs):
    """symbol_info(symbol)

Return full information for specified symbol"""
    (name,) = _positional("symbol_info", args, kwargs, (1,))
    _symbol(name)
    return _symbol_info(name)


@_api(None)
def symbol_info_tick(*args, **kwargs):
    """symbol_info_tick(symbol)

Return current prices of specified symbol"""
    (name,) = _positional("symbol_info_tick", args, kwargs, (1,))
    _symbol(name, require_selected=True)
    t = _last_tick(name)
    if t is None:
        raise _Fail(-1)
    return Tick(tuple(t[f].item() for f in TICK_DTYPE.names))


@_api(False)
def symbol_select(*args, **kwargs):
    """symbol_select(symbol,[enable])

Select symbol in Market Watch window or remove symbol from the window"""
    args = _positional("symbol_select", args, kwargs, (1, 2))
    name = args[0]
    _symbol(name)
    enable = True if len(args) == 1 else args[1]
    if not isinstance(enable, (bool, int)):
        raise _Fail(-2, _INVALID_ARGS)
    if enable:
        _S.selected.add(name)
    else:
        a = _acct()
        if any(p.symbol == name for p in a["positions"]) or any(o.symbol == name for o in a["orders"]):
            raise _Fail(-1)
        _S.selected.discard(name)
        _S.books.discard(name)
    return True

# ====================================================================== depth of market


@_api(False)
def market_book_add(*args, **kwargs):
    """market_book_add(symbol)

Opens Depth of Market for a selected symbol"""
    (name,) = _positional("market_book_add", args, kwargs, (1,))
    spec = _symbol(name, require_selected=True)
    if spec.book <= 0:
        raise _Fail(-1)
    _S.books.add(name)
    return True


@_api(False)
def market_book_release(*args, **kwargs):
    """market_book_release(symbol)

Closes Depth of Market for a selected symbol"""
    (name,) = _positional("market_book_release", args, kwargs, (1,))
    _symbol(name)
    if name not in _S.books:
        raise _Fail(-1)
    _S.books.discard(name)
    return True


@_api(None)
def market_book_get(*args, **kwargs):
    """market_book_get(symbol)

Returns Depth of Market structures of a specified symbol"""
    (name,) = _positional("market_book_get", args, kwargs, (1,))
    spec = _symbol(name)
    if name not in _S.books:
        raise _Fail(-1)
    t = _last_tick(name)
    if t is None:
        return ()
    depth = spec.book
    rng = np.random.Generator(np.random.PCG64([_S.seed, _S.index.get(name, 99), int(t["time_msc"])]))
    gaps = np.cumsum(rng.integers(1, 4, depth)) - 1
    volumes = rng.integers(1, 50, 2 * depth)
    step = spec.point * (1 if spec.digits <= 3 else 10)
    asks = np.round(float(t["ask"]) + gaps * step, spec.digits)[::-1]
    bids = np.round(float(t["bid"]) - gaps * step, spec.digits)
    scale = 1.0 if spec.volume_step >= 1 else 1.0
    out = [BookInfo((BOOK_TYPE_SELL, float(p), int(v), float(v) * scale)) for p, v in zip(asks, volumes[:depth])]
    out += [BookInfo((BOOK_TYPE_BUY, float(p), int(v), float(v) * scale)) for p, v in zip(bids, volumes[depth:])]
    return tuple(out)

# ====================================================================== bars


def _rates_args(name, args, kwargs):
    symbol, tf, a, b = _positional(name, args, kwargs, (4,))
    _str(symbol)
    tf = _int(tf)
    _symbol(symbol)
    if tf not in _TIMEFRAMES:
        raise _Fail(-2)
    return symbol, tf, a, b


@_api(None)
def copy_rates_from(*args, **kwargs):
    """copy_rates_from(symbol, timeframe, date_from, count)

Get bars starting from specific date"""
    symbol, tf, date_from, count = _rates_args("copy_rates_from", args, kwargs)
    date_from, count = _seconds(date_from), _int(count)
    if count <= 0 or count >= _S.maxbars:
        raise _Fail(-2)
    if date_from < _S.history_start:
        raise _Fail(-4)
    return _bars_back(symbol, tf, min(date_from, _S.now_server_ms // 1000), count)


@_api(None)
def copy_rates_from_pos(*args, **kwargs):
    """copy_rates_from_pos(symbol, timeframe, start_pos, count)

Get bars starting from specified position"""
    symbol, tf, start, count = _rates_args("copy_rates_from_pos", args, kwargs)
    start, count = _int(start), _int(count)
    if start < 0 or count <= 0 or start + count >= _S.maxbars:
        raise _Fail(-2)
    return _bars_back(symbol, tf, _S.now_server_ms // 1000, count, skip=start)


@_api(None)
def copy_rates_range(*args, **kwargs):
    """copy_rates_range(symbol, timeframe, date_from, date_to)

Get bars from specified period"""
    symbol, tf, date_from, date_to = _rates_args("copy_rates_range", args, kwargs)
    lo, hi = _seconds(date_from), _seconds(date_to)
    if hi < lo:
        raise _Fail(-2)
    if hi < _S.history_start or lo > _S.now_server_ms // 1000:
        raise _Fail(-4)
    if _session_bar_count(symbol, tf, lo, hi) >= _S.maxbars:
        raise _Fail(-2)
    extra = 31 if tf == TIMEFRAME_MN1 else -(-_tf_seconds(tf) // 86400)
    bars = _bars_days(symbol, tf, lo // 86400, hi // 86400 + extra)
    return np.array(bars[(bars["time"] >= lo) & (bars["time"] <= hi)])

# ====================================================================== ticks


def _ticks_args(name, args, kwargs):
    symbol, a, b, flags = _positional(name, args, kwargs, (4,))
    _symbol(symbol)
    flags = _int(flags)
    if flags not in (COPY_TICKS_ALL, COPY_TICKS_INFO, COPY_TICKS_TRADE):
        raise _Fail(-2)
    return symbol, a, b, flags


@_api(None)
def copy_ticks_from(*args, **kwargs):
    """copy_ticks_from(symbol, date_from, count, flags)

Get ticks starting from specific date"""
    symbol, date_from, count, flags = _ticks_args("copy_ticks_from", args, kwargs)
    start_ms, count = _seconds(date_from) * 1000, _int(count)
    if count < 0:
        raise _Fail(-2)
    if flags == COPY_TICKS_TRADE and not _S.specs[symbol].trades and symbol not in _S.arrays:
        return np.empty(0, TICK_DTYPE)
    parts, have = [], 0
    for chunk in _ticks_chunks(symbol, start_ms, _S.now_server_ms):
        if have >= count:
            break
        chunk = _tick_filter(chunk, flags)
        parts.append(chunk[:count - have])
        have += len(parts[-1])
    return np.concatenate(parts) if parts else np.empty(0, TICK_DTYPE)


@_api(None)
def copy_ticks_range(*args, **kwargs):
    """copy_ticks_range(symbol, date_from, date_to, flags)

Get ticks from specified period"""
    symbol, date_from, date_to, flags = _ticks_args("copy_ticks_range", args, kwargs)
    lo, hi = _seconds(date_from) * 1000, _seconds(date_to) * 1000
    if hi < lo:
        raise _Fail(-2)
    if flags == COPY_TICKS_TRADE and not _S.specs[symbol].trades and symbol not in _S.arrays:
        return np.empty(0, TICK_DTYPE)
    parts = [_tick_filter(c, flags) for c in _ticks_chunks(symbol, lo, hi)]
    return np.concatenate(parts) if parts else np.empty(0, TICK_DTYPE)

# ====================================================================== orders, positions, history


def _filtered(records, kw, ticket_field):
    if "symbol" in kw:
        name = _str(kw["symbol"])
        return tuple(r for r in records if r.symbol == name)
    if "group" in kw:
        chosen = _group_match(sorted(set(r.symbol for r in records)), kw["group"])
        return tuple(r for r in records if r.symbol in chosen)
    if "ticket" in kw:
        ticket = _int(kw["ticket"])
        return tuple(r for r in records if getattr(r, ticket_field) == ticket)
    return tuple(records)


@_api(None)
def orders_total():
    """orders_total()

Return the number of orders"""
    return len(_acct()["orders"])


@_api(None)
def orders_get(*args, **kwargs):
    """orders_get([symbol="SYMBOL"],[ticket=TICKET],[group="GROUP"])

Return all orders, can be filtered by symbol, group or ticket"""
    kw = _keywords("orders_get", args, kwargs, ("symbol", "ticket", "group"))
    return _filtered(_acct()["orders"], kw, "ticket")


@_api(None)
def positions_total():
    """positions_total()

Return the number of open positions"""
    return len(_acct()["positions"])


@_api(None)
def positions_get(*args, **kwargs):
    """positions_get([symbol="SYMBOL"],[ticket=TICKET],[group="GROUP"])

Return all open positions, can be filtered by symbol, group or ticket"""
    kw = _keywords("positions_get", args, kwargs, ("symbol", "ticket", "group"))
    return _filtered(_acct()["positions"], kw, "ticket")


def _history(name, args, kwargs, records, time_field, ticket_field):
    unknown = set(kwargs) - {"group", "ticket", "position"}
    if unknown:
        raise TypeError("%s() got an unexpected keyword argument %r" % (name, sorted(unknown)[0]))
    if "ticket" in kwargs or "position" in kwargs:
        if args:
            raise _Fail(-2, _UNNAMED)
        if "ticket" in kwargs:
            ticket = _int(kwargs["ticket"])
            found = tuple(r for r in records if getattr(r, ticket_field) == ticket)
        else:
            position = _int(kwargs["position"])
            found = tuple(r for r in records if r.position_id == position)
        if not found:
            raise _Fail(-4)
        return found
    if len(args) != 2:
        raise _Fail(-2, _INVALID_ARGS)
    lo, hi = _seconds(args[0]), _seconds(args[1])
    found = [r for r in records if lo <= getattr(r, time_field) <= hi]
    if "group" in kwargs:
        chosen = _group_match(sorted(set(r.symbol for r in found)), kwargs["group"])
        found = [r for r in found if r.symbol in chosen]
    return tuple(found)


@_api(None)
def history_orders_total(*args, **kwargs):
    """history_orders_total(date_from, date_to)

Return the number of orders in selected range from history"""
    lo, hi = _positional("history_orders_total", args, kwargs, (2,))
    lo, hi = _seconds(lo), _seconds(hi)
    return sum(1 for o in _acct()["history_orders"] if lo <= o.time_setup <= hi)


@_api(None)
def history_orders_get(*args, **kwargs):
    """history_orders_get([date_from, date_to, [group="GROUP"]],[position=POSITION],[ticket=TICKET])

Return orders in selected range from history or filtered by position id, ticket"""
    return _history("history_orders_get", args, kwargs, _acct()["history_orders"], "time_setup", "ticket")


@_api(None)
def history_deals_total(*args, **kwargs):
    """history_deals_total(date_from, date_to)

Return the number of deals in selected range from history"""
    lo, hi = _positional("history_deals_total", args, kwargs, (2,))
    lo, hi = _seconds(lo), _seconds(hi)
    return sum(1 for d in _acct()["deals"] if lo <= d.time <= hi)


@_api(None)
def history_deals_get(*args, **kwargs):
    """history_deals_get([date_from, date_to, [group="GROUP"]],[position=POSITION],[ticket=TICKET])

Return deals in selected range from history or filtered by position id, ticket"""
    # ticket= selects the deals of an ORDER ticket (DEAL_ORDER), mt5-reference §2.7
    return _history("history_deals_get", args, kwargs, _acct()["deals"], "time", "order")

# ====================================================================== calculations and trading


@_api(None)
def order_calc_margin(*args, **kwargs):
    """order_calc_margin(action, symbol, volume, price,)

Calculate margin required for specified order"""
    action, symbol, volume, price = _positional("order_calc_margin", args, kwargs, (4,))
    action, volume, price = _int(action), _float(volume), _float(price)
    _symbol(symbol)
    if not 0 <= action <= 8 or volume <= 0 or price <= 0:
        raise _Fail(-2)
    return round(_margin(action, symbol, volume, price), 2)


@_api(None)
def order_calc_profit(*args, **kwargs):
    """order_calc_profit(action, symbol, volume, price_open, price_close)

Calculate profit for the current account in the current market conditions based on parameters passed"""
    action, symbol, volume, p_open, p_close = _positional("order_calc_profit", args, kwargs, (5,))
    action, volume, p_open, p_close = _int(action), _float(volume), _float(p_open), _float(p_close)
    _symbol(symbol)
    if action not in (ORDER_TYPE_BUY, ORDER_TYPE_SELL) or volume <= 0 or p_open <= 0 or p_close <= 0:
        raise _Fail(-2)
    return _profit(action, symbol, volume, p_open, p_close)


_REQUEST_TYPES = (("action", int), ("magic", int), ("order", int), ("symbol", str), ("volume", float),
                  ("price", float), ("stoplimit", float), ("sl", float), ("tp", float), ("deviation", int),
                  ("type", int), ("type_filling", int), ("type_time", int), ("expiration", int),
                  ("comment", str), ("position", int), ("position_by", int))
_COMMENT_LIMIT = 31


def _request(name, args, kwargs):
    if args and kwargs:
        raise _Fail(-2, _UNNAMED)
    if kwargs:
        raw = kwargs
    elif len(args) == 1 and isinstance(args[0], dict):
        raw = args[0]
    else:
        raise _Fail(-2, _INVALID_ARGS)
    known = dict(_REQUEST_TYPES)
    unknown = set(raw) - set(known)
    if unknown:
        raise _Fail(-2, _INVALID_ARGS)
    values = []
    for field, kind in _REQUEST_TYPES:
        value = raw.get(field)
        bad = 'Invalid "%s" argument' % field
        if value is None:
            value = kind()
        elif kind is int:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise _Fail(-2, bad)
            value = int(value)
        elif kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise _Fail(-2, bad)
            value = float(value)
        else:
            if not isinstance(value, str):
                raise _Fail(-2, bad)
        if field == "comment" and len(value) > _COMMENT_LIMIT:
            raise _Fail(-2, bad)
        values.append(value)
    return TradeRequest(values)


def _check(req):
    """(retcode, comment, added margin) of a request, without sending it."""
    spec = _S.specs.get(req.symbol)
    if req.action not in (TRADE_ACTION_DEAL, TRADE_ACTION_PENDING, TRADE_ACTION_SLTP, TRADE_ACTION_MODIFY,
                          TRADE_ACTION_REMOVE, TRADE_ACTION_CLOSE_BY):
        return TRADE_RETCODE_INVALID, "Invalid request", 0.0
    if req.action in (TRADE_ACTION_DEAL, TRADE_ACTION_PENDING):
        if spec is None or not 0 <= req.type <= 7:
            return TRADE_RETCODE_INVALID, "Invalid request", 0.0
        steps = req.volume / spec.volume_step
        if req.volume < spec.volume_min or req.volume > spec.volume_max or abs(steps - round(steps)) > 1e-7:
            return TRADE_RETCODE_INVALID_VOLUME, "Invalid volume", 0.0
        bid, ask = _mid(req.symbol)
        price = req.price or (ask if req.type % 2 == 0 else bid)
        if price <= 0:
            return TRADE_RETCODE_PRICE_OFF, "No prices", 0.0
        return 0, "Done", _margin(req.type, req.symbol, req.volume, price)
    return 0, "Done", 0.0


@_api(None)
def order_check(*args, **kwargs):
    """order_check(request)

Check if there are enough funds to execute required trading operation"""
    req = _request("order_check", args, kwargs)
    a = _acct()
    retcode, comment, added = _check(req)
    equity = round(a["balance"] + a["profit"], 2)
    margin = round(a["margin"] + added, 2)
    if retcode == 0 and equity - margin < 0:
        retcode, comment = TRADE_RETCODE_NO_MONEY, "No money"
    if retcode:
        return OrderCheckResult((retcode, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, comment, req))
    level = round(equity / margin * 100, 2) if margin else 0.0
    return OrderCheckResult((0, a["balance"], equity, a["profit"], margin, round(equity - margin, 2), level,
                             "Done", req))


@_api(None)
def order_send(*args, **kwargs):
    """order_send(request)

Send trading requests to server"""
    req = _request("order_send", args, kwargs)
    bid, ask = _mid(req.symbol) if req.symbol in _S.specs else (0.0, 0.0)
    # the stand-in never trades: the answer of a terminal whose Python-API trading is off
    return OrderSendResult((TRADE_RETCODE_CLIENT_DISABLES_AT, 0, 0, 0.0, 0.0, bid, ask,
                            "AutoTrading disabled by client", 0, 0, req))

# ====================================================================== the package's Python helpers


def _raw_order(order_type, symbol, volume, price, comment=None, ticket=None):
    request = {"action": TRADE_ACTION_DEAL, "symbol": symbol, "volume": volume, "type": order_type,
               "price": price, "deviation": 10}
    if comment is not None:
        request["comment"] = comment
    if ticket is not None:
        request["position"] = ticket
    return order_send(request)


def Buy(symbol, volume, price=None, *, comment=None, ticket=None):
    """Market buy, as the real package's helper (always refused here: the stand-in never trades)."""
    if price is None:
        tick = symbol_info_tick(symbol)
        if tick is None:
            return None
        price = tick.ask
    return _raw_order(ORDER_TYPE_BUY, symbol, volume, price, comment, ticket)


def Sell(symbol, volume, price=None, *, comment=None, ticket=None):
    """Market sell, as the real package's helper (always refused here: the stand-in never trades)."""
    if price is None:
        tick = symbol_info_tick(symbol)
        if tick is None:
            return None
        price = tick.bid
    return _raw_order(ORDER_TYPE_SELL, symbol, volume, price, comment, ticket)


def Close(symbol, *, comment=None, ticket=None):
    """Close positions, as the real package's helper: False when nothing could be closed."""
    positions = positions_get(ticket=ticket) if ticket is not None else positions_get(symbol=symbol)
    if positions is None:
        return None
    for p in positions:
        tick = symbol_info_tick(symbol)
        if tick is None:
            return None
        r = _raw_order(ORDER_TYPE_SELL if p.type == ORDER_TYPE_BUY else ORDER_TYPE_BUY, symbol, p.volume,
                       tick.bid if p.type == ORDER_TYPE_BUY else tick.ask, comment, p.ticket)
        if r is None:
            return None
    return False


_S.settings = dict(_DEFAULTS)
_reset()
