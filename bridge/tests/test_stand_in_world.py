"""Tests of the stand-in's world mode (bridge/tests/stand_in/MetaTrader5/_world.py).

The world here is exported from the stand-in's own generated market, in the format
test/helpers/sim-world.ts writes: served back in world mode, every answer must equal the generated
one; outside what was exported, calls fail loudly.

Run: python3 -m unittest discover -s bridge/tests -p 'test_stand_in_world.py'   (needs numpy)
"""

import json
import os
import shutil
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "stand_in"))
import MetaTrader5 as mt5  # noqa: E402

HOUR = 3600
NOW = mt5._S.now_utc  # the stand-in's default clock; server time is UTC by default
TICKS_FROM = (NOW - 2 * HOUR) * 1000
RATES_FROM = {mt5.TIMEFRAME_M1: NOW - 24 * HOUR, mt5.TIMEFRAME_H1: NOW - 10 * 24 * HOUR}
MARGIN = (mt5.ORDER_TYPE_BUY, "EURUSD", 0.1, 1.05)
PROFIT = (mt5.ORDER_TYPE_SELL, "XAUUSD", 0.5, 2050.0, 2040.5)
CHECK = {"action": mt5.TRADE_ACTION_DEAL, "symbol": "EURUSD", "volume": 0.1, "type": mt5.ORDER_TYPE_BUY}


def _kind(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int64"
    if isinstance(v, float):
        return "float64"
    if isinstance(v, str):
        return "string"
    return type(v).__name__  # a nested record: TradeRequest


def export(directory):
    """The generated market's answers as a world directory (the format sim-world.ts writes)."""
    fields = {}

    def rec(r):
        fields.setdefault(type(r).__name__, [[f, _kind(v)] for f, v in r._asdict().items()])
        return dict((f, rec(v) if hasattr(v, "_asdict") else v) for f, v in r._asdict().items())

    symbols = mt5.symbols_get()
    names = [s.name for s in symbols]
    for n in names:
        mt5.symbol_select(n, True)  # the package gives ticks of Market Watch symbols only
    ticks = dict((n, rec(mt5.symbol_info_tick(n))) for n in names)
    books = {}
    for s in symbols:
        if s.ticks_bookdepth > 0 and mt5.market_book_add(s.name):
            books[s.name] = [rec(b) for b in mt5.market_book_get(s.name)]
            mt5.market_book_release(s.name)
    tick_series, rate_series = {}, {}
    for n in names:
        np.save(os.path.join(directory, "ticks-%s.npy" % n),
                mt5.copy_ticks_range(n, TICKS_FROM // 1000, NOW, mt5.COPY_TICKS_ALL))
        tick_series[n] = {"from": TICKS_FROM, "file": "ticks-%s.npy" % n}
        rate_series[n] = {}
        for tf, start in RATES_FROM.items():
            np.save(os.path.join(directory, "rates-%s-%d.npy" % (n, tf)), mt5.copy_rates_range(n, tf, start, NOW))
            rate_series[n][str(tf)] = {"from": start, "file": "rates-%s-%d.npy" % (n, tf)}
    check = mt5.order_check(CHECK)
    world = {
        "format": 1, "now_ms": NOW * 1000,
        "version": dict(zip(("terminal_version", "build", "build_date"), mt5.version())),
        "terminal_info": rec(mt5.terminal_info()), "account_info": rec(mt5.account_info()),
        "symbols": [rec(s) for s in symbols], "ticks": ticks, "books": books,
        "positions": [rec(p) for p in mt5.positions_get()], "orders": [rec(o) for o in mt5.orders_get()],
        "history_orders": [rec(o) for o in mt5.history_orders_get(0, NOW)],
        "history_deals": [rec(d) for d in mt5.history_deals_get(0, NOW)],
        "tick_series": tick_series, "rate_series": rate_series,
        "answers": {"order_calc_margin": [{"args": list(MARGIN), "value": mt5.order_calc_margin(*MARGIN)}],
                    "order_calc_profit": [{"args": list(PROFIT), "value": mt5.order_calc_profit(*PROFIT)}],
                    "order_check": [{"request": CHECK, "result": rec(check)}]},
        "fields": fields,
    }
    with open(os.path.join(directory, "world.json"), "w") as f:
        json.dump(world, f)


class World(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="stand-in-world-")
        mt5._reset()
        mt5.initialize()
        cls.generated = {
            "account": mt5.account_info(), "terminal": mt5.terminal_info(), "symbols": mt5.symbols_get(),
            "eurusd": mt5.symbol_info("EURUSD"), "tick": mt5.symbol_info_tick("EURUSD"),
            "positions": mt5.positions_get(), "orders": mt5.orders_get(symbol="GBPUSD"),
            "deals": mt5.history_deals_get(0, NOW), "xau_orders": mt5.history_orders_get(0, NOW, group="XAU*"),
            "ticks": mt5.copy_ticks_range("EURUSD", NOW - 90 * 60, NOW - 60 * 60, mt5.COPY_TICKS_ALL),
            "ticks_from": mt5.copy_ticks_from("XAUUSD", NOW - 100 * 60, 3000, mt5.COPY_TICKS_INFO),
            "m1": mt5.copy_rates_range("EURUSD", mt5.TIMEFRAME_M1, NOW - 12 * HOUR, NOW),
            "h1_pos": mt5.copy_rates_from_pos("XAUUSD", mt5.TIMEFRAME_H1, 2, 50),
            "m1_from": mt5.copy_rates_from("GBPUSD", mt5.TIMEFRAME_M1, NOW - 3 * HOUR, 100),
        }
        export(cls.dir)

    @classmethod
    def tearDownClass(cls):
        mt5._reset()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def setUp(self):
        mt5._configure(world=self.dir)
        self.assertTrue(mt5.initialize())

    def tearDown(self):
        mt5._reset()

    def assertFails(self, value, code, failure=None):
        self.assertIs(value, failure)
        self.assertEqual(mt5.last_error()[0], code, mt5.last_error())

    def test_records_round_trip(self):
        g = self.generated
        self.assertEqual(mt5.account_info(), g["account"])
        self.assertEqual(mt5.terminal_info(), g["terminal"])
        self.assertEqual(mt5.symbols_get(), g["symbols"])
        self.assertEqual(mt5.symbols_total(), len(g["symbols"]))
        self.assertEqual(mt5.symbol_info("EURUSD"), g["eurusd"])
        self.assertEqual(mt5.symbol_info_tick("EURUSD"), g["tick"])
        self.assertEqual(mt5.positions_get(), g["positions"])
        self.assertEqual(mt5.orders_get(symbol="GBPUSD"), g["orders"])
        self.assertEqual(mt5.history_deals_get(0, NOW), g["deals"])
        self.assertEqual(mt5.history_orders_get(0, NOW, group="XAU*"), g["xau_orders"])
        self.assertEqual(mt5.version(), mt5._S.world.version)

    def test_values_typed_as_the_package_types_them(self):
        a = mt5.account_info()
        self.assertIs(type(a.balance), float)  # JSON may have written 10000 for 10000.0
        self.assertIs(type(a.login), int)
        self.assertIs(type(a.trade_allowed), bool)
        self.assertEqual(type(mt5.order_check(CHECK).request).__name__, "TradeRequest")

    def test_series_sliced_as_generated(self):
        g = self.generated
        got = mt5.copy_ticks_range("EURUSD", NOW - 90 * 60, NOW - 60 * 60, mt5.COPY_TICKS_ALL)
        self.assertEqual(got.dtype, mt5.TICK_DTYPE)
        self.assertTrue(len(got) > 100 and np.array_equal(got, g["ticks"]))
        self.assertTrue(np.array_equal(mt5.copy_ticks_from("XAUUSD", NOW - 100 * 60, 3000, mt5.COPY_TICKS_INFO),
                                       g["ticks_from"]))
        self.assertTrue(np.array_equal(mt5.copy_rates_range("EURUSD", mt5.TIMEFRAME_M1, NOW - 12 * HOUR, NOW), g["m1"]))
        self.assertTrue(np.array_equal(mt5.copy_rates_from_pos("XAUUSD", mt5.TIMEFRAME_H1, 2, 50), g["h1_pos"]))
        self.assertTrue(np.array_equal(mt5.copy_rates_from("GBPUSD", mt5.TIMEFRAME_M1, NOW - 3 * HOUR, 100),
                                       g["m1_from"]))
        got[0]["bid"] = 0  # arrays are fresh copies
        self.assertNotEqual(mt5.copy_ticks_range("EURUSD", NOW - 90 * 60, NOW - 60 * 60, mt5.COPY_TICKS_ALL)[0]["bid"], 0)

    def test_outside_the_export_fails_loudly(self):
        self.assertFails(mt5.copy_ticks_range("EURUSD", NOW - 3 * HOUR, NOW, mt5.COPY_TICKS_ALL), -1)
        self.assertTrue(mt5.last_error()[1].startswith("stand-in world:"), mt5.last_error())
        self.assertFails(mt5.copy_rates_from_pos("EURUSD", mt5.TIMEFRAME_M1, 0, 5000), -1)
        self.assertFails(mt5.copy_rates_range("EURUSD", mt5.TIMEFRAME_M5, NOW - HOUR, NOW), -1)
        self.assertFails(mt5.copy_rates_range("EURUSD", 12345, NOW - HOUR, NOW), -2)
        self.assertFails(mt5.order_calc_margin(mt5.ORDER_TYPE_BUY, "EURUSD", 0.2, 1.05), -1)
        self.assertIn("no exported answer", mt5.last_error()[1])

    def test_calculations_answer_the_exported_requests(self):
        self.assertIsInstance(mt5.order_calc_margin(*MARGIN), float)
        self.assertEqual(mt5.order_calc_margin(*MARGIN), mt5._S.world.margins[0][1])
        self.assertEqual(mt5.order_calc_profit(*PROFIT), mt5._S.world.profits[0][1])
        # The same request as keywords, with the defaults spelt out: the same answer.
        self.assertEqual(mt5.order_check(**dict(CHECK, comment="", magic=0)).retcode, mt5._S.world.checks[0][1].retcode)

    def test_failures_as_the_package_fails(self):
        self.assertFails(mt5.symbol_info("NOPE"), -4)
        self.assertFails(mt5.copy_ticks_from("NOPE", NOW, 10, mt5.COPY_TICKS_ALL), -4)
        self.assertFails(mt5.order_calc_margin(mt5.ORDER_TYPE_BUY, "NOPE", 0.1, 1.0), -4)
        self.assertFails(mt5.market_book_get("EURUSD"), -1)  # no market_book_add
        self.assertTrue(mt5.market_book_add("EURUSD"))
        self.assertEqual(len(mt5.market_book_get("EURUSD")), 20)
        mt5._fail_next("account_info", -10001)  # the test hooks still apply
        self.assertFails(mt5.account_info(), -10001)
        mt5.shutdown()
        self.assertFails(mt5.account_info(), -10004)
        self.assertEqual(mt5._book_subscriptions(), [])

    def test_group_masks_have_only_star(self):
        self.assertEqual(mt5.symbols_get(group="EURUS?"), ())  # '?' is no wildcard (mt5-reference §2.4)
        self.assertEqual([s.name for s in mt5.symbols_get(group="EURUS*")], ["EURUSD"])
        self.assertEqual(mt5.positions_get(group="[E]*"), ())

    def test_market_watch(self):
        self.assertFails(mt5.symbol_info_tick("USDJPY"), -1)  # hidden in the exported world
        self.assertTrue(mt5.symbol_select("USDJPY", True))
        self.assertTrue(mt5.symbol_info("USDJPY").select)
        self.assertIsNotNone(mt5.symbol_info_tick("USDJPY"))
        self.assertFails(mt5.symbol_select("EURUSD", False), -1, False)  # an open position holds it
        self.assertTrue(mt5.symbol_select("USDJPY", False))
        self.assertFalse(mt5.symbol_info("USDJPY").visible)
        mt5._configure(world=self.dir)  # a new world: Market Watch as exported
        mt5.initialize()
        self.assertFalse(mt5.symbol_info("USDJPY").select)

    def test_exported_fields_must_be_the_packages(self):
        with open(os.path.join(self.dir, "world.json")) as f:
            world = json.load(f)
        bad = tempfile.mkdtemp(prefix="stand-in-world-bad-")
        self.addCleanup(shutil.rmtree, bad, True)
        for name in os.listdir(self.dir):
            if name.endswith(".npy"):
                shutil.copy(os.path.join(self.dir, name), bad)
        world["fields"]["Tick"][1][0] = "bidd"
        with open(os.path.join(bad, "world.json"), "w") as f:
            json.dump(world, f)
        with self.assertRaisesRegex(ValueError, "Tick fields"):
            mt5._configure(world=bad)


if __name__ == "__main__":
    unittest.main()
