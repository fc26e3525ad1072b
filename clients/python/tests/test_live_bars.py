"""stream_bars(): live bars of a custom period through a real gateway on the simulator (its clock
starts at SIM_CLOCK and runs): each bar as quant.bars returns it for the same span afterwards, in the
drop-in's (server) times; a period the gateway refuses raises with its reason."""
import itertools
import unittest

import harness
import tradeapi_client
import tradeapi_client.mt5 as mt5
from tradeapi_client import quant


class LiveBars(harness.SimSession):
    def test_bars_are_what_quant_bars_returns_later(self):
        with tradeapi_client.stream_bars(["BTCUSD"], "1s") as stream:
            got = list(itertools.islice(stream, 3))
            # The third bar's closing tick is the route's "now": the first two are complete to it.
            self.assertTrue(stream.last_event_id.startswith("~"), stream.last_event_id)
        self.assertEqual([s for s, _ in got], ["BTCUSD"] * 3)
        bars = [b for _, b in got[:2]]
        self.assertIsInstance(bars[0], tradeapi_client.live_bars.Bar)
        self.assertTrue(bars[0].time < bars[1].time, "in time order")
        history = quant.bars("BTCUSD", "1s", bars[0].time, bars[1].time)
        self.assertIsNotNone(history, mt5.last_error())
        self.assertEqual(len(history), 2)
        for bar, row in zip(bars, history):
            self.assertEqual(tuple(bar), tuple(row[name].item() for name in quant.BAR_DTYPE.names))

    def test_refusals_carry_the_gateways_reason(self):
        for period, price, reason in (("7s", None, "divides a day"), ("5s", "last", "carry trades"), ("volume:10", None, "carry trades")):
            stream = tradeapi_client.stream_bars(["EURUSD"], period, price=price)
            try:
                self.assertRaisesRegex(RuntimeError, reason, next, stream)
            finally:
                stream.close()


if __name__ == "__main__":
    unittest.main()
