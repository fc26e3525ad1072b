"""Account events across disconnects (issue 37's target: 0 missing and 0 duplicate deals across 100
random disconnects during an hour of simulated time; the snapshot + changes state equal to
positions_get/orders_get at every check).

A gateway on the simulator with its clock running --rate times real time (TRADEAPI_SIM_CLOCK_RATE)
and the trading schedule at --actions an hour (TRADEAPI_SIM_TRADES_PER_HOUR); the Python client's
stream_trade_events feeds a TradeState while this program cuts the connection at random moments
(--cuts over --seconds; the stream reconnects by itself with its Last-Event-ID). After each cut the
state's positions and orders are compared with positions_get/orders_get (retried for a few polls:
the stream may be a poll behind); at the end the deals streamed are compared with history_deals_get
over the same span. Prints one JSON line.

Run (needs node and the built gateway — npm run build:ts — and the client's test venv, which
clients/python/tests/run.sh makes):
    build/client-venv-3.11/bin/python bench/account-resume.py [--seconds 60] [--cuts 100] [--rate 60] [--actions 3600]
(The issue's run: --seconds 120 --rate 30 --cuts 300, one simulated hour; see bench/README.md.)
"""
import argparse
import os
import random
import socket
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "clients", "python", "tests"))

import harness  # noqa: E402  (clients/python/tests/harness.py)
import tradeapi_client.mt5 as mt5  # noqa: E402
from tradeapi_client import TradeState, stream_trade_events  # noqa: E402
from tradeapi_client.trade_events import DealEvent  # noqa: E402


def positions_and_orders_now():
    pos = sorted((p.ticket, p.volume, p.sl, p.tp) for p in (mt5.positions_get() or ()))
    ords = sorted((o.ticket, o.volume_current, o.price_open, o.sl, o.tp) for o in (mt5.orders_get() or ()))
    return pos, ords


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="real seconds of the run (60 at rate 60: an hour)")
    ap.add_argument("--cuts", type=int, default=100, help="disconnects, at random moments")
    ap.add_argument("--rate", type=float, default=60.0, help="simulated seconds per real second")
    ap.add_argument("--actions", type=int, default=3600, help="trading schedule actions per simulated hour")
    a = ap.parse_args()
    gw = harness.Gateway({"TRADEAPI_TERMINAL": "sim", "TRADEAPI_SIM_CLOCK_RATE": str(a.rate),
                          "TRADEAPI_SIM_TRADES_PER_HOUR": str(a.actions), "TRADEAPI_EVENTS_TRADE_MS": "100"})
    try:
        assert mt5.initialize(url=gw.url), mt5.last_error()
        state = TradeState(keep_deals=10 ** 6)
        stream = stream_trade_events()
        stream._retry = 0.05  # reconnect at once after a cut (the client's own pause is for real outages)
        lock = threading.Lock()
        deals = []

        def reader():
            for e in stream:
                with lock:
                    state.apply(e)
                    if isinstance(e, DealEvent):
                        deals.append(e.deal)

        threading.Thread(target=reader, daemon=True).start()
        while state.account is None:
            time.sleep(0.05)
        t0 = time.time()
        cuts = [0]

        def cutter():
            while time.time() - t0 < a.seconds:
                time.sleep(a.seconds / a.cuts * random.uniform(0.5, 1.5))
                # The live connection, cut as a network fault would (the client's internals); after
                # a cut, the next one waits for the stream to have reconnected.
                while getattr(stream._conn, "sock", None) is None and time.time() - t0 < a.seconds:
                    time.sleep(0.01)
                # The socket shut down under the reader (as a dropped network would), not the
                # connection object closed from this thread, which the reader's thread also uses.
                sock = getattr(stream._conn, "sock", None)
                if sock is not None:
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                        cuts[0] += 1
                    except OSError:
                        pass

        cutting = threading.Thread(target=cutter, daemon=True)
        cutting.start()
        checks = matched = 0
        while time.time() - t0 < a.seconds:
            time.sleep(1.0)
            checks += 1
            for _ in range(20):
                want_state = positions_and_orders_now()
                time.sleep(0.25)
                with lock:
                    got_state = (sorted((p.ticket, p.volume, p.sl, p.tp) for p in state.positions.values()),
                                 sorted((o.ticket, o.volume_current, o.price_open, o.sl, o.tp) for o in state.orders.values()))
                if got_state == want_state:
                    matched += 1
                    break
        cutting.join()
        time.sleep(1.0)
        # The deals streamed so far, then the history (read after them: it holds every one of them;
        # the stream reads on meanwhile, so the other order would count its newest deals as unknown).
        with lock:
            got = [(d.time_msc, d.ticket) for d in deals]
        hist = [(d.time_msc, d.ticket) for d in (mt5.history_deals_get(0, int(time.time()) + 400 * 86400) or ())]
        # The history between the first and the last deal streamed: each of those once, none else.
        span = [d for d in hist if got and got[0] <= d <= got[-1]]
        if os.environ.get("ACCOUNT_RESUME_DEBUG"):
            for d in sorted(set(got) - set(hist)):
                print("not in history:", d, "history around:", [h for h in hist if abs(h[0] - d[0]) < 120000])
        print({"seconds": a.seconds, "rate": a.rate, "simulated_hours": round(a.seconds * a.rate / 3600, 2), "cuts": cuts[0],
               "deals_streamed": len(got), "deals_in_history_span": len(span), "missing": len(set(span) - set(got)),
               "duplicates": len(got) - len(set(got)), "not_in_history": len(set(got) - set(hist)),
               "state_checks": checks, "state_matched": matched})
        stream.close()
    finally:
        mt5.shutdown()
        gw.stop()


if __name__ == "__main__":
    main()
