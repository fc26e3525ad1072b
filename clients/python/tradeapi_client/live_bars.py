"""Live bars of any period: ``stream_bars(symbols, "5s")`` yields (symbol, Bar) for every bar that
closes, with the values ``quant.bars`` returns for it later (GET /events?kinds=bar&period=…: the
gateway folds its live ticks with the fold of GET /ticks/bars).

``period`` as ``quant.bars`` takes it (``"90s"``, ``"3m"``, ``"2h"``, ``"1d"``, ``"1w"``,
``"ticks:500"``, ``"volume:100"``); ``price`` ``"bid"``, ``"ask"``, ``"mid"`` or ``"last"`` (default:
the symbol's chart mode). Times are server time, as the drop-in returns them. A dropped connection
is resumed where it stopped: the bars missed meanwhile come first, built from history, none twice."""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Tuple, Union

from ._events import _Stream


class Bar(NamedTuple):
    """A closed bar: the fields of ``quant.bars``' rows (``time``: its open, seconds; ``time_close_msc``: its last tick, ms)."""

    time: int
    open: float
    high: float
    low: float
    close: float
    tick_volume: int
    spread: int
    real_volume: int
    time_close_msc: int


class BarStream(_Stream[Tuple[str, Bar]]):
    """Yields (symbol, Bar) for every closed bar of the symbols, in time order."""

    def __init__(self, symbols: Union[str, Iterable[str]], period: str, price: Optional[str] = None, **kw: Any) -> None:
        _Stream.__init__(self, symbols, "bar", **kw)
        self.period = period
        self.price = price
        self.gaps = []  # type: List[Dict[str, Any]]

    def _query(self) -> Dict[str, str]:
        query = {"period": self.period}
        if self.price is not None:
            query["price"] = self.price
        return query

    def __next__(self) -> Tuple[str, Bar]:
        while True:
            name, data = self._next_event()
            if name == "bar":
                out = self.clock.out
                return data["symbol"], Bar(
                    out(int(data["time"]), 1000), float(data["open"]), float(data["high"]), float(data["low"]), float(data["close"]),
                    int(data["tick_volume"]), int(data["spread"]), int(data["real_volume"]), out(int(data["time_close_msc"]), 1))
            if name == "gap":
                self.gaps.append(data)

    def __enter__(self) -> BarStream:
        return self


def stream_bars(symbols: Union[str, Iterable[str]], period: str, price: Optional[str] = None, url: Optional[str] = None,
                key: Optional[str] = None, last_event_id: Optional[str] = None, reconnect: bool = True) -> BarStream:
    """Live bars: ``for symbol, bar in stream_bars(["EURUSD"], "5s"): ...`` (``close()`` or ``with`` ends it).

    Uses the connection of ``mt5.initialize()`` unless ``url`` is given. ``.last_event_id`` resumes
    in a later process (``last_event_id=``); gaps the gateway reports are in ``.gaps``. A period or
    price the gateway refuses raises RuntimeError with its reason."""
    return BarStream(symbols, period, price, url=url, key=key, last_event_id=last_event_id, reconnect=reconnect)


__all__ = ["stream_bars", "BarStream", "Bar"]
