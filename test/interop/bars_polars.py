#!/usr/bin/env python3
"""Builds custom bars with Polars from /ticks/range and compares them with GET /ticks/bars.

    python bars_polars.py http://127.0.0.1:PORT

The server is test/interop/bars-polars.test.ts's: the simulator on the "New York close" broker
clock (America/New_York+07:00) converted to UTC by the gateway, over a week in which clocks go back
(3 November 2024, 06:00 UTC). The reference is independent of the server's fold: ticks as Arrow,
their server wall-clock time from /server-time's transitions, time bars by group_by_dynamic on
that naive wall clock, tick bars by a cumulative count per server day, volume bars by a running
sum that restarts at each bar and day; every field compared.

Prints one JSON summary ({"ok": bool, "checks": [...], "versions": {...}}); exits 1 if a check failed.
"""
from __future__ import annotations

import io
import json
import sys
import traceback
import urllib.request

import numpy as np
import polars as pl

FROM = "2024-11-01T00:00:00Z"
TO = "2024-11-06T23:59:59Z"
FIELDS = ["time", "open", "high", "low", "close", "tick_volume", "spread", "real_volume", "time_close_msc"]
TICK_FLAG_LAST = 8
TICK_FLAG_VOLUME = 16
DAY_MS = 86_400_000

checks: list[dict] = []


def get(base: str, path: str) -> bytes:
    with urllib.request.urlopen(base + path, timeout=120) as r:
        return r.read()


def check(name: str, ok: bool, detail: object = None) -> None:
    checks.append({"name": name, "ok": bool(ok), **({} if ok or detail is None else {"detail": detail})})


def to_utc_seconds(server_s: int, transitions: list[list[int]]) -> int:
    """The UTC second of a server second: the earlier instant when it happens twice."""
    found = []
    for k, (start, offset) in enumerate(transitions):
        u = server_s - offset
        end = transitions[k + 1][0] if k + 1 < len(transitions) else None
        if (k == 0 or u >= start) and (end is None or u < end):
            found.append(u)
    return min(found)


def ticks_of(base: str, symbol: str, transitions: list[list[int]]) -> pl.DataFrame:
    # Whole server days around the range: bars are built from all their ticks.
    body = get(base, f"/ticks/range?symbol={symbol}&date_from=2024-10-30T00:00:00Z&date_to=2024-11-10T00:00:00Z&flags=COPY_TICKS_ALL&format=arrow")
    df = pl.read_ipc_stream(io.BytesIO(body))
    msc = df["time_msc"].dt.epoch("ms").to_numpy()
    starts = np.array([t[0] * 1000 for t in transitions], dtype=np.int64)
    offsets = np.array([t[1] * 1000 for t in transitions], dtype=np.int64)
    server = msc + offsets[np.maximum(np.searchsorted(starts, msc, side="right") - 1, 0)]
    return df.with_columns(
        msc=pl.Series(msc),
        # The naive server wall clock: what bars are cut on.
        server=pl.Series(server).cast(pl.Datetime("ms")),
    )


def aggregate(price: str, digits: int) -> list[pl.Expr]:
    scale = 10.0 ** digits
    spread = (pl.col("ask") * scale).round(0).cast(pl.Int64) - (pl.col("bid") * scale).round(0).cast(pl.Int64)
    if price == "last":
        traded = (pl.col("flags") & TICK_FLAG_LAST) != 0
        p = pl.col("last").filter(traded)
        priced = [traded.sum().alias("priced")]
    else:
        p = pl.col("bid") if price == "bid" else pl.col("ask") if price == "ask" else (pl.col("bid") + pl.col("ask")) / 2
        priced = [pl.len().alias("priced")]
    return [
        p.first().alias("open"), p.max().alias("high"), p.min().alias("low"), p.last().alias("close"),
        pl.len().cast(pl.UInt64).alias("tick_volume"),
        spread.min().cast(pl.Int32).alias("spread"),
        pl.col("volume").filter((pl.col("flags") & TICK_FLAG_VOLUME) != 0).sum().cast(pl.UInt64).alias("real_volume"),
        pl.col("msc").last().alias("time_close_msc"),
        *priced,
    ]


def in_range(bars: pl.DataFrame) -> pl.DataFrame:
    lo = int(np.datetime64(FROM[:-1], "s").astype(np.int64))
    hi = int(np.datetime64(TO[:-1], "s").astype(np.int64))
    return bars.filter((pl.col("priced") > 0) & (pl.col("time") >= lo) & (pl.col("time") <= hi)).select(FIELDS)


def time_bars(ticks: pl.DataFrame, every: str, price: str, digits: int, transitions: list[list[int]]) -> pl.DataFrame:
    grouped = ticks.sort("server", maintain_order=True).group_by_dynamic(
        "server", every=every, closed="left", label="left", start_by="sunday" if every == "1w" else "window"
    ).agg(aggregate(price, digits))
    opens = grouped["server"].dt.epoch("s").to_list()
    return in_range(grouped.with_columns(time=pl.Series([to_utc_seconds(s, transitions) for s in opens], dtype=pl.Int64)))


def tick_bars(ticks: pl.DataFrame, count: int, price: str, digits: int) -> pl.DataFrame:
    day = (pl.col("server").dt.epoch("ms") // DAY_MS).alias("day")
    grouped = (
        ticks.with_columns(day)
        .with_columns(bar=pl.int_range(pl.len()).over("day") // count)
        .group_by(["day", "bar"], maintain_order=True)
        .agg([pl.col("msc").first().alias("first_msc"), *aggregate(price, digits)])
    )
    return in_range(grouped.with_columns(time=pl.col("first_msc") // 1000))


def volume_bars(ticks: pl.DataFrame, size: float, price: str, digits: int) -> pl.DataFrame:
    """A bar closes at the first tick where the traded volume since its open reaches `size` (ticks not
    split), or at the server day's end: a running sum that restarts, so a loop, not a cumsum."""
    day = (ticks["server"].dt.epoch("ms") // DAY_MS).to_numpy()
    traded = np.where((ticks["flags"].to_numpy() & TICK_FLAG_VOLUME) != 0, ticks["volume_real"].to_numpy(), 0.0)
    ids = np.empty(len(day), np.int64)
    bar, total, current, full = -1, 0.0, None, True
    for i in range(len(day)):
        if full or day[i] != current:
            bar, total, current, full = bar + 1, 0.0, day[i], False
        ids[i] = bar
        total += traded[i]
        full = total >= size
    grouped = ticks.with_columns(bar=pl.Series(ids)).group_by("bar", maintain_order=True).agg(
        [pl.col("msc").first().alias("first_msc"), *aggregate(price, digits)]
    )
    return in_range(grouped.with_columns(time=pl.col("first_msc") // 1000))


def served(base: str, symbol: str, period: str, price: str) -> pl.DataFrame:
    rows = json.loads(get(base, f"/ticks/bars?symbol={symbol}&period={period}&price={price}&date_from={FROM}&date_to={TO}"))
    return pl.DataFrame(rows, schema={f: (pl.Float64 if f in ("open", "high", "low", "close") else pl.Int64) for f in FIELDS})


def compare(name: str, want: pl.DataFrame, got: pl.DataFrame) -> None:
    want = want.with_columns([pl.col(f).cast(pl.Int64) for f in FIELDS if f not in ("open", "high", "low", "close")])
    if want.height != got.height:
        check(name, False, {"rows": [want.height, got.height], "want": want.head(3).to_dicts(), "got": got.head(3).to_dicts()})
        return
    diff = [f for f in FIELDS if not want[f].equals(got[f])]
    if diff:
        i = next(i for i in range(want.height) if any(want[f][i] != got[f][i] for f in diff))
        check(name, False, {"fields": diff, "row": i, "want": want.row(i, named=True), "got": got.row(i, named=True)})
        return
    check(f"{name}: {got.height} bars, every field", got.height > 0)


def main() -> int:
    base = sys.argv[1].rstrip("/")
    transitions = json.loads(get(base, "/server-time"))["transitions"]
    check("the gateway converts a zone with changes", len(transitions) > 2)
    for symbol, digits, price in (("BTCUSD", 2, "bid"), ("BTCUSD", 2, "mid"), ("AMZN", 2, "last")):
        info = json.loads(get(base, f"/symbols/{symbol}"))
        check(f"{symbol}: {digits} digits", info["digits"] == digits)
        ticks = ticks_of(base, symbol, transitions)
        for every, period in (("90s", "90s"), ("30m", "30m"), ("1h", "1h"), ("1d", "1d"), ("1w", "1w")):
            try:
                compare(f"{symbol} {price} {period}", time_bars(ticks, every, price, digits, transitions), served(base, symbol, period, price))
            except Exception:  # noqa: BLE001 (reported as a failed check)
                check(f"{symbol} {price} {period}", False, traceback.format_exc())
        if price == "last":
            for size in (5000, 40000):
                try:
                    compare(f"{symbol} {price} volume:{size}", volume_bars(ticks, size, price, digits), served(base, symbol, f"volume:{size}", price))
                except Exception:  # noqa: BLE001
                    check(f"{symbol} {price} volume:{size}", False, traceback.format_exc())
        for count in (100, 2500):
            try:
                compare(f"{symbol} {price} ticks:{count}", tick_bars(ticks, count, price, digits), served(base, symbol, f"ticks:{count}", price))
            except Exception:  # noqa: BLE001
                check(f"{symbol} {price} ticks:{count}", False, traceback.format_exc())
    ok = all(c["ok"] for c in checks)
    print(json.dumps({"ok": ok, "checks": checks, "versions": {"polars": pl.__version__, "numpy": np.__version__}}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
