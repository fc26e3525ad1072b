"""tradeapi_client.aio against the simulated terminal: asyncio.gather over several symbols gives the
sync results byte for byte; each task keeps its own last_error(); failures return what the sync
functions return; a cancelled call (waiting or under way) leaves the pool working, and one under
way is cut rather than left to run (Cut: against a server that stalls, so without the cut the
call would hold its thread for its whole timeout)."""
import asyncio
import inspect
import socket
import threading
import time
import unittest
from datetime import datetime, timedelta, timezone

import harness
import tradeapi_client.mt5 as mt5
from tradeapi_client import aio

UTC = timezone.utc
NOW = datetime(2026, 11, 25, 14, tzinfo=UTC)
OK = (1, "Success")


class Aio(harness.SimSession):
    def test_surface(self):
        self.assertEqual(sorted(n for n in dir(aio) if not n.startswith("_") and callable(getattr(aio, n))
                                and getattr(aio, n).__module__ == aio.__name__), sorted(mt5.FUNCTIONS))
        for name in mt5.FUNCTIONS:
            fn = getattr(aio, name)
            self.assertEqual(inspect.iscoroutinefunction(fn), name != "last_error", name)
            self.assertTrue(fn.__doc__, name)
        self.assertNotIn("aio", dir(mt5))
        self.assertEqual(str(inspect.signature(aio.copy_ticks_range)),
                         str(inspect.signature(mt5.copy_ticks_range)))

    def test_gather_equals_sync_byte_for_byte(self):
        symbols = [s.name for s in mt5.symbols_get()][:2 * aio.MAX_WORKERS + 1]  # more calls than threads
        self.assertGreater(len(symbols), aio.MAX_WORKERS)
        lo, hi = NOW - timedelta(hours=2), NOW - timedelta(minutes=30)

        async def pull():
            ticks = asyncio.gather(*(aio.copy_ticks_range(s, lo, hi, mt5.COPY_TICKS_ALL) for s in symbols))
            rates = asyncio.gather(*(aio.copy_rates_range(s, mt5.TIMEFRAME_M1, lo, hi) for s in symbols))
            infos = asyncio.gather(*(aio.symbol_info(s) for s in symbols))
            return await asyncio.gather(ticks, rates, infos)

        ticks, rates, infos = asyncio.run(pull())
        for i, s in enumerate(symbols):
            sync_ticks = mt5.copy_ticks_range(s, lo, hi, mt5.COPY_TICKS_ALL)
            sync_rates = mt5.copy_rates_range(s, mt5.TIMEFRAME_M1, lo, hi)
            self.assertEqual(mt5.last_error(), OK)
            self.assertGreater(len(sync_ticks), 0, s)
            self.assertEqual((ticks[i].dtype, ticks[i].tobytes()), (sync_ticks.dtype, sync_ticks.tobytes()), s)
            self.assertEqual((rates[i].dtype, rates[i].tobytes()), (sync_rates.dtype, sync_rates.tobytes()), s)
            self.assertEqual(infos[i].name, s)
            self.assertIsInstance(infos[i], mt5.SymbolInfo)

    def test_last_error_is_the_tasks_own(self):
        async def failing(done_failing, done_ok):
            self.assertIsNone(await aio.symbol_info("NOPE"))
            done_failing.set()
            await done_ok.wait()  # another task has succeeded since, in the same pool
            return aio.last_error()

        async def succeeding(done_failing, done_ok):
            await done_failing.wait()
            self.assertIsInstance(await aio.symbol_info("EURUSD"), mt5.SymbolInfo)
            done_ok.set()
            return aio.last_error()

        async def many():
            pairs = [(asyncio.Event(), asyncio.Event()) for _ in range(2 * aio.MAX_WORKERS)]
            before = aio.last_error()
            got = await asyncio.gather(*[f(*p) for p in pairs for f in (failing, succeeding)])
            # And interleaved at random: each task's code follows its own call only.
            mixed = await asyncio.gather(*(self._call_then_error(s) for s in ["EURUSD", "NOPE", "GBPUSD", "NOPE2"] * 8))
            return before, got, mixed, aio.last_error()

        mt5.symbol_info("NOPE")  # this thread's sync last_error: -4, untouched by the pool's calls
        before, got, mixed, after = asyncio.run(many())
        self.assertEqual(before, OK)
        self.assertEqual([code for code, _ in got], [-4, 1] * (2 * aio.MAX_WORKERS))
        self.assertEqual([(s, code) for s, code in mixed],
                         [(s, 1 if s in ("EURUSD", "GBPUSD") else -4) for s in ["EURUSD", "NOPE", "GBPUSD", "NOPE2"] * 8])
        self.assertEqual(after, OK)  # the children's errors stayed in their tasks
        self.assertEqual(mt5.last_error()[0], -4)

    @staticmethod
    async def _call_then_error(symbol):
        await aio.symbol_info_tick(symbol)
        await asyncio.sleep(0)  # let other tasks' calls end in between
        return symbol, aio.last_error()[0]

    def test_failures_as_the_sync_functions(self):
        calls = [
            ("symbol_info", ("NOPE",), {}),
            ("symbol_info", (3,), {}),
            ("symbol_info_tick", ("NOPE",), {}),
            ("symbol_select", ("NOPE", True), {}),
            ("market_book_release", ("GBPUSD",), {}),
            ("copy_rates_from", ("EURUSD", 12345, NOW, 10), {}),
            ("copy_ticks_range", ("EURUSD", NOW, NOW - timedelta(hours=1), mt5.COPY_TICKS_ALL), {}),
            ("copy_ticks_from", ("NOPE", NOW, 10, mt5.COPY_TICKS_ALL), {}),
            ("orders_get", ("EURUSD",), {}),
            ("history_deals_get", (NOW,), {}),
            ("history_deals_get", (), {"ticket": 1}),
            ("order_calc_margin", (mt5.ORDER_TYPE_BUY, "EURUSD", float("nan"), 1.0), {}),
            ("order_check", ("not a dict",), {}),
            ("order_send", ({"action": 1, "symbol": "EURUSD", "volume": 0.1},), {}),
            ("login", (12345,), {}),
        ]

        async def run_all():
            out = []
            for name, args, kwargs in calls:
                value = await getattr(aio, name)(*args, **kwargs)
                out.append((value, aio.last_error()))
            return out

        got = asyncio.run(run_all())
        for (name, args, kwargs), (value, error) in zip(calls, got):
            expected = getattr(mt5, name)(*args, **kwargs)
            self.assertIn(expected, (None, False), name)
            self.assertIs(value, expected, name)
            self.assertEqual(error, mt5.last_error(), name)
            self.assertNotEqual(error[0], 1, name)

        async def type_errors():
            with self.assertRaises(TypeError):
                await aio.symbol_info(symbol="EURUSD")  # positional only, as in mt5
            with self.assertRaises(TypeError):
                await aio.positions_get(bogus=1)  # raised in the pool thread, propagated
            return aio.last_error()
        self.assertEqual(asyncio.run(type_errors()), OK)  # an exception leaves last_error() as it was

    def test_not_initialized(self):
        mt5.shutdown()

        async def go():
            return await aio.account_info(), aio.last_error()[0], await aio.initialize(url=self.gw.url), \
                await aio.account_info()
        none, code, ok, info = asyncio.run(go())
        self.assertEqual((none, code, ok), (None, -10004, True))
        self.assertIsInstance(info, mt5.AccountInfo)
        self.assertIsInstance(mt5.account_info(), mt5.AccountInfo)  # one gateway for mt5 and aio

    def test_cancellation_leaves_the_pool_working(self):
        lo, hi = NOW - timedelta(days=14), NOW - timedelta(days=1)  # ~2 M ticks: long enough to cut
        started = time.monotonic()
        whole = mt5.copy_ticks_range("EURUSD", lo, hi, mt5.COPY_TICKS_ALL)
        alone = time.monotonic() - started
        self.assertGreater(len(whole), 1000000)
        del whole

        async def go():
            # More pulls than threads: some under way (cut), the rest waiting (never run).
            tasks = [asyncio.ensure_future(aio.copy_ticks_range("EURUSD", lo, hi, mt5.COPY_TICKS_ALL))
                     for _ in range(aio.MAX_WORKERS + 3)]
            await asyncio.sleep(0.2)
            for t in tasks:
                t.cancel()
            results = await asyncio.gather(*tasks, return_exceptions=True)
            t0 = time.monotonic()
            ticks = await asyncio.gather(*(aio.symbol_info_tick(s) for s in ["EURUSD", "GBPUSD"] * aio.MAX_WORKERS))
            freed = time.monotonic() - t0
            errors = [aio.last_error()]
            small = await aio.copy_ticks_range("EURUSD", NOW - timedelta(minutes=30), NOW - timedelta(minutes=20),
                                               mt5.COPY_TICKS_ALL)
            errors.append(aio.last_error())
            # asyncio.wait_for: the same, through a timeout.
            try:
                await asyncio.wait_for(aio.copy_ticks_range("EURUSD", lo, hi, mt5.COPY_TICKS_ALL), 0.05)
            except asyncio.TimeoutError:
                pass
            after = await aio.symbol_info("EURUSD")
            errors.append(aio.last_error())
            return results, ticks, freed, small, after, errors

        results, ticks, freed, small, after, errors = asyncio.run(go())
        self.assertTrue(all(isinstance(r, asyncio.CancelledError) for r in results), results)
        self.assertTrue(all(isinstance(t, mt5.Tick) for t in ticks))
        self.assertGreater(len(small), 0)
        self.assertIsInstance(after, mt5.SymbolInfo)
        self.assertEqual(errors, [OK] * 3)
        # Cut, not left to run: MAX_WORKERS pulls of this size at once would hold every thread
        # longer than one of them takes alone.
        self.assertLess(freed, alone, "the cancelled pulls were not cut (%.2f s, one alone %.2f s)" % (freed, alone))
        same = mt5.copy_ticks_range("EURUSD", NOW - timedelta(minutes=30), NOW - timedelta(minutes=20),
                                    mt5.COPY_TICKS_ALL)
        self.assertEqual(same.tobytes(), small.tobytes())


class Shutdown(unittest.TestCase):
    def test_shutdown_lets_the_pool_threads_go_and_a_later_call_works(self):
        gw = harness.sim_gateway()
        self.addCleanup(gw.stop)

        def pool_threads():
            return [t for t in threading.enumerate() if t.name.startswith("tradeapi-aio")]

        async def use():
            self.assertTrue(await aio.initialize(url=gw.url))
            await asyncio.gather(*(aio.symbol_info_tick(s) for s in ("EURUSD", "GBPUSD", "USDJPY")))
            self.assertTrue(pool_threads())
            await aio.shutdown()

        asyncio.run(use())
        for t in pool_threads():  # told to end: each exits once it sees the pool shut (no wait guessed)
            t.join()
        self.assertEqual(pool_threads(), [])
        asyncio.run(use())  # a new pool after shutdown
        for t in pool_threads():
            t.join()


class StalledServer(object):
    """A loopback server: GET /server-time answered, a series' head sent and then nothing; notes
    when the client closes (or shuts down) the series' connection."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.series_started = threading.Event()
        self.client_gone = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        buf = b""
        with conn:
            while True:
                while b"\r\n\r\n" not in buf:
                    data = conn.recv(65536)
                    if not data:
                        return
                    buf += data
                head, buf = buf.split(b"\r\n\r\n", 1)
                if b" /server-time" in head.split(b"\r\n", 1)[0]:
                    body = b'{"utc": false}'
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                                 % (len(body), body))
                    continue
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.tradeapi.packed\r\n"
                             b"Transfer-Encoding: chunked\r\n\r\n")
                self.series_started.set()
                conn.settimeout(60)
                try:
                    while conn.recv(65536):
                        pass
                except OSError:
                    pass
                self.client_gone.set()
                return

    def close(self):
        self.sock.close()


class Cut(unittest.TestCase):
    def test_a_cancelled_call_under_way_is_cut(self):
        """The body never comes and the timeout is long: without the cut, the pool thread (and the
        connection) would be held for the whole timeout."""
        server = StalledServer()
        try:
            async def go():
                self.assertTrue(await aio.initialize(url=server.url, timeout=60000), aio.last_error())
                task = asyncio.ensure_future(aio.copy_ticks_range("EURUSD", 1700000000, 1700086400, mt5.COPY_TICKS_ALL))
                started = await asyncio.get_running_loop().run_in_executor(None, server.series_started.wait, 30)
                self.assertTrue(started)
                task.cancel()
                t0 = time.monotonic()
                with self.assertRaises(asyncio.CancelledError):
                    await task
                loop = asyncio.get_running_loop()
                gone = await loop.run_in_executor(None, server.client_gone.wait, harness.LOADED_MACHINE_SLACK)
                return gone, time.monotonic() - t0
            gone, after = asyncio.run(go())
            self.assertTrue(gone, "the cancelled request's connection was not cut")
            self.assertLess(after, harness.LOADED_MACHINE_SLACK)
        finally:
            mt5.shutdown()
            server.close()


if __name__ == "__main__":
    unittest.main()
