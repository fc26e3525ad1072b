"""Connections that have not authenticated (issue 22 item 9): an impostor without the secret must
neither make the bridge allocate what a frame header declares nor keep the real gateway out, and
an idle or trickling one is dropped when the handshake deadline passes. Real bridge processes over
the stand-in; memory is read from /proc/<pid>/status (Linux)."""
import json
import socket
import time
import unittest

import harness
from harness import Bridge, connect, wait_until
from tradeapi_bridge import auth, frames
from tradeapi_bridge.client import RemoteError

HANDSHAKE_LIMIT = 4096  # docs/bridge-protocol.md §2: the largest frame accepted before AUTH_OK
DEFAULT_UNAUTHENTICATED = 16  # --max-unauthenticated's default


def status_kib(pid, field):
    """VmRSS (now) or VmHWM (peak) of a process, in KiB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError("no %s in /proc/%d/status" % (field, pid))


def closed_within(s, seconds):
    """True once the bridge has closed s (anything it sends before the close is discarded),
    False if it is still open after `seconds`."""
    deadline = time.monotonic() + seconds
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            s.settimeout(left)
            if not s.recv(65536):
                return True
    except socket.timeout:
        return False
    except OSError:  # reset: closed too
        return True


class Base(unittest.TestCase):
    ARGS = ()

    def setUp(self):
        harness.module()
        self.bridge = Bridge(*self.ARGS, hooked=False)  # the bridge process itself: its pid is what /proc shows
        self.addCleanup(self.bridge.stop)
        self.bridge.wait_event("terminal_connected")

    def raw(self):
        s = socket.create_connection(("127.0.0.1", self.bridge.port), timeout=10)
        self.addCleanup(s.close)
        return s

    def client(self, timeout=10.0):
        c = connect(self.bridge, timeout=timeout)
        self.addCleanup(c.close)
        return c


class Impostors(Base):
    def test_huge_declared_frames_cost_no_memory_and_are_closed_at_once(self):
        # The figure: 70 connections, each an AUTH header declaring 16 MiB, took the
        # bridge from 116 MB to 1.12 GB within 2 s.
        pid = self.bridge.proc.pid
        before = status_kib(pid, "VmRSS")
        socks = []
        for _ in range(70):
            s = self.raw()
            try:
                s.sendall(frames.HEADER.pack(b"TB", 1, frames.AUTH, 0, 0, 0, frames.MAX_PAYLOAD) + b"{" * 1000)
            except OSError:
                pass  # already closed: fine
            socks.append(s)
        time.sleep(1.0)  # what the bridge needed to allocate most of it
        peak = status_kib(pid, "VmHWM")
        self.assertLess(peak - before, 48 * 1024,
                        "RSS %d MiB -> peak %d MiB without the secret" % (before // 1024, peak // 1024))
        still_open = [i for i, s in enumerate(socks) if not closed_within(s, 3.0 if i == 0 else 0.05)]
        self.assertEqual(still_open, [], "connections left open after an oversized pre-auth frame")
        self.assertEqual(self.client().call("bridge_status")["terminal_connected"], True)
        self.bridge.wait_event("connection_dropped", lambda e: "exceeds" in e["reason"])

    def test_a_frame_over_the_handshake_limit_is_refused_and_one_at_the_limit_is_served(self):
        s = self.raw()
        self.assertEqual(frames.read_frame(s).type, frames.HELLO)
        s.sendall(frames.HEADER.pack(b"TB", 1, frames.AUTH, 0, 0, 0, HANDSHAKE_LIMIT + 1))
        self.assertTrue(closed_within(s, 2.0), "a %d-byte AUTH was waited for" % (HANDSHAKE_LIMIT + 1))
        self.bridge.wait_event("connection_dropped", lambda e: "exceeds the %d-byte" % HANDSHAKE_LIMIT in e["reason"])

        # A real AUTH padded with JSON whitespace to exactly the limit still authenticates: the
        # limit is inclusive and far above the gateway's AUTH (see the next test).
        s = self.raw()
        hello = frames.decode_json(frames.read_frame(s))
        ns, nc = bytes.fromhex(hello["nonce"]), auth.new_nonce()
        body = json.dumps({"protocol": 2, "nonce": nc.hex(),
                           "mac": auth.client_proof(harness.SECRET.encode(), ns, nc).hex()}).encode()
        frames.send_frame(s, frames.AUTH, 0, body + b" " * (HANDSHAKE_LIMIT - len(body)))
        reply = frames.read_frame(s)
        self.assertEqual(reply.type, frames.AUTH_OK)
        self.assertEqual(frames.decode_json(reply)["mac"], auth.server_proof(harness.SECRET.encode(), ns, nc).hex())

    def test_the_gateways_auth_fits_the_limit_many_times_over(self):
        # binding/bridge/bridge_terminal.cpp sends nlohmann::json{{"protocol",2},{"nonce",..},{"mac",..},
        # {"compression",..}}.dump(): keys sorted, no spaces.
        cpp = json.dumps({"compression": "zstd", "mac": "ab" * 32, "nonce": "cd" * 32, "protocol": 2},
                         separators=(",", ":"), sort_keys=True)
        self.assertEqual(len(cpp), 183)
        self.assertLess(len(cpp) * 20, HANDSHAKE_LIMIT)

    def test_a_full_unauthenticated_pool_does_not_keep_the_gateway_out(self):
        working = self.client()  # authenticated before the impostors came
        impostors = [self.raw() for _ in range(70)]  # more than --max-connections (64): idle, silent
        time.sleep(0.3)
        t0 = time.monotonic()
        late = self.client(timeout=5.0)  # the gateway (re)connecting while they sit there
        self.assertLess(time.monotonic() - t0, 2.0)
        self.assertEqual(late.call("bridge_status")["terminal_connected"], True)
        self.assertEqual(working.call("bridge_status")["terminal_connected"], True)
        # The oldest waiting handshakes made room: no more than the pool is still held.
        still_open = sum(1 for s in impostors if not closed_within(s, 0.02))
        self.assertLessEqual(still_open, DEFAULT_UNAUTHENTICATED)
        self.bridge.wait_event("handshake_evicted")


class AuthenticatedCap(Base):
    ARGS = ("--max-connections", "2")

    def test_max_connections_counts_authenticated_connections_only(self):
        a, b = self.client(), self.client()
        impostors = [self.raw() for _ in range(4)]  # noqa: F841  (held open: they must not count)
        with self.assertRaises(RemoteError) as cm:
            self.client()  # a third authenticated one: told why, not just closed
        self.assertEqual(cm.exception.kind, "unavailable")
        self.assertIn("--max-connections", cm.exception.message)
        a.close()
        c = wait_until(lambda: self._try_client(), timeout=5)
        self.assertEqual(c.call("bridge_status")["terminal_connected"], True)
        self.assertEqual(b.call("bridge_status")["terminal_connected"], True)

    def test_impostors_do_not_take_authenticated_slots(self):
        impostors = [self.raw() for _ in range(4)]  # noqa: F841  (twice --max-connections)
        time.sleep(0.2)
        a, b = self.client(timeout=5.0), self.client(timeout=5.0)
        self.assertEqual(a.call("bridge_status")["terminal_connected"], True)
        self.assertEqual(b.call("bridge_status")["terminal_connected"], True)

    def _try_client(self):
        try:
            return self.client(timeout=5.0)
        except RemoteError:
            return None


class HandshakeDeadline(Base):
    ARGS = ("--handshake-timeout", "1")

    def test_idle_and_trickling_impostors_are_dropped_at_the_deadline(self):
        idle = self.raw()
        trickle = self.raw()
        self.assertEqual(frames.read_frame(trickle).type, frames.HELLO)
        t0 = time.monotonic()
        # One byte every 0.2 s: each recv() returns well within any per-read timeout, but the
        # handshake as a whole does not finish within 1 s.
        head = frames.HEADER.pack(b"TB", 1, frames.AUTH, 0, 0, 0, 200)
        closed_at = None
        for i in range(len(head)):
            try:
                trickle.sendall(head[i:i + 1])
            except OSError:
                break
            if closed_within(trickle, 0.2):
                break
        closed_at = time.monotonic() - t0
        self.assertLess(closed_at, 2.5, "a trickling handshake was kept %.1f s" % closed_at)
        self.assertGreater(closed_at, 0.7)
        self.assertTrue(closed_within(idle, 1.0))
        self.bridge.wait_event("connection_dropped", lambda e: "handshake" in e["reason"])
        self.assertEqual(self.client().call("bridge_status")["terminal_connected"], True)


if __name__ == "__main__":
    unittest.main()
