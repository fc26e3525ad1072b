"""Series shaped the way quants use them, built on the gateway (not in the MetaTrader5 package):

* ``bars(symbol, period, date_from, date_to, price=None, forming=False)`` — bars of any period
  built from every tick on the server (GET /ticks/bars): ``"90s"``, ``"3m"``, ``"2h"`` (any length
  dividing a day), ``"1d"``, ``"1w"``, ``"ticks:500"``, ``"volume:100"``. The rates dtype plus
  ``time_close_msc`` (the time of the bar's last tick). Several symbols (a list, or a
  comma-separated string): each one's bars merged in time order in one pull
  (GET /ticks/bars?symbols=…), with a ``symbol`` field as ``ticks`` has.
* ``ticks(symbols, date_from, date_to, flags=COPY_TICKS_ALL)`` — the ticks of several symbols
  merged in time order in one pull (GET /ticks/range?symbols=…): the tick dtype plus ``symbol``.

Both use the session of ``tradeapi_client.mt5`` (call ``mt5.initialize(url=…)`` first), take dates
as its functions do (a datetime or integer seconds: the terminal's server time; an ISO 8601 string
as it is) and return times as they do (server time unless ``initialize(utc=True)``). On failure
they return None and ``mt5.last_error()`` says why, as the drop-in's functions do. The rows come
packed, straight into the numpy array (``to_pandas``/``to_polars`` take them as they take a
``copy_*`` result).
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Union
from urllib.parse import unquote

import numpy as np
import numpy.typing as npt

from . import mt5
from ._errors import Fail
from ._series import PACKED, RATE_DTYPE, TICK_DTYPE
from .types import DateLike

BAR_DTYPE = np.dtype(RATE_DTYPE.descr + [("time_close_msc", "<i8")])
# The gateway's packed multi-symbol row: the one-symbol record, then the row's index into the
# Tradeapi-Symbols header (docs/api.md, "Many symbols in one pull").
_MERGED_TICK_DTYPE = np.dtype(TICK_DTYPE.descr + [("symbol", "<u4")])
_MERGED_BAR_DTYPE = np.dtype(BAR_DTYPE.descr + [("symbol", "<u4")])


def _names(symbols: Union[str, Iterable[str]]) -> List[str]:
    """A name, a comma-separated list or an iterable of names, as a list."""
    return [s.strip() for s in symbols.split(",")] if isinstance(symbols, str) else [mt5._str(s) for s in symbols]


def _named(merged: npt.NDArray[Any], header: Optional[str], names: List[str], dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """Packed multi-symbol rows -> ``dtype``'s fields plus ``symbol``, the name each row's index
    points to in the Tradeapi-Symbols header (the names asked for without one)."""
    listed = [unquote(n) for n in header.split(",")] if header else names
    width = max([len(n) for n in listed] + [1])
    out = np.empty(len(merged), dtype=np.dtype(dtype.descr + [("symbol", "<U%d" % width)]))
    for name in dtype.names or ():
        out[name] = merged[name]
    if len(merged):
        index = merged["symbol"]
        if int(index.max()) >= len(listed):
            raise Fail(-10002, "IPC recv failed: a row names symbol %d of %d" % (int(index.max()), len(listed)))
        out["symbol"] = np.asarray(listed)[index]
    return out


def _packed(path: str, query: Dict[str, Any], dtype: np.dtype[Any]) -> Any:
    """One packed series request: (rows viewed as ``dtype``, the response's headers)."""
    g = mt5._gw()
    q = dict(query, format="packed")
    resp, conn = g.open("GET", path, q, accept=PACKED)
    media = (resp.getheader("content-type") or "").split(";", 1)[0].strip().lower()
    if media != PACKED:
        conn.close()
        raise Fail(-10002, "IPC recv failed: a series answered as %r, not %s" % (media[:80], PACKED))
    symbols = resp.getheader("tradeapi-symbols")
    return g.read_into_array(resp, conn, dtype), symbols


def _server_times(array: npt.NDArray[Any], *msc_fields: str) -> npt.NDArray[Any]:
    """Gateway time -> what the drop-in returns (server time by default), in place."""
    clock = mt5._S.clock
    if clock.active and len(array):
        clock.out_column(array["time"], 1000)
        for name in msc_fields:
            clock.out_column(array[name], 1)
    return array


@mt5._api(None)
def bars(symbol: Union[str, Iterable[str]], period: str, date_from: DateLike, date_to: DateLike,
         price: Optional[str] = None, forming: bool = False) -> Optional[npt.NDArray[np.void]]:
    """Bars of ``period`` built from ``symbol``'s ticks, whose open time lies in [date_from,
    date_to] (each built from all its ticks); ``price``: bid, ask, mid or last (default: the
    symbol's chart mode); ``forming=True`` includes the bar still forming. Several symbols (a list
    or other iterable of names, or a comma-separated string): each one's bars, built as for it
    alone, merged in time order (ties in the order given), each row with its ``symbol``."""
    query: Dict[str, Any] = {"period": mt5._str(period), "date_from": mt5._date(date_from),
                             "date_to": mt5._date(date_to)}
    if price is not None:
        query["price"] = mt5._str(price)
    if forming:
        query["forming"] = "true"
    if isinstance(symbol, str) and "," not in symbol:
        query["symbol"] = mt5._str(symbol)
        array, _ = _packed("/ticks/bars", query, BAR_DTYPE)
        return _server_times(array, "time_close_msc")
    names = _names(symbol)
    query["symbols"] = ",".join(names)
    merged, header = _packed("/ticks/bars", query, _MERGED_BAR_DTYPE)
    return _server_times(_named(merged, header, names, BAR_DTYPE), "time_close_msc")


@mt5._api(None)
def ticks(symbols: Union[str, Iterable[str]], date_from: DateLike, date_to: DateLike,
          flags: int = mt5.COPY_TICKS_ALL) -> Optional[npt.NDArray[np.void]]:
    """The ticks of ``symbols`` (a name, a comma-separated list or an iterable of names) with
    date_from <= time_msc <= date_to, merged in time order (ties in the order given), each row with
    its ``symbol``."""
    names = _names(symbols)
    query = {"symbols": ",".join(names), "date_from": mt5._date(date_from), "date_to": mt5._date(date_to),
             "flags": mt5._int(flags)}
    merged, header = _packed("/ticks/range", query, _MERGED_TICK_DTYPE)
    return _server_times(_named(merged, header, names, TICK_DTYPE), "time_msc")
