"""tradeapi_client.aio measured: 36 symbols' pulls through asyncio.gather against the same pulls one
after another with tradeapi_client.mt5, from the simulator over loopback.

Each symbol's pull is copy_ticks_range over --hours of ticks (default one day: 24) or, with
--rates, copy_rates_range of --hours of M1 bars. The two forms alternate (one untimed round of each
first), best of --repeat, so that a change of machine load falls on both alike; the load average is
printed before and after. The arrays of both forms are checked byte for byte. With --rtt MS the
client reaches the gateway through bench/delay-proxy.ts (each direction's bytes held RTT/2: a
distant gateway's latency, loopback's bandwidth); it needs `npm run build:ts` (dist/bench/).

Run (needs node and the built gateway — npm run build:ts — and a Python with numpy, e.g. the
client's test venv build/client-venv-3.11 that clients/python/tests/run.sh makes):
    build/client-venv-3.11/bin/python bench/python-aio.py [--symbols 36] [--hours 24] [--rates] [--repeat 3]
        [--rtt 0]
"""
import argparse
import asyncio
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "clients", "python", "tests"))

import harness  # noqa: E402  (clients/python/tests/harness.py)
import tradeapi_client.mt5 as mt5  # noqa: E402
from tradeapi_client import aio  # noqa: E402

UTC = timezone.utc


def delay_proxy(port, rtt_ms):
    """bench/delay-proxy.ts in front of 127.0.0.1:port, RTT/2 each way: (process, its port)."""
    script = ("import(process.argv[1]).then(async (m) => { const p = await m.startDelayProxy({targetHost: '127.0.0.1', "
              "targetPort: %d, delayMs: %r}); console.log(p.port); })" % (port, rtt_ms / 2.0))
    proc = subprocess.Popen(["node", "-e", script, os.path.join(ROOT, "dist", "bench", "delay-proxy.js")],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line.strip().isdigit():
        proc.kill()
        raise SystemExit("the delaying proxy did not start (npm run build:ts?)")
    return proc, int(line)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--symbols", type=int, default=36, help="symbols pulled (the first N of symbols_get())")
    p.add_argument("--hours", type=float, default=24, help="hours of ticks (or M1 bars) per symbol")
    p.add_argument("--rates", action="store_true", help="M1 bars (copy_rates_range) instead of ticks")
    p.add_argument("--repeat", type=int, default=3, help="rounds of each form (the best is kept)")
    p.add_argument("--rtt", type=float, default=0, help="round-trip ms added by a delaying proxy (default: none)")
    args = p.parse_args()
    print("load average %.2f %.2f %.2f, %d CPUs" % (os.getloadavg() + (os.cpu_count(),)))
    gw = harness.sim_gateway()
    proxy = None
    try:
        url = gw.url
        if args.rtt > 0:
            proxy, port = delay_proxy(gw.port, args.rtt)
            url = "http://127.0.0.1:%d" % port
        assert mt5.initialize(url=url), mt5.last_error()
        symbols = [s.name for s in mt5.symbols_get()][:args.symbols]
        if len(symbols) < args.symbols:
            print("the simulator has %d symbols: pulling those" % len(symbols))
        end = datetime(2026, 11, 20, 12, tzinfo=UTC)  # a past weekday: the same rows every time
        start = end - timedelta(hours=args.hours)
        if args.rates:
            def sync_one(s):
                return mt5.copy_rates_range(s, mt5.TIMEFRAME_M1, start, end)

            def async_one(s):
                return aio.copy_rates_range(s, mt5.TIMEFRAME_M1, start, end)
        else:
            def sync_one(s):
                return mt5.copy_ticks_range(s, start, end, mt5.COPY_TICKS_ALL)

            def async_one(s):
                return aio.copy_ticks_range(s, start, end, mt5.COPY_TICKS_ALL)

        def one_by_one():
            return [sync_one(s) for s in symbols]

        async def gathered():
            return await asyncio.gather(*(async_one(s) for s in symbols))

        seq_times, par_times = [], []
        seq = par = None
        for i in range(args.repeat + 1):  # the first round untimed
            seq = par = None  # each round with the previous results freed
            t0 = time.perf_counter()
            seq = one_by_one()
            t1 = time.perf_counter()
            seq_s = t1 - t0
            seq = None
            t0 = time.perf_counter()
            par = asyncio.run(gathered())
            par_s = time.perf_counter() - t0
            if i:
                seq_times.append(seq_s)
                par_times.append(par_s)
        seq = one_by_one()
        assert all(a is not None for a in seq), mt5.last_error()
        assert all(b is not None for b in par), "an aio pull failed"
        assert [a.tobytes() for a in seq] == [b.tobytes() for b in par], "gather and one by one differ"
        rows = sum(len(a) for a in par)
        nbytes = sum(a.nbytes for a in par)
        mt5.shutdown()
    finally:
        if proxy is not None:
            proxy.kill()
            proxy.wait()
        gw.stop()
    seq_s, par_s = min(seq_times), min(par_times)
    what = "M1 bars" if args.rates else "ticks"
    link = "a %g ms RTT link (bench/delay-proxy.ts)" % args.rtt if args.rtt > 0 else "loopback"
    print("%d symbols x %g h of %s over %s: %d rows (%.0f MB), best of %d, %d aio threads:"
          % (len(symbols), args.hours, what, link, rows, nbytes / 1e6, args.repeat, aio.MAX_WORKERS))
    print("  one after another (mt5)     %6.2f s  (%.1f M rows/s)  runs: %s"
          % (seq_s, rows / seq_s / 1e6, " ".join("%.2f" % t for t in seq_times)))
    print("  asyncio.gather (aio)        %6.2f s  (%.1f M rows/s)  runs: %s"
          % (par_s, rows / par_s / 1e6, " ".join("%.2f" % t for t in par_times)))
    print("  ratio one by one / gather   %6.2fx" % (seq_s / par_s))
    print("load average %.2f %.2f %.2f after" % os.getloadavg())


if __name__ == "__main__":
    main()
