"""History that runs into live: ``replay(symbols, start)`` iterates over the same (symbol, Tick)
pairs as ``stream_ticks``, from ``start`` on (read from the gateway's store or the terminal's
history), then on into live ticks without a hole or a repeat at the seam (GET /events?start=…).

``speed`` paces the history part (0: as fast as it is read; 1: real time; 100: a hundred times);
``end`` makes it a replay that stops after the last tick at or before it. ``.complete`` turns True
when history has caught up with live (the gateway's ``replay-complete`` event), ``.ended`` when a
replay with an end has sent its last tick. A dropped connection is resumed where it stopped, inside
the replay as in live ticks."""
from __future__ import annotations

from datetime import datetime
from typing import Any, Dict, Iterable, Optional, Tuple, Union

from ._events import TickStream
from ._recordtypes import Tick
from ._time import iso, seconds_of

Instant = Union[datetime, int, str]


class ReplayStream(TickStream):
    """Yields (symbol, Tick): the replayed history, then live ticks (unless it has an end)."""

    complete: bool
    ended: bool

    def __init__(self, symbols: Union[str, Iterable[str]], start: Instant, speed: float = 0, end: Optional[Instant] = None,
                 **kw: Any) -> None:
        TickStream.__init__(self, symbols, **kw)
        self.gaps = []
        self.complete = False
        self.ended = False
        self._replay = {"start": self._instant(start), "speed": repr(float(speed))}
        if end is not None:
            self._replay["end"] = self._instant(end)

    def __enter__(self) -> ReplayStream:
        return self

    def __iter__(self) -> ReplayStream:
        return self

    def _instant(self, value: Instant) -> str:
        """An ISO 8601 string as given; a datetime or integer seconds as the drop-in reads dates (server time)."""
        if isinstance(value, str):
            return value
        return iso(self.clock.arg(seconds_of(value)))

    def _query(self) -> Dict[str, str]:
        return dict(self._replay)

    def __next__(self) -> Tuple[str, Tick]:
        while True:
            if self.ended:
                raise StopIteration
            name, data = self._next_event()
            if name == "tick":
                return TickStream._tick(self, data)
            if name == "gap":
                self.gaps.append(data)
            elif name == "replay-complete":
                self.complete = True
            elif name == "replay-end":
                self.ended = True
                self.close()


def replay(symbols: Union[str, Iterable[str]], start: Instant, speed: float = 0, end: Optional[Instant] = None,
           url: Optional[str] = None, key: Optional[str] = None, reconnect: bool = True) -> ReplayStream:
    """Ticks from ``start`` on: ``for symbol, tick in replay(["EURUSD"], start, speed=100): ...``.

    ``start``/``end``: a datetime or integer seconds (server time, as the drop-in's date arguments),
    or an ISO 8601 UTC string (``"2026-11-20T00:00:00Z"``). Uses the connection of
    ``mt5.initialize()`` unless ``url`` is given; ``close()`` or ``with`` ends it."""
    return ReplayStream(symbols, start, speed=speed, end=end, url=url, key=key, reconnect=reconnect)


__all__ = ["replay", "ReplayStream"]
