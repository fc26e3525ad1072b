"""Units: the constants and record shapes against the MetaTrader5 stand-in (whose constants come
from the real wheel), the clock's conversions, and 429 answers retried after their Retry-After."""
import http.server
import json
import threading
import time
import unittest

import harness
import tradeapi_client.mt5 as mt5
from tradeapi_client import _constants
from tradeapi_client._time import Clock

ref = harness.reference_module()


class Shapes(unittest.TestCase):
    def test_every_constant(self):
        names = [n for n in dir(ref) if n.isupper() and not n.startswith("_") and not n.endswith("_DTYPE")]
        self.assertGreater(len(names), 200)
        for n in names:
            self.assertEqual(getattr(mt5, n), getattr(ref, n), n)
        self.assertEqual(set(_constants.NAMES), set(names))
        self.assertEqual(mt5.__version__, ref.__version__)

    def test_records(self):
        for name in ("AccountInfo", "TerminalInfo", "SymbolInfo", "Tick", "BookInfo", "TradeOrder", "TradePosition",
                     "TradeDeal", "TradeRequest", "OrderCheckResult", "OrderSendResult"):
            mine, theirs = getattr(mt5, name), getattr(ref, name)
            self.assertEqual(mine.__match_args__, theirs.__match_args__, name)
            r = mine(range(mine.n_fields))
            self.assertEqual(list(r._asdict()), list(theirs.__match_args__))
            self.assertFalse(hasattr(r, "_fields") or hasattr(r, "_replace"))

    def test_functions(self):
        for name in mt5.FUNCTIONS:
            self.assertTrue(callable(getattr(mt5, name)), name)
            self.assertTrue(callable(getattr(ref, name)), name)


class Clocks(unittest.TestCase):
    # EU+2: +2 h, +3 h from 2024-03-31 01:00Z to 2024-10-27 01:00Z
    table = [[0, 7200], [1711846800, 10800], [1729990800, 7200]]

    def test_out_and_back(self):
        c = Clock(self.table)
        for utc in (1711846799, 1711846800, 1729990799, 1729994400, 1700000000):
            server = c.out(utc, 1000)
            self.assertEqual(c.arg(server), utc)
            self.assertEqual(c.out(utc * 1000 + 5, 1), server * 1000 + 5)
        self.assertEqual(c.out(0, 1000), 0)
        import numpy as np
        col = np.array([0, 1711846799, 1711846800], np.int64)
        c.out_column(col, 1000)
        self.assertEqual(col.tolist(), [0, 1711846799 + 7200, 1711846800 + 10800])
        # The hour repeated in October: a server stamp in it is read as the earlier instant.
        self.assertEqual(c.arg(1729990800 + 7200 + 1800), 1729990800 - 1800)

    def test_inactive(self):
        self.assertEqual(Clock([]).out(5, 1000), 5)
        self.assertEqual(Clock(self.table, to_server=False).out(5, 1000), 5)


class Busy(unittest.TestCase):
    def test_429_is_retried_within_the_timeout(self):
        hits = []

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                hits.append(time.monotonic())
                if self.path.endswith("/server-time"):
                    self.answer(200, {"utc": True, "zone": "UTC", "transitions": []})
                elif len(hits) < 4:
                    self.answer(429, {"type": "/errors/rate-limit-exceeded", "status": 429, "detail": "slow down"},
                                {"Retry-After": "0"})
                else:
                    self.answer(200, {"total": 7})

            def answer(self, status, body, headers=None):
                raw = json.dumps(body).encode()
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *a):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            self.assertTrue(mt5.initialize(url="http://127.0.0.1:%d/api/v1" % server.server_port, timeout=5000))
            self.assertEqual(mt5.symbols_total(), 7)
            self.assertEqual(len(hits), 4)
        finally:
            mt5.shutdown()
            server.shutdown()
            server.server_close()


if __name__ == "__main__":
    unittest.main()
