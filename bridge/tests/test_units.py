"""Unit tests: frames, proofs, argument checks, and the windowed paging against adversarial
package replies (rows before date_from, partial replies, equal time_msc on window edges)."""
import socket
import threading
import time
import tracemalloc
import unittest

import numpy as np

import harness  # noqa: F401  (puts bridge/ on sys.path)
from tradeapi_bridge import admission, auth, errors, frames, ops, series
from tradeapi_bridge.worker import Worker
from tradeapi_bridge.args import validate
from tradeapi_bridge.group import group_match


class Frames(unittest.TestCase):
    def pair(self):
        a, b = socket.socketpair()
        self.addCleanup(a.close)
        self.addCleanup(b.close)
        return a, b

    def test_header_is_16_bytes_little_endian(self):
        h = frames.header(frames.REQUEST, 0x01020304, 5)
        self.assertEqual(h, b"TB\x01\x10\x00\x00\x00\x00\x04\x03\x02\x01\x05\x00\x00\x00")

    def test_roundtrip(self):
        a, b = self.pair()
        frames.send_json(a, frames.REQUEST, 7, {"op": "version", "args": {}})
        f = frames.read_frame(b)
        self.assertEqual((f.type, f.request_id), (frames.REQUEST, 7))
        self.assertEqual(frames.decode_json(f), {"op": "version", "args": {}})

    def test_oversized_rejected_from_header_alone(self):
        a, b = self.pair()
        a.sendall(frames.HEADER.pack(b"TB", 1, frames.REQUEST, 0, 0, 1, frames.MAX_PAYLOAD + 1))
        with self.assertRaisesRegex(frames.ProtocolError, "exceeds"):
            frames.read_frame(b)  # would block forever if it tried to read the payload

    def test_bad_magic_version_type_flags(self):
        for raw in (b"XX" + bytes(14), frames.HEADER.pack(b"TB", 2, 0x10, 0, 0, 1, 0),
                    frames.HEADER.pack(b"TB", 1, 0x7F, 0, 0, 1, 0), frames.HEADER.pack(b"TB", 1, 0x10, 1, 0, 1, 0)):
            a, b = self.pair()
            a.sendall(raw)
            with self.assertRaises(frames.ProtocolError):
                frames.read_frame(b)

    def test_clean_close_vs_truncated(self):
        a, b = self.pair()
        a.close()
        self.assertIsNone(frames.read_frame(b))
        a, b = self.pair()
        a.sendall(frames.header(frames.REQUEST, 1, 10) + b"abc")
        a.close()
        with self.assertRaisesRegex(frames.ProtocolError, "inside a frame"):
            frames.read_frame(b)

    def test_payload_memory_grows_with_the_bytes_that_arrive(self):
        # A header may declare 16 MiB and send 1 000 bytes: what is held is what came, not what
        # was declared (issue 22 item 9).
        a, b = self.pair()
        a.sendall(frames.HEADER.pack(b"TB", 1, frames.REQUEST, 0, 0, 1, frames.MAX_PAYLOAD) + b"x" * 1000)
        a.shutdown(socket.SHUT_WR)
        tracemalloc.start()
        try:
            with self.assertRaisesRegex(frames.ProtocolError, "inside a frame"):
                frames.read_frame(b)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        self.assertLess(peak, 2 << 20, "%d bytes allocated for 1 016 received" % peak)

    def test_large_payloads_arrive_whole(self):
        a, b = self.pair()
        payload = bytes(range(256)) * (5 << 12)  # 5 MiB: several receive steps
        t = threading.Thread(target=frames.send_frame, args=(a, frames.PING, 3, payload))
        t.start()
        f = frames.read_frame(b)
        t.join()
        self.assertEqual((f.type, f.request_id, f.payload), (frames.PING, 3, payload))
        self.assertIsInstance(f.payload, bytes)

    def test_a_deadline_bounds_the_whole_frame_not_each_read(self):
        a, b = self.pair()
        head = frames.header(frames.AUTH, 0, 10)
        stop = []

        def trickle():
            for i in range(len(head)):
                if stop:
                    return
                try:
                    a.sendall(head[i:i + 1])
                except OSError:
                    return
                time.sleep(0.05)
        t = threading.Thread(target=trickle)
        t.start()
        self.addCleanup(t.join)
        self.addCleanup(stop.append, True)
        t0 = time.monotonic()
        with self.assertRaises(socket.timeout):
            frames.read_frame(b, deadline=t0 + 0.3)
        self.assertLess(time.monotonic() - t0, 0.6)

    def test_json_payload_must_be_an_object(self):
        for payload in (b"\xff", b"[1]", b"{nope"):
            with self.assertRaises(frames.ProtocolError):
                frames.decode_json(frames.Frame(frames.REQUEST, 1, payload))


class WorkerPriority(unittest.TestCase):
    """Interactive calls overtake queued series windows; the running call is never pre-empted."""

    def test_interactive_calls_go_before_queued_windows(self):
        worker = Worker(queue_limit=8)
        running = threading.Event()
        release = threading.Event()
        order = []

        def blocker():
            running.set()
            release.wait()
            order.append("running")

        def submit(name, bulk):
            def go():
                worker.call(lambda: order.append(name), 30.0, bulk)
            t = threading.Thread(target=go)
            t.start()
            return t

        first = threading.Thread(target=lambda: worker.call(blocker, 30.0, True))
        first.start()
        self.assertTrue(running.wait(30))  # the worker is inside a bulk call
        threads = [submit("window 1", True), submit("window 2", True)]
        # Queued in this order: each submit has put its job before the next starts
        # (waited for through the queue's length, not a sleep).
        deadline = time.monotonic() + 30
        while worker._bulk.qsize() < 2 and time.monotonic() < deadline:
            time.sleep(0.001)
        threads.append(submit("tick", False))
        while worker._interactive.qsize() < 1 and time.monotonic() < deadline:
            time.sleep(0.001)
        release.set()
        first.join(30)
        for t in threads:
            t.join(30)
        self.assertEqual(order, ["running", "tick", "window 1", "window 2"])

    def test_windows_keep_their_order_and_a_lone_window_runs(self):
        worker = Worker(queue_limit=4)
        got = [worker.call(lambda i=i: i, 30.0, True) for i in range(3)]
        self.assertEqual(got, [0, 1, 2])
        self.assertEqual(worker.call(lambda: "x", 30.0), "x")

    def test_the_bound_counts_both_queues(self):
        worker = Worker(queue_limit=1)
        release = threading.Event()
        running = threading.Event()

        def blocker():
            running.set()
            release.wait()

        t = threading.Thread(target=lambda: worker.call(blocker, 30.0, True))
        t.start()
        self.assertTrue(running.wait(30))
        waiter = threading.Thread(target=lambda: worker.call(lambda: None, 30.0, True))
        waiter.start()
        deadline = time.monotonic() + 30
        while worker._bulk.qsize() < 1 and time.monotonic() < deadline:
            time.sleep(0.001)
        with self.assertRaises(errors.BridgeError) as refused:
            worker.call(lambda: None, 30.0)
        self.assertIn("bridge busy", refused.exception.message)
        release.set()
        t.join(30)
        waiter.join(30)


class Admission(unittest.TestCase):
    """admission.py: handshaking and authenticated connections counted apart; a full handshake
    pool makes room by closing its oldest member."""

    def pair(self):
        a, b = socket.socketpair()
        self.addCleanup(a.close)
        self.addCleanup(b.close)
        return a, b

    def test_the_oldest_handshake_makes_room_and_learns_it_at_once(self):
        pool = admission.Admission(max_authenticated=1, max_unauthenticated=2)
        (s1, _), (s2, _), (s3, _) = self.pair(), self.pair(), self.pair()
        t1, gone = pool.admit(s1, "one")
        self.assertIsNone(gone)
        t2, gone = pool.admit(s2, "two")
        self.assertIsNone(gone)
        t3, gone = pool.admit(s3, "three")
        self.assertIs(gone, t1)
        self.assertTrue(t1.evicted.is_set())
        s1.settimeout(1)
        self.assertEqual(s1.recv(1), b"")  # its thread's recv() wakes with EOF
        self.assertEqual(t1.promote(), admission.EVICTED)
        self.assertEqual(pool.counts(), (0, 2))
        self.assertEqual(t3.promote(), admission.PROMOTED)
        self.assertEqual(t2.promote(), admission.FULL)  # --max-connections 1, taken
        self.assertEqual(pool.counts(), (1, 1))
        # an authenticated connection is never displaced by new handshakes
        for _ in range(3):
            pool.admit(self.pair()[0], "more")
        self.assertFalse(t3.evicted.is_set())
        t3.release()
        t1.release()  # an evicted ticket's release counts nothing twice
        self.assertEqual(pool.counts(), (0, 2))


class Proofs(unittest.TestCase):
    def test_directions_differ_and_depend_on_both_nonces(self):
        s, n1, n2 = b"k" * 32, b"\x01" * 32, b"\x02" * 32
        c = auth.client_proof(s, n1, n2)
        self.assertNotEqual(c, auth.server_proof(s, n1, n2))
        self.assertNotEqual(c, auth.client_proof(s, n2, n1))
        self.assertNotEqual(c, auth.client_proof(b"j" * 32, n1, n2))
        self.assertEqual(len(c), 32)

    def test_parse_hex(self):
        self.assertEqual(auth.parse_hex("00" * 32, 32), bytes(32))
        for bad in ("00" * 31, "zz" * 32, 5, None):
            self.assertIsNone(auth.parse_hex(bad, 32))


class Args(unittest.TestCase):
    def test_types_required_unknown(self):
        spec = {"symbol": ("str", True), "count": ("int", True), "enable": ("bool", False)}
        self.assertEqual(validate("x", {"symbol": "A", "count": 3}, spec), {"symbol": "A", "count": 3})
        for bad in ({"count": 3}, {"symbol": 1, "count": 3}, {"symbol": "A", "count": True},
                    {"symbol": "A", "count": 1.5}, {"symbol": "A", "count": 2 ** 63}, {"symbol": "A", "count": 1, "x": 1},
                    {"symbol": "A", "count": 1, "enable": 1}, [1]):
            with self.assertRaises(errors.BridgeError) as cm:
                validate("x", bad, spec)
            self.assertEqual((cm.exception.kind, cm.exception.code), ("invalid_params", -2))

    def test_group_mask(self):
        self.assertTrue(group_match("*", "EURUSD"))
        self.assertTrue(group_match("EUR*", "EURUSD"))
        self.assertFalse(group_match("*, !*USD*", "EURUSD"))
        self.assertTrue(group_match("*,!*JPY*", "EURUSD"))
        self.assertFalse(group_match("eur*", "EURUSD"))
        # the simulator's choices (binding/sim/group_filter.cpp): a blank group selects everything;
        # only space, tab, CR and LF are trimmed; '?' and '[' are plain characters
        for blank in ("", " ", " \t\r\n ", ","):
            self.assertEqual(group_match(blank, "EURUSD"), blank != ",", repr(blank))
        self.assertTrue(group_match(" \tEUR* , !GBP*", "EURUSD"))
        self.assertFalse(group_match("\x0bEURUSD", "EURUSD"))
        self.assertFalse(group_match("EURUS?", "EURUSD"))
        self.assertTrue(group_match("EURUS?", "EURUS?"))
        self.assertTrue(group_match("[E]*", "[E]URUSD"))
        self.assertFalse(group_match("[E]*", "EURUSD"))

    def test_error_kinds_follow_codes(self):
        self.assertEqual(errors.from_last_error((-4, "Terminal: Not found")).kind, "not_found")
        self.assertEqual(errors.from_last_error((-2, "x")).kind, "invalid_params")
        self.assertEqual(errors.from_last_error((-10004, "No IPC connection")).kind, "unavailable")
        self.assertEqual(errors.from_last_error((-10005, "IPC timeout")).kind, "timeout")
        self.assertEqual(errors.from_last_error((-1, "Terminal: Call failed")).kind, "call_failed")
        self.assertEqual(errors.from_last_error((1, "Success")).code, -1)  # None + Success is still a failure


class TickOutsideMarketWatch(unittest.TestCase):
    """op_symbol_info_tick's explanation of a failed symbol_info_tick, against a fake package."""

    class Info(object):
        def __init__(self, select):
            self.select = select

    class Package(object):
        def __init__(self, tick_error, info):
            self.tick_error, self.info, self.error, self.calls = tick_error, info, (1, "Success"), []

        def symbol_info_tick(self, symbol):
            self.calls.append("symbol_info_tick")
            self.error = self.tick_error
            return None

        def symbol_info(self, symbol):
            self.calls.append("symbol_info")
            self.error = (1, "Success") if self.info is not None else (-4, "Terminal: Not found")
            return self.info

        def last_error(self):
            return self.error

    class Session(object):
        def __init__(self, package):
            self.package = package

        def call(self, job):
            return job(self.package)

    def fail(self, tick_error, info):
        package = self.Package(tick_error, info)
        with self.assertRaises(errors.BridgeError) as cm:
            ops.op_symbol_info_tick(self.Session(package), {"symbol": "XAUUSD"})
        return cm.exception, package.calls

    def test_hidden_symbol_is_not_selected_with_the_packages_code(self):
        e, calls = self.fail((-1, "Terminal: Call failed"), self.Info(select=False))
        self.assertEqual((e.kind, e.code, e.message), ("not_selected", -1, "Terminal: Call failed"))
        self.assertEqual(e.last_error, (-1, "Terminal: Call failed"))  # what last_error() must answer
        self.assertEqual(calls, ["symbol_info_tick", "symbol_info"])

    def test_selected_symbol_failing_stays_call_failed(self):
        e, _ = self.fail((-1, "Terminal: Call failed"), self.Info(select=True))
        self.assertEqual((e.kind, e.code), ("call_failed", -1))

    def test_other_codes_are_not_explained(self):
        for tick_error, kind in (((-4, "Terminal: Not found"), "not_found"),
                                 ((-10004, "No IPC connection"), "unavailable"),
                                 ((-2, "Terminal: Invalid params"), "invalid_params")):
            with self.subTest(tick_error=tick_error):
                e, calls = self.fail(tick_error, self.Info(select=False))
                self.assertEqual((e.kind, e.code), (kind, tick_error[0]))
                self.assertEqual(calls, ["symbol_info_tick"])  # no second call: last_error() untouched
                self.assertIsNone(e.last_error)

    def test_symbol_gone_between_the_calls_stays_call_failed(self):
        e, _ = self.fail((-1, "Terminal: Call failed"), None)
        self.assertEqual((e.kind, e.code, e.message), ("call_failed", -1, "Terminal: Call failed"))


class Paging(unittest.TestCase):
    ticks = harness.make_ticks(1200)

    def fetcher(self, early=0, partial=None, resolution=1):
        """copy_ticks_from with quirks: `early` rows before date_from prepended, replies cut to
        `partial` rows on every other call, the cursor read at `resolution` ms (1000: whole
        seconds, as the package reads dates). Records every call."""
        t = self.ticks
        calls = []

        def fetch(cursor, count):
            calls.append((cursor, count))
            i = int(np.searchsorted(t["time_msc"], cursor - cursor % resolution, side="left"))
            out = t[max(0, i - early):i + count]
            if partial and len(calls) % 2:
                out = out[:partial]
            return out.copy()
        return fetch, calls

    def expected_range(self, lo, hi):
        t = self.ticks
        return t[(t["time_msc"] >= lo) & (t["time_msc"] <= hi)]

    def check(self, windows, expected, max_rows=None):
        got = list(windows)
        if max_rows is not None:
            self.assertTrue(all(len(w) <= max_rows for w in got), [len(w) for w in got])
        joined = np.concatenate(got) if got else self.ticks[:0]
        self.assertEqual(len(joined), len(expected))
        self.assertEqual(joined.tobytes(), expected.tobytes())
        return got

    def test_range_equals_one_call_for_many_windows(self):
        t = self.ticks
        for window in (1, 2, 3, 5, 7, 64, 5000):
            for lo, hi in ((int(t["time_msc"][0]), int(t["time_msc"][-1])),
                           (int(t["time_msc"][100]), int(t["time_msc"][1010])),
                           (int(t["time_msc"][1001]), int(t["time_msc"][1001]))):
                fetch, _ = self.fetcher()
                # window rows + the rows of the edge millisecond already sent (40 at most)
                self.check(series.ticks_range(fetch, lo, hi, window), self.expected_range(lo, hi), max_rows=window)

    def test_quirks_early_rows_and_partial_replies(self):
        t = self.ticks
        lo, hi = int(t["time_msc"][5]) + 1, int(t["time_msc"][-3])
        # cut replies still hold new rows (4 early + up to 40 edge rows + 6): a short reply with
        # nothing new is, by design, the end of the data.
        fetch, calls = self.fetcher(early=4, partial=50)
        self.check(series.ticks_range(fetch, lo, hi, 9), self.expected_range(lo, hi), max_rows=9)
        self.assertGreater(len(calls), 50)

    def test_whole_second_dates_cost_one_call_per_window(self):
        t = self.ticks  # ~430 rows per second: every window starts mid-second
        for window in (1, 7, 64):
            for lo_i, hi_i in ((0, len(t) - 1), (100, 1010), (1001, 1001)):
                lo, hi = int(t["time_msc"][lo_i]), int(t["time_msc"][hi_i])
                expected = self.expected_range(lo, hi)
                fetch, calls = self.fetcher(resolution=1000)
                got = self.check(series.ticks_range(fetch, lo, hi, window, 1000), expected, max_rows=window)
                # the first call may retry larger, doubling, as what precedes lo in its second is
                # unknown (at most ~430 rows: <= 10 retries); then one call per window, and one
                # more that finds the end. (Without the lead count every window would retry.)
                self.assertLessEqual(len(calls), len(got) + 1 + 10, (window, lo_i, hi_i))
            fetch, calls = self.fetcher(resolution=1000)
            lo = int(t["time_msc"][995])
            i = int(np.searchsorted(t["time_msc"], lo))
            got = self.check(series.ticks_from(fetch, lo, 205, window, 1000), t[i:i + 205], max_rows=window)
            self.assertLessEqual(len(calls), len(got) + 10)

    def test_full_reply_of_old_rows_is_retried_larger(self):
        t = self.ticks
        lo, hi = int(t["time_msc"][990]), int(t["time_msc"][-1])
        fetch, calls = self.fetcher(early=30)  # 30 early rows fill a 9-row reply
        self.check(series.ticks_range(fetch, lo, hi, 9), self.expected_range(lo, hi))

    def test_ticks_from_count(self):
        t = self.ticks
        lo = int(t["time_msc"][995])
        for count in (0, 1, 10, 45, 205, 10 ** 6):
            fetch, _ = self.fetcher()
            i = int(np.searchsorted(t["time_msc"], lo))
            self.check(series.ticks_from(fetch, lo, count, 7), t[i:i + count], max_rows=7)

    def test_rates_windows_neither_overlap_nor_miss(self):
        times = 1704067200 + np.arange(500) * 60
        rates = np.zeros(500, dtype=series.RATE_DTYPE)
        rates["time"] = times

        def fetch(a, b):  # replies with one extra bar before a (quirk) and fails beyond history
            i, j = int(np.searchsorted(times, a)), int(np.searchsorted(times, b, side="right"))
            return rates[max(0, i - 1):j].copy() if j > 0 else None
        got = list(series.rates_range(fetch, 1, int(times[0]) - 3600, int(times[-1]) + 3600, 7))
        self.assertEqual(np.concatenate(got).tobytes(), rates.tobytes())


if __name__ == "__main__":
    unittest.main()


class ReadAhead(unittest.TestCase):
    """connection._ReadAhead: the next window is fetched while this one is sent, one ahead at most,
    and a failure is raised where the series would have met it."""

    def windows(self, n, fail_at=None, log=None):
        for i in range(n):
            if log is not None:
                log.append(("fetch", i))
            if i == fail_at:
                raise errors.BridgeError(errors.CALL_FAILED, -1, "window %d failed" % i)
            time.sleep(0.01)
            yield i

    def test_in_order_and_never_more_than_one_ahead(self):
        from tradeapi_bridge.connection import _ReadAhead
        log = []
        it = self.windows(5, log=log)
        first = next(it)  # as _series does: the first window before HEAD
        ahead = _ReadAhead(it)
        got = [first]
        while True:
            time.sleep(0.05)  # a slow consumer: the reader must wait, not run on
            fetched = len(log)
            self.assertLessEqual(fetched - len(got), 1, log)
            item = ahead.next()
            if item is None:
                break
            got.append(item)
        self.assertEqual(got, [0, 1, 2, 3, 4])

    def test_a_failure_comes_after_the_windows_before_it(self):
        from tradeapi_bridge.connection import _ReadAhead
        it = self.windows(5, fail_at=2)
        self.assertEqual(next(it), 0)
        ahead = _ReadAhead(it)
        self.assertEqual(ahead.next(), 1)
        with self.assertRaises(errors.BridgeError) as cm:
            ahead.next()
        self.assertIn("window 2 failed", cm.exception.message)

    def test_close_ends_the_reader(self):
        from tradeapi_bridge.connection import _ReadAhead
        before = threading.active_count()
        it = self.windows(100)
        next(it)
        ahead = _ReadAhead(it)
        self.assertEqual(ahead.next(), 1)
        ahead.close()
        deadline = time.monotonic() + 2
        while threading.active_count() > before and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual(threading.active_count(), before)
