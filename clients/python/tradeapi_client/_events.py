"""Live ticks and depth from the gateway's Server-Sent Events (GET /events), as iterators that
reconnect by themselves and resume where they stopped (Last-Event-ID: the gateway replays the
ticks missed meanwhile from history, without a duplicate or a hole)."""
from __future__ import annotations

import http.client
import json
import os
import socket
import time
from typing import Any, Dict, Generic, Iterable, List, Optional, Sequence, Tuple, TypeVar, Union, cast

from ._errors import Fail, Problem, problem_to_fail
from ._http import Gateway, fail_of
from ._records import from_json
from ._recordtypes import BookInfo, Tick
from ._time import Clock
from ._wire import Connection, Response

_T = TypeVar("_T")


def _gateway(url: Optional[str], key: Optional[str]) -> Tuple[Gateway, Clock]:
    from . import mt5
    g = mt5._gateway()
    if url is None and g is not None:
        return Gateway(g.url, g.key if key is None else key, g.timeout, max_json_bytes=g.max_json_bytes), mt5._clock()
    return Gateway(url or os.environ.get("TRADEAPI_URL") or mt5.DEFAULT_URL,
                   key if key is not None else os.environ.get("TRADEAPI_KEY")), Clock()


class _Stream(Generic[_T]):
    """An iterator over /events (``_next_event()``: the next (event, data)); close() ends it."""

    def __init__(self, symbols: Union[str, Iterable[str]], kinds: str, url: Optional[str] = None, key: Optional[str] = None,
                 last_event_id: Optional[str] = None, reconnect: bool = True, idle_timeout: float = 60.0) -> None:
        if isinstance(symbols, str):
            symbols = [s for s in symbols.split(",") if s]
        self.symbols = list(symbols)
        self.kinds = kinds
        self.gateway, self.clock = _gateway(url, key)
        self.last_event_id = last_event_id
        self.reconnect = reconnect
        self.idle_timeout = idle_timeout
        self._resp: Optional[Response] = None
        self._conn: Optional[Connection] = None
        self._closed = False
        self._retry = 1.0

    def _open(self) -> None:
        headers = {"Cache-Control": "no-cache"}
        if self.last_event_id:
            headers["Last-Event-ID"] = self.last_event_id
        query = {"kinds": self.kinds}
        if self.symbols:  # (the account kinds need none)
            query["symbols"] = ",".join(self.symbols)
        query.update(self._query())
        resp, conn = self.gateway.open("GET", "/events", query,
                                       accept="text/event-stream", timeout=self.gateway.timeout, headers=headers)
        conn.deadline, conn.idle = None, self.idle_timeout  # an endless body: each receive may wait this long
        self._resp, self._conn = resp, conn

    def _query(self) -> Dict[str, str]:
        """More query parameters of the stream (a replay's start, end and speed)."""
        return {}

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._resp = self._conn = None

    def close(self) -> None:
        self._closed = True
        self._drop()
        self.gateway.close()

    def __enter__(self) -> _Stream[_T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> _Stream[_T]:
        return self

    def __next__(self) -> _T:
        raise NotImplementedError

    def _next_event(self) -> Tuple[str, Any]:
        while not self._closed:
            if self._resp is None:
                try:
                    self._open()
                except Problem as p:
                    if not self.reconnect or p.status < 500:
                        raise problem_to_error(p)
                    time.sleep(self._retry)
                    continue
                except Fail:
                    if not self.reconnect:
                        raise
                    time.sleep(self._retry)
                    continue
            try:
                event = self._read_event()
            except (OSError, socket.timeout, ValueError, RecursionError, http.client.HTTPException):
                event = None  # a cut or malformed stream: reconnect and resume
            if event is None:
                self._drop()
                if not self.reconnect:
                    raise StopIteration
                time.sleep(self._retry)
                continue
            return event
        raise StopIteration

    def _read_event(self) -> Optional[Tuple[str, Any]]:
        """The next event (name, data dict), or None at the end of the stream."""
        name, data, ident = "message", [], None  # type: Tuple[str, List[str], Optional[str]]
        while True:
            raw = cast(Response, self._resp).readline()
            if not raw:
                return None
            line = raw.decode("utf-8").rstrip("\r\n")
            if not line:
                if data:
                    if ident is not None:
                        self.last_event_id = ident
                    return name, json.loads("\n".join(data))
                name, data, ident = "message", [], None
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
            elif field == "id":
                ident = value
            elif field == "retry":
                try:
                    self._retry = max(0.05, int(value) / 1000.0)
                except ValueError:
                    pass


def problem_to_error(p: Problem) -> RuntimeError:
    f = problem_to_fail(p)
    return RuntimeError("the gateway refused the event stream: %s (last_error %d)" % (p.detail or p.type, f.code))


class TickStream(_Stream[Tuple[str, Tick]]):
    """Yields (symbol, Tick) for every new tick of the symbols, in time order per symbol."""

    gaps: List[Dict[str, Any]]

    def __init__(self, symbols: Union[str, Iterable[str]], **kw: Any) -> None:
        _Stream.__init__(self, symbols, "tick", **kw)

    def __next__(self) -> Tuple[str, Tick]:
        while True:
            name, data = self._next_event()
            if name == "tick":
                return self._tick(data)
            if name == "gap":
                self.gaps.append(data)

    def _tick(self, data: Dict[str, Any]) -> Tuple[str, Tick]:
        return data["symbol"], cast(Tick, from_json("Tick", data, self.clock.out))

    gaps = ()  # type: ignore[assignment]  # stream_ticks() gives each stream its list


class BookStream(_Stream[Tuple[str, Tuple[BookInfo, ...]]]):
    """Yields (symbol, tuple of BookInfo) whenever a subscribed symbol's depth changes."""

    def __init__(self, symbols: Union[str, Iterable[str]], **kw: Any) -> None:
        _Stream.__init__(self, symbols, "book", **kw)

    def __next__(self) -> Tuple[str, Tuple[BookInfo, ...]]:
        while True:
            name, data = self._next_event()
            if name == "book":
                return data["symbol"], tuple(cast(BookInfo, from_json("BookInfo", b)) for b in data.get("book", ()))


def stream_ticks(symbols: Union[str, Iterable[str]], url: Optional[str] = None, key: Optional[str] = None,
                 last_event_id: Optional[str] = None, reconnect: bool = True) -> TickStream:
    """Live ticks: ``for symbol, tick in stream_ticks(["EURUSD"]): ...`` (``close()`` or ``with`` ends it).

    Uses the connection of ``mt5.initialize()`` (its URL, key and clock) unless ``url`` is given.
    Reconnects by itself and resumes after the last tick seen (``.last_event_id``; pass it back as
    ``last_event_id=`` to resume in a later process). Gaps the gateway reports are in ``.gaps``."""
    s = TickStream(symbols, url=url, key=key, last_event_id=last_event_id, reconnect=reconnect)
    s.gaps = []
    return s


def stream_book(symbols: Union[str, Iterable[str]], url: Optional[str] = None, key: Optional[str] = None,
                reconnect: bool = True) -> BookStream:
    """Live depth of symbols with a market_book_add() subscription: yields (symbol, (BookInfo, ...))."""
    return BookStream(symbols, url=url, key=key, reconnect=reconnect)


__all__ = ["stream_ticks", "stream_book", "fail_of"]
