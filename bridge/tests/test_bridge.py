"""Real bridge processes on loopback, served by the MetaTrader5 stand-in (or the module
TRADEAPI_TEST_MT5_DIR names). Every expected answer is a direct call on the same module in this
process, in the same seeded state as the bridge's (harness.module()); tickets and symbols are
discovered from its account and symbols, never assumed."""
import socket
import subprocess
import sys
import threading
import time
import unittest

import numpy as np

import harness
from harness import Bridge, connect, wait_until
from tradeapi_bridge import columns, frames
from tradeapi_bridge.client import RemoteError
from tradeapi_bridge.records import to_json

mt5 = harness.module()
T = harness.TICKS  # the ticks of harness.TICK_SYMBOL, with long runs of equal time_msc
LO, HI = int(T["time_msc"][0]), int(T["time_msc"][-1])
TS = harness.TICK_SYMBOL
FAR = 2000000000  # past every date of the account's history (seconds)
SYMBOLS = mt5.symbols_get()
# Bars aggregated from the stand-in's generated ticks (TS's few seconds of ticks make ~1 bar).
RS = next(s.name for s in SYMBOLS if s.select and s.name not in harness.TICK_FILES)
HIDDEN = next(s.name for s in SYMBOLS if not s.select)  # not in Market Watch


def fresh():
    """The reference module back in the bridges' start state (other tests may have changed it)."""
    return harness.module()


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
        fresh()
        cls.bridge = Bridge("--window-rows", "7", "--window-bars", "100", "--chunk-bytes", "600", hooked=False)
        cls.addClassCleanup(cls.bridge.stop)
        cls.bridge.wait_event("terminal_connected")

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

    def test_protocol_mismatch_names_both_versions(self):
        # Version skew (issue 22 item 11): a gateway of another protocol version is told which one
        # this bridge speaks, and the bridge's log names both, at the handshake.
        s, hello = self.raw_hello()
        # A gateway of protocol 1 (rows) would close at HELLO's protocol 2; one that sent AUTH anyway:
        self.assertEqual((hello["protocol"], hello["bridge"]), (2, "0.2.0"))
        frames.send_json(s, frames.AUTH, 0, {"protocol": 1, "nonce": "00" * 32, "mac": "00" * 32})
        f = frames.read_frame(s)
        self.assertEqual(f.type, frames.ERROR)
        body = frames.decode_json(f)
        self.assertEqual((body["kind"], body["code"]), ("protocol", -5))
        self.assertIn("protocol 1 not supported; this bridge speaks 2", body["message"])
        e = self.bridge.wait_event("auth_refused", lambda e: e.get("reason") == "protocol version")
        self.assertEqual((e.get("client_protocol"), e.get("bridge_protocol")), (1, 2))

    def test_compression_is_offered_and_chosen_at_the_handshake(self):
        self.assertEqual(self.raw_hello()[1]["compression"], ["zstd", "none"])
        for choice in ("zstd", "none"):
            c = harness.connect(self.bridge, compression=choice)
            self.addCleanup(c.close)
            self.assertEqual(c.compression, choice)
            dtype, arr = c.series("copy_ticks_range", symbol=TS, date_from_msc=LO, date_to_msc=HI, flags=-1)
            self.assertEqual(arr.tobytes(), T.tobytes())
            self.bridge.wait_event("client_authenticated", lambda e: e.get("compression") == choice)
        # The bridge's log counts the bytes of every frame of a series, as the client received them.
        c = harness.connect(self.bridge, compression="zstd")
        self.addCleanup(c.close)
        mark = len(self.bridge.events)
        got = list(c.series_frames("copy_ticks_range", window=4, symbol=TS, date_from_msc=LO, date_to_msc=HI, flags=-1))
        # This connection's: the loop's last series may be logged after the mark (its client had
        # read it all before the bridge wrote the line).
        peer = "%s:%s" % c.sock.getsockname()[:2]
        e = self.bridge.wait_event("series_sent", lambda e: e.get("peer") == peer, start=mark)
        self.assertEqual(e["bytes"], sum(frames.HEADER_SIZE + len(f.payload) for f in got))
        self.assertEqual((e["rows"], e["compression"]), (len(T), "zstd"))
        self.assertGreaterEqual(e["package_cpu_ms"], 0)
        # One the bridge did not offer: refused at the handshake, naming what it offers.
        s = self.raw()
        frames.send_json(s, frames.AUTH, 0, {"protocol": 2, "nonce": "00" * 32, "mac": "00" * 32, "compression": "lz4"})
        body = frames.decode_json(frames.read_frame(s))
        self.assertEqual((body["kind"], body["code"]), ("protocol", -5))
        self.assertIn("'lz4' not offered; this bridge offers zstd, none", body["message"])

    def raw(self):
        return self.raw_hello()[0]

    def raw_hello(self):
        s = socket.create_connection(("127.0.0.1", self.bridge.port), timeout=10)
        self.addCleanup(s.close)
        hello = frames.read_frame(s)
        self.assertEqual(hello.type, frames.HELLO)
        return s, frames.decode_json(hello)

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
        position = mt5.positions_get()[0]
        order = mt5.orders_get()[0]
        deals = mt5.history_deals_get(0, FAR)
        position_ids = [d.position_id for d in deals if d.position_id]
        closed = max(set(position_ids), key=position_ids.count)  # the position with most deals
        cases = [
            ("version", {}, lambda: mt5.version()),
            ("terminal_info", {}, lambda: mt5.terminal_info()),
            ("account_info", {}, lambda: mt5.account_info()),
            ("symbols_total", {}, lambda: mt5.symbols_total()),
            ("symbols_get", {}, lambda: mt5.symbols_get()),
            ("symbols_get", {"group": "*,!%s" % TS}, lambda: mt5.symbols_get(group="*,!%s" % TS)),
            ("symbol_info", {"symbol": TS}, lambda: mt5.symbol_info(TS)),
            ("symbol_info", {"symbol": RS}, lambda: mt5.symbol_info(RS)),
            ("symbol_info_tick", {"symbol": TS}, lambda: mt5.symbol_info_tick(TS)),
            ("symbol_info_tick", {"symbol": RS}, lambda: mt5.symbol_info_tick(RS)),
            ("orders_total", {}, lambda: mt5.orders_total()),
            ("orders_get", {}, lambda: mt5.orders_get()),
            ("orders_get", {"symbol": order.symbol}, lambda: mt5.orders_get(symbol=order.symbol)),
            ("positions_total", {}, lambda: mt5.positions_total()),
            ("positions_get", {}, lambda: mt5.positions_get()),
            ("positions_get", {"ticket": position.ticket}, lambda: mt5.positions_get(ticket=position.ticket)),
            ("history_orders_total", {"date_from": 0, "date_to": 1800000000}, lambda: mt5.history_orders_total(0, 1800000000)),
            ("history_orders_get", {"date_from": 0, "date_to": 1800000000}, lambda: mt5.history_orders_get(0, 1800000000)),
            ("history_deals_total", {"date_from": 0, "date_to": 1800000000}, lambda: mt5.history_deals_total(0, 1800000000)),
            ("history_deals_get", {"position": closed}, lambda: mt5.history_deals_get(position=closed)),
            ("history_orders_get", {"position": closed}, lambda: mt5.history_orders_get(position=closed)),
            ("order_calc_margin", {"action": 0, "symbol": TS, "volume": 1.0, "price": 1.1},
             lambda: mt5.order_calc_margin(0, TS, 1.0, 1.1)),
            ("order_calc_profit", {"action": 1, "symbol": TS, "volume": 1.0, "price_open": 1.1, "price_close": 1.09},
             lambda: mt5.order_calc_profit(1, TS, 1.0, 1.1, 1.09)),
            ("order_check", {"request": {"action": 1, "symbol": TS, "volume": 0.1, "type": 0}},
             lambda: mt5.order_check({"action": 1, "symbol": TS, "volume": 0.1, "type": 0})),
        ]
        for op, args, direct in cases:
            with self.subTest(op=op, args=args):
                want = to_json(direct())
                self.assertIsNotNone(want)
                self.assertEqual(c.call(op, **args), want)
        self.assertGreater(len(c.call("history_deals_get", position=closed)), 1)
        # field names are the package's, in its order (records are struct sequences: _asdict())
        info = c.call("symbol_info", symbol=TS)
        self.assertEqual(list(info), list(mt5.symbol_info(TS)._asdict()))
        self.assertEqual(list(c.call("order_check", request={"action": 1})["request"]),
                         list(mt5.order_check({"action": 1}).request._asdict()))

    def test_symbol_info_tick_outside_market_watch_is_not_selected(self):
        c = self.client()
        self.assertFalse(mt5.symbol_info(HIDDEN).select)
        self.assertIsNone(mt5.symbol_info_tick(HIDDEN))
        code, message = mt5.last_error()
        self.assertEqual(code, -1)
        with self.assertRaises(RemoteError) as cm:
            c.call("symbol_info_tick", symbol=HIDDEN)
        # The package's own code and message; the kind says why (the gateway's 409).
        self.assertEqual((cm.exception.kind, cm.exception.code, str(cm.exception.message)),
                         ("not_selected", code, message))
        # last_error() is the tick's failure, not the symbol_info() the bridge asked to explain it
        self.assertEqual(tuple(c.call("last_error")), (code, message))
        # an unknown symbol stays not_found
        with self.assertRaises(RemoteError) as cm:
            c.call("symbol_info_tick", symbol="NOPE")
        self.assertEqual((cm.exception.kind, cm.exception.code), ("not_found", -4))
        self.assertEqual(c.call("last_error")[0], -4)
        # shown: the tick answers; hidden again: refused again
        try:
            self.assertTrue(c.call("symbol_select", symbol=HIDDEN, enable=True))
            self.assertTrue(mt5.symbol_select(HIDDEN, True))
            self.assertEqual(c.call("symbol_info_tick", symbol=HIDDEN), to_json(mt5.symbol_info_tick(HIDDEN)))
        finally:  # both back in the start state the other tests expect
            self.assertTrue(c.call("symbol_select", symbol=HIDDEN, enable=False))
            self.assertTrue(mt5.symbol_select(HIDDEN, False))
        with self.assertRaises(RemoteError) as cm:
            c.call("symbol_info_tick", symbol=HIDDEN)
        self.assertEqual(cm.exception.kind, "not_selected")

    def test_history_filters_narrow_like_the_simulator(self):
        c = self.client()
        deals, orders = mt5.history_deals_get(0, FAR), mt5.history_orders_get(0, FAR)
        # a deal's `ticket` filter is its ORDER ticket (the deal's own ticket differs)
        deal = next(d for d in deals if d.order and d.order != d.ticket)
        want = [d.ticket for d in deals if d.order == deal.order]
        self.assertNotIn(deal.order, want)
        self.assertEqual([d["ticket"] for d in c.call("history_deals_get", ticket=deal.order)], want)
        # symbol narrows the whole history; ticket + another symbol gives nothing
        symbol = mt5.positions_get()[0].symbol
        want = [o.ticket for o in orders if o.symbol == symbol]
        self.assertTrue(0 < len(want) < len(orders))
        self.assertEqual([o["ticket"] for o in c.call("history_orders_get", symbol=symbol)], want)
        other = next(o for o in orders if o.symbol != symbol)
        self.assertEqual(c.call("history_orders_get", ticket=other.ticket, symbol=symbol), [])
        self.assertEqual([o["ticket"] for o in c.call("history_orders_get", ticket=other.ticket)], [other.ticket])
        # a ticket or position with no records: the package fails with -4, the op answers []
        missing = max([o.ticket for o in orders] + [d.ticket for d in deals]) + 1000
        for op, get in (("history_orders_get", mt5.history_orders_get), ("history_deals_get", mt5.history_deals_get)):
            for key in ("ticket", "position"):
                with self.subTest(op=op, key=key):
                    self.assertIsNone(get(**{key: missing}))
                    self.assertEqual(mt5.last_error()[0], -4)
                    self.assertEqual(c.call(op, **{key: missing}), [])
        # group narrows a ticket
        order = mt5.orders_get()[0]
        self.assertEqual([o["ticket"] for o in c.call("orders_get", ticket=order.ticket, group="*,!%s" % order.symbol)], [])
        self.assertEqual([o["ticket"] for o in c.call("orders_get", ticket=order.ticket, group="*")], [order.ticket])

    def test_errors_are_typed(self):
        c = self.client()
        with self.assertRaises(RemoteError) as cm:
            c.call("symbol_info", symbol="NOPE")
        self.assertEqual((cm.exception.kind, cm.exception.code), ("not_found", -4))
        for op, args in (("symbol_info", {}), ("symbol_info", {"symbol": 5}), ("no_such_op", {}),
                         ("copy_ticks_from", {"symbol": TS, "date_from_msc": 0, "count": -1, "flags": -1}),
                         ("copy_rates_range", {"symbol": TS, "timeframe": 7, "date_from": 0, "date_to": 1}),
                         ("order_check", {"request": {"volume": "lots"}})):
            with self.subTest(op=op, args=args), self.assertRaises(RemoteError) as cm:
                c.call(op, **args)
            self.assertEqual((cm.exception.kind, cm.exception.code), ("invalid_params", -2))
        with self.assertRaises(RemoteError) as cm:
            c.call("market_book_get", symbol=RS)  # never subscribed
        self.assertEqual(cm.exception.kind, "not_subscribed")
        self.assertEqual(c.call("version"), to_json(mt5.version()))  # the connection carries on

    def test_market_book(self):
        c = self.client()
        self.assertTrue(c.call("market_book_add", symbol=TS))
        want = to_json(mt5.market_book_get(TS) if mt5.market_book_add(TS) else None)
        self.assertTrue(want)
        self.assertEqual(c.call("market_book_get", symbol=TS), want)
        self.assertTrue(c.call("market_book_release", symbol=TS))
        with self.assertRaises(RemoteError) as cm:
            c.call("market_book_release", symbol=TS)
        self.assertEqual(cm.exception.kind, "not_subscribed")

    # -------------------------------------------------------------- series

    def assert_same_array(self, got, want):
        dtype, arr = got
        self.assertEqual(dtype, want.dtype)
        self.assertEqual(len(arr), len(want))
        self.assertEqual(arr.tobytes(), want.tobytes())

    def test_series_bytes_equal_what_the_package_returned(self):
        c = self.client()
        s0 = int(mt5.copy_rates_from_pos(RS, mt5.TIMEFRAME_M1, 0, 1)["time"][0])
        h1 = mt5.TIMEFRAME_H1
        self.assertEqual(LO % 1000, 0)  # whole seconds: the package's own calls below see the same range
        cases = [
            ("copy_ticks_range", dict(symbol=TS, date_from_msc=LO, date_to_msc=HI, flags=-1),
             mt5.copy_ticks_range(TS, LO // 1000, HI // 1000 + 1, -1)),
            ("copy_ticks_range", dict(symbol=TS, date_from_msc=LO, date_to_msc=HI, flags=mt5.COPY_TICKS_INFO),
             mt5.copy_ticks_range(TS, LO // 1000, HI // 1000 + 1, mt5.COPY_TICKS_INFO)),
            ("copy_ticks_from", dict(symbol=TS, date_from_msc=LO, count=1234, flags=-1),
             mt5.copy_ticks_from(TS, LO // 1000, 1234, -1)),
            # ten minutes of generated ticks: random stamps, many windows
            ("copy_ticks_range", dict(symbol=RS, date_from_msc=(s0 - 600) * 1000, date_to_msc=s0 * 1000, flags=-1),
             mt5.copy_ticks_range(RS, s0 - 600, s0, -1)),
            ("copy_rates_from_pos", dict(symbol=RS, timeframe=1, start_pos=0, count=500),
             mt5.copy_rates_from_pos(RS, 1, 0, 500)),
            ("copy_rates_from", dict(symbol=RS, timeframe=1, date_from=s0, count=100),
             mt5.copy_rates_from(RS, 1, s0, 100)),
            # --window-bars 100: pages of 100 minutes / 100 hours
            ("copy_rates_range", dict(symbol=RS, timeframe=1, date_from=s0 - 6 * 3600, date_to=s0),
             mt5.copy_rates_range(RS, 1, s0 - 6 * 3600, s0)),
            ("copy_rates_range", dict(symbol=RS, timeframe=h1, date_from=s0 - 20 * 86400, date_to=s0),
             mt5.copy_rates_range(RS, h1, s0 - 20 * 86400, s0)),
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
                self.assert_same_array(c.series("copy_ticks_range", symbol=TS, date_from_msc=lo,
                                                date_to_msc=hi, flags=-1), want)
        # chunks hold at most --chunk-bytes of the package's rows (600 bytes: 10 ticks), as columns
        rows = [columns.CHUNK_HEAD.unpack_from(f.payload)[0]
                for f in c.series_frames("copy_ticks_range", symbol=TS, date_from_msc=LO, date_to_msc=HI, flags=-1)
                if f.type == frames.SERIES_CHUNK]
        self.assertTrue(rows and all(0 < n <= 10 for n in rows), rows[:5])
        self.assertEqual(sum(rows), len(T))

    def test_empty_series_has_head_and_end(self):
        types = [f.type for f in self.client().series_frames(
            "copy_ticks_range", symbol=TS, date_from_msc=HI + 1, date_to_msc=HI + 1000, flags=-1)]
        self.assertEqual(types, [frames.SERIES_HEAD, frames.SERIES_END])

    def test_cancel_ends_with_an_error_and_the_connection_carries_on(self):
        c = self.client()
        got = list(c.series_frames("copy_ticks_range", cancel_after_chunks=2, symbol=TS,
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
    def test_default_chunks_hold_a_whole_window(self):
        self.assertEqual(fresh().copy_ticks_range(TS, 0, FAR, -1).tobytes(), T.tobytes())
        b = Bridge(hooked=False)
        self.addCleanup(b.stop)
        b.wait_event("terminal_connected")
        for choice in ("none", "zstd"):
            c = connect(b, compression=choice)
            self.addCleanup(c.close)
            heads = [columns.CHUNK_HEAD.unpack_from(f.payload)
                     for f in c.series_frames("copy_ticks_range", symbol=TS, date_from_msc=0, date_to_msc=2 ** 62, flags=-1)
                     if f.type == frames.SERIES_CHUNK]
            self.assertEqual([h[0] for h in heads], [len(T)])  # 4000 rows: under 1 MiB of rows, one chunk
            self.assertEqual(heads[0][1], columns.CODEC_ZSTD if choice == "zstd" else columns.CODEC_NONE)
            dtype, arr = c.series("copy_ticks_range", symbol=TS, date_from_msc=0, date_to_msc=2 ** 62, flags=-1)
            self.assertEqual(arr.tobytes(), T.tobytes())


class Faults(unittest.TestCase):
    """A hooked bridge: the tests change the terminal's behaviour through the module's hooks."""

    def setUp(self):
        fresh()
        self.bridge = Bridge("--window-rows", "50", "--chunk-bytes", "600", "--call-timeout", "0.5",
                             "--probe-interval", "0.2", "--reconnect-min", "0.1", "--reconnect-max", "0.4")
        self.addCleanup(self.bridge.stop)
        self.bridge.wait_event("terminal_connected")
        self.c = connect(self.bridge)
        self.addCleanup(self.c.close)

    def test_failure_midway_gives_an_error_frame_after_some_chunks(self):
        self.bridge.hook("_fail_next", "copy_ticks_from", -1, "Terminal: Call failed", 3)  # the 4th call fails
        with self.assertRaises(RemoteError) as cm:
            self.c.series("copy_ticks_range", symbol=TS, date_from_msc=LO, date_to_msc=HI, flags=-1)
        self.assertEqual((cm.exception.kind, cm.exception.code), ("call_failed", -1))
        self.assertGreaterEqual(cm.exception.rows_before, 150)  # three windows were sent first
        self.assertLess(cm.exception.rows_before, len(T))
        self.assertEqual(self.c.call("version"), to_json(mt5.version()))

    def test_terminal_loss_then_back_with_subscriptions(self):
        self.assertTrue(self.c.call("market_book_add", symbol=TS))
        self.assertEqual(self.bridge.hook("_book_subscriptions"), [TS])
        mark = len(self.bridge.events)
        self.bridge.hook("_lose_terminal", -10001)  # initialize() fails (-10003) until it is back
        self.assertEqual(self.bridge.hook("_book_subscriptions"), [])
        with self.assertRaises(RemoteError) as cm:
            self.c.call("symbol_info", symbol=TS)
        self.assertEqual(cm.exception.kind, "unavailable")
        st = wait_until(lambda: (lambda s: s if not s["terminal_connected"] else None)(self.c.call("bridge_status")))
        self.assertIsNotNone(st["last_error"])
        # it keeps retrying with backoff while the terminal stays away
        first = self.bridge.wait_event("initialize_failed", start=mark)
        self.assertEqual(first["code"], -10003)
        self.bridge.wait_event("initialize_failed", start=self.bridge.events.index(first) + 1)
        self.assertFalse(self.c.call("bridge_status")["terminal_connected"])
        self.bridge.hook("_restore_terminal")  # a restarted terminal: no depth subscriptions
        st = wait_until(lambda: (lambda s: s if s["terminal_connected"] else None)(self.c.call("bridge_status")))
        self.assertEqual(st["reconnects"], 1)
        self.assertEqual(self.bridge.hook("_book_subscriptions"), [TS])  # re-added by the bridge
        self.assertEqual(self.c.call("symbol_info", symbol=TS), to_json(fresh().symbol_info(TS)))
        self.assertTrue(mt5.market_book_add(TS))
        self.assertEqual(self.c.call("market_book_get", symbol=TS), to_json(mt5.market_book_get(TS)))

    def test_last_error_is_the_clients_not_the_liveness_probes(self):
        with self.assertRaises(RemoteError):
            self.c.call("symbol_info", symbol="NO_SUCH_SYMBOL")
        failed = self.c.call("last_error")
        self.assertNotEqual(failed[0], 1, failed)
        # Probes run every 0.2 s here; each one calls terminal_info(), which resets the package's
        # own last_error() to (1, "Success").
        mark = len(self.bridge.hook("_calls"))
        wait_until(lambda: [c[0] for c in self.bridge.hook("_calls")[mark:]].count("terminal_info") >= 2 or None)
        self.assertEqual(self.c.call("last_error"), failed)
        self.c.call("version")
        self.assertEqual(self.c.call("last_error")[0], 1)

    def test_package_calls_are_positional_integer_dated_and_one_per_window(self):
        self.bridge.hook("_calls", True)
        got = self.c.series("copy_ticks_range", symbol=TS, date_from_msc=LO, date_to_msc=HI, flags=-1)[1]
        self.assertEqual(got.tobytes(), T.tobytes())
        calls = [c for c in self.bridge.hook("_calls", True) if c[0] == "copy_ticks_from"]
        for name, args, kwargs in calls:
            self.assertEqual(kwargs, {})
            self.assertEqual(len(args), 4)
            self.assertIs(type(args[1]), int, args)  # integer seconds, never a datetime
            self.assertLessEqual(args[2], 50 + 430 + 40)  # window + lead (a second of rows) + edge
        # --window-rows 50: one call per window, one more that finds the end (LO is a whole second)
        self.assertEqual(len(calls), -(-len(T) // 50) + 1)

    def test_rates_windows_stay_below_the_terminals_maxbars(self):
        s0 = int(mt5.copy_rates_from_pos(RS, mt5.TIMEFRAME_M1, 0, 1)["time"][0])
        want = mt5.copy_rates_range(RS, mt5.TIMEFRAME_M1, s0 - 6 * 3600, s0)  # maxbars 100000 here
        self.assertGreater(len(want), 300)
        mark = len(self.bridge.events)
        self.bridge.hook("_configure", maxbars=150)  # a restarted terminal with a small maxbars
        self.bridge.wait_event("terminal_connected", start=mark)
        self.c.call("version")
        _, got = self.c.series("copy_rates_range", symbol=RS, timeframe=mt5.TIMEFRAME_M1,
                               date_from=s0 - 6 * 3600, date_to=s0)  # --window-bars is 50 000
        self.assertEqual(got.tobytes(), want.tobytes())
        calls = [c for c in self.bridge.hook("_calls") if c[0] == "copy_rates_range"]
        self.assertGreaterEqual(len(calls), 3)

    def test_slow_call_times_out_and_the_bridge_keeps_serving(self):
        self.bridge.hook("_set_delay", 1.5)
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
        self.bridge.hook("_set_delay", 0)
        self.assertEqual(wait_until(lambda: self._try_version(), timeout=10), to_json(mt5.version()))

    def test_request_timeout_ms_bounds_the_wait_and_a_call_given_up_is_never_run(self):
        self.bridge.hook("_set_delay", 0.4)
        self.bridge.hook("_calls", True)  # clear
        slow = connect(self.bridge)
        self.addCleanup(slow.close)
        slow.timeout_ms = 450  # below --call-timeout 0.5: the bridge's own limit still applies above
        done = []
        runner = threading.Thread(target=lambda: done.append(slow.call("version")))
        runner.start()
        time.sleep(0.1)  # version now holds the worker
        self.c.timeout_ms = 100
        t0 = time.monotonic()
        with self.assertRaises(RemoteError) as cm:
            self.c.call("account_info")
        self.assertEqual((cm.exception.kind, cm.exception.code), ("timeout", -10005))
        self.assertLess(time.monotonic() - t0, 0.4)  # its own 100 ms, not the bridge's 500 ms
        runner.join(5)
        self.assertEqual(done, [to_json(mt5.version())])
        self.bridge.hook("_set_delay", 0)
        time.sleep(0.3)
        called = [c[0] for c in self.bridge.hook("_calls")]
        self.assertIn("version", called)
        self.assertNotIn("account_info", called)  # its client had given up before the worker got to it
        for bad in (0, -1, True, 1.5, "100", 3600001):
            self.c.timeout_ms = bad
            with self.assertRaises(RemoteError) as cm:
                self.c.call("version")
            self.assertEqual(cm.exception.kind, "invalid_params", bad)
        self.c.timeout_ms = None
        self.assertEqual(self.c.call("version"), to_json(mt5.version()))

    def _try_version(self):
        try:
            return self.c.call("version")
        except RemoteError:
            return None


if __name__ == "__main__":
    unittest.main()
