"""stream_trade_events() and TradeState: typed events from a canned SSE stand-in on loopback (parsing,
the state from snapshot + changes, resuming after a cut with the last deal's id), then through a real
gateway on the simulator (snapshots equal positions_get/orders_get; ``since`` an older deal's id gives
exactly the deals after it that history_deals_get lists)."""
import http.server
import json
import os
import subprocess
import sys
import threading
import unittest

import harness  # noqa: F401  (puts the package on sys.path)
import tradeapi_client
import tradeapi_client.mt5 as mt5
from tradeapi_client.trade_events import (AccountEvent, AccountSnapshot, DealEvent, OrderEvent, OrdersSnapshot, PositionEvent,
                                          PositionsSnapshot, TradeState)


def position(ticket, **over):
    p = {"ticket": ticket, "time": 1700000000, "time_msc": 1700000000000, "type": 0, "volume": 1.0, "price_open": 1.1,
         "sl": 0.0, "tp": 0.0, "symbol": "EURUSD"}
    p.update(over)
    return p


def order(ticket, **over):
    o = {"ticket": ticket, "time_setup": 1700000000, "type": 2, "state": 1, "volume_initial": 1.0, "volume_current": 1.0,
         "price_open": 1.05, "symbol": "EURUSD"}
    o.update(over)
    return o


FIGURES = {"balance": 10000, "credit": 0, "profit": 5.5, "equity": 10005.5, "margin": 100, "margin_free": 9905.5,
           "margin_level": 10005.5, "time_msc": 1700000000123}


def event(name, data, ident=None):
    return ("" if ident is None else "id: %s\n" % ident) + "event: %s\ndata: %s\n\n" % (name, json.dumps(data))


class Canned(unittest.TestCase):
    """An /events stand-in: each connection gets the next canned body (then the connection is cut)."""

    def serve(self, bodies):
        seen = []

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                seen.append((self.path, self.headers.get("Last-Event-ID")))
                body = bodies[min(len(seen), len(bodies)) - 1].encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        return "http://127.0.0.1:%d" % server.server_port, seen

    def test_typed_events_state_and_resume_after_a_cut(self):
        first = (event("snapshot", {"kind": "order", "orders": [order(7)]}, "deal:1700000000000-5")
                 + event("snapshot", {"kind": "position", "positions": [position(1), position(2)]}, "deal:1700000000000-5")
                 + event("snapshot", {"kind": "account", "account": FIGURES}, "deal:1700000000000-5")
                 + event("deal", {"ticket": 6, "order": 7, "time": 1700000001, "time_msc": 1700000001000, "volume": 1, "price": 1.05,
                                  "profit": 0, "symbol": "EURUSD"}, "deal:1700000001000-6")
                 + event("order", {"change": "filled", "order": order(7, state=4)})
                 + event("position", {"change": "opened", "position": position(7)})
                 + event("position", {"change": "modified", "position": position(1, sl=1.0)}))
        # After the cut: the state again, then a close.
        second = (event("snapshot", {"kind": "order", "orders": []}, "deal:1700000001000-6")
                  + event("snapshot", {"kind": "position", "positions": [position(1, sl=1.0), position(2), position(7)]}, "deal:1700000001000-6")
                  + event("snapshot", {"kind": "account", "account": FIGURES}, "deal:1700000001000-6")
                  + event("position", {"change": "closed", "position": position(2)})
                  + event("account", dict(FIGURES, balance=10010)))
        url, seen = self.serve([first, second])
        state = TradeState()
        got = []
        with tradeapi_client.stream_trade_events(url=url) as stream:
            stream._retry = 0.01  # reconnect at once after the cut
            for e in stream:
                state.apply(e)
                got.append(e)
                if len(got) == 12:
                    break
        self.assertEqual([type(e).__name__ for e in got],
                         ["OrdersSnapshot", "PositionsSnapshot", "AccountSnapshot", "DealEvent", "OrderEvent", "PositionEvent",
                          "PositionEvent", "OrdersSnapshot", "PositionsSnapshot", "AccountSnapshot", "PositionEvent", "AccountEvent"])
        deal = got[3]
        self.assertIsInstance(deal, DealEvent)
        self.assertIsInstance(deal.deal, mt5.TradeDeal)
        self.assertEqual((deal.deal.ticket, deal.deal.volume, deal.event_id), (6, 1.0, "deal:1700000001000-6"))
        self.assertIsInstance(deal.deal.volume, float, "fields coerced to their kinds")
        self.assertEqual(got[4], OrderEvent("filled", got[4].order))
        self.assertIsInstance(got[6], PositionEvent)
        self.assertEqual(got[6].position.sl, 1.0)
        self.assertEqual(seen[0], ("/events?kinds=deal%2Corder%2Cposition%2Caccount", None))
        self.assertEqual(seen[1][1], "deal:1700000001000-6", "resumed with the last deal's id")
        self.assertEqual(sorted(state.positions), [1, 7])
        self.assertEqual(state.positions[1].sl, 1.0)
        self.assertEqual(state.orders, {})
        self.assertEqual(state.account.balance, 10010.0)
        self.assertEqual([d.ticket for d in state.deals], [6])
        self.assertIsInstance(got[2], AccountSnapshot)
        self.assertIsInstance(got[11], AccountEvent)

    def test_state_from_changes(self):
        from tradeapi_client._records import from_json
        pos = lambda t, **o: from_json("TradePosition", position(t, **o))  # noqa: E731
        s = TradeState(keep_deals=2)
        s.apply(PositionsSnapshot((pos(1), pos(2))))
        s.apply(PositionEvent("modified", pos(2, volume=0.4)))
        s.apply(PositionEvent("closed", pos(1)))
        s.apply(PositionEvent("opened", pos(3)))
        self.assertEqual({t: p.volume for t, p in s.positions.items()}, {2: 0.4, 3: 1.0})
        s.apply(OrderEvent("opened", from_json("TradeOrder", order(9))))
        s.apply(OrderEvent("cancelled", from_json("TradeOrder", order(9))))
        self.assertEqual(s.orders, {})
        for t in (1, 2, 3):
            s.apply(DealEvent(from_json("TradeDeal", {"ticket": t}), "deal:0-%d" % t))
        self.assertEqual([d.ticket for d in s.deals], [2, 3], "the last keep_deals deals")
        s.apply(PositionsSnapshot(()))
        self.assertEqual(s.positions, {}, "a snapshot replaces the state")

    def test_unknown_kinds_are_refused_before_connecting(self):
        with self.assertRaises(ValueError):
            tradeapi_client.stream_trade_events(kinds="deal,fills", url="http://127.0.0.1:9")


class OnTheSimulator(harness.SimSession):
    @classmethod
    def setUpClass(cls):
        # A simulated account that trades on a schedule (where the simulator has one) would race the
        # comparisons below: schedule off.
        cls.gw = harness.sim_gateway(TRADEAPI_SIM_TRADES_PER_HOUR="0")

    def test_snapshots_equal_positions_get_and_orders_get(self):
        state = TradeState()
        with tradeapi_client.stream_trade_events(kinds=["order", "position", "account"]) as stream:
            for e in stream:
                state.apply(e)
                if state.account is not None:
                    break
        self.assertEqual(sorted(state.positions.values()), sorted(mt5.positions_get()))
        self.assertEqual(sorted(state.orders.values()), sorted(mt5.orders_get() or ()))
        self.assertEqual(state.account.balance, mt5.account_info().balance)

    def test_since_an_older_deal_gives_exactly_the_deals_after_it(self):
        now = mt5.symbol_info_tick("BTCUSD").time
        history = mt5.history_deals_get(0, now + 86400)
        self.assertGreater(len(history), 10)
        start = history[-8]
        want = list(history[-7:])
        got = []
        with tradeapi_client.stream_trade_events(kinds="deal", since="deal:%d-%d" % (start.time_msc, start.ticket)) as stream:
            for e in stream:
                self.assertIsInstance(e, DealEvent)
                got.append(e.deal)
                if len(got) == len(want):
                    break
            self.assertEqual(stream.last_event_id, "deal:%d-%d" % (want[-1].time_msc, want[-1].ticket))
        self.assertEqual(got, want)


class ReadmeExample(unittest.TestCase):
    def test_the_readme_block_runs_verbatim(self):
        blocks = harness.readme_python_blocks("### The account's life as events: `stream_trade_events`", until="\n### ")
        self.assertEqual(len(blocks), 1)
        gw = harness.sim_gateway()
        try:
            env = dict(os.environ, TRADEAPI_URL=gw.url, PYTHONPATH=harness.CLIENT_DIR)
            env.pop("TRADEAPI_KEY", None)
            r = subprocess.run([sys.executable, "-c", blocks[0]], env=env, capture_output=True, text=True, timeout=60)
        finally:
            gw.stop()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout.splitlines()[-1], r"^\d+ positions, \d+ orders, equity -?\d+(\.\d+)?$")


if __name__ == "__main__":
    unittest.main()
