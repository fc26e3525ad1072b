"""Parity: every function through tradeapi_client.mt5 (client -> gateway -> bridge -> stand-in) and
directly on the MetaTrader5 stand-in, with the same arguments, valid and invalid: equal values,
equal types and dtypes, equal last_error() codes — with the broker's clock at UTC, and at UTC+2/+3
(EU dates) with the gateway converting to true UTC (TRADEAPI_SERVER_TZ) and the client converting back.

By design (README, "From Python"): order_send (None, -7), initialize/login/shutdown (a connection
to the gateway, not to a terminal)."""
import unittest
from datetime import datetime, timezone

import numpy as np

import harness
import tradeapi_client.mt5 as client

UTC = timezone.utc


def same(tc, a, b, what):
    """a (client) equals b (stand-in): values, types, dtypes, record names and fields."""
    if isinstance(b, np.ndarray):
        tc.assertIsInstance(a, np.ndarray, what)
        tc.assertEqual(a.dtype, b.dtype, what + ": dtype")
        tc.assertEqual(a.dtype.descr, b.dtype.descr, what + ": dtype layout")
        tc.assertEqual(len(a), len(b), what + ": rows")
        tc.assertEqual(a.tobytes(), b.tobytes(), what + ": values")
        return
    if isinstance(b, tuple) and hasattr(b, "_asdict"):
        tc.assertEqual(type(a).__name__, type(b).__name__, what + ": record type")
        tc.assertEqual(list(a._asdict()), list(b._asdict()), what + ": fields")
        for (name, x), y in zip(a._asdict().items(), b):
            same(tc, x, y, "%s.%s" % (what, name))
        return
    tc.assertIs(type(a), type(b), "%s: type %s vs %s (%r vs %r)" % (what, type(a).__name__, type(b).__name__, a, b))
    if isinstance(b, tuple):
        tc.assertEqual(len(a), len(b), what + ": length")
        for i, (x, y) in enumerate(zip(a, b)):
            same(tc, x, y, "%s[%d]" % (what, i))
        return
    tc.assertEqual(a, b, what)


def D(*parts):
    return datetime(*parts, tzinfo=UTC)


# (function, args, kwargs): run in this order on both sides (state such as Market Watch and depth
# subscriptions carries from one call to the next, alike on both).
CALLS = [
    ("version", (), {}),
    ("terminal_info", (), {}),
    ("account_info", (), {}),
    ("symbols_total", (), {}),
    ("symbols_get", (), {}),
    ("symbols_get", (), {"group": "*USD*"}),
    ("symbols_get", (), {"group": "*,!EUR*"}),
    ("symbols_get", ("EURUSD",), {}),
    ("symbol_info", ("EURUSD",), {}),
    ("symbol_info", ("XAUUSD",), {}),
    ("symbol_info", ("NOPE",), {}),
    ("symbol_info", (42,), {}),
    ("symbol_info_tick", ("EURUSD",), {}),
    ("symbol_info_tick", ("USDJPY",), {}),
    ("symbol_info_tick", ("NOPE",), {}),
    ("symbol_select", ("USDJPY", True), {}),
    ("symbol_info_tick", ("USDJPY",), {}),
    ("symbol_select", ("EURUSD", False), {}),
    ("symbol_select", ("NOPE", True), {}),
    ("symbol_select", ("AAPL",), {}),
    ("market_book_get", ("EURUSD",), {}),
    ("market_book_add", ("EURUSD",), {}),
    ("market_book_get", ("EURUSD",), {}),
    ("market_book_release", ("EURUSD",), {}),
    ("market_book_release", ("EURUSD",), {}),
    ("market_book_add", ("NOPE",), {}),
    ("copy_rates_from", ("GBPUSD", 16385, D(2024, 12, 18, 12), 10), {}),
    ("copy_rates_from", ("GBPUSD", 16385, 1734523200, 10), {}),
    ("copy_rates_from", ("GBPUSD", 16385, datetime(2024, 12, 18, 12), 10), {}),
    ("copy_rates_from", ("EURUSD", 1, D(2024, 1, 2, 10, 30), 5), {}),
    ("copy_rates_from", ("NOPE", 16385, D(2024, 12, 18), 10), {}),
    ("copy_rates_from", ("GBPUSD", 16385, D(2024, 12, 18), 0), {}),
    ("copy_rates_from", ("GBPUSD", 7, D(2024, 12, 18), 10), {}),
    ("copy_rates_from", ("GBPUSD", 16385, "yesterday", 10), {}),
    ("copy_rates_from_pos", ("GBPUSD", 5, 0, 100), {}),
    ("copy_rates_from_pos", ("XAUUSD", 16408, 3, 20), {}),
    ("copy_rates_from_pos", ("GBPUSD", 5, -1, 100), {}),
    ("copy_rates_range", ("GBPUSD", 15, D(2024, 12, 16), D(2024, 12, 18)), {}),
    ("copy_rates_range", ("AAPL", 16385, D(2024, 12, 16), D(2024, 12, 20)), {}),
    ("copy_rates_range", ("GBPUSD", 15, D(2024, 12, 18), D(2024, 12, 16)), {}),
    ("copy_ticks_from", ("EURUSD", D(2024, 1, 2, 10), 1000, -1), {}),
    ("copy_ticks_from", ("GBPUSD", D(2024, 12, 19, 9), 3000, 1), {}),
    ("copy_ticks_from", ("GBPUSD", D(2024, 12, 19, 9), 0, -1), {}),
    ("copy_ticks_from", ("GBPUSD", D(2024, 12, 19, 9), 10, 5), {}),
    ("copy_ticks_range", ("EURUSD", D(2024, 1, 2, 10), D(2024, 1, 2, 10, 0, 20), -1), {}),
    ("copy_ticks_range", ("GBPUSD", D(2024, 12, 19, 9), D(2024, 12, 19, 10), -1), {}),
    ("copy_ticks_range", ("AAPL", D(2024, 12, 19, 15), D(2024, 12, 19, 17), 2), {}),
    ("copy_ticks_range", ("NOPE", D(2024, 12, 19, 9), D(2024, 12, 19, 10), -1), {}),
    ("copy_ticks_range", ("GBPUSD", D(2024, 12, 19, 10), D(2024, 12, 19, 9), -1), {}),
    ("orders_total", (), {}),
    ("orders_get", (), {}),
    ("orders_get", (), {"symbol": "GBPUSD"}),
    ("orders_get", (), {"ticket": 300003}),
    ("orders_get", (), {"group": "*USD"}),
    ("orders_get", (), {"symbol": "EURUSD"}),
    ("orders_get", ("GBPUSD",), {}),
    ("positions_total", (), {}),
    ("positions_get", (), {}),
    ("positions_get", (), {"symbol": "EURUSD"}),
    ("positions_get", (), {"ticket": 300002}),
    ("positions_get", (), {"ticket": 999}),
    ("positions_get", (), {"group": "XAU*"}),
    ("history_orders_total", (D(2024, 1, 1), D(2024, 12, 21)), {}),
    ("history_orders_total", (D(2024, 3, 29), D(2024, 3, 30)), {}),
    ("history_orders_get", (D(2024, 1, 1), D(2024, 12, 21)), {}),
    ("history_orders_get", (D(2024, 1, 1), D(2024, 12, 21)), {"group": "USD*"}),
    ("history_orders_get", (), {"ticket": 200001}),
    ("history_orders_get", (), {"ticket": 1}),
    ("history_orders_get", (), {"position": 300001}),
    ("history_orders_get", (), {"position": 1}),
    ("history_orders_get", (D(2024, 1, 1),), {}),
    ("history_deals_total", (D(2024, 1, 1), D(2024, 12, 21)), {}),
    ("history_deals_get", (D(2024, 1, 1), D(2024, 12, 21)), {}),
    ("history_deals_get", (D(2024, 3, 29), D(2024, 4, 1)), {}),
    ("history_deals_get", (), {"ticket": 200002}),
    ("history_deals_get", (), {"ticket": 100002}),
    ("history_deals_get", (), {"position": 200001}),
    ("history_deals_get", (), {"position": 1}),
    ("order_calc_margin", (0, "EURUSD", 0.1, 1.1), {}),
    ("order_calc_margin", (1, "XAUUSD", 0.05, 2050.0), {}),
    ("order_calc_margin", (0, "NOPE", 0.1, 1.1), {}),
    ("order_calc_margin", (0, "EURUSD", 0.0, 1.1), {}),
    ("order_calc_profit", (0, "EURUSD", 1.0, 1.1, 1.11), {}),
    ("order_calc_profit", (1, "USDJPY", 0.5, 150.0, 149.0), {}),
    ("order_calc_profit", (2, "EURUSD", 1.0, 1.1, 1.11), {}),
    ("order_check", ({"action": 1, "symbol": "EURUSD", "volume": 0.1, "type": 0, "price": 1.1},), {}),
    ("order_check", ({"action": 1, "symbol": "EURUSD", "volume": 0.001, "type": 0, "price": 1.1},), {}),
    ("order_check", ({"action": 5, "symbol": "GBPUSD", "volume": 0.1, "type": 2, "price": 1.2,
                      "type_time": 2, "expiration": 1734800000},), {}),
    ("order_check", ({"action": 1, "symbol": "EURUSD", "volume": 0.1, "type": 0, "comment": "x" * 40},), {}),
    ("order_check", ({"action": 1, "symbol": "EURUSD", "volume": "0.1", "type": 0},), {}),
    ("order_check", ({"action": 1, "bogus": 1},), {}),
]

FUNCTIONS_COVERED = set(c[0] for c in CALLS) | {"initialize", "login", "shutdown", "last_error", "order_send"}


class _Parity(object):
    stand_in_tz = None
    gateway_tz = None

    @classmethod
    def setUpClass(cls):
        cls.setup = harness.BridgedGateway(cls.stand_in_tz, cls.gateway_tz)
        cls.ref = harness.reference_module(cls.stand_in_tz)
        if not client.initialize(url=cls.setup.url):
            raise AssertionError("initialize failed: %r" % (client.last_error(),))

    @classmethod
    def tearDownClass(cls):
        client.shutdown()
        cls.setup.stop()

    def test_every_function(self):
        self.assertEqual(FUNCTIONS_COVERED, set(client.FUNCTIONS))
        for name, args, kwargs in CALLS:
            what = "%s(%s)" % (name, ", ".join([repr(a) for a in args] + ["%s=%r" % kv for kv in kwargs.items()]))
            with self.subTest(call=what):
                want = getattr(self.ref, name)(*args, **kwargs)
                want_error = self.ref.last_error()
                got = getattr(client, name)(*args, **kwargs)
                got_error = client.last_error()
                self.assertEqual(got_error[0], want_error[0], "%s: last_error %r vs %r" % (what, got_error, want_error))
                same(self, got, want, what)

    def test_keywords_where_the_package_takes_none(self):
        for name, args in (("copy_ticks_range", ("EURUSD", 0, 1, -1)), ("symbol_info", ("EURUSD",)),
                           ("order_calc_margin", (0, "EURUSD", 0.1, 1.1))):
            with self.assertRaises(TypeError):
                getattr(self.ref, name)(*args[:-1], x=args[-1])
            with self.assertRaises(TypeError):
                getattr(client, name)(*args[:-1], x=args[-1])
        with self.assertRaises(TypeError):
            client.orders_get(bogus=1)

    def test_order_send_is_unsupported(self):
        request = {"action": 1, "symbol": "EURUSD", "volume": 0.1, "type": 0, "price": 1.1}
        self.assertIsNone(client.order_send(request))
        self.assertEqual(client.last_error()[0], -7)
        self.assertIsNone(client.Buy("EURUSD", 0.1))
        self.assertEqual(client.last_error()[0], -7)

    def test_login_is_the_gateways_account_only(self):
        login = self.ref.account_info().login
        self.assertTrue(client.login(login))
        self.assertFalse(client.login(login + 1))
        self.assertEqual(client.last_error()[0], -6)
        self.assertFalse(client.initialize(url=self.setup.url, login=login + 1))
        self.assertEqual(client.last_error()[0], -6)
        self.assertTrue(client.initialize(url=self.setup.url, login=login, password="ignored", server=self.ref.account_info().server))


class ParityAtUtc(_Parity, unittest.TestCase):
    pass


class ParityAtBrokerTime(_Parity, unittest.TestCase):
    """The stand-in at UTC+2/+3 (EU dates); the gateway converts (Europe/Athens), the client back."""
    stand_in_tz = "EU+2"
    gateway_tz = "Europe/Athens"

    def test_utc_opt_in(self):
        try:
            self.assertTrue(client.initialize(url=self.setup.url, utc=True))
            deals = client.history_deals_get(D(2024, 3, 29), D(2024, 4, 3))
            usdjpy = [d.time for d in deals if d.symbol == "USDJPY"]
            # The USDJPY trade across the March change: in at 12:00Z (+2), out at 12:00Z (+3), true UTC.
            self.assertEqual(usdjpy, [int(D(2024, 3, 29, 12).timestamp()), int(D(2024, 4, 2, 12).timestamp())])
            ticks = client.copy_ticks_range("GBPUSD", D(2024, 12, 19, 9), D(2024, 12, 19, 9, 5), -1)
            self.assertTrue(len(ticks) > 100)
            self.assertTrue(ticks["time_msc"][0] >= int(D(2024, 12, 19, 9).timestamp()) * 1000)
            ref = self.ref.copy_ticks_range("GBPUSD", D(2024, 12, 19, 11), D(2024, 12, 19, 11, 5), -1)
            self.assertTrue(np.array_equal(ticks["time_msc"] + 7200000, ref["time_msc"]))
        finally:
            self.assertTrue(client.initialize(url=self.setup.url))


if __name__ == "__main__":
    unittest.main()
