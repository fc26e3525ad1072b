"""tradeapi_client.quant against a real gateway on the simulator: bars() of a period equal to an MT5
timeframe are copy_rates_range's bars field for field (plus the close time), tick bars count their
ticks; bars() and ticks() of several symbols are each symbol's own rows merged in time order (ties in
the order given), each with its symbol; failures return None with last_error, as the drop-in's functions do."""
import os
import subprocess
import sys
import unittest
from datetime import datetime, timezone

import numpy as np

import harness
import tradeapi_client.mt5 as mt5
from tradeapi_client import quant

UTC = timezone.utc
FROM, TO = datetime(2024, 1, 9, 10, tzinfo=UTC), datetime(2024, 1, 9, 12, tzinfo=UTC)


class Quant(harness.SimSession):
    def test_bars_of_a_timeframe_are_copy_rates_range(self):
        for period, timeframe in (("1m", mt5.TIMEFRAME_M1), ("15m", mt5.TIMEFRAME_M15), ("1h", mt5.TIMEFRAME_H1)):
            got = quant.bars("EURUSD", period, FROM, TO)
            self.assertIsNotNone(got, mt5.last_error())
            rates = mt5.copy_rates_range("EURUSD", timeframe, FROM, TO)
            self.assertGreater(len(rates), 1)
            self.assertEqual(got.dtype, quant.BAR_DTYPE)
            for name in rates.dtype.names:
                self.assertTrue(np.array_equal(got[name], rates[name]), "%s %s" % (period, name))
            # The close time is the bar's last tick: within the bar, in the same (server) time.
            self.assertTrue(np.all(got["time_close_msc"] >= got["time"] * 1000))

    def test_tick_bars_count_their_ticks(self):
        got = quant.bars("EURUSD", "ticks:100", FROM, TO, price="mid")
        self.assertIsNotNone(got, mt5.last_error())
        self.assertGreater(len(got), 5)
        self.assertTrue(np.all(got["tick_volume"][:-1] == 100))

    def test_ticks_of_several_symbols_merged_in_time_order(self):
        start, end = datetime(2024, 1, 9, 10, tzinfo=UTC), datetime(2024, 1, 9, 10, 1, tzinfo=UTC)
        got = quant.ticks(["EURUSD", "GBPUSD"], start, end)
        self.assertIsNotNone(got, mt5.last_error())
        self.assertTrue(np.all(np.diff(got["time_msc"]) >= 0), "in time order")
        for symbol in ("EURUSD", "GBPUSD"):
            own = got[got["symbol"] == symbol]
            ref = mt5.copy_ticks_range(symbol, start, end, mt5.COPY_TICKS_ALL)
            self.assertGreater(len(ref), 10)
            for name in ref.dtype.names:
                self.assertTrue(np.array_equal(own[name], ref[name]), "%s %s" % (symbol, name))
        self.assertEqual(len(got), sum(len(mt5.copy_ticks_range(s, start, end, mt5.COPY_TICKS_ALL)) for s in ("EURUSD", "GBPUSD")))
        self.assertEqual(len(quant.ticks("EURUSD,GBPUSD", start, end)), len(got), "a comma-separated list too")

    def test_bars_of_several_symbols_merged_in_time_order(self):
        names = ["USDJPY", "EURUSD", "GBPUSD"]
        for period in ("90s", "ticks:20"):
            got = quant.bars(names, period, FROM, TO)
            self.assertIsNotNone(got, mt5.last_error())
            own = [quant.bars(name, period, FROM, TO) for name in names]
            # The reference: every symbol's own bars, stably sorted by time, ties in list order.
            ref = np.concatenate(own)
            at = np.concatenate([np.full(len(o), i) for i, o in enumerate(own)])
            order = np.lexsort((np.arange(len(ref)), at, ref["time"]))
            self.assertEqual(len(got), len(ref), period)
            self.assertGreater(len(got), 100, period)
            self.assertTrue(np.array_equal(got["symbol"], np.asarray(names)[at[order]]), "%s: symbol of every row" % period)
            for name in quant.BAR_DTYPE.names:
                self.assertTrue(np.array_equal(got[name], ref[order][name]), "%s %s" % (period, name))
            ties = np.sum((np.diff(got["time"]) == 0) & (got["symbol"][1:] != got["symbol"][:-1]))
            self.assertGreater(ties, 0, "%s: bars of different symbols at the same time" % period)
        self.assertEqual(len(quant.bars("USDJPY,EURUSD", "90s", FROM, TO)), len(quant.bars(("USDJPY", "EURUSD"), "90s", FROM, TO)),
                         "a comma-separated string and a tuple alike")
        self.assertIsNone(quant.bars(["EURUSD", "NOPE"], "90s", FROM, TO))
        self.assertNotEqual(mt5.last_error()[0], 1, "an unknown symbol fails the pull")

    def test_failures_return_none_with_last_error(self):
        self.assertIsNone(quant.bars("EURUSD", "7m", FROM, TO))
        code, text = mt5.last_error()
        self.assertEqual(code, -2, text)
        self.assertIsNone(quant.ticks(["EURUSD", "NOPE"], FROM, TO))
        self.assertNotEqual(mt5.last_error()[0], 1)


class ReadmeExample(unittest.TestCase):
    def test_the_readme_block_runs_verbatim(self):
        blocks = harness.readme_python_blocks("### Bars of any period, many symbols in one pull: `tradeapi_client.quant`")
        self.assertEqual(len(blocks), 1)
        gw = harness.sim_gateway()
        try:
            # Verbatim but for the gateway's address.
            code = blocks[0].replace("http://127.0.0.1:8000", gw.url)
            env = dict(os.environ, PYTHONPATH=harness.CLIENT_DIR)
            env.pop("TRADEAPI_KEY", None)
            r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
        finally:
            gw.stop()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout.splitlines()[-1], r"^\d+ \d+\.\d+ \[.*'EURUSD'.*\] \[.*'EURUSD'.*'GBPUSD'.*\]$")


if __name__ == "__main__":
    unittest.main()
