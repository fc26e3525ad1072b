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

Typed: every function has its real signature (``inspect.signature``, a type checker), the records
are typed classes, the constants ``Final`` ints; the package ships ``py.typed``. The arguments are
still checked at run time as the real package checks them (a wrong count or type: -2).
"""
from __future__ import annotations

import math
import operator
import os
import threading
import time
import typing as _typing
from urllib.parse import quote

import numpy as np

from . import _constants
from ._constants import *  # noqa: F401,F403 (every constant of the real package)
from ._errors import MESSAGES, OK, Fail, Problem
from ._fields import FIELDS
from ._http import DEFAULT_MAX_JSON_BYTES, Gateway, fail_of, transport_fail
from ._records import from_json
# The record types, re-exported as the package's (``X as X``: public to a type checker too).
from ._recordtypes import AccountInfo as AccountInfo, TerminalInfo as TerminalInfo, SymbolInfo as SymbolInfo  # noqa: E501
from ._recordtypes import Tick as Tick, BookInfo as BookInfo, TradeOrder as TradeOrder, TradePosition as TradePosition
from ._recordtypes import TradeDeal as TradeDeal, TradeRequest as TradeRequest, OrderCheckResult as OrderCheckResult
from ._recordtypes import OrderSendResult as OrderSendResult
from ._series import PACKED, PARQUET, RATE_DTYPE, TICK_DTYPE, from_json_rows, from_parquet
from ._time import Clock, iso, iso_ms, seconds_of

if _typing.TYPE_CHECKING:
    from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple, Type, TypeVar

    from ._http import Gateway as _Gateway
    from ._time import Clock as _Clock
    from .types import DateLike, Series

    from ._recordtypes import _Record

    _F = TypeVar("_F", bound=Callable[..., Any])
    _R = TypeVar("_R", bound=_Record)

__version__ = _constants.PACKAGE_VERSION
__author__ = "MetaQuotes Ltd."

DEFAULT_URL = "http://127.0.0.1:8000"
MAX_PAGE = 1000000  # the gateway's largest count per request
_INVALID_ARGS = "Invalid arguments"
_UNNAMED = "Unnamed arguments not allowed"
_COMPRESSIONS = ("none", "zstd", "lz4", "snappy")


class _State(object):
    gateway: Optional[_Gateway] = None
    clock: _Clock = Clock()
    series_format = "packed"
    compression: Optional[str] = None
    login: Optional[int] = None


_S = _State()
_LOCK = threading.Lock()
_local = threading.local()


def _set_error(value: Tuple[int, str]) -> None:
    _local.error = value


def last_error() -> Tuple[int, str]:
    """last_error()

The (code, text) of this thread's last call: (1, 'Success') or why it failed."""
    error: Tuple[int, str] = getattr(_local, "error", OK)
    return error


def _convention(fn: Callable[..., Any]) -> Optional[range]:
    """How many arguments ``fn`` takes when, as the real extension's METH_VARARGS functions, it takes
    them only by position (its signature ``(a, b=..., /)``); None for any other signature."""
    code = fn.__code__
    if code.co_flags & 0x0C or code.co_kwonlyargcount or not code.co_argcount or code.co_argcount != code.co_posonlyargcount:
        return None
    return range(code.co_argcount - len(fn.__defaults__ or ()), code.co_argcount + 1)


def _api(failure: object = None, connection: bool = True) -> Callable[[_F], _F]:
    """Runs a function body: Fail -> last_error + the failure value; success -> (1, 'Success').

    A body whose signature is positional-only gets its arguments as the real package checks them:
    a keyword is a TypeError, a wrong count -2 (after the connection check, as before).

    Once the body has talked to the gateway (``_gw()``), any other Exception comes from the answer
    (a shape no gateway sends, a value that does not convert) and fails the call too (-10002; -3
    for MemoryError); before that it is an argument error and is raised as the package raises it.
    What is not an Exception (KeyboardInterrupt) always propagates. The call's deadline starts at
    its first request (``_deadline()``)."""
    def wrap(fn: _F) -> _F:
        counts = _convention(fn)
        name = fn.__name__

        def call(*args: Any, **kwargs: Any) -> Any:
            saved = getattr(_local, "talked", False), getattr(_local, "deadline", None)
            _local.talked, _local.deadline = False, None
            try:
                try:
                    if connection and _S.gateway is None:
                        raise Fail(-10004)
                    if counts is not None:
                        args = _positional(name, args, kwargs, counts)
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
        call.__wrapped__ = fn  # type: ignore[attr-defined]  # inspect.signature(): the real signature
        return _typing.cast("_F", call)
    return wrap

# ====================================================================== argument conventions


def _positional(name: str, args: Tuple[Any, ...], kwargs: Dict[str, Any], counts: Iterable[int]) -> Tuple[Any, ...]:
    """As the real extension's METH_VARARGS functions: keywords are a TypeError, a wrong count -2."""
    if kwargs:
        raise TypeError("%s() takes no keyword arguments" % name)
    if len(args) not in counts:
        raise Fail(-2, _INVALID_ARGS)
    return args


def _keywords(name: str, args: Tuple[Any, ...], kwargs: Dict[str, Any], allowed: Iterable[str]) -> Dict[str, Any]:
    if args:
        raise Fail(-2, _UNNAMED)
    unknown = set(kwargs) - set(allowed)
    if unknown:
        raise TypeError("%s() got an unexpected keyword argument %r" % (name, sorted(unknown)[0]))
    return kwargs


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise Fail(-2, _INVALID_ARGS)
    return value


def _int(value: object) -> int:
    if isinstance(value, bool):
        return int(value)
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise Fail(-2, _INVALID_ARGS)


def _float(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise Fail(-2, _INVALID_ARGS)
    value = float(value)
    if not math.isfinite(value):
        raise Fail(-2, _INVALID_ARGS)
    return value


def _num(value: float) -> str:
    """A float for a query string: the shortest text that reads back as the same double."""
    return repr(float(value))


def _seg(symbol: object) -> str:
    return quote(_str(symbol), safe="")


def _date(value: object) -> str:
    """A date argument for the gateway: the real package's seconds, through the gateway's clock."""
    return iso(_S.clock.arg(seconds_of(value)))

# ====================================================================== gateway calls


def _gw() -> _Gateway:
    """The gateway, for a request: from here on an exception is the answer's, not the arguments'."""
    g = _S.gateway
    if g is None:
        raise Fail(-10004)
    _local.talked = True
    return g


def _deadline(g: _Gateway) -> float:
    """The running call's deadline: its first request's start + timeout, for all its requests."""
    d: Optional[float] = getattr(_local, "deadline", None)
    if d is None:
        d = _local.deadline = time.monotonic() + g.timeout
    return d


def _call(method: str, path: str, query: Optional[Mapping[str, Any]] = None, body: Any = None) -> Any:
    g = _gw()
    return g.call(method, path, query, body, deadline=_deadline(g))


def _get(path: str, query: Optional[Mapping[str, Any]] = None) -> Any:
    return _call("GET", path, query)


_BAD_ANSWER = "IPC recv failed: the gateway's answer has an unexpected shape"


def _obj(value: object) -> Dict[str, Any]:
    """A JSON object the gateway answered (anything else: -10002)."""
    if not isinstance(value, dict):
        raise Fail(-10002, _BAD_ANSWER)
    return value


def _finite(obj: object, key: str) -> float:
    """A number field of an answer."""
    value = _obj(obj).get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise Fail(-10002, _BAD_ANSWER)
    return value


def _number(obj: object, key: str) -> int:
    """An integer field of an answer (a JSON float is truncated)."""
    return int(_finite(obj, key))


def _record(kind: Type[_R], obj: object) -> _R:
    return _typing.cast("_R", from_json(kind.__name__, _obj(obj), _S.clock.out))


def _records(kind: Type[_R], rows: object) -> Tuple[_R, ...]:
    if not isinstance(rows, list):
        raise Fail(-10002, _BAD_ANSWER)
    return tuple(_record(kind, r) for r in rows)

# ====================================================================== connection


def _env_url() -> str:
    return os.environ.get("TRADEAPI_URL") or DEFAULT_URL


def _default_compression(gateway: _Gateway) -> Optional[str]:
    if gateway.loopback:
        return None
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return None
    return "zstd"


@_typing.overload
def initialize(path: str, /, *, login: Optional[int] = None, password: Optional[str] = None,
               server: Optional[str] = None, timeout: int = 60000, portable: bool = False, url: Optional[str] = None,
               key: Optional[str] = None, utc: bool = False, compression: Optional[str] = None,
               max_json_bytes: int = DEFAULT_MAX_JSON_BYTES, max_series_bytes: Optional[int] = None) -> bool: ...
@_typing.overload
def initialize(*, path: Optional[str] = None, login: Optional[int] = None, password: Optional[str] = None,
               server: Optional[str] = None, timeout: int = 60000, portable: bool = False, url: Optional[str] = None,
               key: Optional[str] = None, utc: bool = False, compression: Optional[str] = None,
               max_json_bytes: int = DEFAULT_MAX_JSON_BYTES, max_series_bytes: Optional[int] = None) -> bool: ...
@_api(False, connection=False)
def initialize(*args: Any, **kwargs: Any) -> bool:
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
    bounds: Dict[str, Optional[int]] = {}
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
        gateway = Gateway(url, key, timeout / 1000.0, max_json_bytes=bounds["max_json_bytes"],
                          max_series_bytes=bounds["max_series_bytes"])
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


def _connect(gateway: _Gateway, utc: bool, deadline: float) -> _Clock:
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


@_typing.overload
def login(login: int, /, *, password: Optional[str] = None, server: Optional[str] = None,
          timeout: Optional[int] = None) -> bool: ...
@_typing.overload
def login(*, login: int, password: Optional[str] = None, server: Optional[str] = None,
          timeout: Optional[int] = None) -> bool: ...
@_api(False)
def login(*args: Any, **kwargs: Any) -> bool:
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
def shutdown() -> None:
    """shutdown()

Close the connection to the gateway"""
    with _LOCK:
        old, _S.gateway = _S.gateway, None
        _S.clock = Clock()
    if old is not None:
        old.close()
    return None


@_api(None)
def version() -> Optional[Tuple[int, int, str]]:
    """version()

Get MetaTrader 5 terminal version"""
    v = _get("/version")
    build_date = _obj(v).get("build_date")
    if not isinstance(build_date, str):
        raise Fail(-10002, _BAD_ANSWER)
    return (_number(v, "terminal_version"), _number(v, "build"), build_date)


@_api(None)
def terminal_info() -> Optional[TerminalInfo]:
    """terminal_info()

Get parameters of MetaTrader 5 terminal"""
    return _record(TerminalInfo, _get("/terminal"))


@_api(None)
def account_info() -> Optional[AccountInfo]:
    """account_info()

Return information on the current account"""
    return _record(AccountInfo, _get("/account"))

# ====================================================================== symbols


@_api(None)
def symbols_total() -> Optional[int]:
    """symbols_total()

Return the number of all available symbols"""
    return _number(_get("/symbols/total"), "total")


@_typing.overload
def symbols_get() -> Optional[Tuple[SymbolInfo, ...]]: ...
@_typing.overload
def symbols_get(*, group: str) -> Optional[Tuple[SymbolInfo, ...]]: ...
@_api(None)
def symbols_get(*args: Any, **kwargs: Any) -> Optional[Tuple[SymbolInfo, ...]]:
    """symbols_get([group="GROUP"])

Return all available symbols or filtred by group"""
    kw = _keywords("symbols_get", args, kwargs, ("group",))
    query = {"group": _str(kw["group"])} if "group" in kw else None
    return _records(SymbolInfo, _get("/symbols", query))


@_api(None)
def symbol_info(symbol: str, /) -> Optional[SymbolInfo]:
    """symbol_info(symbol)

Return full information for specified symbol"""
    name = symbol
    return _record(SymbolInfo, _get("/symbols/" + _seg(name)))


@_api(None)
def symbol_info_tick(symbol: str, /) -> Optional[Tick]:
    """symbol_info_tick(symbol)

Return current prices of specified symbol"""
    name = symbol
    return _record(Tick, _get("/symbols/%s/tick" % _seg(name)))


@_api(False)
def symbol_select(symbol: str, enable: bool = True, /) -> bool:
    """symbol_select(symbol,[enable])

Select symbol in Market Watch window or remove symbol from the window"""
    name = _seg(symbol)
    if not isinstance(enable, (bool, int)):
        raise Fail(-2, _INVALID_ARGS)
    _obj(_call("POST", "/symbols/%s/select" % name, {"enable": "true" if enable else "false"}))
    return True

# ====================================================================== depth of market


@_api(False)
def market_book_add(symbol: str, /) -> bool:
    """market_book_add(symbol)

Opens Depth of Market for a selected symbol"""
    name = symbol
    _obj(_call("POST", "/market-book/%s/subscribe" % _seg(name)))
    return True


@_api(False)
def market_book_release(symbol: str, /) -> bool:
    """market_book_release(symbol)

Closes Depth of Market for a selected symbol"""
    name = symbol
    _obj(_call("POST", "/market-book/%s/unsubscribe" % _seg(name)))
    return True


@_api(None)
def market_book_get(symbol: str, /) -> Optional[Tuple[BookInfo, ...]]:
    """market_book_get(symbol)

Returns Depth of Market structures of a specified symbol"""
    name = symbol
    return _records(BookInfo, _get("/market-book/" + _seg(name)))

# ====================================================================== series


def _fetch_series(which: str, path: str, query: Mapping[str, Any], max_rows: Optional[int] = None) -> Series:
    """One series request: the packed rows viewed as the real dtype (or Parquet/JSON rows). Its
    head by the request's start + timeout, its body at the minimum rate; more than ``max_rows``
    rows (the count asked for), or a body of another type than asked, is -10002."""
    g = _gw()
    dtype = TICK_DTYPE if which == "ticks" else RATE_DTYPE
    max_bytes = None if max_rows is None else max(0, max_rows) * dtype.itemsize
    while True:
        fmt = _S.series_format
        q: Dict[str, Any] = dict(query)
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
            array: Series = g.read_into_array(resp, conn, dtype, max_bytes)
            return array
        raw = g.read_all(resp, conn)
        array = from_parquet(raw, dtype) if compression else from_json_rows(raw, dtype)
        if max_rows is not None and len(array) > max(0, max_rows):
            raise Fail(-10002, "IPC recv failed: more rows than asked for")
        return array


def _out_series(array: Series) -> Series:
    """Gateway time -> what this client returns (server time by default), in place."""
    if _S.clock.active and len(array):
        _S.clock.out_column(array["time"], 1000)
        if "time_msc" in (array.dtype.names or ()):
            _S.clock.out_column(array["time_msc"], 1)
    return array


@_api(None)
def copy_rates_from(symbol: str, timeframe: int, date_from: DateLike, count: int, /) -> Optional[Series]:
    """copy_rates_from(symbol, timeframe, date_from, count)

Get bars starting from specific date"""
    query = {"symbol": _str(symbol), "timeframe": _int(timeframe), "date_from": _date(date_from), "count": _int(count)}
    return _out_series(_fetch_series("rates", "/rates/from", query, _int(count)))


@_api(None)
def copy_rates_from_pos(symbol: str, timeframe: int, start_pos: int, count: int, /) -> Optional[Series]:
    """copy_rates_from_pos(symbol, timeframe, start_pos, count)

Get bars starting from specified position"""
    query = {"symbol": _str(symbol), "timeframe": _int(timeframe), "start_pos": _int(start_pos), "count": _int(count)}
    return _out_series(_fetch_series("rates", "/rates/from-pos", query, _int(count)))


@_api(None)
def copy_rates_range(symbol: str, timeframe: int, date_from: DateLike, date_to: DateLike, /) -> Optional[Series]:
    """copy_rates_range(symbol, timeframe, date_from, date_to)

Get bars from specified period"""
    query = {"symbol": _str(symbol), "timeframe": _int(timeframe), "date_from": _date(date_from), "date_to": _date(date_to)}
    return _out_series(_fetch_series("rates", "/rates/range", query))


@_api(None)
def copy_ticks_from(symbol: str, date_from: DateLike, count: int, flags: int, /) -> Optional[Series]:
    """copy_ticks_from(symbol, date_from, count, flags)

Get ticks starting from specific date (a count above the gateway's 1 M per request is paged)"""
    symbol, flags = _str(symbol), _int(flags)
    start = _date(date_from)
    count = _int(count)
    if count < 0:
        raise Fail(-2)
    if count == 0:  # the gateway takes positive counts: ask for one and return none (the symbol checked)
        return _fetch_series("ticks", "/ticks/from", {"symbol": symbol, "date_from": start, "count": 1, "flags": flags}, 1)[:0]
    pages: List[Series] = []
    have = skip = 0
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
def copy_ticks_range(symbol: str, date_from: DateLike, date_to: DateLike, flags: int, /) -> Optional[Series]:
    """copy_ticks_range(symbol, date_from, date_to, flags)

Get ticks from specified period"""
    query = {"symbol": _str(symbol), "date_from": _date(date_from), "date_to": _date(date_to), "flags": _int(flags)}
    return _out_series(_fetch_series("ticks", "/ticks/range", query))

# ====================================================================== orders, positions, history


def _filter_query(kw: Mapping[str, Any]) -> Dict[str, Any]:
    q: Dict[str, Any] = {}
    if "symbol" in kw:
        q["symbol"] = _str(kw["symbol"])
    if "group" in kw:
        q["group"] = _str(kw["group"])
    if "ticket" in kw:
        q["ticket"] = _int(kw["ticket"])
    return q


@_api(None)
def orders_total() -> Optional[int]:
    """orders_total()

Return the number of orders"""
    return _number(_get("/orders/total"), "total")


@_typing.overload
def orders_get() -> Optional[Tuple[TradeOrder, ...]]: ...
@_typing.overload
def orders_get(*, symbol: str) -> Optional[Tuple[TradeOrder, ...]]: ...
@_typing.overload
def orders_get(*, group: str) -> Optional[Tuple[TradeOrder, ...]]: ...
@_typing.overload
def orders_get(*, ticket: int) -> Optional[Tuple[TradeOrder, ...]]: ...
@_api(None)
def orders_get(*args: Any, **kwargs: Any) -> Optional[Tuple[TradeOrder, ...]]:
    """orders_get([symbol="SYMBOL"],[ticket=TICKET],[group="GROUP"])

Return all orders, can be filtered by symbol, group or ticket"""
    kw = _keywords("orders_get", args, kwargs, ("symbol", "ticket", "group"))
    return _records(TradeOrder, _get("/orders", _filter_query(kw)))


@_api(None)
def positions_total() -> Optional[int]:
    """positions_total()

Return the number of open positions"""
    return _number(_get("/positions/total"), "total")


@_typing.overload
def positions_get() -> Optional[Tuple[TradePosition, ...]]: ...
@_typing.overload
def positions_get(*, symbol: str) -> Optional[Tuple[TradePosition, ...]]: ...
@_typing.overload
def positions_get(*, group: str) -> Optional[Tuple[TradePosition, ...]]: ...
@_typing.overload
def positions_get(*, ticket: int) -> Optional[Tuple[TradePosition, ...]]: ...
@_api(None)
def positions_get(*args: Any, **kwargs: Any) -> Optional[Tuple[TradePosition, ...]]:
    """positions_get([symbol="SYMBOL"],[ticket=TICKET],[group="GROUP"])

Return all open positions, can be filtered by symbol, group or ticket"""
    kw = _keywords("positions_get", args, kwargs, ("symbol", "ticket", "group"))
    return _records(TradePosition, _get("/positions", _filter_query(kw)))


def _history(name: str, path: str, record: Type[_R], args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Tuple[_R, ...]:
    unknown = set(kwargs) - {"group", "ticket", "position"}
    if unknown:
        raise TypeError("%s() got an unexpected keyword argument %r" % (name, sorted(unknown)[0]))
    if "ticket" in kwargs or "position" in kwargs:
        if args:
            raise Fail(-2, _UNNAMED)
        q: Dict[str, Any] = {"ticket": _int(kwargs["ticket"])} if "ticket" in kwargs else {"position": _int(kwargs["position"])}
        return _records(record, _get(path, q))
    if len(args) != 2:
        raise Fail(-2, _INVALID_ARGS)
    q = {"date_from": _date(args[0]), "date_to": _date(args[1])}
    if "group" in kwargs:
        q["group"] = _str(kwargs["group"])
    return _records(record, _get(path, q))


def _history_total(path: str, lo: DateLike, hi: DateLike) -> int:
    return _number(_get(path, {"date_from": _date(lo), "date_to": _date(hi)}), "total")


@_api(None)
def history_orders_total(date_from: DateLike, date_to: DateLike, /) -> Optional[int]:
    """history_orders_total(date_from, date_to)

Return the number of orders in selected range from history"""
    return _history_total("/history/orders/total", date_from, date_to)


@_typing.overload
def history_orders_get(date_from: DateLike, date_to: DateLike, /, *, group: str = ...) -> Optional[Tuple[TradeOrder, ...]]: ...
@_typing.overload
def history_orders_get(*, ticket: int) -> Optional[Tuple[TradeOrder, ...]]: ...
@_typing.overload
def history_orders_get(*, position: int) -> Optional[Tuple[TradeOrder, ...]]: ...
@_api(None)
def history_orders_get(*args: Any, **kwargs: Any) -> Optional[Tuple[TradeOrder, ...]]:
    """history_orders_get([date_from, date_to, [group="GROUP"]],[position=POSITION],[ticket=TICKET])

Return orders in selected range from history or filtered by position id, ticket"""
    return _history("history_orders_get", "/history/orders", TradeOrder, args, kwargs)


@_api(None)
def history_deals_total(date_from: DateLike, date_to: DateLike, /) -> Optional[int]:
    """history_deals_total(date_from, date_to)

Return the number of deals in selected range from history"""
    return _history_total("/history/deals/total", date_from, date_to)


@_typing.overload
def history_deals_get(date_from: DateLike, date_to: DateLike, /, *, group: str = ...) -> Optional[Tuple[TradeDeal, ...]]: ...
@_typing.overload
def history_deals_get(*, ticket: int) -> Optional[Tuple[TradeDeal, ...]]: ...
@_typing.overload
def history_deals_get(*, position: int) -> Optional[Tuple[TradeDeal, ...]]: ...
@_api(None)
def history_deals_get(*args: Any, **kwargs: Any) -> Optional[Tuple[TradeDeal, ...]]:
    """history_deals_get([date_from, date_to, [group="GROUP"]],[position=POSITION],[ticket=TICKET])

Return deals in selected range from history or filtered by position id, ticket"""
    return _history("history_deals_get", "/history/deals", TradeDeal, args, kwargs)

# ====================================================================== calculations and trading


@_api(None)
def order_calc_margin(action: int, symbol: str, volume: float, price: float, /) -> Optional[float]:
    """order_calc_margin(action, symbol, volume, price)

Calculate margin required for specified order"""
    q = {"action": _int(action), "symbol": _str(symbol), "volume": _num(_float(volume)), "price": _num(_float(price))}
    return float(_finite(_get("/calc/margin", q), "margin"))


@_api(None)
def order_calc_profit(action: int, symbol: str, volume: float, price_open: float, price_close: float, /
                      ) -> Optional[float]:
    """order_calc_profit(action, symbol, volume, price_open, price_close)

Calculate profit for the current account in the current market conditions based on parameters passed"""
    p_open, p_close = price_open, price_close
    q = {"action": _int(action), "symbol": _str(symbol), "volume": _num(_float(volume)),
         "price_open": _num(_float(p_open)), "price_close": _num(_float(p_close))}
    return float(_finite(_get("/calc/profit", q), "profit"))


_REQUEST_KINDS = dict(FIELDS["TradeRequest"])


def _request(args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """The trade request as the real package reads it: one dict, or its fields as keywords."""
    if args and kwargs:
        raise Fail(-2, _UNNAMED)
    if kwargs:
        raw = kwargs
    elif len(args) == 1 and isinstance(args[0], dict):
        raw = args[0]
    else:
        raise Fail(-2, _INVALID_ARGS)
    out: Dict[str, Any] = {}
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


@_typing.overload
def order_check(request: Mapping[str, Any], /) -> Optional[OrderCheckResult]: ...
@_typing.overload
def order_check(**fields: Any) -> Optional[OrderCheckResult]: ...
@_api(None)
def order_check(*args: Any, **kwargs: Any) -> Optional[OrderCheckResult]:
    """order_check(request)

Check if there are enough funds to execute required trading operation"""
    request = _request(args, kwargs)
    return _record(OrderCheckResult, _call("POST", "/order/check", body={"request": request}))


@_typing.overload
def order_send(request: Mapping[str, Any], /) -> Optional[OrderSendResult]: ...
@_typing.overload
def order_send(**fields: Any) -> Optional[OrderSendResult]: ...
@_api(None)
def order_send(*args: Any, **kwargs: Any) -> Optional[OrderSendResult]:
    """order_send(request)

Not available: the gateway checks orders (order_check), it does not send them. Returns None with
last_error() (-7, ...)."""
    _request(args, kwargs)
    raise Fail(-7, "Terminal: Unsupported function (tradeapi checks orders, it does not send them: use order_check)")

# ====================================================================== the package's Python helpers


def _raw_order(order_type: int, symbol: str, volume: float, price: float, comment: Optional[str] = None,
               ticket: Optional[int] = None) -> Optional[OrderSendResult]:
    request: Dict[str, Any] = {"action": TRADE_ACTION_DEAL, "symbol": symbol, "volume": volume, "type": order_type,
               "price": price, "deviation": 10}
    if comment is not None:
        request["comment"] = comment
    if ticket is not None:
        request["position"] = ticket
    return order_send(request)


def Buy(symbol: str, volume: float, price: Optional[float] = None, *, comment: Optional[str] = None,
        ticket: Optional[int] = None) -> Optional[OrderSendResult]:
    """Market buy, as the real package's helper (order_send: always None with -7 here)."""
    if price is None:
        tick = symbol_info_tick(symbol)
        if tick is None:
            return None
        price = tick.ask
    return _raw_order(ORDER_TYPE_BUY, symbol, volume, price, comment, ticket)


def Sell(symbol: str, volume: float, price: Optional[float] = None, *, comment: Optional[str] = None,
         ticket: Optional[int] = None) -> Optional[OrderSendResult]:
    """Market sell, as the real package's helper (order_send: always None with -7 here)."""
    if price is None:
        tick = symbol_info_tick(symbol)
        if tick is None:
            return None
        price = tick.bid
    return _raw_order(ORDER_TYPE_SELL, symbol, volume, price, comment, ticket)


def Close(symbol: str, *, comment: Optional[str] = None, ticket: Optional[int] = None) -> Optional[bool]:
    """Close positions, as the real package's helper (order_send: always None with -7 here)."""
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


def _gateway() -> Optional[_Gateway]:
    """The current Gateway (for tradeapi_client's extras: stream_ticks, ...), or None."""
    return _S.gateway


def _clock() -> _Clock:
    return _S.clock
