"""Schemathesis hooks for run-schemathesis.sh (loaded through SCHEMATHESIS_HOOKS=hooks).

The series endpoints stream whatever they are asked for: ticks/from with count=1000000 or
ticks/range over five years are valid requests answered with hundreds of megabytes to gigabytes of
JSON, which the server streams with flat memory but schemathesis reads whole and validates
in Python (the first unbounded run was killed by the OOM killer at 23 GB). Before each call this
hook shrinks such requests while keeping them in the same validity class: a valid `count` stays a
valid count (at most MAX_ROWS), a valid, ordered date range stays a valid range (at most WINDOW
long). Anything the server should reject (bad numbers, bad or reversed dates) is left untouched, so
negative testing is unaffected.

One more shrink, for a known slow spot of the simulated terminal rather than of the HTTP layer:
ticks/from with COPY_TICKS_TRADE on a symbol that has no trade ticks (every FX pair) scans all the
history from date_from to now for them, ~8 s of the terminal's single worker on this machine, during
which every other call (/health included) waits. Such requests start at most TRADE_SCAN before now
here, so that the run's 10 s request timeout keeps meaning "the HTTP layer hung".
"""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import schemathesis

MAX_ROWS = 2000
# Ticks are dense (several per second); bars and history entries are sparse.
WINDOWS = {
    "/ticks/range": timedelta(minutes=10),
    "/rates/range": timedelta(days=7),
    # Custom bars read every tick of the bars they return (a 1w bar: its week), so a day of them.
    "/ticks/bars": timedelta(days=1),
}
COUNTED = ("/ticks/from", "/rates/from", "/rates/from-pos")
TRADE_SCAN = timedelta(days=30)
TRADE_FLAGS = {"2", "COPY_TICKS_TRADE"}

ISO_UTC = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$")


def _instant(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    m = ISO_UTC.match(value)
    if not m:
        return None
    y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
    frac = (m.group(7) or "0").ljust(6, "0")[:6]
    try:
        return datetime(y, mo, d, h, mi, s, int(frac), tzinfo=timezone.utc)
    except ValueError:
        return None


def _count(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d{1,16}", value.strip()):
        return int(value.strip())
    return None


@schemathesis.hook
def before_call(context, case, kwargs):
    query = case.query
    if not isinstance(query, dict):
        return
    path = case.operation.path
    if path.endswith(COUNTED):
        n = _count(query.get("count"))
        if n is not None and MAX_ROWS < n <= 1_000_000:
            query["count"] = MAX_ROWS
    if path.endswith("/ticks/from") and str(query.get("flags", "")).strip() in TRADE_FLAGS:
        start = _instant(query.get("date_from"))
        earliest = datetime.now(timezone.utc) - TRADE_SCAN
        if start is not None and start < earliest:
            query["date_from"] = f"{earliest:%Y-%m-%dT%H:%M:%S}Z"
    for suffix, window in WINDOWS.items():
        if not path.endswith(suffix):
            continue
        start, end = _instant(query.get("date_from")), _instant(query.get("date_to"))
        if start is None or end is None or start > end or end - start <= window:
            continue
        new_end = start + window
        if new_end.year > 9999:
            continue
        query["date_to"] = f"{new_end.year:04d}-{new_end:%m-%dT%H:%M:%S}Z"
