"""Tests of the MetaTrader5 stand-in (bridge/tests/stand_in/MetaTrader5).

Run: python3 -m unittest discover -s bridge/tests -p 'test_stand_in.py'   (needs numpy)
"""

import os
import sys
import time
import unittest
from datetime import datetime, timedelta, timezone

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "stand_in"))
import MetaTrader5 as mt5  # noqa: E402

UTC = timezone.utc
DAY = 86400


def ts(*parts):
    return int(datetime(*parts, tzinfo=UTC).timestamp())


class Base(unittest.TestCase):
    def setUp(self):
        mt5._reset()
        self.assertTrue(mt5.initialize())

    def tearDown(self):
        mt5._reset()

    def assertFails(self, value, code, failure=None):
        self.assertIs(value, failure)
        self.assertEqual(mt5.last_error()[0], code, mt5.last_error())


class ScriptedTrading(Base):
    """_script: the account changes as scripted when the clock reaches each step, records consistent."""

    def test_steps_happen_at_their_time_with_deals_and_history(self):
        now = mt5._advance(0)
        before = len(mt5.history_deals_get(0, now // 1000 + DAY))
        balance = mt5.account_info().balance
        left = mt5._script([
            {"at": now + 1000, "op": "open", "ticket": 9001, "deal": 9101, "symbol": "EURUSD", "type": mt5.POSITION_TYPE_BUY, "volume": 0.3,
             "price": 1.05},
            {"at": now + 2000, "op": "modify", "ticket": 9001, "sl": 1.04},
            {"at": now + 3000, "op": "close", "ticket": 9001, "deal": 9102, "volume": 0.1, "profit": 2.5},
            {"at": now + 3000, "op": "place", "ticket": 9002, "type": mt5.ORDER_TYPE_SELL_LIMIT, "price": 1.2},
            {"at": now + 4000, "op": "cancel", "ticket": 9002},
            {"at": now + 5000, "op": "close", "ticket": 9001, "deal": 9103, "profit": -1},
        ])
        self.assertEqual(left, 6, "nothing before its time")
        self.assertNotIn(9001, [p.ticket for p in mt5.positions_get()])
        mt5._advance(1000)
        p = mt5.positions_get(ticket=9001)[0]
        self.assertEqual((p.volume, p.price_open, p.sl, p.time_msc), (0.3, 1.05, 0.0, now + 1000))
        mt5._advance(1000)
        self.assertEqual(mt5.positions_get(ticket=9001)[0].sl, 1.04)
        mt5._advance(1000)
        self.assertEqual(mt5.positions_get(ticket=9001)[0].volume, 0.2)
        self.assertEqual(mt5.orders_get(ticket=9002)[0].state, mt5.ORDER_STATE_PLACED)
        mt5._advance(1000)
        self.assertEqual(mt5.orders_get(ticket=9002), ())
        self.assertEqual(mt5.history_orders_get(ticket=9002)[0].state, mt5.ORDER_STATE_CANCELED)
        mt5._advance(1000)
        self.assertEqual(mt5.positions_get(ticket=9001), ())
        deals = mt5.history_deals_get(0, now // 1000 + DAY)
        self.assertEqual([d.ticket for d in deals[before:]], [9101, 9102, 9103])
        self.assertEqual([d.entry for d in deals[before:]], [mt5.DEAL_ENTRY_IN, mt5.DEAL_ENTRY_OUT, mt5.DEAL_ENTRY_OUT])
        self.assertAlmostEqual(mt5.account_info().balance, balance + 1.5)


class Constants(unittest.TestCase):
    def test_sample_against_mt5_reference_section_5(self):
        sample = dict(
            TIMEFRAME_M1=1, TIMEFRAME_M30=30, TIMEFRAME_H1=16385, TIMEFRAME_H4=16388, TIMEFRAME_H12=16396,
            TIMEFRAME_D1=16408, TIMEFRAME_W1=32769, TIMEFRAME_MN1=49153, COPY_TICKS_ALL=-1, COPY_TICKS_INFO=1,
            COPY_TICKS_TRADE=2, TICK_FLAG_BID=2, TICK_FLAG_ASK=4, TICK_FLAG_LAST=8, TICK_FLAG_VOLUME=16,
            TICK_FLAG_BUY=32, TICK_FLAG_SELL=64, ORDER_TYPE_CLOSE_BY=8, ORDER_FILLING_BOC=3,
            ORDER_STATE_REQUEST_CANCEL=9, TRADE_ACTION_DEAL=1, TRADE_ACTION_PENDING=5, TRADE_ACTION_CLOSE_BY=10,
            DEAL_TYPE_SELL_CANCELED=14, DEAL_DIVIDEND=15, DEAL_DIVIDEND_FRANKED=16, DEAL_TAX=17,
            DEAL_REASON_SPLIT=9, SYMBOL_CALC_MODE_EXCH_STOCKS=32, SYMBOL_CALC_MODE_SERV_COLLATERAL=64,
            SYMBOL_SWAP_MODE_REOPEN_BID=8, BOOK_TYPE_BUY_MARKET=4, ACCOUNT_MARGIN_MODE_RETAIL_HEDGING=2,
            TRADE_RETCODE_DONE=10009, TRADE_RETCODE_CLIENT_DISABLES_AT=10027, TRADE_RETCODE_FIFO_CLOSE=10045,
            RES_S_OK=1, RES_E_INVALID_PARAMS=-2, RES_E_NOT_FOUND=-4, RES_E_INTERNAL_FAIL_CONNECT=-10004,
            RES_E_INTERNAL_FAIL_TIMEOUT=-10005)
        for name, value in sample.items():
            self.assertEqual(getattr(mt5, name), value, name)

    def test_generated_table(self):
        from MetaTrader5 import _constants
        self.assertEqual(len(_constants.NAMES), 223)
        self.assertEqual(mt5.__version__, "5.0.6231")
        # not exported by the 5.0.6231 package (mt5-reference §5.8 [U])
        self.assertFalse(hasattr(mt5, "TRADE_RETCODE_HEDGE_PROHIBITED"))
        self.assertFalse(hasattr(mt5, "SYMBOL_FILLING_FOK"))


class Records(Base):
    COUNTS = dict(AccountInfo=28, TerminalInfo=22, SymbolInfo=96, Tick=8, BookInfo=4, TradeOrder=24,
                  TradePosition=19, TradeDeal=18, TradeRequest=17, OrderCheckResult=9, OrderSendResult=11)

    def test_field_counts_and_order(self):
        for name, count in self.COUNTS.items():
            self.assertEqual(getattr(mt5, name).n_fields, count, name)
        self.assertEqual(list(mt5.account_info()._asdict())[:3], ["login", "trade_mode", "leverage"])
        info = mt5.symbol_info("EURUSD")._asdict()
        names = list(info)
        self.assertEqual(names[31:34], ["bid", "bidhigh", "bidlow"])
        self.assertEqual(names[0], "custom")
        self.assertEqual(names[-1], "path")
        self.assertEqual(list(mt5.TerminalInfo.__match_args__)[-1], "commondata_path")
        self.assertEqual(mt5.BookInfo.__match_args__, ("type", "price", "volume", "volume_dbl"))
        self.assertEqual(mt5.OrderCheckResult.__match_args__[-1], "request")
        self.assertNotIn("request_id", mt5.OrderCheckResult.__match_args__)

    def test_struct_sequence_shape(self):
        a = mt5.account_info()
        self.assertIsInstance(a, tuple)
        self.assertEqual(a.login, a[0])
        self.assertEqual(type(a._asdict()), dict)
        self.assertFalse(hasattr(a, "_fields"))  # the real records are struct sequences, not namedtuples
        self.assertTrue(repr(a).startswith("AccountInfo(login="))

    def test_types(self):
        info = mt5.symbol_info("EURUSD")
        self.assertIsInstance(info.spread, int)
        self.assertIsInstance(info.isin, str)
        self.assertIsInstance(info.select, bool)
        t = mt5.terminal_info()
        self.assertIsInstance(t.language, str)
        self.assertIsInstance(t.community_balance, float)


class CallForms(Base):
    def test_positional_only_refuse_keywords(self):
        with self.assertRaises(TypeError):
            mt5.copy_rates_from(symbol="EURUSD", timeframe=mt5.TIMEFRAME_M1, date_from=0, count=10)
        with self.assertRaises(TypeError):
            mt5.order_calc_profit(action=0, symbol="EURUSD", volume=1.0, price_open=1.0, price_close=1.1)
        with self.assertRaises(TypeError):
            mt5.symbol_info(symbol="EURUSD")
        with self.assertRaises(TypeError):
            mt5.copy_ticks_range("EURUSD", 0, 1, flags=mt5.COPY_TICKS_ALL)

    def test_keyword_filters(self):
        self.assertEqual(len(mt5.positions_get(symbol="EURUSD")), 1)
        self.assertFails(mt5.positions_get("EURUSD"), -2)
        self.assertEqual(mt5.last_error(), (-2, "Unnamed arguments not allowed"))
        with self.assertRaises(TypeError):
            mt5.positions_get(sym="EURUSD")
        self.assertEqual(len(mt5.symbols_get(group="*JPY")), 1)
        self.assertEqual(len(mt5.orders_get(ticket=300003)), 1)
        self.assertEqual(mt5.orders_get(group="EUR*"), ())

    def test_initialize_keywords(self):
        self.assertTrue(mt5.initialize("C:\\MT5\\terminal64.exe", login=5000001, password="x", server="StandIn-Demo",
                                       timeout=1000, portable=False))
        self.assertTrue(mt5.initialize(path=None, timeout=5))
        with self.assertRaises(TypeError):
            mt5.initialize(user=1)
        self.assertFails(mt5.initialize(login=1234), -6, False)
        self.assertTrue(mt5.login(5000001, password="p", server="StandIn-Demo"))

    def test_bad_arguments_are_invalid(self):
        self.assertFails(mt5.history_orders_total("invalid", "arguments"), -2)
        self.assertEqual(mt5.last_error(), (-2, "Invalid arguments"))
        self.assertFails(mt5.history_orders_get(None, None), -2)
        self.assertFails(mt5.copy_rates_from("EURUSD", mt5.TIMEFRAME_M1, 0), -2)
        self.assertFails(mt5.copy_rates_from("EURUSD", 7, ts(2024, 6, 3), 10), -2)

    def test_order_request_forms(self):
        req = {"action": mt5.TRADE_ACTION_DEAL, "symbol": "EURUSD", "volume": 0.1, "type": mt5.ORDER_TYPE_BUY}
        self.assertEqual(mt5.order_check(req).retcode, 0)
        self.assertEqual(mt5.order_check(**req).comment, "Done")
        self.assertFails(mt5.order_send(req, comment="x"), -2)
        self.assertFails(mt5.order_check(dict(req, comment="c" * 32)), -2)
        self.assertEqual(mt5.last_error(), (-2, 'Invalid "comment" argument'))
        r = mt5.order_send(req)
        self.assertEqual((r.retcode, r.comment), (10027, "AutoTrading disabled by client"))
        self.assertEqual(r.request.symbol, "EURUSD")
        self.assertEqual(mt5.order_check(dict(req, volume=0.001)).retcode, mt5.TRADE_RETCODE_INVALID_VOLUME)

    def test_dates_datetime_or_seconds(self):
        aware = datetime(2024, 6, 4, 10, 0, tzinfo=UTC)
        a = mt5.copy_ticks_range("EURUSD", aware, aware + timedelta(minutes=1), mt5.COPY_TICKS_ALL)
        b = mt5.copy_ticks_range("EURUSD", ts(2024, 6, 4, 10), ts(2024, 6, 4, 10, 1), mt5.COPY_TICKS_ALL)
        self.assertTrue(np.array_equal(a, b))
        old = os.environ.get("TZ")
        try:  # a naive datetime is read in the process's local zone, as datetime.timestamp() does
            os.environ["TZ"] = "UTC"
            time.tzset()
            c = mt5.copy_ticks_range("EURUSD", datetime(2024, 6, 4, 10), datetime(2024, 6, 4, 10, 1), -1)
            self.assertTrue(np.array_equal(a, c))
        finally:
            if old is None:
                del os.environ["TZ"]
            else:
                os.environ["TZ"] = old
            time.tzset()

    def test_calc(self):
        self.assertEqual(mt5.order_calc_margin(mt5.ORDER_TYPE_BUY, "USDJPY", 0.1, 150.0), 100.0)
        self.assertEqual(mt5.order_calc_margin(mt5.ORDER_TYPE_BUY, "EURUSD", 0.1, 1.0991), 109.91)
        self.assertEqual(mt5.order_calc_margin(mt5.ORDER_TYPE_BUY, "XAUUSD", 0.01, 1899.97), 19.0)
        self.assertEqual(mt5.order_calc_profit(mt5.ORDER_TYPE_BUY, "EURUSD", 1.0, 1.10757, 1.10881), 124.0)
        self.assertEqual(mt5.order_calc_profit(mt5.ORDER_TYPE_SELL, "EURUSD", 1.0, 1.10753, 1.10881), -128.0)
        self.assertFails(mt5.order_calc_profit(mt5.ORDER_TYPE_BUY_LIMIT, "EURUSD", 1.0, 1.1, 1.2), -2)


class Arrays(Base):
    def test_dtypes_packed(self):
        ticks = mt5.copy_ticks_from("EURUSD", ts(2024, 6, 4), 100, mt5.COPY_TICKS_ALL)
        self.assertEqual(ticks.dtype.descr, [("time", "<i8"), ("bid", "<f8"), ("ask", "<f8"), ("last", "<f8"),
                                             ("volume", "<u8"), ("time_msc", "<i8"), ("flags", "<u4"),
                                             ("volume_real", "<f8")])
        self.assertEqual(ticks.dtype.itemsize, 60)
        rates = mt5.copy_rates_from_pos("EURUSD", mt5.TIMEFRAME_M5, 0, 10)
        self.assertEqual(rates.dtype.descr, [("time", "<i8"), ("open", "<f8"), ("high", "<f8"), ("low", "<f8"),
                                             ("close", "<f8"), ("tick_volume", "<u8"), ("spread", "<i4"),
                                             ("real_volume", "<u8")])
        self.assertEqual(rates.dtype.itemsize, 60)
        self.assertEqual(len(ticks), 100)
        self.assertTrue((ticks["time"] == ticks["time_msc"] // 1000).all())
        self.assertTrue((np.diff(ticks["time_msc"]) >= 0).all())

    def test_fresh_copies_and_determinism(self):
        a = mt5.copy_ticks_range("EURUSD", ts(2024, 6, 4), ts(2024, 6, 4, 0, 10), -1)
        a["bid"] = 0
        b = mt5.copy_ticks_range("EURUSD", ts(2024, 6, 4), ts(2024, 6, 4, 0, 10), -1)
        self.assertTrue((b["bid"] > 0).all())
        self.assertTrue(b.flags["OWNDATA"] or b.base is None or b.base.flags["OWNDATA"])
        mt5._configure(seed=7)
        mt5.initialize()
        c = mt5.copy_ticks_range("EURUSD", ts(2024, 6, 4), ts(2024, 6, 4, 0, 10), -1)
        self.assertFalse(np.array_equal(b, c))

    def test_range_includes_both_ends_to_the_millisecond(self):
        lo, hi = ts(2024, 6, 4, 9), ts(2024, 6, 4, 10)
        wide = mt5.copy_ticks_range("EURUSD", lo - 5, hi + 5, -1)
        got = mt5.copy_ticks_range("EURUSD", lo, hi, -1)
        want = wide[(wide["time_msc"] >= lo * 1000) & (wide["time_msc"] <= hi * 1000)]
        self.assertTrue(np.array_equal(got, want))
        ticks = np.zeros(4, mt5.TICK_DTYPE)  # exact-millisecond edges, served from an array
        ticks["time_msc"] = [lo * 1000 - 1, lo * 1000, hi * 1000, hi * 1000 + 1]
        ticks["time"] = ticks["time_msc"] // 1000
        ticks["bid"], ticks["ask"], ticks["flags"] = 1.1, 1.2, 6
        mt5._configure(ticks={"EURUSD": ticks})
        mt5.initialize()
        got = mt5.copy_ticks_range("EURUSD", lo, hi, -1)
        self.assertEqual(list(got["time_msc"]), [lo * 1000, hi * 1000])
        self.assertEqual(list(mt5.copy_ticks_from("EURUSD", lo, 10, -1)["time_msc"]), [lo * 1000, hi * 1000, hi * 1000 + 1])

    def test_filters_and_trade_ticks(self):
        info = mt5.copy_ticks_range("EURUSD", ts(2024, 6, 4, 9), ts(2024, 6, 4, 10), mt5.COPY_TICKS_INFO)
        self.assertTrue(len(info) > 1000)
        self.assertEqual(len(mt5.copy_ticks_range("EURUSD", ts(2024, 6, 4, 9), ts(2024, 6, 4, 10), 2)), 0)
        trades = mt5.copy_ticks_range("AAPL", ts(2024, 6, 4, 17), ts(2024, 6, 4, 18), mt5.COPY_TICKS_TRADE)
        self.assertTrue(len(trades) > 100)
        self.assertTrue(((trades["flags"] & mt5.TICK_FLAG_LAST) != 0).all())
        self.assertTrue((trades["last"] > 0).all())
        self.assertEqual(len(mt5.copy_ticks_range("AAPL", ts(2024, 6, 4, 8), ts(2024, 6, 4, 9), -1)), 0)

    def test_bars_consistent_with_ticks(self):
        bars = mt5.copy_rates_range("EURUSD", mt5.TIMEFRAME_M1, ts(2024, 6, 4, 9), ts(2024, 6, 4, 9, 2))
        self.assertEqual(len(bars), 3)  # both ends included
        ticks = mt5.copy_ticks_range("EURUSD", ts(2024, 6, 4, 9), ts(2024, 6, 4, 9, 0, 59) , -1)
        ticks = ticks[ticks["time"] < ts(2024, 6, 4, 9, 1)]
        b = bars[0]
        self.assertEqual(b["open"], ticks["bid"][0])
        self.assertEqual(b["close"], ticks["bid"][-1])
        self.assertEqual(b["high"], ticks["bid"].max())
        self.assertEqual(b["low"], ticks["bid"].min())
        self.assertEqual(b["tick_volume"], len(ticks))
        h1 = mt5.copy_rates_range("EURUSD", mt5.TIMEFRAME_H1, ts(2024, 6, 4, 9), ts(2024, 6, 4, 9))
        m1 = mt5.copy_rates_range("EURUSD", mt5.TIMEFRAME_M1, ts(2024, 6, 4, 9), ts(2024, 6, 4, 9, 59))
        self.assertEqual(h1["tick_volume"][0], m1["tick_volume"].sum())
        self.assertEqual(h1["high"][0], m1["high"].max())

    def test_rates_from_and_pos(self):
        bars = mt5.copy_rates_from("EURUSD", mt5.TIMEFRAME_H4, ts(2024, 6, 10), 10)
        self.assertEqual(len(bars), 10)
        self.assertEqual(bars["time"][-1], ts(2024, 6, 10))
        self.assertEqual(bars["time"][-2], ts(2024, 6, 7, 20))  # weekends have no bars
        d1 = mt5.copy_rates_from_pos("EURUSD", mt5.TIMEFRAME_D1, 0, 3)
        self.assertEqual(d1["time"][-1], ts(2024, 12, 20))  # the forming bar of "now"
        d1b = mt5.copy_rates_from_pos("EURUSD", mt5.TIMEFRAME_D1, 1, 2)
        self.assertTrue(np.array_equal(d1b, d1[:2]))
        w1 = mt5.copy_rates_from_pos("EURUSD", mt5.TIMEFRAME_W1, 0, 2)
        self.assertEqual(datetime.fromtimestamp(int(w1["time"][-1]), UTC).weekday(), 6)  # Sunday

    def test_maxbars(self):
        mt5._configure(maxbars=5000)
        mt5.initialize()
        self.assertEqual(mt5.terminal_info().maxbars, 5000)
        self.assertFails(mt5.copy_rates_from_pos("EURUSD", mt5.TIMEFRAME_M1, 0, 5000), -2)
        self.assertEqual(mt5.last_error(), (-2, "Terminal: Invalid params"))
        self.assertEqual(len(mt5.copy_rates_from_pos("EURUSD", mt5.TIMEFRAME_M1, 0, 4999)), 4999)
        self.assertFails(mt5.copy_rates_range("EURUSD", mt5.TIMEFRAME_M1, ts(2024, 6, 3), ts(2024, 6, 7)), -2)
        self.assertEqual(len(mt5.copy_rates_range("EURUSD", mt5.TIMEFRAME_M1, ts(2024, 6, 3), ts(2024, 6, 5, 12))),
                         2 * 1440 + 720 + 1)

    def test_npy_source(self):
        ticks = mt5.copy_ticks_range("GBPUSD", ts(2024, 6, 4, 9), ts(2024, 6, 4, 11), -1)
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "x.npy")
            np.save(path, ticks)
            mt5._configure(ticks={"EURUSD": path})
            mt5.initialize()
            got = mt5.copy_ticks_range("EURUSD", ts(2024, 6, 4, 10), ts(2024, 6, 4, 10, 30), -1)
            want = ticks[(ticks["time_msc"] >= ts(2024, 6, 4, 10) * 1000)
                         & (ticks["time_msc"] <= ts(2024, 6, 4, 10, 30) * 1000)]
            self.assertTrue(np.array_equal(got, want))
            bars = mt5.copy_rates_range("EURUSD", mt5.TIMEFRAME_H1, ts(2024, 6, 4), ts(2024, 6, 5))
            self.assertEqual(list(bars["time"]), sorted(set(int(t) // 3600 * 3600 for t in ticks["time"])))
            self.assertEqual(int(bars["tick_volume"].sum()), len(ticks))
            del got, bars

    def test_ten_million_ticks_in_bounded_chunks(self):
        start = time.time()
        n, biggest = 0, 0
        for chunk in mt5._ticks_chunks("EURUSD", ts(2024, 1, 1) * 1000, ts(2024, 4, 15) * 1000):
            n += len(chunk)
            biggest = max(biggest, len(chunk))
        self.assertGreater(n, 10000000)
        self.assertLess(biggest, 20000)
        self.assertLess(time.time() - start, 30)


class TerminalRules(Base):
    def test_market_watch(self):
        self.assertFails(mt5.symbol_info_tick("USDJPY"), -1)
        self.assertEqual(mt5.last_error(), (-1, "Terminal: Call failed"))
        self.assertFalse(mt5.symbol_info("USDJPY").select)
        self.assertTrue(mt5.symbol_select("USDJPY", True))
        tick = mt5.symbol_info_tick("USDJPY")
        self.assertEqual(len(tick), 8)
        self.assertLessEqual(tick.time_msc, ts(2024, 12, 20, 16) * 1000)
        self.assertTrue(mt5.symbol_info("USDJPY").select)
        self.assertFails(mt5.symbol_select("EURUSD", False), -1, False)  # an open position uses it
        self.assertEqual(mt5.symbols_total(), 5)

    def test_book(self):
        self.assertFails(mt5.market_book_get("EURUSD"), -1)
        self.assertTrue(mt5.market_book_add("EURUSD"))
        book = mt5.market_book_get("EURUSD")
        prices = [b.price for b in book]
        self.assertEqual(prices, sorted(prices, reverse=True))
        self.assertEqual([b.type for b in book], [1] * 10 + [2] * 10)
        self.assertTrue(mt5.market_book_release("EURUSD"))
        self.assertFails(mt5.market_book_get("EURUSD"), -1)
        self.assertFails(mt5.market_book_add("GBPUSD"), -1, False)  # no depth
        self.assertFails(mt5.market_book_add("AAPL"), -1, False)  # not in Market Watch

    def test_unknown_symbol_and_no_connection(self):
        self.assertFails(mt5.symbol_info("NOPE"), -4)
        self.assertEqual(mt5.last_error(), (-4, "Terminal: Not found"))
        self.assertFails(mt5.copy_ticks_from("NOPE", 0, 10, -1), -4)
        self.assertIsNotNone(mt5.version())
        self.assertEqual(mt5.last_error(), (1, "Success"))
        mt5.shutdown()
        self.assertFails(mt5.account_info(), -10004)
        self.assertEqual(mt5.last_error(), (-10004, "No IPC connection"))

    def test_history(self):
        deals = mt5.history_deals_get(0, ts(2030, 1, 1))
        self.assertEqual(mt5.history_deals_total(0, ts(2030, 1, 1)), len(deals))
        self.assertEqual([d.ticket for d in mt5.history_deals_get(ticket=200002)], [100003])  # by ORDER ticket
        self.assertEqual(len(mt5.history_deals_get(position=200001)), 2)
        self.assertFails(mt5.history_orders_get(ticket=999), -4)
        self.assertEqual(mt5.history_orders_get(0, ts(2030, 1, 1), group="USDJPY")[0].ticket, 200001)


class ServerTime(Base):
    def test_eu_dst(self):
        mt5._configure(server_tz="EU+2")
        self.assertEqual(mt5._server_offset(ts(2024, 3, 31, 0, 59)), 7200)
        self.assertEqual(mt5._server_offset(ts(2024, 3, 31, 1, 0)), 10800)
        self.assertEqual(mt5._server_offset(ts(2024, 10, 27, 0, 59)), 10800)
        self.assertEqual(mt5._server_offset(ts(2024, 10, 27, 1, 0)), 7200)
        self.assertEqual(mt5._server_to_utc(ts(2024, 4, 1)), ts(2024, 3, 31, 21))
        self.assertEqual(mt5._server_to_utc(ts(2024, 3, 29, 23)), ts(2024, 3, 29, 21))
        self.assertEqual(mt5._configure(server_tz="+03:00"), None)
        self.assertEqual(mt5._server_offset(0), 10800)

    def test_stamps_follow_the_zone(self):
        mt5._configure(server_tz="EU+2")
        mt5.initialize()
        deals = {d.ticket: d for d in mt5.history_deals_get(0, ts(2030, 1, 1))}
        self.assertEqual(deals[100002].time, ts(2024, 3, 29, 12) + 7200)  # winter
        self.assertEqual(deals[100003].time, ts(2024, 4, 2, 12) + 10800)  # summer
        tick = mt5.copy_ticks_from("EURUSD", 0, 1, -1)
        self.assertLess(tick["time"][0] - ts(2024, 1, 1), 60)  # sessions are server wall clock: Monday 00:00
        # "now" is 16:00 UTC = 18:00 server in December
        last = mt5.copy_rates_from_pos("EURUSD", mt5.TIMEFRAME_H1, 0, 1)
        self.assertEqual(last["time"][0], ts(2024, 12, 20, 17))
        # Friday close and Monday open across the March change: 23:59 +2 and 00:00 +3 server
        fri = mt5.copy_ticks_range("EURUSD", ts(2024, 3, 29, 23, 59), ts(2024, 3, 30), -1)
        mon = mt5.copy_ticks_range("EURUSD", ts(2024, 3, 30), ts(2024, 4, 1, 0, 1), -1)
        self.assertEqual(mt5._server_to_utc(int(fri["time"][-1])), int(fri["time"][-1]) - 7200)
        self.assertEqual(mt5._server_to_utc(int(mon["time"][0])), int(mon["time"][0]) - 10800)


class Hooks(Base):
    def test_lose_and_restore(self):
        mt5._lose_terminal()
        self.assertFails(mt5.account_info(), -10001)
        self.assertFails(mt5.terminal_info(), -10004)
        self.assertFails(mt5.initialize(), -10003, False)
        mt5._restore_terminal()
        self.assertFails(mt5.terminal_info(), -10004)
        self.assertTrue(mt5.initialize())
        self.assertIsNotNone(mt5.terminal_info())
        mt5._lose_terminal(-10005)
        self.assertFails(mt5.symbol_info("EURUSD"), -10005)
        mt5._restore_terminal(reconnect=True)
        self.assertFails(mt5.symbol_info("EURUSD"), -10004)  # the failed call dropped the connection
        self.assertTrue(mt5.initialize())
        mt5._lose_terminal()
        mt5._restore_terminal(reconnect=True)
        self.assertIsNotNone(mt5.symbol_info("EURUSD"))  # lost and back with no call in between

    def test_delay(self):
        mt5._set_delay(0.05)
        start = time.time()
        mt5.version()
        mt5.last_error()
        self.assertGreaterEqual(time.time() - start, 0.05)
        self.assertLess(time.time() - start, 0.09)

    def test_fail_next(self):
        mt5._fail_next("copy_ticks_range", -10005)
        self.assertFails(mt5.copy_ticks_range("EURUSD", 0, 1, -1), -10005)
        self.assertEqual(mt5.last_error(), (-10005, "IPC timeout"))
        self.assertIsNotNone(mt5.copy_ticks_range("EURUSD", 0, 1, -1))
        mt5._fail_next("symbol_select", -1, "custom")
        self.assertFails(mt5.symbol_select("EURUSD", True), -1, False)
        self.assertEqual(mt5.last_error(), (-1, "custom"))
        with self.assertRaises(ValueError):
            mt5._fail_next("nope", -1)

    def test_fail_next_after(self):
        mt5._fail_next("version", -1, None, 2)
        self.assertIsNotNone(mt5.version())
        self.assertIsNotNone(mt5.version())
        self.assertFails(mt5.version(), -1)
        self.assertEqual(mt5.last_error(), (-1, "Terminal: Call failed"))
        self.assertIsNotNone(mt5.version())

    def test_book_subscriptions(self):
        self.assertEqual(mt5._book_subscriptions(), [])
        self.assertTrue(mt5.market_book_add("EURUSD"))
        self.assertTrue(mt5.market_book_add("XAUUSD"))
        self.assertEqual(mt5._book_subscriptions(), ["EURUSD", "XAUUSD"])
        mt5._lose_terminal()
        mt5._restore_terminal(reconnect=True)  # a hiccup: the old connection and its books are back
        self.assertEqual(mt5._book_subscriptions(), ["EURUSD", "XAUUSD"])
        mt5._lose_terminal()
        self.assertEqual(mt5._book_subscriptions(), [])  # nothing is in force while lost
        mt5._restore_terminal()  # a restarted terminal: a new connection, no subscriptions
        self.assertTrue(mt5.initialize())
        self.assertEqual(mt5._book_subscriptions(), [])
        self.assertFails(mt5.market_book_get("EURUSD"), -1)
        self.assertTrue(mt5.market_book_add("EURUSD"))
        mt5._lose_terminal(-10002)
        mt5.version()  # this call drops the connection
        mt5._restore_terminal(reconnect=True)
        self.assertTrue(mt5.initialize())
        self.assertEqual(mt5._book_subscriptions(), [])
        self.assertTrue(mt5.market_book_add("EURUSD"))
        mt5.shutdown()
        self.assertEqual(mt5._book_subscriptions(), [])

    def test_calls_log(self):
        mt5._calls(clear=True)
        mt5.copy_ticks_range("EURUSD", 1, 2, -1)
        mt5.last_error()
        mt5.positions_get(symbol="EURUSD")
        self.assertEqual(mt5._calls(), [("copy_ticks_range", ("EURUSD", 1, 2, -1), {}),
                                        ("positions_get", (), {"symbol": "EURUSD"})])
        mt5._calls(clear=True)
        self.assertEqual(mt5._calls(), [])

    def test_configure_symbols(self):
        mt5._configure(symbols=["EURUSD", "USDJPY"])
        mt5.initialize()
        self.assertEqual([s.name for s in mt5.symbols_get()], ["EURUSD", "USDJPY"])
        with self.assertRaises(TypeError):
            mt5._configure(colour="red")


if __name__ == "__main__":
    unittest.main()
