"""Against the simulated terminal (TRADEAPI_SIM_CLOCK: a weekday market whatever the day): every
function answers with the real types; bad inputs give None/False and the right code, never an
exception the real package would not raise; a read-only gateway answers what it lacks with -7;
keys, live ticks, to_pandas."""
import itertools
import unittest
from datetime import datetime, timedelta, timezone

import numpy as np

import harness
import tradeapi_client
import tradeapi_client.mt5 as mt5
from tradeapi_client._series import RATE_DTYPE, TICK_DTYPE

UTC = timezone.utc
NOW = datetime(2026, 11, 25, 14, tzinfo=UTC)
KEY = "sim-test-key-0123456789abcdef"


class Sim(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.gw = harness.sim_gateway(TRADEAPI_SECRET_KEY=KEY)

    @classmethod
    def tearDownClass(cls):
        mt5.shutdown()
        cls.gw.stop()

    def setUp(self):
        self.assertTrue(mt5.initialize(url=self.gw.url, key=KEY), mt5.last_error())

    def ok(self, value, kind):
        self.assertEqual(mt5.last_error(), (1, "Success"))
        self.assertIsInstance(value, kind)
        return value

    def fails(self, value, code, failure=None):
        self.assertIs(value, failure)
        self.assertEqual(mt5.last_error()[0], code, mt5.last_error())

    def test_types(self):
        v = self.ok(mt5.version(), tuple)
        self.assertEqual([type(x) for x in v], [int, int, str])
        self.assertEqual(type(self.ok(mt5.account_info(), mt5.AccountInfo).balance), float)
        self.assertEqual(self.ok(mt5.terminal_info(), mt5.TerminalInfo).name, "MetaTrader 5")
        self.assertGreater(self.ok(mt5.symbols_total(), int), 10)
        symbols = self.ok(mt5.symbols_get(group="EUR*"), tuple)
        self.assertTrue(all(isinstance(s, mt5.SymbolInfo) for s in symbols))
        info = self.ok(mt5.symbol_info("EURUSD"), mt5.SymbolInfo)
        self.assertEqual((type(info.digits), type(info.point), type(info.select)), (int, float, bool))
        self.assertEqual(len(info._asdict()), 96)
        tick = self.ok(mt5.symbol_info_tick("EURUSD"), mt5.Tick)
        self.assertEqual(tick.time, tick.time_msc // 1000)
        self.assertTrue(self.ok(mt5.symbol_select("EURUSD", True), bool))
        self.assertTrue(self.ok(mt5.market_book_add("EURUSD"), bool))
        book = self.ok(mt5.market_book_get("EURUSD"), tuple)
        self.assertTrue(book and all(isinstance(b, mt5.BookInfo) for b in book))
        self.assertTrue(self.ok(mt5.market_book_release("EURUSD"), bool))
        for fn, args, dtype in (
                (mt5.copy_rates_from, ("EURUSD", mt5.TIMEFRAME_H1, NOW, 24), RATE_DTYPE),
                (mt5.copy_rates_from_pos, ("EURUSD", mt5.TIMEFRAME_M1, 0, 100), RATE_DTYPE),
                (mt5.copy_rates_range, ("EURUSD", mt5.TIMEFRAME_M5, NOW - timedelta(hours=3), NOW), RATE_DTYPE),
                (mt5.copy_ticks_from, ("EURUSD", NOW - timedelta(minutes=5), 500, mt5.COPY_TICKS_ALL), TICK_DTYPE),
                (mt5.copy_ticks_range, ("EURUSD", NOW - timedelta(minutes=5), NOW, mt5.COPY_TICKS_INFO), TICK_DTYPE)):
            a = self.ok(fn(*args), np.ndarray)
            self.assertEqual(a.dtype, dtype)
            self.assertEqual(a.dtype.itemsize, 60)
            self.assertGreater(len(a), 0, fn.__name__)
            self.assertTrue(np.all(np.diff(a["time"]) >= 0))
        self.ok(mt5.orders_total(), int)
        self.assertTrue(all(isinstance(o, mt5.TradeOrder) for o in self.ok(mt5.orders_get(), tuple)))
        self.assertTrue(all(isinstance(p, mt5.TradePosition) for p in self.ok(mt5.positions_get(), tuple)))
        self.ok(mt5.positions_total(), int)
        lo, hi = NOW - timedelta(days=365), NOW
        self.assertGreater(self.ok(mt5.history_orders_total(lo, hi), int), 0)
        orders = self.ok(mt5.history_orders_get(lo, hi), tuple)
        self.assertIsInstance(orders[0], mt5.TradeOrder)
        self.assertEqual(self.ok(mt5.history_orders_get(ticket=orders[0].ticket), tuple)[0], orders[0])
        self.assertGreater(self.ok(mt5.history_deals_total(lo, hi), int), 0)
        deals = self.ok(mt5.history_deals_get(lo, hi, group="*USD*"), tuple)
        self.assertIsInstance(deals[0], mt5.TradeDeal)
        self.ok(mt5.order_calc_margin(mt5.ORDER_TYPE_BUY, "EURUSD", 1.0, 1.05), float)
        self.ok(mt5.order_calc_profit(mt5.ORDER_TYPE_SELL, "EURUSD", 1.0, 1.05, 1.04), float)
        check = self.ok(mt5.order_check({"action": mt5.TRADE_ACTION_DEAL, "symbol": "EURUSD", "volume": 0.1,
                                         "type": mt5.ORDER_TYPE_BUY, "price": tick.ask}), mt5.OrderCheckResult)
        self.assertIsInstance(check.request, mt5.TradeRequest)
        self.assertEqual(check.request.symbol, "EURUSD")

    def test_bad_inputs(self):
        self.fails(mt5.symbol_info("NOPE"), -4)
        self.fails(mt5.symbol_info(3), -2)
        self.fails(mt5.symbol_info(), -2)
        self.fails(mt5.symbol_info_tick("NOPE"), -4)
        self.fails(mt5.symbol_select("NOPE", True), -4, False)
        self.fails(mt5.market_book_get("NOPE"), -4)
        self.fails(mt5.market_book_release("GBPUSD"), -1, False)
        self.fails(mt5.copy_rates_from("EURUSD", 12345, NOW, 10), -2)
        self.fails(mt5.copy_rates_from("EURUSD", mt5.TIMEFRAME_H1, NOW, -1), -2)
        self.fails(mt5.copy_rates_from("EURUSD", mt5.TIMEFRAME_H1, 1.5, 10), -2)
        self.fails(mt5.copy_ticks_range("EURUSD", NOW, NOW - timedelta(hours=1), mt5.COPY_TICKS_ALL), -2)
        self.fails(mt5.copy_ticks_range("EURUSD", NOW, NOW, 99), -2)
        self.fails(mt5.copy_ticks_from("NOPE", NOW, 10, mt5.COPY_TICKS_ALL), -4)
        self.fails(mt5.orders_get("EURUSD"), -2)
        self.fails(mt5.history_deals_get(NOW), -2)
        self.fails(mt5.history_deals_get(ticket=1), -4)
        self.fails(mt5.order_calc_margin(mt5.ORDER_TYPE_BUY, "EURUSD", float("nan"), 1.0), -2)
        self.fails(mt5.order_calc_profit(mt5.ORDER_TYPE_BUY_LIMIT, "EURUSD", 1.0, 1.0, 1.1), -2)
        self.fails(mt5.order_check("not a dict"), -2)
        self.fails(mt5.order_check({"action": 1, "symbol": "EURUSD", "comment": "c" * 40}), -2)
        self.fails(mt5.order_send({"action": 1, "symbol": "EURUSD", "volume": 0.1}), -7)
        with self.assertRaises(TypeError):
            mt5.symbol_info(symbol="EURUSD")

    def test_large_pull_pages_and_views(self):
        ticks = mt5.copy_ticks_range("EURUSD", NOW - timedelta(hours=6), NOW, mt5.COPY_TICKS_ALL)
        self.assertGreater(len(ticks), 50000)
        self.assertTrue(ticks.flags.writeable)
        # copy_ticks_from pages of at most 1 M rows; a small page size shows the seams are exact.
        saved = mt5.MAX_PAGE
        mt5.MAX_PAGE = 997
        try:
            paged = mt5.copy_ticks_from("EURUSD", NOW - timedelta(hours=6), 5000, mt5.COPY_TICKS_ALL)
        finally:
            mt5.MAX_PAGE = saved
        self.assertEqual(paged.tobytes(), ticks[:5000].tobytes())

    def test_json_fallback_gives_the_same_array(self):
        a = mt5.copy_rates_from_pos("GBPUSD", mt5.TIMEFRAME_M15, 0, 300)
        mt5._S.series_format = "json"
        try:
            b = mt5.copy_rates_from_pos("GBPUSD", mt5.TIMEFRAME_M15, 0, 300)
        finally:
            mt5._S.series_format = "packed"
        self.assertEqual(a.dtype, b.dtype)
        self.assertEqual(len(a), len(b))
        np.testing.assert_array_equal(a[:-1], b[:-1])  # the forming bar may move between the calls

    def test_keys_and_connection_errors(self):
        self.assertFalse(mt5.initialize(url=self.gw.url, key="wrong-key-xxxxxxxxxxxxxxxx"))
        self.assertEqual(mt5.last_error()[0], -6)
        self.assertFalse(mt5.initialize(url="http://127.0.0.1:%d" % harness.free_port(), timeout=2000))
        self.assertEqual(mt5.last_error()[0], -10004)
        mt5.shutdown()
        self.assertIsNone(mt5.account_info())
        self.assertEqual(mt5.last_error()[0], -10004)
        self.assertFalse(mt5.initialize(url=self.gw.url, key=KEY, utc=True) is False)

    def test_threads(self):
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(8) as pool:
            ticks = list(pool.map(lambda i: mt5.symbol_info_tick(["EURUSD", "GBPUSD"][i % 2]), range(64)))
        self.assertTrue(all(isinstance(t, mt5.Tick) for t in ticks))

    def test_stream_ticks(self):
        with tradeapi_client.stream_ticks(["EURUSD", "BTCUSD"]) as stream:
            got = list(itertools.islice(stream, 5))
        self.assertEqual(len(got), 5)
        for symbol, tick in got:
            self.assertIn(symbol, ("EURUSD", "BTCUSD"))
            self.assertIsInstance(tick, mt5.Tick)
        self.assertTrue(stream.last_event_id)

    def test_stream_book(self):
        self.assertTrue(mt5.market_book_add("EURUSD"), mt5.last_error())
        try:
            with tradeapi_client.stream_book(["EURUSD"]) as stream:
                got = list(itertools.islice(stream, 2))
        finally:
            mt5.market_book_release("EURUSD")
        self.assertEqual(len(got), 2)
        for symbol, book in got:
            self.assertEqual(symbol, "EURUSD")
            self.assertIsInstance(book, tuple)
            self.assertTrue(book)
            self.assertTrue(all(isinstance(b, mt5.BookInfo) for b in book))
            self.assertEqual([type(v) for v in book[0]], [type(v) for v in mt5.market_book_get("EURUSD") or book[0]])
        self.assertTrue(stream.last_event_id is None or isinstance(stream.last_event_id, str))

    def test_zstd_parquet_gives_the_same_arrays(self):
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            self.skipTest("pyarrow is not installed (compression='zstd' needs it)")
        ticks = mt5.copy_ticks_range("EURUSD", NOW - timedelta(minutes=20), NOW - timedelta(minutes=5), mt5.COPY_TICKS_ALL)
        rates = mt5.copy_rates_range("GBPUSD", mt5.TIMEFRAME_M5, NOW - timedelta(hours=5), NOW - timedelta(hours=1))
        self.assertTrue(mt5.initialize(url=self.gw.url, key=KEY, compression="zstd"), mt5.last_error())
        self.assertEqual(mt5._S.compression, "zstd")
        z_ticks = mt5.copy_ticks_range("EURUSD", NOW - timedelta(minutes=20), NOW - timedelta(minutes=5),
                                       mt5.COPY_TICKS_ALL)
        z_rates = mt5.copy_rates_range("GBPUSD", mt5.TIMEFRAME_M5, NOW - timedelta(hours=5), NOW - timedelta(hours=1))
        empty = mt5.copy_ticks_range("EURUSD", NOW - timedelta(days=3), NOW - timedelta(days=3), mt5.COPY_TICKS_ALL)
        self.assertEqual(mt5.last_error(), (1, "Success"))
        self.assertTrue(len(ticks) > 100 and len(rates) == 49)  # both ends inclusive
        for plain, packed in ((ticks, z_ticks), (rates, z_rates)):
            self.assertEqual(packed.dtype, plain.dtype)
            self.assertEqual(packed.tobytes(), plain.tobytes())
        self.assertEqual((empty.dtype, len(empty)), (TICK_DTYPE, 0))
        self.assertTrue(mt5.initialize(url=self.gw.url, key=KEY, compression="none"))
        self.assertIsNone(mt5._S.compression)
        self.assertIsNone(mt5._default_compression(mt5._gateway()))  # loopback: none by default

    def test_to_pandas(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed")
        rates = mt5.copy_rates_from("EURUSD", mt5.TIMEFRAME_H1, NOW, 5)
        frame = tradeapi_client.to_pandas(rates)
        self.assertEqual(str(frame["time"].dtype), "datetime64[ns, UTC]")  # nanoseconds on pandas 3 too
        self.assertEqual(len(frame), 5)
        self.assertEqual(frame["time"].iloc[-1], pandas.Timestamp(int(rates["time"][-1]), unit="s", tz="UTC"))
        ticks = mt5.copy_ticks_from("EURUSD", NOW - timedelta(minutes=5), 3, mt5.COPY_TICKS_ALL)
        tf = tradeapi_client.to_pandas(ticks)
        self.assertEqual(str(tf["time_msc"].dtype), "datetime64[ns, UTC]")
        self.assertEqual(tf["time_msc"].iloc[0].value, int(ticks["time_msc"][0]) * 1000000)
        zero = ticks.copy()
        zero["time_msc"] = 0
        self.assertTrue(tradeapi_client.to_pandas(zero)["time_msc"].isna().all())  # 0, "not set": NaT
        positions = tradeapi_client.to_pandas(mt5.positions_get())
        self.assertEqual(list(positions.columns), list(mt5.positions_get()[0]._asdict()))


class ReadOnly(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.gw = harness.Gateway({"TRADEAPI_TERMINAL": "sim", "TRADEAPI_SIM_CLOCK": harness.SIM_CLOCK,
                                  "TRADE_API_KEY": KEY, "API_RATE_LIMIT": "100000"}, ["--read-only"])

    @classmethod
    def tearDownClass(cls):
        mt5.shutdown()
        cls.gw.stop()

    def test_what_it_lacks_is_unsupported(self):
        self.assertTrue(mt5.initialize(url=self.gw.url, key=KEY), mt5.last_error())
        self.assertIsInstance(mt5.account_info(), mt5.AccountInfo)
        self.assertEqual(mt5.copy_rates_from("EURUSD", mt5.TIMEFRAME_H1, NOW, 3).dtype, RATE_DTYPE)
        self.assertIs(mt5.order_check({"action": 1, "symbol": "EURUSD", "volume": 0.1, "type": 0}), None)
        self.assertEqual(mt5.last_error()[0], -7)
        self.assertIs(mt5.market_book_add("EURUSD"), False)
        self.assertEqual(mt5.last_error()[0], -7)


if __name__ == "__main__":
    unittest.main()
