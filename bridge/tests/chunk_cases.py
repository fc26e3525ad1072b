"""Series that exercise every encoding of a SERIES_CHUNK (tradeapi_bridge/columns.py), shared by
test_columns.py (encode, decode, compare with the package's rows) and gen_chunk_fixture.py (the
same chunks for the C++ client's tests, binding/tests/bridge_chunk_fixture.h).

Each case: (name, rows as the package returns them, scales, rows per chunk)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the bridge package
from tradeapi_bridge import columns  # noqa: E402
from tradeapi_bridge.series import RATE_DTYPE, TICK_DTYPE  # noqa: E402

BASE_MSC = 1704189600123  # 2024-01-02 10:00:00.123
FX = columns.price_scales(5, 1e-05)
JPY = columns.price_scales(3, 0.001)
INDEX = columns.price_scales(1, 0.1)
TICK_FLAGS = (2, 4, 6, 8, 16, 24, 32, 64, 2 | 4 | 8 | 16 | 32 | 64, 8 | 16 | 32, 8 | 16 | 64, 0)


def tick_scales(prices, volume_digits=2):
    s = {name: prices for name in ("bid", "ask", "last")}
    s["volume_real"] = columns.price_scales(volume_digits)
    return s


def rate_scales(prices):
    return {name: prices for name in ("open", "high", "low", "close")}


def fx_ticks(n, seed=7):
    """FX ticks the way a terminal stores them: prices the doubles nearest k / 10**5, every flag
    kind, stamps a few ms apart with runs of equal ones, last/volume zero."""
    rng = np.random.default_rng(seed)
    t = np.zeros(n, dtype=TICK_DTYPE)
    step = rng.integers(0, 900, n)
    step[::5] = 0  # several ticks in one millisecond
    t["time_msc"] = BASE_MSC + np.cumsum(step)
    t["time"] = t["time_msc"] // 1000
    k = 104211 + np.cumsum(rng.integers(-3, 4, n))
    t["bid"] = k / 1e5
    t["ask"] = (k + rng.integers(0, 20, n)) / 1e5
    t["flags"] = np.array(TICK_FLAGS, dtype=np.uint32)[np.arange(n) % len(TICK_FLAGS)]
    return t


def exchange_ticks(n, seed=11):
    """Exchange ticks: last and volumes set, volume_real in 0.01 lots, a jump beyond int16 points."""
    rng = np.random.default_rng(seed)
    t = fx_ticks(n, seed)
    k = 35000 + np.cumsum(rng.integers(-5, 6, n))
    if n > 10:
        k[n // 2:] += 70000  # a delta of 70 000 points: 4-byte deltas in that chunk
    t["bid"] = k / 10.0
    t["ask"] = (k + 1) / 10.0
    t["last"] = (k + rng.integers(0, 2, n)) / 10.0
    t["volume"] = rng.integers(0, 2 ** 40, n).astype(np.uint64)
    t["volume_real"] = rng.integers(0, 10 ** 6, n) / 100.0
    return t


def m1_rates(n, seed=3):
    rng = np.random.default_rng(seed)
    r = np.zeros(n, dtype=RATE_DTYPE)
    r["time"] = 1704153600 + 60 * np.arange(n)
    o = 15712 + np.cumsum(rng.integers(-40, 41, n))
    r["open"] = o / 1e3
    r["high"] = (o + rng.integers(0, 30, n)) / 1e3
    r["low"] = (o - rng.integers(0, 30, n)) / 1e3
    r["close"] = (o + rng.integers(-20, 21, n)) / 1e3
    r["tick_volume"] = rng.integers(1, 5000, n).astype(np.uint64)
    r["spread"] = rng.integers(-3, 40, n).astype(np.int32)
    r["real_volume"] = rng.integers(0, 2 ** 63, n, dtype=np.uint64) * 2  # past int64: wrapping deltas
    return r


def off_grid(t):
    """Prices that are not on the point grid (1e-6 steps with 5 digits) and some that only the
    k * point form gives back: both must still arrive bit for bit."""
    t = t.copy()
    n = len(t)
    t["bid"] = 1.1 + np.arange(n) * 1e-6
    t["ask"] = (104000 + np.arange(n)) * 1e-05  # k * point: not always the double nearest k / 10**5
    return t


def odd(t):
    """Values no claim can hold: -0.0, NaN, infinity, a time that is not time_msc // 1000, the
    extremes of every integer type."""
    t = t.copy()
    t["bid"][1] = -0.0
    t["ask"][2] = np.nan
    t["last"][3] = np.inf
    t["time"][4] += 1
    t["volume"][5] = 2 ** 64 - 1
    t["flags"][6] = 2 ** 32 - 1
    t["volume_real"][7] = 1e300
    return t


def cases(n=1000):
    """The cases at about n rows each (the C++ fixture takes them smaller)."""
    ticks = fx_ticks(n)
    return [
        ("fx ticks, every flag kind", ticks, tick_scales(FX), n // 4 + 6),
        ("fx ticks in one chunk", ticks, tick_scales(FX), n),
        ("fx ticks, chunks of one row", ticks[:9], tick_scales(FX), 1),
        ("fx ticks, chunks of two rows and one left", ticks[:7], tick_scales(FX), 2),
        ("fx ticks, chunk one row short of the series", ticks[:50], tick_scales(FX), 49),
        ("one tick", ticks[:1], tick_scales(FX), 17476),
        ("ticks without a known point grid", ticks, {}, n // 3),
        ("exchange ticks, last and volumes set", exchange_ticks(n * 7 // 10), tick_scales(INDEX), n // 5),
        ("prices off the point grid", off_grid(ticks[:n * 2 // 5]), tick_scales(FX), n // 8),
        ("values no claim holds", odd(ticks[:40]), tick_scales(FX), 16),
        ("m1 rates", m1_rates(n // 2), rate_scales(JPY), n // 8),
        ("m1 rates, no point grid", m1_rates(30), {}, 30),
    ]
