"""Live ticks and depth from the gateway's Server-Sent Events (GET /events), as iterators that
reconnect by themselves and resume where they stopped (Last-Event-ID: the gateway replays the
ticks missed meanwhile from history, without a duplicate or a hole)."""
import http.client
import json
import os
import socket
import time

from ._errors import Fail, Problem, problem_to_fail
from ._http import Gateway, fail_of
from ._records import from_json


def _gateway(url, key):
    from . import mt5
    g = mt5._gateway()
    if url is None and g is not None:
        return Gateway(g.url, g.key if key is None else key, g.timeout, max_json_bytes=g.max_json_bytes), mt5._clock()
    from ._time import Clock
    return Gateway(url or os.environ.get("TRADEAPI_URL") or mt5.DEFAULT_URL,
                   key if key is not None else os.environ.get("TRADEAPI_KEY")), Clock()


class _Stream(object):
    """An iterator of (event, data) from /events; close() ends it."""

    def __init__(self, symbols, kinds, url=None, key=None, last_event_id=None, reconnect=True,
                 idle_timeout=60.0):
        if isinstance(symbols, str):
            symbols = [s for s in symbols.split(",") if s]
        self.symbols = list(symbols)
        self.kinds = kinds
        self.gateway, self.clock = _gateway(url, key)
        self.last_event_id = last_event_id
        self.reconnect = reconnect
        self.idle_timeout = idle_timeout
        self._resp = None
        self._conn = None
        self._closed = False
        self._retry = 1.0

    def _open(self):
        headers = {"Cache-Control": "no-cache"}
        if self.last_event_id:
            headers["Last-Event-ID"] = self.last_event_id
        resp, conn = self.gateway.open("GET", "/events", {"symbols": ",".join(self.symbols), "kinds": self.kinds},
                                       accept="text/event-stream", timeout=self.gateway.timeout, headers=headers)
        conn.deadline, conn.idle = None, self.idle_timeout  # an endless body: each receive may wait this long
        self._resp, self._conn = resp, conn

    def _drop(self):
        if self._conn is not None:
            self._conn.close()
        self._resp = self._conn = None

    def close(self):
        self._closed = True
        self._drop()
        self.gateway.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __iter__(self):
        return self

    def __next__(self):
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

    def _read_event(self):
        """The next event (name, data dict), or None at the end of the stream."""
        name, data, ident = "message", [], None
        while True:
            line = self._resp.readline()
            if not line:
                return None
            line = line.decode("utf-8").rstrip("\r\n")
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


def problem_to_error(p):
    f = problem_to_fail(p)
    return RuntimeError("the gateway refused the event stream: %s (last_error %d)" % (p.detail or p.type, f.code))


class TickStream(_Stream):
    """Yields (symbol, Tick) for every new tick of the symbols, in time order per symbol."""

    def __init__(self, symbols, **kw):
        _Stream.__init__(self, symbols, "tick", **kw)

    def __next__(self):
        while True:
            name, data = _Stream.__next__(self)
            if name == "tick":
                return data["symbol"], from_json("Tick", data, self.clock.out)
            if name == "gap":
                self.gaps.append(data)

    gaps = ()


class BookStream(_Stream):
    """Yields (symbol, tuple of BookInfo) whenever a subscribed symbol's depth changes."""

    def __init__(self, symbols, **kw):
        _Stream.__init__(self, symbols, "book", **kw)

    def __next__(self):
        while True:
            name, data = _Stream.__next__(self)
            if name == "book":
                return data["symbol"], tuple(from_json("BookInfo", b) for b in data.get("book", ()))


def stream_ticks(symbols, url=None, key=None, last_event_id=None, reconnect=True):
    """Live ticks: ``for symbol, tick in stream_ticks(["EURUSD"]): ...`` (``close()`` or ``with`` ends it).

    Uses the connection of ``mt5.initialize()`` (its URL, key and clock) unless ``url`` is given.
    Reconnects by itself and resumes after the last tick seen (``.last_event_id``; pass it back as
    ``last_event_id=`` to resume in a later process). Gaps the gateway reports are in ``.gaps``."""
    s = TickStream(symbols, url=url, key=key, last_event_id=last_event_id, reconnect=reconnect)
    s.gaps = []
    return s


def stream_book(symbols, url=None, key=None, reconnect=True):
    """Live depth of symbols with a market_book_add() subscription: yields (symbol, (BookInfo, ...))."""
    return BookStream(symbols, url=url, key=key, reconnect=reconnect)


__all__ = ["stream_ticks", "stream_book", "fail_of"]
