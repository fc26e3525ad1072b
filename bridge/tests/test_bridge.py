"""Real bridge processes on loopback, served by the MetaTrader5 module the harness picks."""
import socket
import subprocess
import sys
import time
import unittest

import numpy as np

import harness
from harness import Bridge, connect, wait_until
from tradeapi_bridge import frames
from tradeapi_bridge.client import RemoteError
from tradeapi_bridge.records import to_json

mt5 = harness.module()
T = harness.TICKS
LO, HI = int(T["time_msc"][0]), int(T["time_msc"][-1])


class StartUp(unittest.TestCase):
    def run_bridge(self, secret):
        p = subprocess.run([sys.executable, "-m", "tradeapi_bridge", "--listen", "127.0.0.1:0"],
                           env=harness.env(secret), cwd=harness.BRIDGE_DIR, capture_output=True, text=True, timeout=20)
        return p.returncode, p.stderr

    def test_refuses_to_start_without_secret(self):
        code, err = self.run_bridge(None)
        self.assertEqual(code, 2)
        self.assertIn("TRADEAPI_BRIDGE_SECRET is not set", err)

    def test_refuses_a_short_secret(self):
        code, err = self.run_bridge("short")
        self.assertEqual(code, 2)
        self.assertIn("too short", err)


class Served(unittest.TestCase):
    """One plain `python -m tradeapi_bridge`, small windows and chunks so paging really pages."""

    @classmethod
    def setUpClass(cls):
        cls.bridge = Bridge("--window-rows", "7", "--chunk-bytes", "600", hooked=False)
        cls.bridge.wait_event("terminal_connected")

    @classmethod
    def tearDownClass(cls):
        cls.bridge.stop()

    def client(self):
        c = connect(self.bridge)
        self.addCleanup(c.close)
        return c

    # -------------------------------------------------------------- handshake

    def test_handshake_and_status(self):
        st = self.client().call("bridge_status")
        self.assertEqual(st["terminal_connected"], True)
        self.assertEqual(st["reconnects"], 0)
        self.assertIn("since", st)

    def test_wrong_secret_refused_after_a_delay_and_never_logged(self):
        t0 = time.monotonic()
        with self.assertRaises(RemoteError) as cm:
            connect(self.bridge, secret="wrong-secret-but-long-enough")
        self.assertEqual((cm.exception.kind, cm.exception.code), ("auth_failed", -6))
        self.assertGreaterEqual(time.monotonic() - t0, 0.9)
        self.bridge.wait_event("auth_refused")
        log = self.bridge.log_text()
        for secret in (harness.SECRET, harness.PASSWORD, "wrong-secret-but-long-enough"):
            self.assertNotIn(secret, log)
        self.assertIn('"password":"<set>"', log)  # it was configured, only its value is hidden

    def raw(self):
        s = socket.create_connection(("127.0.0.1", self.bridge.port), timeout=10)
        self.addCleanup(s.close)
        self.assertEqual(frames.read_frame(s).type, frames.HELLO)
        return s

    def assert_dropped(self, s):
        try:
            while True:  # an ERROR may come first; then the close
                f = frames.read_frame(s)
                if f is None:
                    return
                self.assertEqual(f.type, frames.ERROR)
        except (ConnectionResetError, frames.ProtocolError):
            return

    def test_garbage_and_oversized_frames_drop_only_that_connection(self):
        good = self.client()
        s = self.raw()
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assert_dropped(s)
        s = self.raw()
        s.sendall(frames.HEADER.pack(b"TB", 1, frames.AUTH, 0, 0, 0, frames.MAX_PAYLOAD + 1))
        self.assert_dropped(s)
        # After authentication too: an oversized REQUEST and a REQUEST that is not JSON.
        for payload_header in (frames.HEADER.pack(b"TB", 1, frames.REQUEST, 0, 0, 9, 64 << 20),
                               frames.header(frames.REQUEST, 9, 3) + b"{{{"):
            c = connect(self.bridge)
            c.sock.sendall(payload_header)
            self.assert_dropped(c.sock)
            c.close()
        self.assertEqual(good.call("version"), to_json(mt5.version()))
        self.bridge.wait_event("connection_dropped", lambda e: "exceeds" in e["reason"])

    # -------------------------------------------------------------- records

    def test_records_answer_like_the_package(self):
        c = self.client()
        cases = [
            ("version", {}, lambda: mt5.version()),
            ("terminal_info", {}, lambda: mt5.terminal_info()),
            ("account_info", {}, lambda: mt5.account_info()),
            ("symbols_total", {}, lambda: mt5.symbols_total()),
            ("symbols_get", {}, lambda: mt5.symbols_get()),
            ("symbol_info", {"symbol": "EURUSD"}, lambda: mt5.symbol_info("EURUSD")),
            ("symbol_info_tick", {"symbol": "EURUSD"}, lambda: mt5.symbol_info_tick("EURUSD")),
            ("orders_total", {}, lambda: mt5.orders_total()),
            ("orders_get", {}, lambda: mt5.orders_get()),
            ("orders_get", {"symbol": "GBPUSD"}, lambda: mt5.orders_get(symbol="GBPUSD")),
            ("positions_total", {}, lambda: mt5.positions_total()),
            ("positions_get", {"ticket": 201}, lambda: mt5.positions_get(ticket=201)),
            ("history_orders_total", {"date_from": 0, "date_to": 1800000000}, lambda: mt5.history_orders_total(0, 1800000000)),
            ("history_orders_get", {"date_from": 0, "date_to": 1800000000}, lambda: mt5.history_orders_get(0, 1800000000)),
            ("history_deals_total", {"date_from": 0, "date_to": 1800000000}, lambda: mt5.history_deals_total(0, 1800000000)),
            ("history_deals_get", {"position": 202}, lambda: mt5.history_deals_get(position=202)),
            ("order_calc_margin", {"action": 0, "symbol": "EURUSD", "volume": 1.0, "price": 1.1},
             lambda: mt5.order_calc_margin(0, "EURUSD", 1.0, 1.1)),
            ("order_calc_profit", {"action": 1, "symbol": "EURUSD", "volume": 1.0, "price_open": 1.1, "price_close": 1.09},
             lambda: mt5.order_calc_profit(1, "EURUSD", 1.0, 1.1, 1.09)),
            ("order_check", {"request": {"action": 1, "symbol": "EURUSD", "volume": 0.1, "type": 0}},
             lambda: mt5.order_check({"action": 1, "symbol": "EURUSD", "volume": 0.1, "type": 0})),
        ]
        for op, args, direct in cases:
            with self.subTest(op=op, args=args):
                want = to_json(direct())
                self.assertIsNotNone(want)
                self.assertEqual(c.call(op, **args), want)
        # field names are the package's, in its order
        info = c.call("symbol_info", symbol="EURUSD")
        self.assertEqual(list(info), list(mt5.symbol_info("EURUSD")._fields))
        self.assertEqual(list(c.call("order_check", request={"action": 1})["request"]),
                         list(mt5.TradeRequest._fields) if hasattr(mt5, "TradeRequest") else [])

    def test_history_filters_narrow_like_the_simulator(self):
        c = self.client()
        self.assertEqual([d["ticket"] for d in c.call("history_deals_get", ticket=202)], [302])  # ORDER ticket
        self.assertEqual([o["ticket"] for o in c.call("history_orders_get", symbol="EURUSD")], [201])
        self.assertEqual(c.call("history_orders_get", ticket=201, symbol="GBPUSD"), [])
        self.assertEqual([o["ticket"] for o in c.call("orders_get", ticket=101, group="*,!EUR*")], [])

    def test_errors_are_typed(self):
        c = self.client()
        with self.assertRaises(RemoteError) as cm:
            c.call("symbol_info", symbol="NOPE")
        self.assertEqual((cm.exception.kind, cm.exception.code), ("not_found", -4))
        for op, args in (("symbol_info", {}), ("symbol_info", {"symbol": 5}), ("no_such_op", {}),
                         ("copy_ticks_from", {"symbol": "EURUSD", "date_from_msc": 0, "count": -1, "flags": -1}),
                         ("copy_rates_range", {"symbol": "EURUSD", "timeframe": 7, "date_from": 0, "date_to": 1}),
                         ("order_check", {"request": {"volume": "lots"}})):
            with self.subTest(op=op, args=args), self.assertRaises(RemoteError) as cm:
                c.call(op, **args)
            self.assertEqual((cm.exception.kind, cm.exception.code), ("invalid_params", -2))
        with self.assertRaises(RemoteError) as cm:
            c.call("market_book_get", symbol="GBPUSD")
        self.assertEqual(cm.exception.kind, "not_subscribed")
        self.assertEqual(c.call("version"), to_json(mt5.version()))  # the connection carries on

    def test_market_book(self):
        c = self.client()
        self.assertTrue(c.call("market_book_add", symbol="EURUSD"))
        self.assertEqual(c.call("market_book_get", symbol="EURUSD"), to_json(
            mt5.market_book_get("EURUSD") if mt5.market_book_add("EURUSD") else None))
        self.assertTrue(c.call("market_book_release", symbol="EURUSD"))
        with self.assertRaises(RemoteError) as cm:
            c.call("market_book_release", symbol="EURUSD")
        self.assertEqual(cm.exception.kind, "not_subscribed")

    # -------------------------------------------------------------- series

    def assert_same_array(self, got, want):
        dtype, arr = got
        self.assertEqual(dtype, want.dtype)
        self.assertEqual(len(arr), len(want))
        self.assertEqual(arr.tobytes(), want.tobytes())

    def test_series_bytes_equal_what_the_package_returned(self):
        c = self.client()
        s0 = int(mt5.copy_rates_from_pos("EURUSD", mt5.TIMEFRAME_M1, 0, 1)["time"][0])
        cases = [
            ("copy_ticks_range", dict(symbol="EURUSD", date_from_msc=LO, date_to_msc=HI, flags=-1),
             mt5.copy_ticks_range("EURUSD", LO // 1000, HI // 1000 + 1, -1)),
            ("copy_ticks_range", dict(symbol="EURUSD", date_from_msc=LO, date_to_msc=HI, flags=mt5.COPY_TICKS_INFO),
             mt5.copy_ticks_range("EURUSD", LO // 1000, HI // 1000 + 1, mt5.COPY_TICKS_INFO)),
            ("copy_ticks_from", dict(symbol="EURUSD", date_from_msc=LO, count=1234, flags=-1),
             mt5.copy_ticks_from("EURUSD", LO // 1000, 1234, -1)),
            ("copy_rates_from_pos", dict(symbol="EURUSD", timeframe=1, start_pos=0, count=500),
             mt5.copy_rates_from_pos("EURUSD", 1, 0, 500)),
            ("copy_rates_from", dict(symbol="EURUSD", timeframe=1, date_from=s0, count=100),
             mt5.copy_rates_from("EURUSD", 1, s0, 100)),
            ("copy_rates_range", dict(symbol="EURUSD", timeframe=1, date_from=0, date_to=2000000000),
             mt5.copy_rates_range("EURUSD", 1, 0, 2000000000)),
        ]
        for op, args, want in cases:
            with self.subTest(op=op, args=args):
                self.assertGreater(len(want), 50)
                self.assert_same_array(c.series(op, **args), want)

    def test_paging_gives_exactly_one_big_calls_rows_across_equal_stamps(self):
        c = self.client()
        for lo_i, hi_i in ((0, len(T) - 1), (998, 1045), (1001, 1001), (3, 17)):
            lo, hi = int(T["time_msc"][lo_i]), int(T["time_msc"][hi_i])
            want = T[(T["time_msc"] >= lo) & (T["time_msc"] <= hi)]
            with self.subTest(lo=lo_i, hi=hi_i):
                self.assert_same_array(c.series("copy_ticks_range", symbol="EURUSD", date_from_msc=lo,
                                                date_to_msc=hi, flags=-1), want)
        # chunks are whole rows and at most --chunk-bytes
        sizes = [len(f.payload) for f in c.series_frames("copy_ticks_range", symbol="EURUSD", date_from_msc=LO,
                                                         date_to_msc=HI, flags=-1) if f.type == frames.SERIES_CHUNK]
        self.assertTrue(sizes and all(0 < n <= 600 and n % 60 == 0 for n in sizes), sizes[:5])

    def test_empty_series_has_head_and_end(self):
        types = [f.type for f in self.client().series_frames(
            "copy_ticks_range", symbol="EURUSD", date_from_msc=HI + 1, date_to_msc=HI + 1000, flags=-1)]
        self.assertEqual(types, [frames.SERIES_HEAD, frames.SERIES_END])

    def test_cancel_ends_with_an_error_and_the_connection_carries_on(self):
        c = self.client()
        got = list(c.series_frames("copy_ticks_range", cancel_after_chunks=2, symbol="EURUSD",
                                   date_from_msc=LO, date_to_msc=HI, flags=-1))
        self.assertEqual(got[-1].type, frames.ERROR)
        self.assertEqual(frames.decode_json(got[-1])["kind"], "cancelled")
        self.assertNotIn(frames.SERIES_END, [f.type for f in got])
        self.assertEqual(c.call("version"), to_json(mt5.version()))

    def test_unknown_symbol_series_is_a_plain_error(self):
        got = list(self.client().series_frames("copy_ticks_range", symbol="NOPE", date_from_msc=LO,
                                               date_to_msc=HI, flags=-1))
        self.assertEqual([f.type for f in got], [frames.ERROR])


class DefaultSizes(unittest.TestCase):
    def test_large_chunks_go_out_from_the_arrays_own_buffer(self):
        b = Bridge(hooked=False)
        self.addCleanup(b.stop)
        b.wait_event("terminal_connected")
        c = connect(b)
        self.addCleanup(c.close)
        sizes = [len(f.payload) for f in c.series_frames("copy_ticks_range", symbol="EURUSD", date_from_msc=0,
                                                         date_to_msc=2 ** 62, flags=-1) if f.type == frames.SERIES_CHUNK]
        self.assertEqual(sizes, [len(T) * 60])  # > 64 KiB: the zero-copy send path
        dtype, arr = c.series("copy_ticks_range", symbol="EURUSD", date_from_msc=0, date_to_msc=2 ** 62, flags=-1)
        self.assertEqual(arr.tobytes(), T.tobytes())


class Faults(unittest.TestCase):
    """A hooked bridge: the tests change the terminal's behaviour through the module's hooks."""

    def setUp(self):
        self.bridge = Bridge("--window-rows", "50", "--chunk-bytes", "600", "--call-timeout", "0.5",
                             "--probe-interval", "0.2", "--reconnect-min", "0.1", "--reconnect-max", "0.4")
        self.addCleanup(self.bridge.stop)
        self.bridge.wait_event("terminal_connected")
        self.c = connect(self.bridge)
        self.addCleanup(self.c.close)

    def test_failure_midway_gives_an_error_frame_after_some_chunks(self):
        self.bridge.hook("_test_fail_call", "copy_ticks_from", 3, -1, "Terminal: Call failed")
        with self.assertRaises(RemoteError) as cm:
            self.c.series("copy_ticks_range", symbol="EURUSD", date_from_msc=LO, date_to_msc=HI, flags=-1)
        self.assertEqual((cm.exception.kind, cm.exception.code), ("call_failed", -1))
        self.assertGreaterEqual(cm.exception.rows_before, 150)  # three windows were sent first
        self.assertLess(cm.exception.rows_before, len(T))
        self.assertEqual(self.c.call("version"), to_json(mt5.version()))

    def test_terminal_loss_then_back_with_subscriptions(self):
        self.assertTrue(self.c.call("market_book_add", symbol="EURUSD"))
        self.bridge.hook("_test_fail_initialize", 3)
        self.bridge.hook("_test_drop_terminal")
        self.assertEqual(self.bridge.hook("_test_book_subscriptions"), [])
        with self.assertRaises(RemoteError) as cm:
            self.c.call("symbol_info", symbol="EURUSD")
        self.assertEqual(cm.exception.kind, "unavailable")
        st = wait_until(lambda: (lambda s: s if not s["terminal_connected"] else None)(self.c.call("bridge_status")))
        self.assertIsNotNone(st["last_error"])
        self.bridge.wait_event("initialize_failed")
        st = wait_until(lambda: (lambda s: s if s["terminal_connected"] else None)(self.c.call("bridge_status")))
        self.assertEqual(st["reconnects"], 1)
        self.assertEqual(self.bridge.hook("_test_book_subscriptions"), ["EURUSD"])
        self.assertEqual(self.c.call("symbol_info", symbol="EURUSD")["name"], "EURUSD")
        self.assertEqual(len(self.c.call("market_book_get", symbol="EURUSD")), 4)

    def test_slow_call_times_out_and_the_bridge_keeps_serving(self):
        self.bridge.hook("_test_set_delay", 1.5)
        t0 = time.monotonic()
        with self.assertRaises(RemoteError) as cm:
            self.c.call("version")
        self.assertEqual((cm.exception.kind, cm.exception.code), ("timeout", -10005))
        self.assertLess(time.monotonic() - t0, 1.2)
        other = connect(self.bridge)
        self.addCleanup(other.close)
        t0 = time.monotonic()
        self.assertTrue(other.call("bridge_status")["terminal_connected"])  # slow is not lost
        self.assertLess(time.monotonic() - t0, 0.3)
        self.bridge.hook("_test_set_delay", 0)
        self.assertEqual(wait_until(lambda: self._try_version(), timeout=10), to_json(mt5.version()))

    def _try_version(self):
        try:
            return self.c.call("version")
        except RemoteError:
            return None


if __name__ == "__main__":
    unittest.main()
