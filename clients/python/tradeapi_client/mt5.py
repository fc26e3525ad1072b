"""A drop-in for ``import MetaTrader5 as mt5`` over a tradeapi gateway::

    import tradeapi_client.mt5 as mt5      # instead of: import MetaTrader5 as mt5

Every constant of the real package 5.0.6231 (names and values), its 32 functions with the same
arguments, the same values of the same types (packed numpy structured arrays, struct-sequence
records with ``_asdict()``), ``None``/``False`` on failure and the real ``last_error()`` codes.

What differs, by design:

* ``initialize()`` connects to the gateway, not a terminal: ``url`` (default: env ``TRADEAPI_URL``,
  else ``http://127.0.0.1:8000``; a route prefix such as ``/api/v1`` may be part of it), ``key``
  (env ``TRADEAPI_KEY``), ``timeout`` (ms: the whole call; a series body must keep at least 64 KiB
  per timeout), ``utc`` (true UTC instead of server time), ``compression``, ``max_json_bytes``
  (64 MiB), ``max_series_bytes`` (none). ``path``/``password``/``portable`` are accepted and
  ignored; a ``login`` or ``server`` other than the gateway's account fails with -6 (no account
  switching).
* Nothing the network or the gateway's answer does raises: a function returns its failure value and
  ``last_error()`` says why (-10005 a deadline, -10002 a cut, malformed, too long or 3xx answer,
  -10004 no connection). Argument errors behave as the real package's; KeyboardInterrupt propagates.
* ``order_send`` returns ``None`` with ``(-7, ...)``: the gateway checks orders, it does not send them.
* ``last_error()`` is kept per thread (calls are thread-safe); a read-only gateway answers what it
  lacks with ``-7``.
"""
import math
import operator
import os
import threading
import time
from urllib.parse import quote

import numpy as np

from . import _constants
from ._errors import MESSAGES, OK, Fail, Problem
from ._fields import FIELDS
from ._http import DEFAULT_MAX_JSON_BYTES, Gateway, fail_of, transport_fail
from ._records import RECORD_TYPES, from_json
from ._series import PACKED, PARQUET, RATE_DTYPE, TICK_DTYPE, from_json_rows, from_parquet
from ._time import Clock, iso, iso_ms, seconds_of

for _name in _constants.NAMES:
    globals()[_name] = getattr(_constants, _name)
del _name

__version__ = _constants.PACKAGE_VERSION
__author__ = "MetaQuotes Ltd."

AccountInfo = RECORD_TYPES["AccountInfo"]
TerminalInfo = RECORD_TYPES["TerminalInfo"]
SymbolInfo = RECORD_TYPES["SymbolInfo"]
Tick = RECORD_TYPES["Tick"]
BookInfo = RECORD_TYPES["BookInfo"]
TradeOrder = RECORD_TYPES["TradeOrder"]
TradePosition = RECORD_TYPES["TradePosition"]
TradeDeal = RECORD_TYPES["TradeDeal"]
TradeRequest = RECORD_TYPES["TradeRequest"]
OrderCheckResult = RECORD_TYPES["OrderCheckResult"]
OrderSendResult = RECORD_TYPES["OrderSendResult"]

DEFAULT_URL = "http://127.0.0.1:8000"
MAX_PAGE = 1000000  # the gateway's largest count per request
_INVALID_ARGS = "Invalid arguments"
_UNNAMED = "Unnamed arguments not allowed"
_COMPRESSIONS = ("none", "zstd", "lz4", "snappy")


class _State(object):
    gateway = None
    clock = Clock()
    series_format = "packed"
    compression = None
    login = None


_S = _State()
_LOCK = threading.Lock()
_local = threading.local()


def _set_error(value):
    _local.error = value


def last_error():
    """last_error()

Return last error code and description"""
    return getattr(_local, "error", OK)


def _api(failure=None, connection=True):
    """Runs a function body: Fail -> last_error + the failure value; success -> (1, 'Success').

    Once the body has talked to the gateway (``_gw()``), any other Exception comes from the answer
    (a shape no gateway sends, a value that does not convert) and fails the call too (-10002; -3
    for MemoryError); before that it is an argument error and is raised as the package raises it.
    What is not an Exception (KeyboardInterrupt) always propagates. The call's deadline starts at
    its first request (``_deadline()``)."""
    def wrap(fn):
        def call(*args, **kwargs):
            saved = getattr(_local, "talked", False), getattr(_local, "deadline", None)
            _local.talked, _local.deadline = False, None
            try:
                try:
                    if connection and _S.gateway is None:
                        raise Fail(-10004)
                    result = fn(*args, **kwargs)
                except (Fail, Problem) as e:
                    f = fail_of(e)
                    _set_error((f.code, f.message))
                    return failure
                except Exception as e:
                    if not _local.talked:
                        raise
                    f = transport_fail(e, True)
                    _set_error((f.code, f.message))
                    return failure
            finally:
                _local.talked, _local.deadline = saved
            _set_error(OK)
            return result
        call.__name__ = call.__qualname__ = fn.__name__
        call.__doc__ = fn.__doc__
        call.__module__ = __name__
        call.__wrapped_impl__ = fn
        return call
    return wrap

# ====================================================================== argument conventions


def _positional(name, args, kwargs, counts):
    """As the real extension's METH_VARARGS functions: keywords are a TypeError, a wrong count -2."""
    if kwargs:
        raise TypeError("%s() takes no keyword arguments" % name)
    if len(args) not in counts:
        raise Fail(-2, _INVALID_ARGS)
    return args


def _keywords(name, args, kwargs, allowed):
    if args:
        raise Fail(-2, _UNNAMED)
    unknown = set(kwargs) - set(allowed)
    if unknown:
        raise TypeError("%s() got an unexpected keyword argument %r" % (name, sorted(unknown)[0]))
    return kwargs


def _str(value):
    if not isinstance(value, str):
        raise Fail(-2, _INVALID_ARGS)
    return value


def _int(value):
    if isinstance(value, bool):
        return int(value)
    try:
        return operator.index(value)
    except TypeError:
        raise Fail(-2, _INVALID_ARGS)


def _float(value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise Fail(-2, _INVALID_ARGS)
    value = float(value)
    if not math.isfinite(value):
        raise Fail(-2, _INVALID_ARGS)
    return value


def _num(value):
    """A float for a query string: the shortest text that reads back as the same double."""
    return repr(float(value))


def _seg(symbol):
    return quote(_str(symbol), safe="")


def _date(value):
    """A date argument for the gateway: the real package's seconds, through the gateway's clock."""
    return iso(_S.clock.arg(seconds_of(value)))

# ====================================================================== gateway calls


def _gw():
    """The gateway, for a request: from here on an exception is the answer's, not the arguments'."""
    g = _S.gateway
    if g is None:
        raise Fail(-10004)
    _local.talked = True
    return g


def _deadline(g):
    """The running call's deadline: its first request's start + timeout, for all its requests."""
    d = getattr(_local, "deadline", None)
    if d is None:
        d = _local.deadline = time.monotonic() + g.timeout
    return d


def _call(method, path, query=None, body=None):
    g = _gw()
    return g.call(method, path, query, body, deadline=_deadline(g))


def _get(path, query=None):
    return _call("GET", path, query)


_BAD_ANSWER = "IPC recv failed: the gateway's answer has an unexpected shape"


def _obj(value):
    """A JSON object the gateway answered (anything else: -10002)."""
    if not isinstance(value, dict):
        raise Fail(-10002, _BAD_ANSWER)
    return value


def _number(obj, key, kind=int):
    """A number field of an answer, as ``kind``."""
    value = _obj(obj).get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise Fail(-10002, _BAD_ANSWER)
    return kind(value)


def _record(name, obj):
    return from_json(name, _obj(obj), _S.clock.out)


def _records(name, rows):
    if not isinstance(rows, list):
        raise Fail(-10002, _BAD_ANSWER)
    return tuple(_record(name, r) for r in rows)

# ====================================================================== connection


def _env_url():
    return os.environ.get("TRADEAPI_URL") or DEFAULT_URL


def _default_compression(gateway):
    if gateway.loopback:
        return None
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return None
    return "zstd"


@_api(False, connection=False)
def initialize(*args, **kwargs):
    """initialize([path],[login=LOGIN],[password="PASSWORD"],[server="SERVER"],[timeout=TIMEOUT],[portable=False],
           [url="http://127.0.0.1:8000"],[key=None],[utc=False],[compression=None],
           [max_json_bytes=67108864],[max_series_bytes=None])

Connect to the tradeapi gateway (the terminal behind it). url/key default to the environment
variables TRADEAPI_URL and TRADEAPI_KEY; timeout is in milliseconds (default 60000) and bounds each
call as a whole, save that a series body may take longer as long as it brings at least 64 KiB per
timeout; utc=True returns true UTC instead of the broker's server time; compression is 'zstd',
'lz4', 'snappy' (Parquet, needs pyarrow) or 'none' for series (default: none on loopback, else zstd
when pyarrow is installed); max_json_bytes bounds a JSON answer (default 64 MiB), max_series_bytes
a series (default: no bound but the rows asked for). A login or server other than the gateway's
account fails with -6."""
    if len(args) > 1:
        raise Fail(-2, _INVALID_ARGS)
    allowed = ("path", "login", "password", "server", "timeout", "portable", "url", "key", "utc", "compression",
               "max_json_bytes", "max_series_bytes")
    unknown = set(kwargs) - set(allowed)
    if unknown:
        raise TypeError("initialize() got an unexpected keyword argument %r" % sorted(unknown)[0])
    path = args[0] if args else kwargs.get("path")
    if path is not None and not isinstance(path, str):
        raise Fail(-2, 'Invalid "path" argument')
    login_ = kwargs.get("login")
    if login_ is not None and (isinstance(login_, bool) or not isinstance(login_, int)):
        raise Fail(-2, 'Invalid "login" argument')
    for name in ("password", "server", "url", "key"):
        if kwargs.get(name) is not None and not isinstance(kwargs[name], str):
            raise Fail(-2, 'Invalid "%s" argument' % name)
    timeout = kwargs.get("timeout", 60000)
    if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout <= 0:
        raise Fail(-2, 'Invalid "timeout" argument')
    compression = kwargs.get("compression")
    if compression is not None and compression not in _COMPRESSIONS:
        raise Fail(-2, 'Invalid "compression" argument')
    bounds = {}
    for name, default in (("max_json_bytes", DEFAULT_MAX_JSON_BYTES), ("max_series_bytes", None)):
        value = kwargs.get(name, default)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value <= 0):
            raise Fail(-2, 'Invalid "%s" argument' % name)
        bounds[name] = value
    url = kwargs.get("url") or _env_url()
    key = kwargs.get("key") if kwargs.get("key") is not None else os.environ.get("TRADEAPI_KEY")
    if key is not None and not all(" " <= c <= "~" for c in key):  # a header value: printable ASCII, no CR/LF
        raise Fail(-2, 'Invalid "key" argument')
    try:
        gateway = Gateway(url, key, timeout / 1000.0, **bounds)
    except ValueError as e:
        raise Fail(-2, 'Invalid "url" argument: %s' % e)
    try:
        _local.talked = True
        deadline = _deadline(gateway)
        clock = _connect(gateway, bool(kwargs.get("utc")), deadline)
        if login_ is not None or kwargs.get("server") is not None:
            account = _obj(gateway.call("GET", "/account", deadline=deadline))
            if login_ is not None and account.get("login") != login_:
                raise Fail(-6)
            if kwargs.get("server") is not None and account.get("server") != kwargs["server"]:
                raise Fail(-6)
    except BaseException:
        gateway.close()
        raise
    with _LOCK:
        old, _S.gateway = _S.gateway, gateway
        _S.clock = clock
        _S.series_format = "packed"
        _S.compression = _default_compression(gateway) if compression is None else (None if compression == "none" else compression)
    if old is not None:
        old.close()
    return True


def _connect(gateway, utc, deadline):
    """The gateway's statement of its clock (GET /server-time), as a Clock. Answers -6 for a wrong key."""
    try:
        stated = _obj(gateway.call("GET", "/server-time", deadline=deadline))
    except Problem as p:
        if p.status == 404 and p.type.endswith("/not-found"):
            stated = None  # an older gateway that does not state its clock: times pass through
            gateway.call("GET", "/version", deadline=deadline)  # still proves the key and the terminal
        else:
            raise
    if stated is None:
        if utc:
            raise Fail(-2, "utc=True: this gateway does not state its clock (no GET /server-time)")
        return Clock()
    if utc and not stated.get("utc"):
        raise Fail(-2, "utc=True: the gateway does not know the broker's time zone (set TRADEAPI_SERVER_TZ there)")
    return Clock(stated.get("transitions") or (), to_server=not utc, zone=stated.get("zone"),
                 gateway_utc=bool(stated.get("utc")))


@_api(False)
def login(*args, **kwargs):
    """login(login,[password="PASSWORD"],[server="SERVER"],[timeout=TIMEOUT])

The gateway serves one account: True when it is this one, else False with -6 (no switching)."""
    if len(args) > 1 or (not args and "login" not in kwargs):
        raise Fail(-2, _INVALID_ARGS)
    unknown = set(kwargs) - {"login", "password", "server", "timeout"}
    if unknown:
        raise TypeError("login() got an unexpected keyword argument %r" % sorted(unknown)[0])
    number = args[0] if args else kwargs["login"]
    if isinstance(number, bool) or not isinstance(number, int):
        raise Fail(-2, 'Invalid "login" argument')
    for key in ("password", "server"):
        if key in kwargs and not isinstance(kwargs[key], str):
            raise Fail(-2, 'Invalid "%s" argument' % key)
    account = _obj(_get("/account"))
    if account.get("login") != number or kwargs.get("server") not in (None, account.get("server")):
        raise Fail(-6)
    return True


@_api(None, connection=False)
def shutdown():
    """shutdown()

Close the connection to the gateway"""
    with _LOCK:
        old, _S.gateway = _S.gateway, None
        _S.clock = Clock()
    if old is not None:
        old.close()
    return None


@_api(None)
def version():
    """version()

Get MetaTrader 5 terminal version"""
    v = _get("/version")
    build_date = _obj(v).get("build_date")
    if not isinstance(build_date, str):
        raise Fail(-10002, _BAD_ANSWER)
    return (_number(v, "terminal_version"), _number(v, "build"), build_date)


@_api(None)
def terminal_info():
    """terminal_info()

Get parameters of MetaTrader 5 terminal"""
    return _record("TerminalInfo", _get("/terminal"))


@_api(None)
def account_info():
    """account_info()

Return information on the current account"""
    return _record("AccountInfo", _get("/account"))

# ====================================================================== symbols


@_api(None)
def symbols_total():
    """symbols_total()

Return the number of all available symbols"""
    return _number(_get("/symbols/total"), "total")


@_api(None)
def symbols_get(*args, **kwargs):
    """symbols_get([group="GROUP"])

Return all available symbols or filtred by group"""
    kw = _keywords("symbols_get", args, kwargs, ("group",))
    query = {"group": _str(kw["group"])} if "group" in kw else None
    return _records("SymbolInfo", _get("/symbols", query))


@_api(None)
def symbol_info(*args, **kwargs):
    """symbol_info(symbol)

Return full information for specified symbol"""
    (name,) = _positional("symbol_info", args, kwargs, (1,))
    return _record("SymbolInfo", _get("/symbols/" + _seg(name)))


@_api(None)
def symbol_info_tick(*args, **kwargs):
    """symbol_info_tick(symbol)

Return current prices of specified symbol"""
    (name,) = _positional("symbol_info_tick", args, kwargs, (1,))
    return _record("Tick", _get("/symbols/%s/tick" % _seg(name)))


@_api(False)
def symbol_select(*args, **kwargs):
    """symbol_select(symbol,[enable])

Select symbol in Market Watch window or remove symbol from the window"""
    args = _positional("symbol_select", args, kwargs, (1, 2))
    name = _seg(args[0])
    enable = True if len(args) == 1 else args[1]
    if not isinstance(enable, (bool, int)):
        raise Fail(-2, _INVALID_ARGS)
    _obj(_call("POST", "/symbols/%s/select" % name, {"enable": "true" if enable else "false"}))
    return True

# ====================================================================== depth of market


@_api(False)
def market_book_add(*args, **kwargs):
    """market_book_add(symbol)

Opens Depth of Market for a selected symbol"""
    (name,) = _positional("market_book_add", args, kwargs, (1,))
    _obj(_call("POST", "/market-book/%s/subscribe" % _seg(name)))
    return True


@_api(False)
def market_book_release(*args, **kwargs):
    """market_book_release(symbol)

Closes Depth of Market for a selected symbol"""
    (name,) = _positional("market_book_release", args, kwargs, (1,))
    _obj(_call("POST", "/market-book/%s/unsubscribe" % _seg(name)))
    return True


@_api(None)
def market_book_get(*args, **kwargs):
    """market_book_get(symbol)

Returns Depth of Market structures of a specified symbol"""
    (name,) = _positional("market_book_get", args, kwargs, (1,))
    return _records("BookInfo", _get("/market-book/" + _seg(name)))

# ====================================================================== series


def _fetch_series(which, path, query, max_rows=None):
    """One series request: the packed rows viewed as the real dtype (or Parquet/JSON rows). Its
    head by the request's start + timeout, its body at the minimum rate; more than ``max_rows``
    rows (the count asked for), or a body of another type than asked, is -10002."""
    g = _gw()
    dtype = TICK_DTYPE if which == "ticks" else RATE_DTYPE
    max_bytes = None if max_rows is None else max(0, max_rows) * dtype.itemsize
    while True:
        fmt = _S.series_format
        q = dict(query)
        compression = _S.compression
        if compression:
            q["format"], q["compression"], accept = "parquet", compression, PARQUET
        elif fmt == "packed":
            q["format"], accept = "packed", PACKED
        else:
            q["format"], accept = "json", "application/json"
        try:
            resp, conn = g.open("GET", path, q, accept=accept)
        except Problem as p:
            if fmt == "packed" and not compression and p.status in (400, 406) and "format" in p.detail:
                _S.series_format = "json"  # a gateway without the packed form
                continue
            raise
        media = (resp.getheader("content-type") or "").split(";", 1)[0].strip().lower()
        if media != accept:
            conn.close()
            raise Fail(-10002, "IPC recv failed: a series answered as %r, not %s" % (media[:80], accept))
        if fmt == "packed" and not compression:
            return g.read_into_array(resp, conn, dtype, max_bytes)
        raw = g.read_all(resp, conn)
        array = from_parquet(raw, dtype) if compression else from_json_rows(raw, dtype)
        if max_rows is not None and len(array) > max(0, max_rows):
            raise Fail(-10002, "IPC recv failed: more rows than asked for")
        return array


def _out_series(array):
    """Gateway time -> what this client returns (server time by default), in place."""
    if _S.clock.active and len(array):
        _S.clock.out_column(array["time"], 1000)
        if "time_msc" in array.dtype.names:
            _S.clock.out_column(array["time_msc"], 1)
    return array


def _rates_args(name, args, kwargs):
    symbol, tf, a, b = _positional(name, args, kwargs, (4,))
    return _str(symbol), _int(tf), a, b


@_api(None)
def copy_rates_from(*args, **kwargs):
    """copy_rates_from(symbol, timeframe, date_from, count)

Get bars starting from specific date"""
    symbol, tf, date_from, count = _rates_args("copy_rates_from", args, kwargs)
    query = {"symbol": symbol, "timeframe": tf, "date_from": _date(date_from), "count": _int(count)}
    return _out_series(_fetch_series("rates", "/rates/from", query, query["count"]))


@_api(None)
def copy_rates_from_pos(*args, **kwargs):
    """copy_rates_from_pos(symbol, timeframe, start_pos, count)

Get bars starting from specified position"""
    symbol, tf, start, count = _rates_args("copy_rates_from_pos", args, kwargs)
    query = {"symbol": symbol, "timeframe": tf, "start_pos": _int(start), "count": _int(count)}
    return _out_series(_fetch_series("rates", "/rates/from-pos", query, query["count"]))


@_api(None)
def copy_rates_range(*args, **kwargs):
    """copy_rates_range(symbol, timeframe, date_from, date_to)

Get bars from specified period"""
    symbol, tf, date_from, date_to = _rates_args("copy_rates_range", args, kwargs)
    query = {"symbol": symbol, "timeframe": tf, "date_from": _date(date_from), "date_to": _date(date_to)}
    return _out_series(_fetch_series("rates", "/rates/range", query))


def _ticks_args(name, args, kwargs):
    symbol, a, b, flags = _positional(name, args, kwargs, (4,))
    return _str(symbol), a, b, _int(flags)


@_api(None)
def copy_ticks_from(*args, **kwargs):
    """copy_ticks_from(symbol, date_from, count, flags)

Get ticks starting from specific date"""
    symbol, date_from, count, flags = _ticks_args("copy_ticks_from", args, kwargs)
    start = _date(date_from)
    count = _int(count)
    if count < 0:
        raise Fail(-2)
    if count == 0:  # the gateway takes positive counts: ask for one and return none (the symbol checked)
        return _fetch_series("ticks", "/ticks/from", {"symbol": symbol, "date_from": start, "count": 1, "flags": flags}, 1)[:0]
    pages, have, skip = [], 0, 0
    while have < count:
        want = min(count - have + skip, MAX_PAGE)
        page = _fetch_series("ticks", "/ticks/from", {"symbol": symbol, "date_from": start, "count": want, "flags": flags},
                             want)
        got = len(page)
        page = page[skip:]
        if len(page):
            pages.append(page[:count - have])
            have += len(pages[-1])
        if got < want or len(page) == 0:
            break
        # The next page starts at the last millisecond seen: its ticks already taken come first.
        last = int(page["time_msc"][-1])
        skip = int(np.count_nonzero(page["time_msc"] == last))
        start = iso_ms(last)
    array = pages[0] if len(pages) == 1 else np.concatenate(pages) if pages else np.empty(0, TICK_DTYPE)
    return _out_series(array)


@_api(None)
def copy_ticks_range(*args, **kwargs):
    """copy_ticks_range(symbol, date_from, date_to, flags)

Get ticks from specified period"""
    symbol, date_from, date_to, flags = _ticks_args("copy_ticks_range", args, kwargs)
    query = {"symbol": symbol, "date_from": _date(date_from), "date_to": _date(date_to), "flags": flags}
    return _out_series(_fetch_series("ticks", "/ticks/range", query))

# ====================================================================== orders, positions, history


def _filter_query(kw):
    q = {}
    if "symbol" in kw:
        q["symbol"] = _str(kw["symbol"])
    if "group" in kw:
        q["group"] = _str(kw["group"])
    if "ticket" in kw:
        q["ticket"] = _int(kw["ticket"])
    return q


@_api(None)
def orders_total():
    """orders_total()

Return the number of orders"""
    return _number(_get("/orders/total"), "total")


@_api(None)
def orders_get(*args, **kwargs):
    """orders_get([symbol="SYMBOL"],[ticket=TICKET],[group="GROUP"])

Return all orders, can be filtered by symbol, group or ticket"""
    kw = _keywords("orders_get", args, kwargs, ("symbol", "ticket", "group"))
    return _records("TradeOrder", _get("/orders", _filter_query(kw)))


@_api(None)
def positions_total():
    """positions_total()

Return the number of open positions"""
    return _number(_get("/positions/total"), "total")


@_api(None)
def positions_get(*args, **kwargs):
    """positions_get([symbol="SYMBOL"],[ticket=TICKET],[group="GROUP"])

Return all open positions, can be filtered by symbol, group or ticket"""
    kw = _keywords("positions_get", args, kwargs, ("symbol", "ticket", "group"))
    return _records("TradePosition", _get("/positions", _filter_query(kw)))


def _history(name, path, record, args, kwargs):
    unknown = set(kwargs) - {"group", "ticket", "position"}
    if unknown:
        raise TypeError("%s() got an unexpected keyword argument %r" % (name, sorted(unknown)[0]))
    if "ticket" in kwargs or "position" in kwargs:
        if args:
            raise Fail(-2, _UNNAMED)
        q = {"ticket": _int(kwargs["ticket"])} if "ticket" in kwargs else {"position": _int(kwargs["position"])}
        return _records(record, _get(path, q))
    if len(args) != 2:
        raise Fail(-2, _INVALID_ARGS)
    q = {"date_from": _date(args[0]), "date_to": _date(args[1])}
    if "group" in kwargs:
        q["group"] = _str(kwargs["group"])
    return _records(record, _get(path, q))


def _history_total(name, path, args, kwargs):
    lo, hi = _positional(name, args, kwargs, (2,))
    return _number(_get(path, {"date_from": _date(lo), "date_to": _date(hi)}), "total")


@_api(None)
def history_orders_total(*args, **kwargs):
    """history_orders_total(date_from, date_to)

Return the number of orders in selected range from history"""
    return _history_total("history_orders_total", "/history/orders/total", args, kwargs)


@_api(None)
def history_orders_get(*args, **kwargs):
    """history_orders_get([date_from, date_to, [group="GROUP"]],[position=POSITION],[ticket=TICKET])

Return orders in selected range from history or filtered by position id, ticket"""
    return _history("history_orders_get", "/history/orders", "TradeOrder", args, kwargs)


@_api(None)
def history_deals_total(*args, **kwargs):
    """history_deals_total(date_from, date_to)

Return the number of deals in selected range from history"""
    return _history_total("history_deals_total", "/history/deals/total", args, kwargs)


@_api(None)
def history_deals_get(*args, **kwargs):
    """history_deals_get([date_from, date_to, [group="GROUP"]],[position=POSITION],[ticket=TICKET])

Return deals in selected range from history or filtered by position id, ticket"""
    return _history("history_deals_get", "/history/deals", "TradeDeal", args, kwargs)

# ====================================================================== calculations and trading


@_api(None)
def order_calc_margin(*args, **kwargs):
    """order_calc_margin(action, symbol, volume, price)

Calculate margin required for specified order"""
    action, symbol, volume, price = _positional("order_calc_margin", args, kwargs, (4,))
    q = {"action": _int(action), "symbol": _str(symbol), "volume": _num(_float(volume)), "price": _num(_float(price))}
    return _number(_get("/calc/margin", q), "margin", float)


@_api(None)
def order_calc_profit(*args, **kwargs):
    """order_calc_profit(action, symbol, volume, price_open, price_close)

Calculate profit for the current account in the current market conditions based on parameters passed"""
    action, symbol, volume, p_open, p_close = _positional("order_calc_profit", args, kwargs, (5,))
    q = {"action": _int(action), "symbol": _str(symbol), "volume": _num(_float(volume)),
         "price_open": _num(_float(p_open)), "price_close": _num(_float(p_close))}
    return _number(_get("/calc/profit", q), "profit", float)


_REQUEST_KINDS = dict(FIELDS["TradeRequest"])


def _request(args, kwargs):
    """The trade request as the real package reads it: one dict, or its fields as keywords."""
    if args and kwargs:
        raise Fail(-2, _UNNAMED)
    if kwargs:
        raw = kwargs
    elif len(args) == 1 and isinstance(args[0], dict):
        raw = args[0]
    else:
        raise Fail(-2, _INVALID_ARGS)
    out = {}
    for field, value in raw.items():
        kind = _REQUEST_KINDS.get(field)
        if kind is None:
            raise Fail(-2, _INVALID_ARGS)
        if value is None:
            continue
        bad = 'Invalid "%s" argument' % field
        if kind == "i":
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise Fail(-2, bad)
            value = int(value)
            if field == "expiration" and value:
                value = _S.clock.arg(value)
        elif kind == "f":
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise Fail(-2, bad)
            value = float(value)
        elif not isinstance(value, str):
            raise Fail(-2, bad)
        out[field] = value
    return out


@_api(None)
def order_check(*args, **kwargs):
    """order_check(request)

Check if there are enough funds to execute required trading operation"""
    request = _request(args, kwargs)
    return _record("OrderCheckResult", _call("POST", "/order/check", body={"request": request}))


@_api(None)
def order_send(*args, **kwargs):
    """order_send(request)

Not available: the gateway checks orders (order_check), it does not send them. Returns None with
last_error() (-7, ...)."""
    _request(args, kwargs)
    raise Fail(-7, "Terminal: Unsupported function (tradeapi checks orders, it does not send them: use order_check)")

# ====================================================================== the package's Python helpers


def _raw_order(order_type, symbol, volume, price, comment=None, ticket=None):
    request = {"action": TRADE_ACTION_DEAL, "symbol": symbol, "volume": volume, "type": order_type,  # noqa: F821
               "price": price, "deviation": 10}
    if comment is not None:
        request["comment"] = comment
    if ticket is not None:
        request["position"] = ticket
    return order_send(request)


def Buy(symbol, volume, price=None, *, comment=None, ticket=None):
    """Market buy, as the real package's helper (order_send: always None with -7 here)."""
    if price is None:
        tick = symbol_info_tick(symbol)
        if tick is None:
            return None
        price = tick.ask
    return _raw_order(ORDER_TYPE_BUY, symbol, volume, price, comment, ticket)  # noqa: F821


def Sell(symbol, volume, price=None, *, comment=None, ticket=None):
    """Market sell, as the real package's helper (order_send: always None with -7 here)."""
    if price is None:
        tick = symbol_info_tick(symbol)
        if tick is None:
            return None
        price = tick.bid
    return _raw_order(ORDER_TYPE_SELL, symbol, volume, price, comment, ticket)  # noqa: F821


def Close(symbol, *, comment=None, ticket=None):
    """Close positions, as the real package's helper (order_send: always None with -7 here)."""
    positions = positions_get(ticket=ticket) if ticket is not None else positions_get(symbol=symbol)
    if positions is None:
        return None
    for p in positions:
        tick = symbol_info_tick(symbol)
        if tick is None:
            return None
        r = _raw_order(ORDER_TYPE_SELL if p.type == ORDER_TYPE_BUY else ORDER_TYPE_BUY, symbol, p.volume,  # noqa: F821
                       tick.bid if p.type == ORDER_TYPE_BUY else tick.ask, comment, p.ticket)  # noqa: F821
        if r is None:
            return None
    return False


FUNCTIONS = (
    "initialize", "login", "shutdown", "version", "last_error", "account_info", "terminal_info",
    "symbols_total", "symbols_get", "symbol_info", "symbol_info_tick", "symbol_select", "market_book_add",
    "market_book_get", "market_book_release", "copy_rates_from", "copy_rates_from_pos", "copy_rates_range",
    "copy_ticks_from", "copy_ticks_range", "orders_total", "orders_get", "order_calc_margin",
    "order_calc_profit", "order_check", "order_send", "positions_total", "positions_get",
    "history_orders_total", "history_orders_get", "history_deals_total", "history_deals_get",
)
assert len(FUNCTIONS) == 32
assert MESSAGES[-7]


def _gateway():
    """The current Gateway (for tradeapi_client's extras: stream_ticks, ...), or None."""
    return _S.gateway


def _clock():
    return _S.clock
