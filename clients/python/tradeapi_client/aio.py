"""``tradeapi_client.mt5``'s 32 functions as coroutines, over the same connection pool::

    import asyncio
    import tradeapi_client.mt5 as mt5
    from tradeapi_client import aio

    async def main() -> None:
        if not await aio.initialize():
            print(aio.last_error()); return
        got = await asyncio.gather(*(aio.copy_ticks_range(s, t0, t1, mt5.COPY_TICKS_ALL) for s in symbols))

Each coroutine runs the synchronous function on a small thread pool (``MAX_WORKERS`` threads, the
size of the client's keep-alive pool: one connection per call in flight; more calls wait their
turn) and returns what it returns: the same arrays, records, ``None``/``False`` on failure. The
same gateway as ``mt5``: ``await aio.initialize(...)`` and ``mt5.initialize(...)`` are one.

``last_error()`` (not a coroutine) is the calling **task's** own: the code of the last call made
in this task (asyncio gives each task its own ``contextvars`` context), never another task's.
After ``asyncio.gather(...)`` the children's errors stay in their tasks: read ``last_error()`` in
the coroutine that made the call.

Cancelling a call (``task.cancel()``, ``asyncio.wait_for``) returns at once; a call still waiting
for a thread never runs, and a call already under way has its request cut (its connection is shut
down and closed, never put back in the pool), so the thread is free again within a moment.
``timeout`` of ``initialize()`` bounds each call as in ``mt5``.

Differences from ``mt5``: arguments are checked as there, save that a wrong number of them
for a function that takes them by position raises ``TypeError`` (as any Python function does)
where ``mt5`` returns ``None`` with ``(-2, ...)``; the helpers ``Buy``/``Sell``/``Close`` and the
constants and record types are ``mt5``'s (use them from there).
"""
from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Mapping, Optional, Tuple, TypeVar, overload

from . import _http, mt5
from ._errors import OK
from ._http import DEFAULT_MAX_JSON_BYTES
from ._recordtypes import AccountInfo, BookInfo, OrderCheckResult, OrderSendResult, SymbolInfo, TerminalInfo, Tick
from ._recordtypes import TradeDeal, TradeOrder, TradePosition
from .types import DateLike, Series

__all__ = list(mt5.FUNCTIONS) + ["MAX_WORKERS"]

MAX_WORKERS = _http._IDLE_POOL  # threads: calls in flight at once, each on its own keep-alive connection

_T = TypeVar("_T")
_error: contextvars.ContextVar[Tuple[int, str]] = contextvars.ContextVar("tradeapi_aio_last_error", default=OK)
_pool: Optional[ThreadPoolExecutor] = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(MAX_WORKERS, thread_name_prefix="tradeapi-aio")
        return _pool


def _in_thread(job: _http.Job, fn: Callable[..., _T], args: Tuple[Any, ...], kwargs: Mapping[str, Any]
               ) -> Tuple[_T, Tuple[int, str]]:
    """In a pool thread: the call, then that thread's last_error() before anything else runs there."""
    with job:
        result = fn(*args, **kwargs)
        return result, mt5.last_error()


async def _run(fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """Runs ``fn`` in the pool; its last_error() becomes this task's. An exception (an argument
    error, as the sync function raises it) propagates and leaves last_error() as it was."""
    job = _http.Job()
    future = asyncio.get_running_loop().run_in_executor(_executor(), functools.partial(_in_thread, job, fn, args, kwargs))
    try:
        result, error = await future
    except asyncio.CancelledError:
        job.abort()  # a request under way is cut; one not yet started never starts
        raise
    _error.set(error)
    return result


def last_error() -> Tuple[int, str]:
    """last_error()

The (code, text) of this task's last call: (1, 'Success') or why it failed."""
    return _error.get()


@overload
async def initialize(path: str, /, *, login: Optional[int] = None, password: Optional[str] = None,
                     server: Optional[str] = None, timeout: int = 60000, portable: bool = False, url: Optional[str] = None,
                     key: Optional[str] = None, utc: bool = False, compression: Optional[str] = None,
                     max_json_bytes: int = DEFAULT_MAX_JSON_BYTES, max_series_bytes: Optional[int] = None) -> bool: ...
@overload
async def initialize(*, path: Optional[str] = None, login: Optional[int] = None, password: Optional[str] = None,
                     server: Optional[str] = None, timeout: int = 60000, portable: bool = False, url: Optional[str] = None,
                     key: Optional[str] = None, utc: bool = False, compression: Optional[str] = None,
                     max_json_bytes: int = DEFAULT_MAX_JSON_BYTES, max_series_bytes: Optional[int] = None) -> bool: ...
async def initialize(*args: Any, **kwargs: Any) -> bool:
    return await _run(mt5.initialize, *args, **kwargs)


@overload
async def login(login: int, /, *, password: Optional[str] = None, server: Optional[str] = None,
                timeout: Optional[int] = None) -> bool: ...
@overload
async def login(*, login: int, password: Optional[str] = None, server: Optional[str] = None,
                timeout: Optional[int] = None) -> bool: ...
async def login(*args: Any, **kwargs: Any) -> bool:
    return await _run(mt5.login, *args, **kwargs)


async def shutdown() -> None:
    """mt5.shutdown(), then the pool's threads are let go (a later call starts a new pool), so that
    a program that is done with the gateway keeps no idle threads of this module."""
    await _run(mt5.shutdown)
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False)  # its idle threads end at once; a call still under way finishes first


async def version() -> Optional[Tuple[int, int, str]]:
    return await _run(mt5.version)


async def terminal_info() -> Optional[TerminalInfo]:
    return await _run(mt5.terminal_info)


async def account_info() -> Optional[AccountInfo]:
    return await _run(mt5.account_info)


async def symbols_total() -> Optional[int]:
    return await _run(mt5.symbols_total)


@overload
async def symbols_get() -> Optional[Tuple[SymbolInfo, ...]]: ...
@overload
async def symbols_get(*, group: str) -> Optional[Tuple[SymbolInfo, ...]]: ...
async def symbols_get(*args: Any, **kwargs: Any) -> Optional[Tuple[SymbolInfo, ...]]:
    return await _run(mt5.symbols_get, *args, **kwargs)


async def symbol_info(symbol: str, /) -> Optional[SymbolInfo]:
    return await _run(mt5.symbol_info, symbol)


async def symbol_info_tick(symbol: str, /) -> Optional[Tick]:
    return await _run(mt5.symbol_info_tick, symbol)


async def symbol_select(symbol: str, enable: bool = True, /) -> bool:
    return await _run(mt5.symbol_select, symbol, enable)


async def market_book_add(symbol: str, /) -> bool:
    return await _run(mt5.market_book_add, symbol)


async def market_book_release(symbol: str, /) -> bool:
    return await _run(mt5.market_book_release, symbol)


async def market_book_get(symbol: str, /) -> Optional[Tuple[BookInfo, ...]]:
    return await _run(mt5.market_book_get, symbol)


async def copy_rates_from(symbol: str, timeframe: int, date_from: DateLike, count: int, /) -> Optional[Series]:
    return await _run(mt5.copy_rates_from, symbol, timeframe, date_from, count)


async def copy_rates_from_pos(symbol: str, timeframe: int, start_pos: int, count: int, /) -> Optional[Series]:
    return await _run(mt5.copy_rates_from_pos, symbol, timeframe, start_pos, count)


async def copy_rates_range(symbol: str, timeframe: int, date_from: DateLike, date_to: DateLike, /) -> Optional[Series]:
    return await _run(mt5.copy_rates_range, symbol, timeframe, date_from, date_to)


async def copy_ticks_from(symbol: str, date_from: DateLike, count: int, flags: int, /) -> Optional[Series]:
    return await _run(mt5.copy_ticks_from, symbol, date_from, count, flags)


async def copy_ticks_range(symbol: str, date_from: DateLike, date_to: DateLike, flags: int, /) -> Optional[Series]:
    return await _run(mt5.copy_ticks_range, symbol, date_from, date_to, flags)


async def orders_total() -> Optional[int]:
    return await _run(mt5.orders_total)


@overload
async def orders_get() -> Optional[Tuple[TradeOrder, ...]]: ...
@overload
async def orders_get(*, symbol: str) -> Optional[Tuple[TradeOrder, ...]]: ...
@overload
async def orders_get(*, group: str) -> Optional[Tuple[TradeOrder, ...]]: ...
@overload
async def orders_get(*, ticket: int) -> Optional[Tuple[TradeOrder, ...]]: ...
async def orders_get(*args: Any, **kwargs: Any) -> Optional[Tuple[TradeOrder, ...]]:
    return await _run(mt5.orders_get, *args, **kwargs)


async def positions_total() -> Optional[int]:
    return await _run(mt5.positions_total)


@overload
async def positions_get() -> Optional[Tuple[TradePosition, ...]]: ...
@overload
async def positions_get(*, symbol: str) -> Optional[Tuple[TradePosition, ...]]: ...
@overload
async def positions_get(*, group: str) -> Optional[Tuple[TradePosition, ...]]: ...
@overload
async def positions_get(*, ticket: int) -> Optional[Tuple[TradePosition, ...]]: ...
async def positions_get(*args: Any, **kwargs: Any) -> Optional[Tuple[TradePosition, ...]]:
    return await _run(mt5.positions_get, *args, **kwargs)


async def history_orders_total(date_from: DateLike, date_to: DateLike, /) -> Optional[int]:
    return await _run(mt5.history_orders_total, date_from, date_to)


@overload
async def history_orders_get(date_from: DateLike, date_to: DateLike, /, *, group: str = ...
                             ) -> Optional[Tuple[TradeOrder, ...]]: ...
@overload
async def history_orders_get(*, ticket: int) -> Optional[Tuple[TradeOrder, ...]]: ...
@overload
async def history_orders_get(*, position: int) -> Optional[Tuple[TradeOrder, ...]]: ...
async def history_orders_get(*args: Any, **kwargs: Any) -> Optional[Tuple[TradeOrder, ...]]:
    return await _run(mt5.history_orders_get, *args, **kwargs)


async def history_deals_total(date_from: DateLike, date_to: DateLike, /) -> Optional[int]:
    return await _run(mt5.history_deals_total, date_from, date_to)


@overload
async def history_deals_get(date_from: DateLike, date_to: DateLike, /, *, group: str = ...
                            ) -> Optional[Tuple[TradeDeal, ...]]: ...
@overload
async def history_deals_get(*, ticket: int) -> Optional[Tuple[TradeDeal, ...]]: ...
@overload
async def history_deals_get(*, position: int) -> Optional[Tuple[TradeDeal, ...]]: ...
async def history_deals_get(*args: Any, **kwargs: Any) -> Optional[Tuple[TradeDeal, ...]]:
    return await _run(mt5.history_deals_get, *args, **kwargs)


async def order_calc_margin(action: int, symbol: str, volume: float, price: float, /) -> Optional[float]:
    return await _run(mt5.order_calc_margin, action, symbol, volume, price)


async def order_calc_profit(action: int, symbol: str, volume: float, price_open: float, price_close: float, /
                            ) -> Optional[float]:
    return await _run(mt5.order_calc_profit, action, symbol, volume, price_open, price_close)


@overload
async def order_check(request: Mapping[str, Any], /) -> Optional[OrderCheckResult]: ...
@overload
async def order_check(**fields: Any) -> Optional[OrderCheckResult]: ...
async def order_check(*args: Any, **kwargs: Any) -> Optional[OrderCheckResult]:
    return await _run(mt5.order_check, *args, **kwargs)


@overload
async def order_send(request: Mapping[str, Any], /) -> Optional[OrderSendResult]: ...
@overload
async def order_send(**fields: Any) -> Optional[OrderSendResult]: ...
async def order_send(*args: Any, **kwargs: Any) -> Optional[OrderSendResult]:
    return await _run(mt5.order_send, *args, **kwargs)


for _name in mt5.FUNCTIONS:  # each coroutine carries its sync function's docstring (help(), editors)
    _fn = globals()[_name]
    if _fn.__doc__ is None:
        _fn.__doc__ = getattr(mt5, _name).__doc__
assert all(asyncio.iscoroutinefunction(globals()[n]) for n in mt5.FUNCTIONS if n != "last_error")
