"""replay(): ticks from a start instant, through a real gateway on the simulator (its clock starts
at SIM_CLOCK and runs): a pure replay with an end gives exactly copy_ticks_range's ticks of the span,
in the same types as stream_ticks; without an end it runs on into live with ``complete`` set."""
import itertools
import unittest
from datetime import datetime, timezone

import harness
import tradeapi_client
import tradeapi_client.mt5 as mt5


class Replay(harness.SimSession):
    def setUp(self):
        harness.SimSession.setUp(self)
        self.now = mt5.symbol_info_tick("BTCUSD").time  # the simulator's clock, seconds

    def test_end_gives_the_span_of_copy_ticks_range(self):
        start, end = self.now - 60, self.now - 10
        with tradeapi_client.replay(["BTCUSD"], start, end=end) as stream:
            got = list(stream)
        self.assertTrue(stream.ended)
        self.assertFalse(stream.complete)
        history = mt5.copy_ticks_range("BTCUSD", start, end, mt5.COPY_TICKS_ALL)
        # copy_ticks_range's date_to is a whole second: the replay's end is that same instant.
        self.assertEqual(len(got), len(history))
        self.assertGreater(len(got), 10)
        for (symbol, tick), row in zip(got, history):
            self.assertEqual(symbol, "BTCUSD")
            self.assertIsInstance(tick, mt5.Tick)
            self.assertEqual((tick.time_msc, tick.bid, tick.ask, tick.flags), (int(row["time_msc"]), float(row["bid"]), float(row["ask"]), int(row["flags"])))

    def test_into_live(self):
        start = datetime.fromtimestamp(self.now - 5, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        with tradeapi_client.replay("BTCUSD,EURUSD", start) as stream:
            history = []
            for pair in stream:
                history.append(pair)
                if stream.complete:
                    break
            live = list(itertools.islice(stream, 2))
        self.assertTrue(stream.complete)
        self.assertEqual(len(live), 2)
        seen = [(s, t.time_msc, t.bid, t.ask) for s, t in history + live]
        self.assertEqual(len(seen), len(set(seen)), "no tick twice")
        self.assertTrue(stream.last_event_id)

    def test_bad_start_is_refused(self):
        with tradeapi_client.replay(["EURUSD"], "2099-01-01T00:00:00Z") as stream, self.assertRaises(RuntimeError) as e:
            next(stream)
        self.assertIn("future", str(e.exception))


if __name__ == "__main__":
    unittest.main()
