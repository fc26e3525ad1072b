"""The Python client (clients/python) measured, both targets of issue 25 in one run.

1. copy_ticks_range of ~10 M simulator ticks into the numpy array, against the time the same
   request's raw bytes (format=packed) take to arrive over loopback: target <= 1.5x.
2. Against mt5linux's transport (RPyC 6 classic: `rpyc_classic` in front of the same MetaTrader5
   stand-in, `rpyc.classic.obtain(conn.eval("mt5.copy_ticks_range(...)"))`), the stand-in serving
   every series call from one prepared array: 1 M ticks through bridge + gateway + client at >= 5x
   RPyC's throughput, and symbol_info_tick round trips at >= 1.2x RPyC's rate (issue 34; issue 25 asked 1x).

Each pair is measured alternately (one untimed call each first), best of --repeat, so that a change
of machine load falls on both sides alike; the load average is printed before and after.

Run (needs node, the built gateway — npm run build:ts — and a Python with numpy and rpyc, e.g.
the client's test venv after `build/client-venv-3.11/bin/pip install rpyc`):
    build/client-venv-3.11/bin/python bench/python-client.py [--ticks 10000000] [--stand-in-ticks 1000000]
        [--repeat 3] [--only sim|stand-in]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "clients", "python", "tests"))

import numpy as np  # noqa: E402

import harness  # noqa: E402  (clients/python/tests/harness.py)
import tradeapi_client.mt5 as mt5  # noqa: E402

UTC = timezone.utc


def best(n, fn):
    times = []
    result = None
    for _ in range(n):
        result = None  # the previous result freed first: each run gets the memory the last one had
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def raw_bytes(url, path):
    """Seconds for a request's whole body to arrive, received into one reused buffer and dropped
    (the client's own lean HTTP connection: the chunked body straight from the socket, no copy)."""
    from urllib.parse import urlsplit
    from tradeapi_client._wire import Connection
    u = urlsplit(url)
    conn = Connection(u.hostname, u.port, 600)
    view = memoryview(bytearray(8 << 20))
    conn.request("GET", u.path + path, headers={"Accept": "application/vnd.tradeapi.packed"})
    r = conn.getresponse()
    assert r.status == 200, r.status
    n = 0
    while True:
        got = r.readinto(view)
        if not got:
            break
        n += got
    conn.close()
    return n


def part_sim(args):
    gw = harness.sim_gateway()
    try:
        # EURUSD has ~1 M ticks a week in the simulator: enough whole weeks for the count asked.
        end = datetime(2026, 11, 21, tzinfo=UTC)
        start = end - timedelta(weeks=max(1, round(args.ticks / 975000)))
        q = "/ticks/range?symbol=EURUSD&date_from=%s&date_to=%s&format=packed" % (
            start.strftime("%Y-%m-%dT%H:%M:%SZ"), end.strftime("%Y-%m-%dT%H:%M:%SZ"))
        assert mt5.initialize(url=gw.url)
        raw_times, client_times = [], []
        ticks = None
        for _ in range(args.repeat):  # alternating, so that a change of machine load falls on both
            t, nbytes = best(1, lambda: raw_bytes(gw.url, q))
            raw_times.append(t)
            ticks = None  # 582 MB held while the next pull faults in its own would measure the kernel
            t, ticks = best(1, lambda: mt5.copy_ticks_range("EURUSD", start, end, mt5.COPY_TICKS_ALL))
            client_times.append(t)
        raw_s, client_s = min(raw_times), min(client_times)
        assert ticks is not None, mt5.last_error()
        assert ticks.nbytes == nbytes, (ticks.nbytes, nbytes)
        mt5.shutdown()
    finally:
        gw.stop()
    ratio = client_s / raw_s
    print("simulator, %d ticks (%.0f MB packed), best of %d:" % (len(ticks), nbytes / 1e6, args.repeat))
    print("  raw bytes over loopback          %6.2f s  (%.1f M ticks/s)" % (raw_s, len(ticks) / raw_s / 1e6))
    print("  mt5.copy_ticks_range -> ndarray  %6.2f s  (%.1f M ticks/s)" % (client_s, len(ticks) / client_s / 1e6))
    print("  ratio client / raw bytes         %6.2fx  target <= 1.5x  %s" % (ratio, "MET" if ratio <= 1.5 else "MISSED"))
    return ratio <= 1.5


def part_stand_in(args):
    bh = harness.bridge_harness
    ticks = bh.make_ticks(args.stand_in_ticks)
    data = tempfile.mkdtemp(prefix="tradeapi-bench-")
    path = os.path.join(data, "EURUSD.npy")
    np.save(path, ticks)
    lo = int(ticks["time"][0])
    hi = int(ticks["time"][-1]) + 1
    env = dict(os.environ, MT5_STUB_TICKS="EURUSD=" + path,
               PYTHONPATH=os.pathsep.join([bh.mt5_dir(), os.path.join(ROOT, "bridge")]))
    # The bridge's own stand-in: the same array (bridge harness env), so both sides serve it.
    bh.TICKS_ENV = "EURUSD=" + path
    rport = harness.free_port()
    rpyc_server = subprocess.Popen([os.path.join(os.path.dirname(sys.executable), "rpyc_classic"), "--port", str(rport),
                                    "--host", "127.0.0.1"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    setup = None
    try:
        import rpyc
        deadline = time.monotonic() + 20
        while True:
            try:
                conn = rpyc.classic.connect("127.0.0.1", rport)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        conn.execute("import MetaTrader5 as mt5; mt5.initialize()")
        setup = harness.BridgedGateway()
        assert mt5.initialize(url=setup.url)

        def via_rpyc():
            return rpyc.classic.obtain(conn.eval("mt5.copy_ticks_range('EURUSD', %d, %d, -1)" % (lo, hi)))

        def via_client():
            return mt5.copy_ticks_range("EURUSD", lo, hi, mt5.COPY_TICKS_ALL)

        # One untimed call each (the stand-in maps its file, the gateway's code warms up), then the
        # two sides alternate, so that a change of machine load falls on both alike.
        via_rpyc()
        via_client()
        r_times, c_times = [], []
        r_ticks = c_ticks = None
        for _ in range(args.repeat):
            r_ticks = c_ticks = None  # as above: each run with the previous result freed
            t, r_ticks = best(1, via_rpyc)
            r_times.append(t)
            r_ticks = None
            t, c_ticks = best(1, via_client)
            c_times.append(t)
        r_ticks = via_rpyc()  # for the comparison below
        r_s, c_s = min(r_times), min(c_times)
        assert c_ticks is not None, mt5.last_error()
        assert len(r_ticks) == len(c_ticks) == len(ticks), (len(r_ticks), len(c_ticks))
        assert c_ticks.tobytes() == r_ticks.tobytes()
        throughput = r_s / c_s

        def rate(fn, seconds=2.0):
            n, t0 = 0, time.perf_counter()
            while time.perf_counter() - t0 < seconds:
                fn()
                n += 1
            return n / (time.perf_counter() - t0)

        rpyc_rates, client_rates = [], []
        for _ in range(args.repeat):  # alternating, as above; the best second of each kept
            rpyc_rates.append(rate(lambda: rpyc.classic.obtain(conn.eval("mt5.symbol_info_tick('EURUSD')")), 1.0))
            client_rates.append(rate(lambda: mt5.symbol_info_tick("EURUSD"), 1.0))
        rpyc_tick, client_tick = max(rpyc_rates), max(client_rates)
        conn.close()
        mt5.shutdown()
    finally:
        if setup is not None:
            setup.stop()
        rpyc_server.kill()
        rpyc_server.wait()
        os.unlink(path)
        os.rmdir(data)
    print("MetaTrader5 stand-in, %d ticks from one prepared array, best of %d:" % (len(ticks), args.repeat))
    print("  mt5linux transport (RPyC classic eval + obtain)  %6.3f s  (%.2f M ticks/s)" % (r_s, len(ticks) / r_s / 1e6))
    print("  bridge + gateway + tradeapi_client.mt5           %6.3f s  (%.2f M ticks/s)" % (c_s, len(ticks) / c_s / 1e6))
    print("  throughput ratio client / RPyC                   %6.2fx  target >= 5x  %s" % (throughput, "MET" if throughput >= 5 else "MISSED"))
    # Issue 25 asked for >= 1x; issue 34 for >= 1.2x (idle machine). Each pair ran back to back,
    # so the per-pair ratios say how much of the spread is the machine's.
    pairs = sorted(c / r for c, r in zip(client_rates, rpyc_rates))
    print("  symbol_info_tick round trips: RPyC %.0f/s, client %.0f/s: ratio %.2fx  target >= 1.2x  %s" % (
        rpyc_tick, client_tick, client_tick / rpyc_tick, "MET" if client_tick >= 1.2 * rpyc_tick else "MISSED"))
    print("    per pair (1 s each, alternated): %s" % ", ".join("%.2fx" % x for x in pairs))
    return throughput >= 5 and client_tick >= 1.2 * rpyc_tick


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ticks", type=int, default=10000000, help="simulator ticks for part 1 (about; whole weeks)")
    p.add_argument("--stand-in-ticks", type=int, default=1000000, help="stand-in ticks for part 2")
    p.add_argument("--repeat", type=int, default=3, help="runs of each measurement (the best is kept)")
    p.add_argument("--only", choices=("sim", "stand-in"), help="run one part only")
    args = p.parse_args()
    print("load average %.2f %.2f %.2f, %d CPUs" % (os.getloadavg() + (os.cpu_count(),)))
    a = part_sim(args) if args.only != "stand-in" else True
    b = part_stand_in(args) if args.only != "sim" else True
    print("load average %.2f %.2f %.2f after" % os.getloadavg())
    sys.exit(0 if a and b else 1)


if __name__ == "__main__":
    main()
