"""Time: date arguments as the real package reads them, and the gateway's clock.

The real package hands out the broker's server time written as if it were UTC (mt5-reference
§3.3) and compares date arguments with those stamps as they are. A gateway started with
TRADEAPI_SERVER_TZ converts both ways to true UTC, and states it (GET /server-time: the zone and
its offsets as a table of [from UTC second, offset seconds]). By default this client undoes that
conversion with the gateway's own table, so that a script sees the numbers the real package would
give; initialize(utc=True) keeps the gateway's true UTC. Nothing is ever guessed: without the
statement the client passes times through."""
from __future__ import annotations

import operator
from datetime import datetime, timezone

from typing import Any, Iterable, Optional, Sequence

import numpy as np
import numpy.typing as npt

from ._errors import Fail

MAX_SECONDS = 253402300799  # 9999-12-31T23:59:59Z, the last instant an ISO date can name


def seconds_of(value: object) -> int:
    """A date argument as the real package reads it: datetime.timestamp() (a naive datetime is in
    this process's local time zone, an aware one is exact) or integer seconds. Anything else: -2."""
    if isinstance(value, datetime):
        return int(value.timestamp())
    if isinstance(value, bool):
        raise Fail(-2, "Invalid arguments")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise Fail(-2, "Invalid arguments")


def iso(seconds: int) -> str:
    s = min(max(int(seconds), 0), MAX_SECONDS)
    return datetime.fromtimestamp(s, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_ms(ms: int) -> str:
    ms = min(max(int(ms), 0), MAX_SECONDS * 1000 + 999)
    return datetime.fromtimestamp(ms // 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (ms % 1000)


class Clock(object):
    """Converts the gateway's times to what the client returns, and date arguments back.

    ``transitions``: the gateway's [[from_utc_seconds, offset_seconds], ...] when it speaks true
    UTC for a server zone; empty when it passes the terminal's stamps through. ``to_server``: give
    back server time (the default) rather than the gateway's true UTC."""

    def __init__(self, transitions: Iterable[Sequence[Any]] = (), to_server: bool = True, zone: Optional[str] = None,
                 gateway_utc: bool = False) -> None:
        self.zone = zone
        self.gateway_utc = gateway_utc
        t = sorted((int(a), int(b)) for a, b in transitions)
        self.active = bool(t) and to_server
        self.starts = np.array([a for a, _ in t], dtype=np.int64)
        self.offsets = np.array([b for _, b in t], dtype=np.int64)

    def offset(self, utc_seconds: int) -> int:
        i = int(np.searchsorted(self.starts, utc_seconds, "right")) - 1
        return int(self.offsets[max(i, 0)])

    # ------------------------------------------------------------- out: gateway UTC -> server time

    def out(self, value: int, unit_ms: int) -> int:
        """One time field (seconds: unit_ms=1000, milliseconds: 1); 0 ("not set") stays 0."""
        if not self.active or not value:
            return value
        per_second = 1000 // unit_ms
        return value + self.offset(value // per_second) * per_second

    def out_column(self, column: npt.NDArray[Any], unit_ms: int) -> None:
        """A numpy int64 column, in place (zeros stay)."""
        if not self.active or len(column) == 0:
            return
        per_second = 1000 // unit_ms
        seconds = column // per_second if per_second != 1 else column
        i = np.searchsorted(self.starts, seconds, "right") - 1
        np.maximum(i, 0, out=i)
        shift = self.offsets[i] * per_second
        shift[column == 0] = 0
        column += shift

    # ------------------------------------------------------------- in: server time -> gateway UTC

    def arg(self, seconds: int) -> int:
        """A date argument (server seconds as the real package reads them) as the gateway wants it."""
        if not self.active:
            return seconds
        guess = seconds - self.offset(seconds)
        candidates = sorted(set(seconds - self.offset(g) for g in (guess - 7200, guess, guess + 7200)))
        for c in candidates:
            if c + self.offset(c) == seconds:
                return c  # the earlier instant when clocks went back, as the gateway reads it
        return seconds - self.offset(guess - 7200)  # a skipped hour: the offset before the change
