"""Units: the constants and record shapes against the MetaTrader5 stand-in (whose constants come
from the real wheel), the clock's conversions, 429 answers retried after their Retry-After, and the
lean HTTP connection (_wire) against canned answers: lengths, chunks, close-delimited bodies, event
lines across chunks, 1xx, a keep-alive connection the server closed, cut bodies."""
import http.client
import http.server
import json
import socket
import threading
import time
import unittest

import harness
import tradeapi_client.mt5 as mt5
from tradeapi_client import _constants
from tradeapi_client._time import Clock

ref = harness.reference_module()


class Shapes(unittest.TestCase):
    def test_every_constant(self):
        names = [n for n in dir(ref) if n.isupper() and not n.startswith("_") and not n.endswith("_DTYPE")]
        self.assertGreater(len(names), 200)
        for n in names:
            self.assertEqual(getattr(mt5, n), getattr(ref, n), n)
        self.assertEqual(set(_constants.NAMES), set(names))
        self.assertEqual(mt5.__version__, ref.__version__)

    def test_records(self):
        for name in ("AccountInfo", "TerminalInfo", "SymbolInfo", "Tick", "BookInfo", "TradeOrder", "TradePosition",
                     "TradeDeal", "TradeRequest", "OrderCheckResult", "OrderSendResult"):
            mine, theirs = getattr(mt5, name), getattr(ref, name)
            self.assertEqual(mine.__match_args__, theirs.__match_args__, name)
            r = mine(range(mine.n_fields))
            self.assertEqual(list(r._asdict()), list(theirs.__match_args__))
            self.assertFalse(hasattr(r, "_fields") or hasattr(r, "_replace"))

    def test_real_signatures(self):
        import inspect
        sig = inspect.signature(mt5.copy_ticks_range)
        self.assertEqual(list(sig.parameters), ["symbol", "date_from", "date_to", "flags"])
        self.assertTrue(all(p.kind == p.POSITIONAL_ONLY for p in sig.parameters.values()))
        self.assertEqual(sig.return_annotation, "Optional[Series]")
        enable = inspect.signature(mt5.symbol_select).parameters["enable"]
        self.assertEqual((enable.default, enable.annotation), (True, "bool"))
        self.assertEqual(mt5.Tick.__annotations__["bid"], "float")
        with self.assertRaises(AttributeError):
            mt5.Tick(range(8)).bid = 1.0  # read-only, as the real records

    def test_functions(self):
        for name in mt5.FUNCTIONS:
            self.assertTrue(callable(getattr(mt5, name)), name)
            self.assertTrue(callable(getattr(ref, name)), name)


class Clocks(unittest.TestCase):
    # EU+2: +2 h, +3 h from 2024-03-31 01:00Z to 2024-10-27 01:00Z
    table = [[0, 7200], [1711846800, 10800], [1729990800, 7200]]

    def test_out_and_back(self):
        c = Clock(self.table)
        for utc in (1711846799, 1711846800, 1729990799, 1729994400, 1700000000):
            server = c.out(utc, 1000)
            self.assertEqual(c.arg(server), utc)
            self.assertEqual(c.out(utc * 1000 + 5, 1), server * 1000 + 5)
        self.assertEqual(c.out(0, 1000), 0)
        import numpy as np
        col = np.array([0, 1711846799, 1711846800], np.int64)
        c.out_column(col, 1000)
        self.assertEqual(col.tolist(), [0, 1711846799 + 7200, 1711846800 + 10800])
        # The hour repeated in October: a server stamp in it is read as the earlier instant.
        self.assertEqual(c.arg(1729990800 + 7200 + 1800), 1729990800 - 1800)

    def test_inactive(self):
        self.assertEqual(Clock([]).out(5, 1000), 5)
        self.assertEqual(Clock(self.table, to_server=False).out(5, 1000), 5)


class Busy(unittest.TestCase):
    SERVER_TIME = (200, b'{"utc": true, "zone": "UTC", "transitions": []}', {})

    def serve(self, answer):
        """A gateway stand-in on loopback: answer(path) -> (status, body bytes, headers) for each GET."""
        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                status, raw, headers = answer(self.path)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *a):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.addCleanup(mt5.shutdown)
        return "http://127.0.0.1:%d" % server.server_port

    def test_429_is_retried_within_the_timeout(self):
        hits = []

        def answer(path):
            hits.append(time.monotonic())
            if path.endswith("/server-time"):
                return self.SERVER_TIME
            if len(hits) < 4:
                body = {"type": "/errors/rate-limit-exceeded", "status": 429, "detail": "slow down"}
                return 429, json.dumps(body).encode(), {"Retry-After": "0"}
            return 200, b'{"total": 7}', {}

        self.assertTrue(mt5.initialize(url=self.serve(answer) + "/api/v1", timeout=5000))
        self.assertEqual(mt5.symbols_total(), 7)
        self.assertEqual(len(hits), 4)

    def test_429_past_the_timeout_says_rate_limited_and_when_to_retry(self):
        def answer(path):
            if path.endswith("/server-time"):
                return self.SERVER_TIME
            if path.endswith("/symbols/total"):
                body = {"type": "/errors/rate-limit-exceeded", "status": 429, "detail": "60 requests per minute"}
                return 429, json.dumps(body).encode(), {"Retry-After": "30"}
            body = {"type": "/errors/too-many-streams", "status": 503, "detail": "2 streams at once"}
            return 503, json.dumps(body).encode(), {"Retry-After": "7"}

        self.assertTrue(mt5.initialize(url=self.serve(answer), timeout=2000))
        started = time.monotonic()
        self.assertIsNone(mt5.symbols_total())
        self.assertLess(time.monotonic() - started, 1.5 + harness.LOADED_MACHINE_SLACK)  # not a wait of 30 s
        code, text = mt5.last_error()
        self.assertEqual(code, -10005)
        self.assertEqual(text, "IPC timeout: the gateway's rate limit refused the call (429: 60 requests per "
                               "minute); retry after 30 s")
        self.assertIsNone(mt5.copy_ticks_range("EURUSD", 0, 10, mt5.COPY_TICKS_ALL))
        self.assertEqual(mt5.last_error(), (-10005, "IPC timeout: the gateway is busy (503 too-many-streams: "
                                                     "2 streams at once); retry after 7 s"))

    def test_a_proxys_429_without_a_problem_type_is_retried_too(self):
        hits = []

        def answer(path):
            if path.endswith("/server-time"):
                return self.SERVER_TIME
            if path.endswith("/symbols/total"):
                hits.append(1)
                # nginx's limit_req answer: HTML, no Retry-After (the client waits 1 s)
                if len(hits) < 2:
                    return 429, b"<html><body>429 Too Many Requests</body></html>", {"Content-Type": "text/html"}
                return 200, b'{"total": 3}', {}
            return 429, b"<html>429</html>", {"Content-Type": "text/html", "Retry-After": "30"}

        url = self.serve(answer)
        self.assertTrue(mt5.initialize(url=url, timeout=60000))
        self.assertEqual(mt5.symbols_total(), 3)
        self.assertEqual(len(hits), 2, "refused once, then answered")
        mt5.shutdown()
        self.assertTrue(mt5.initialize(url=url, timeout=2000))
        self.assertIsNone(mt5.symbol_info("EURUSD"))
        self.assertEqual(mt5.last_error(), (-10005, "IPC timeout: a rate limit in front of the gateway refused "
                                                     "the call (429); retry after 30 s"))


class NameResolution(unittest.TestCase):
    """getaddrinfo has no timeout of its own: a dead resolver must not hold a call past its deadline."""

    def test_a_resolver_that_never_answers_fails_the_call_by_its_timeout(self):
        import socket
        real = socket.getaddrinfo
        release = threading.Event()
        asked = []

        def stuck(host, *args, **kwargs):
            if host == "gateway.example":
                asked.append(host)
                release.wait(60)
                raise socket.gaierror(-3, "Temporary failure in name resolution")
            return real(host, *args, **kwargs)

        socket.getaddrinfo = stuck
        self.addCleanup(setattr, socket, "getaddrinfo", real)
        self.addCleanup(release.set)
        started = time.monotonic()
        self.assertFalse(mt5.initialize(url="http://gateway.example:8000", timeout=500))
        self.assertLess(time.monotonic() - started, 0.5 + harness.LOADED_MACHINE_SLACK)
        self.assertEqual(mt5.last_error()[0], -10005, mt5.last_error())
        self.assertEqual(asked, ["gateway.example"])

    def test_address_literals_and_names_resolve(self):
        from tradeapi_client._wire import resolve
        self.assertEqual(resolve("127.0.0.1", 80, 1.0)[0][4], ("127.0.0.1", 80))
        self.assertTrue(resolve("localhost", 80, 5.0))


class Canned(object):
    """A loopback server that answers each connection's requests with the next canned bytes (one
    per request, or a list of pieces sent apart; None closes the connection there), recording the
    requests' heads."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.heads = []
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while self.answers:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            with sock:
                buf = b""
                while self.answers:
                    while b"\r\n\r\n" not in buf:
                        data = sock.recv(65536)
                        if not data:
                            break
                        buf += data
                    if b"\r\n\r\n" not in buf:
                        break
                    head, _, buf = buf.partition(b"\r\n\r\n")
                    self.heads.append(head.decode("latin-1"))
                    answer = self.answers.pop(0)
                    pieces = answer if isinstance(answer, list) else [answer]
                    for piece in pieces:
                        if piece is None:
                            break
                        sock.sendall(piece)
                        time.sleep(0.01)  # pieces arrive apart: the parser must join them
                    if None in pieces:
                        break  # the connection closes here

    def close(self):
        self.listener.close()


class Wire(unittest.TestCase):
    def connect(self, *answers):
        from tradeapi_client._wire import Connection
        server = Canned(answers)
        self.addCleanup(server.close)
        conn = Connection("127.0.0.1", server.port, 5.0)
        self.addCleanup(conn.close)
        return server, conn

    def test_lengths_chunks_and_keep_alive(self):
        body = bytes(range(256)) * 40
        chunked = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in (body[:1000], body[1000:1001], body[1001:]))
        server, conn = self.connect(
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\nX-A: 2\r\n\r\nhello",
            [b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", chunked[:7], chunked[7:2000],
             chunked[2000:] + b"0\r\nTrailer: x\r\n\r\n"],
            b"HTTP/1.1 204 No Content\r\n\r\n")
        conn.request("GET", "/a", headers={"Accept": "application/json"})
        r = conn.getresponse()
        self.assertEqual((r.status, r.reason, r.getheader("x-a"), r.read()), (200, "OK", "1, 2", b"hello"))
        self.assertIn("GET /a HTTP/1.1", server.heads[0])
        self.assertIn("Accept: application/json", server.heads[0])
        conn.request("POST", "/b", body=b"{}")
        r = conn.getresponse()
        out = bytearray(len(body) + 10)
        view, n = memoryview(out), 0
        while True:
            got = r.readinto(view[n:n + 3000])
            if not got:
                break
            n += got
        self.assertEqual(bytes(out[:n]), body)
        self.assertIn("Content-Length: 2", server.heads[1])
        conn.request("GET", "/c")
        r = conn.getresponse()
        self.assertEqual((r.status, r.read()), (204, b""))
        self.assertEqual(len(server.heads), 3)  # one connection for all three

    def test_event_lines_and_close_delimited(self):
        events = b"event: tick\ndata: {}\n\n: keep-alive\n"
        server, conn = self.connect(
            [b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nevent:\r\n",
             b"%x\r\n%s\r\n0\r\n\r\n" % (len(events) - 6, events[6:])],
            b"HTTP/1.0 200 OK\r\n\r\nuntil the end")
        conn.request("GET", "/events")
        r = conn.getresponse()
        lines = []
        while True:
            line = r.readline()
            if not line:
                break
            lines.append(line)
        self.assertEqual(b"".join(lines), events)
        self.assertEqual(lines[0], b"event: tick\n")
        conn.request("GET", "/old")
        r = conn.getresponse()
        self.assertEqual(r.read(), b"until the end")
        self.assertIsNone(conn.sock)  # close-delimited: the connection is done

    def test_closed_keep_alive_and_cut_bodies(self):
        server, conn = self.connect(None)
        conn.request("GET", "/stale")
        with self.assertRaises(http.client.RemoteDisconnected):
            conn.getresponse()
        server, conn = self.connect([b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", None])  # cut
        conn.request("GET", "/cut")
        r = conn.getresponse()
        with self.assertRaises(http.client.IncompleteRead):
            r.read()

    def test_a_cut_series_is_a_receive_failure(self):
        import numpy as np
        from tradeapi_client._errors import Fail
        from tradeapi_client._http import Gateway
        rows = np.zeros(3, [("a", "<i8"), ("b", "<u4")])
        good = rows.tobytes()
        server = Canned([[b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                          b"%x\r\n%s\r\n0\r\n\r\n" % (len(good), good)],
                         [b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                          b"%x\r\n%s" % (len(good), good[:20]), None]])
        self.addCleanup(server.close)
        g = Gateway("http://127.0.0.1:%d" % server.port, timeout=5)
        self.addCleanup(g.close)
        resp, conn = g.open("GET", "/ticks", accept="application/vnd.tradeapi.packed")
        self.assertEqual(g.read_into_array(resp, conn, rows.dtype).tobytes(), good)
        resp, conn = g.open("GET", "/ticks", accept="application/vnd.tradeapi.packed")
        with self.assertRaises(Fail) as cm:
            g.read_into_array(resp, conn, rows.dtype)
        self.assertEqual(cm.exception.code, -10002)


if __name__ == "__main__":
    unittest.main()
