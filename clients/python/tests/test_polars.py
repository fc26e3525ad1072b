"""to_polars (the [polars] extra): series and records as polars DataFrames, times as UTC Datetime.
Skipped, saying so, where polars is not installed (run.sh installs it under CI)."""
import datetime
import os
import unittest

import numpy as np

import harness  # noqa: F401 (the client on sys.path)
import tradeapi_client
import tradeapi_client.mt5 as mt5
from tradeapi_client.types import RATE_DTYPE, TICK_DTYPE

try:
    import polars as pl
except ImportError:
    pl = None

UTC = datetime.timezone.utc


@unittest.skipIf(pl is None and not os.environ.get("CI"),
                 "polars is not installed: pip install './clients/python[polars]' to run the to_polars tests")
class ToPolars(unittest.TestCase):
    def test_ticks(self):
        ticks = np.zeros(2, TICK_DTYPE)
        ticks["time"] = [1764079200, 1764079201]
        ticks["time_msc"] = [1764079200123, 1764079201999]
        ticks["bid"] = [1.1, 1.2]
        ticks["flags"] = [6, 2]
        df = tradeapi_client.to_polars(ticks)
        self.assertEqual(df.columns, list(TICK_DTYPE.names))
        self.assertEqual(df.schema["time"], pl.Datetime("ms", "UTC"))
        self.assertEqual(df.schema["time_msc"], pl.Datetime("ms", "UTC"))
        self.assertEqual(df["time_msc"].to_list()[0], datetime.datetime(2025, 11, 25, 14, 0, 0, 123000, UTC))
        self.assertEqual(df["time"].to_list()[1], datetime.datetime(2025, 11, 25, 14, 0, 1, tzinfo=UTC))
        self.assertEqual(df["bid"].to_list(), [1.1, 1.2])
        self.assertEqual(df.schema["flags"], pl.UInt32)
        raw = tradeapi_client.to_polars(ticks, times=False)
        self.assertEqual(raw["time_msc"].to_list(), [1764079200123, 1764079201999])

    def test_rates(self):
        rates = np.zeros(3, RATE_DTYPE)
        rates["time"] = [0, 3600, 7200]
        rates["close"] = [1.0, 2.0, 3.0]
        df = tradeapi_client.to_polars(rates)
        self.assertEqual(df["time"].to_list(), [None, datetime.datetime(1970, 1, 1, 1, tzinfo=UTC),
                                                datetime.datetime(1970, 1, 1, 2, tzinfo=UTC)])  # 0: not set
        self.assertEqual(df["close"].sum(), 6.0)
        self.assertEqual(tradeapi_client.to_polars(rates[:0]).height, 0)

    def test_records(self):
        deal = mt5.TradeDeal(range(mt5.TradeDeal.n_fields))
        deals = (deal, deal)
        df = tradeapi_client.to_polars(deals)
        self.assertEqual(df.columns, list(mt5.TradeDeal.__match_args__))
        self.assertEqual(df.height, 2)
        self.assertEqual(df.schema["time"], pl.Datetime("ms", "UTC"))
        self.assertEqual(df["time_msc"].to_list()[0], datetime.datetime(1970, 1, 1, 0, 0, 0, 3000, UTC))
        self.assertEqual(df["ticket"].to_list(), [0, 0])
        one = tradeapi_client.to_polars(mt5.Tick((1764079200, 1.1, 1.2, 0.0, 0, 1764079200500, 6, 0.0)))
        self.assertEqual(one.height, 1)
        self.assertEqual(one["time_msc"][0], datetime.datetime(2025, 11, 25, 14, 0, 0, 500000, UTC))
        check = mt5.OrderCheckResult(list(range(8)) + [mt5.TradeRequest(range(mt5.TradeRequest.n_fields))])
        nested = tradeapi_client.to_polars(check)
        self.assertEqual(nested["request"].struct.field("symbol").to_list(), [3])
        with self.assertRaises(ValueError):
            tradeapi_client.to_polars(None)


if __name__ == "__main__":
    unittest.main()
