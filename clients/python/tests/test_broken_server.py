"""Every function of tradeapi_client.mt5 that talks to the gateway, against a deliberately broken
server on loopback (issue 33): answers dripped one byte at a time (head, 1xx, body by length or by
chunks), endless bodies, negative, malformed and huge lengths, huge and negative chunk sizes, a huge
declared series, redirects with and without bodies, 101 and 204, garbage, JSON nested past
recursion, bodies of the wrong shape, broken problem bodies, answers cut short and connections
closed unanswered.

Each call must return the package's failure value (None, or False) with a failure code in
last_error() — -10005 for a deadline, -10002 for what is cut, malformed, too long or a redirect —
never raise. For the dripping cases the server notes when the client closed the connection: after
the client's deadline (the call's start + timeout; for a series body, the head's arrival + timeout,
as nothing close to 64 KiB arrives) and before that deadline + LOADED_MACHINE_SLACK, the suite's one
allowance. A redirect is never followed: the server it points to sees no connection.

The server gives up on a client that has not closed by then (it closes itself and notes it), so
the test ends in bounded time against a client that never would. Calls run in waves: initialize
against the broken server; then, after a good initialize, every other function at once (threads:
the deadline cases take one timeout, not thirty), login alone (its request is account_info's).
Besides: a series slower than the timeout but above the minimum rate is not cut; connect is bounded;
the new bounds and the key are checked as arguments."""
import random
import select
import socket
import threading
import time
import unittest

import harness
import tradeapi_client.mt5 as mt5

SLACK = harness.LOADED_MACHINE_SLACK
T = 0.3  # the client's timeout in the deadline cases, seconds
DRIP = T / 6  # one byte (or one 1xx answer) every DRIP: each receive alone would never time out
LONG = 2 * SLACK  # the client's timeout where a deadline must not be what ends the call
MAX_JSON = 1 << 16  # max_json_bytes in the endless cases (elsewhere the defaults)
MAX_SERIES = 1 << 18  # max_series_bytes there
ENDLESS_CAP = 32 << 20  # an endless body stops here: far past the bounds and the kernel's buffers
KEY = "test-key-0123"
A, B = 1700000000, 1700086400  # two dates (seconds)

PACKED = "application/vnd.tradeapi.packed"


def _calls():
    """(name, call, failure value, (path, token)): the request a call makes is the one whose path
    is ``path`` and whose target holds ``token`` (unique within a wave)."""
    H1, ALL = mt5.TIMEFRAME_H1, mt5.COPY_TICKS_ALL
    buy = mt5.ORDER_TYPE_BUY
    request = {"action": mt5.TRADE_ACTION_DEAL, "symbol": "S_check", "volume": 0.1, "type": buy, "price": 1.1}
    return [
        ("version", mt5.version, None, ("/version", None)),
        ("terminal_info", mt5.terminal_info, None, ("/terminal", None)),
        ("account_info", mt5.account_info, None, ("/account", None)),
        ("symbols_total", mt5.symbols_total, None, ("/symbols/total", None)),
        ("symbols_get", lambda: mt5.symbols_get(group="G_symbols"), None, ("/symbols", "G_symbols")),
        ("symbol_info", lambda: mt5.symbol_info("S_info"), None, ("/symbols/S_info", None)),
        ("symbol_info_tick", lambda: mt5.symbol_info_tick("S_tick"), None, ("/symbols/S_tick/tick", None)),
        ("symbol_select", lambda: mt5.symbol_select("S_select", True), False, ("/symbols/S_select/select", None)),
        ("market_book_add", lambda: mt5.market_book_add("S_add"), False, ("/market-book/S_add/subscribe", None)),
        ("market_book_release", lambda: mt5.market_book_release("S_rel"), False,
         ("/market-book/S_rel/unsubscribe", None)),
        ("market_book_get", lambda: mt5.market_book_get("S_book"), None, ("/market-book/S_book", None)),
        ("copy_rates_from", lambda: mt5.copy_rates_from("S_rf", H1, A, 10), None, ("/rates/from", None)),
        ("copy_rates_from_pos", lambda: mt5.copy_rates_from_pos("S_rp", H1, 0, 10), None, ("/rates/from-pos", None)),
        ("copy_rates_range", lambda: mt5.copy_rates_range("S_rr", H1, A, B), None, ("/rates/range", None)),
        ("copy_ticks_from", lambda: mt5.copy_ticks_from("S_tf", A, 10, ALL), None, ("/ticks/from", None)),
        ("copy_ticks_range", lambda: mt5.copy_ticks_range("S_tr", A, B, ALL), None, ("/ticks/range", None)),
        ("orders_total", mt5.orders_total, None, ("/orders/total", None)),
        ("orders_get", lambda: mt5.orders_get(symbol="S_orders"), None, ("/orders", None)),
        ("order_calc_margin", lambda: mt5.order_calc_margin(buy, "S_margin", 1.0, 1.1), None, ("/calc/margin", None)),
        ("order_calc_profit", lambda: mt5.order_calc_profit(buy, "S_profit", 1.0, 1.1, 1.2), None,
         ("/calc/profit", None)),
        ("order_check", lambda: mt5.order_check(request), None, ("/order/check", None)),
        ("positions_total", mt5.positions_total, None, ("/positions/total", None)),
        ("positions_get", lambda: mt5.positions_get(symbol="S_positions"), None, ("/positions", "S_positions")),
        ("history_orders_total", lambda: mt5.history_orders_total(A, B), None, ("/history/orders/total", None)),
        ("history_orders_get", lambda: mt5.history_orders_get(A, B, group="G_ho"), None, ("/history/orders", None)),
        ("history_deals_total", lambda: mt5.history_deals_total(A, B), None, ("/history/deals/total", None)),
        ("history_deals_get", lambda: mt5.history_deals_get(position=7), None, ("/history/deals", None)),
        # The package's helpers: they read the market (or the positions) first.
        ("Buy", lambda: mt5.Buy("S_buy", 0.1), None, ("/symbols/S_buy/tick", None)),
        ("Sell", lambda: mt5.Sell("S_sell", 0.1), None, ("/symbols/S_sell/tick", None)),
        ("Close", lambda: mt5.Close("S_close"), None, ("/positions", "S_close")),
    ]


TALKING = set(mt5.FUNCTIONS) - {"last_error", "shutdown", "order_send"}  # order_send never talks (-7)


class Request(object):
    def __init__(self, target, headers, series):
        self.target = target
        self.path = target.split("?", 1)[0]
        self.headers = headers
        self.series = series  # the client asked for packed rows
        self.received = time.monotonic()
        self.head_sent = None  # when the server had sent a head before dripping the body
        self.closed = None  # when the server saw the client close the connection
        self.gave_up = False  # the server ended the connection itself (the client had not)
        self.sent = 0


class BrokenServer(object):
    """Answers /server-time well when ``spare`` (so that initialize works), every other request
    with ``behaviour(server, sock, request)``, which returns True to keep the connection."""

    def __init__(self, behaviour, spare):
        self.behaviour = behaviour
        self.spare = spare
        self.requests = []
        self.threads = []
        self.lock = threading.Lock()
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(128)
        self.port = self.listener.getsockname()[1]
        self.url = "http://127.0.0.1:%d" % self.port
        self.acceptor = threading.Thread(target=self._accept, daemon=True)
        self.acceptor.start()

    def _accept(self):
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            t = threading.Thread(target=self._serve, args=(sock,), daemon=True)
            with self.lock:
                self.threads.append(t)
            t.start()

    def _serve(self, sock):
        with sock:
            sock.settimeout(T + SLACK)  # a server-side bound on every operation: the test ends
            buf = b""
            while True:
                try:
                    while b"\r\n\r\n" not in buf:
                        data = sock.recv(65536)
                        if not data:
                            return
                        buf += data
                    head, _, buf = buf.partition(b"\r\n\r\n")
                    lines = head.decode("latin-1").split("\r\n")
                    headers = dict((k.strip().lower(), v.strip()) for k, _, v in (h.partition(":") for h in lines[1:]))
                    length = int(headers.get("content-length", "0"))
                    while len(buf) < length:
                        data = sock.recv(65536)
                        if not data:
                            return
                        buf += data
                except OSError:
                    return
                buf = buf[length:]
                req = Request(lines[0].split(" ")[1], headers, PACKED in headers.get("accept", ""))
                with self.lock:
                    self.requests.append(req)
                if self.spare and req.path == "/server-time":
                    answer(sock, 200, b'{"utc":false,"zone":null,"transitions":[]}')
                    continue
                try:
                    if not self.behaviour(self, sock, req):
                        return
                except OSError:
                    return

    def close(self):
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() (close alone does not)
        except OSError:
            pass
        self.listener.close()
        self.acceptor.join(SLACK)
        assert not self.acceptor.is_alive(), "the accepting thread did not end"
        with self.lock:
            threads = list(self.threads)
        for t in threads:
            t.join(T + 2 * SLACK)  # each ends when its client closes, or gives up at T + SLACK
            assert not t.is_alive(), "a server thread outlived its bound"


def answer(sock, status, body, content_type="application/json", extra=""):
    sock.sendall(b"HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %d\r\n%s\r\n"
                 % (status, content_type.encode(), len(body), extra.encode()) + body)
    return True


def _watch(sock, req, wait):
    """Waits up to ``wait`` for the client to close; True (and req.closed set) when it has."""
    r, _, _ = select.select([sock], [], [], wait)
    if not r:
        return False
    try:
        data = sock.recv(65536)
    except OSError:
        data = b""
    if data:
        return False  # not expected (a request while the answer runs): keep going
    req.closed = time.monotonic()
    return True


def drip(sock, req, prefix, unit):
    """Sends ``prefix`` and then ``unit`` every DRIP until the client closes, or gives up at the
    start + T + SLACK (the latest a client may close)."""
    # Stamped before the head goes out: the client cannot start its body deadline earlier, while a
    # stamp after sendall() may come late when this thread is descheduled (seen at load 16).
    start = req.head_sent = time.monotonic()
    if prefix:
        sock.sendall(prefix)
    while True:
        if _watch(sock, req, DRIP):
            return False
        if time.monotonic() > start + T + SLACK:
            req.gave_up = True
            return False
        try:
            sock.sendall(unit)
        except OSError:
            req.closed = time.monotonic()
            return False


def endless(sock, req, head, piece):
    """Sends ``head`` and then ``piece`` after piece, as fast as the client takes them, until it
    closes; gives up at ENDLESS_CAP bytes (or when the client takes none for T + SLACK)."""
    sock.sendall(head)
    while req.sent < ENDLESS_CAP:
        try:
            sock.sendall(piece)
        except socket.timeout:  # the client took nothing for T + SLACK, yet kept the connection
            req.gave_up = True
            return False
        except OSError:  # reset, broken pipe: the client closed
            req.closed = time.monotonic()
            return False
        req.sent += len(piece)
    req.gave_up = True
    return False


def series_head(extra=""):
    return ("HTTP/1.1 200 OK\r\nContent-Type: %s\r\n%s\r\n" % (PACKED, extra)).encode()


def json_head(extra="", status=200):
    return ("HTTP/1.1 %d X\r\nContent-Type: application/json\r\n%s\r\n" % (status, extra)).encode()


def head_for(req, extra=""):
    return series_head(extra) if req.series else json_head(extra)


# ---------------------------------------------------------------------------- the misbehaviours
# Each: (name, behaviour, expected code, deadline kind). Deadline kinds: "call" (the client must
# close at the call's start + T), "body" (a series body: at the head's arrival + T; a JSON body:
# the call's start + T), None (not a deadline case: the client's timeout is LONG).

def drip_head(server, sock, req):
    return drip(sock, req, b"HTTP/1.1 200 OK\r\nX-Drip: ", b"a")


def drip_1xx(server, sock, req):
    return drip(sock, req, None, b"HTTP/1.1 100 Continue\r\n\r\n")


def drip_body_length(server, sock, req):
    # Lengths within the bounds (10 rows asked for; max_json_bytes): only time can end these.
    length = 600 if req.series else MAX_JSON - 1
    return drip(sock, req, head_for(req, "Content-Length: %d\r\n" % length), b"\0" if req.series else b" ")


def drip_body_chunks(server, sock, req):
    return drip(sock, req, head_for(req, "Transfer-Encoding: chunked\r\n"), b"1\r\n\0\r\n" if req.series else b"1\r\n \r\n")


def endless_body(server, sock, req):
    piece = (b"\0" * 60 if req.series else b" ") * 1024
    return endless(sock, req, head_for(req, "Transfer-Encoding: chunked\r\n"), b"%x\r\n%s\r\n" % (len(piece), piece))


def endless_problem(server, sock, req):
    piece = b" " * 65536
    return endless(sock, req, json_head("Transfer-Encoding: chunked\r\n", 500), b"%x\r\n%s\r\n" % (len(piece), piece))


def negative_length(server, sock, req):
    sock.sendall(head_for(req, "Content-Length: -5\r\n") + b"{}")
    return False


def signed_length(server, sock, req):
    sock.sendall(head_for(req, "Content-Length: +2\r\n") + b"{}")  # int() would take it
    return False


def huge_length(server, sock, req):
    sock.sendall(head_for(req, "Content-Length: 1000000000000000\r\n") + b"\0" * 60)
    return False


def huge_chunk(server, sock, req):
    sock.sendall(head_for(req, "Transfer-Encoding: chunked\r\n") + b"38d7ea4c68000\r\n" + b"\0" * 60)
    return False


def negative_chunk(server, sock, req):
    sock.sendall(head_for(req, "Transfer-Encoding: chunked\r\n") + b"-5\r\n{}\r\n0\r\n\r\n")
    return False


def redirect(status, body):
    def behaviour(server, sock, req):
        extra = "Location: %s%s\r\n" % (server.elsewhere_url, req.target)
        sock.sendall(b"HTTP/1.1 %d Moved\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s"
                     % (status, len(body), extra.encode(), body))
        return True
    return behaviour


def switching_protocols(server, sock, req):
    sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: tradeapi\r\nConnection: Upgrade\r\n\r\n{}")
    return False


def no_content(server, sock, req):
    sock.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")
    return True


GARBAGE = bytes(random.Random(33).getrandbits(8) for _ in range(600))


def garbage(server, sock, req):
    sock.sendall(GARBAGE)
    return False


def garbage_body(server, sock, req):
    return answer(sock, 200, b"\xff\xfe<html> not json \0", "application/octet-stream")


def wrong_shape(server, sock, req):
    return answer(sock, 200, b'[1, "x", null, [2]]')


def deep_json(server, sock, req):
    return answer(sock, 200, b"[" * (MAX_JSON // 2))  # within max_json_bytes: the parser's depth fails


def broken_problem(server, sock, req):
    return answer(sock, 500, b'{"type": 5, "detail": ["x"], "status": "no"}', "application/problem+json")


def cut_body(server, sock, req):
    if req.series:
        sock.sendall(series_head("Transfer-Encoding: chunked\r\n") + b"3c\r\n" + b"\0" * 20)
    else:
        sock.sendall(json_head("Content-Length: 100\r\n") + b'{"total": 1')
    return False


def closed_unanswered(server, sock, req):
    return False


CASES = [
    ("dripped head", drip_head, -10005, "call"),
    ("endless 100 Continue", drip_1xx, -10005, "call"),
    ("body dripped by length", drip_body_length, -10005, "body"),
    ("body dripped by chunks", drip_body_chunks, -10005, "body"),
    ("endless body", endless_body, -10002, None),
    ("endless problem body", endless_problem, -10002, None),
    ("Content-Length -5", negative_length, -10002, None),
    ("Content-Length +2", signed_length, -10002, None),
    ("Content-Length 10^15", huge_length, -10002, None),
    ("chunk of 10^15 bytes", huge_chunk, -10002, None),
    ("chunk of -5 bytes", negative_chunk, -10002, None),
    ("301 with a body", redirect(301, b"{}"), -10002, None),
    ("301 without a body", redirect(301, b""), -10002, None),
    ("302 with a body", redirect(302, b"{}"), -10002, None),
    ("302 without a body", redirect(302, b""), -10002, None),
    ("307 with a body", redirect(307, b"{}"), -10002, None),
    ("307 without a body", redirect(307, b""), -10002, None),
    ("101 Switching Protocols", switching_protocols, -10002, None),
    ("204 No Content", no_content, -10002, None),
    ("garbage", garbage, -10002, None),
    ("a body that is not JSON", garbage_body, -10002, None),
    ("JSON of the wrong shape", wrong_shape, -10002, None),
    ("JSON nested past recursion", deep_json, -10002, None),
    ("a problem body of the wrong shape", broken_problem, -1, None),
    ("a body cut short", cut_body, -10002, None),
    ("closed without an answer", closed_unanswered, -10004, None),
]


BOUNDED = (endless_body, endless_problem)  # initialize(max_json_bytes=MAX_JSON, max_series_bytes=MAX_SERIES)


class Outcome(object):
    def __init__(self, name, match, failure):
        self.name, self.match, self.failure = name, match, failure
        self.started = self.ended = None
        self.result = self.error = self.raised = None

    def run(self, fn, barrier=None):
        if barrier is not None:
            barrier.wait()
        self.started = time.monotonic()
        try:
            self.result = fn()
        except BaseException as e:  # what the test is about: nothing may escape
            self.raised = e
        self.ended = time.monotonic()
        self.error = mt5.last_error()


class BrokenServerTest(unittest.TestCase):
    def setUp(self):
        self.elsewhere = socket.socket()  # where redirects point: nothing may connect to it
        self.elsewhere.bind(("127.0.0.1", 0))
        self.elsewhere.listen(16)
        self.elsewhere.setblocking(False)
        self.addCleanup(self.elsewhere.close)
        self.addCleanup(mt5.shutdown)

    def wave(self, behaviour, deadline, spare, calls):
        """Runs ``calls`` against a server misbehaving with ``behaviour`` (all at once in the
        deadline cases, one after the other otherwise); returns (outcomes, server)."""
        server = BrokenServer(behaviour, spare)
        server.elsewhere_url = "http://127.0.0.1:%d" % self.elsewhere.getsockname()[1]
        try:
            args = dict(url=server.url, key=KEY, timeout=int((T if deadline else LONG) * 1000))
            if behaviour in BOUNDED:
                args.update(max_json_bytes=MAX_JSON, max_series_bytes=MAX_SERIES)
            outcomes = []
            if spare:
                self.assertTrue(mt5.initialize(**args), mt5.last_error())
            else:
                calls = [("initialize", lambda: mt5.initialize(**args), False, ("/server-time", None))]
            threads = []
            barrier = threading.Barrier(len(calls)) if deadline else None
            for name, fn, failure, match in calls:
                o = Outcome(name, match, failure)
                outcomes.append(o)
                if deadline:
                    threads.append(threading.Thread(target=o.run, args=(fn, barrier), daemon=True))
                    threads[-1].start()
                else:
                    o.run(fn)
            for t in threads:
                t.join(T + 2 * SLACK)  # a call ends by its deadline, or when the server gives up
                self.assertFalse(t.is_alive(), "a call outlived the server's own bound")
        finally:
            mt5.shutdown()
            server.close()
        return outcomes, server

    def check(self, case, outcomes, server):
        """Every call's outcome and what the server saw of it; all problems at once."""
        name, behaviour, code, deadline = case
        problems = []
        for o in outcomes:
            problems.extend("%s: %s" % (o.name, p) for p in self.problems(o, code, deadline, server))
        try:
            self.elsewhere.accept()
            problems.append("a client followed a redirect")
        except BlockingIOError:
            pass
        if problems:
            self.fail("against %s:\n  %s" % (name, "\n  ".join(problems)))

    def problems(self, o, code, deadline, server):
        if o.raised is not None:
            yield "raised %r" % (o.raised,)
        elif type(o.result) is not type(o.failure) or o.result != o.failure:
            yield "returned %.80r, not %r (last_error %r)" % (o.result, o.failure, o.error)
        elif o.error[0] != code:
            yield "last_error %r, not %d" % (o.error, code)
        path, token = o.match
        mine = [r for r in server.requests if r.path == path and (token is None or token in r.target)]
        if not mine:
            yield "no request reached the server"
            return
        for r in mine:
            if r.headers.get("x-api-key") != KEY:
                yield "a request without the key"
            if r.gave_up:
                yield "the client had not closed when the server gave up (%s)" % (
                    "after %d bytes" % r.sent if r.sent else "%.1f s past the client's deadline" % SLACK)
        if deadline is None:
            return
        if len(mine) != 1:
            yield "%d requests, not one" % len(mine)
            return
        r = mine[0]
        if r.closed is None:
            yield "the server did not see the client close"
            return
        start = r.head_sent if deadline == "body" and r.series else o.started
        if not start + T <= r.closed <= start + T + SLACK:
            yield "closed %.3f s after its deadline's start: not within [%.1f, %.1f] s" % (
                r.closed - start, T, T + SLACK)

    def test_every_function_against_every_misbehaviour(self):
        calls = _calls()
        names = set(n for n, _, _, _ in calls) | {"initialize", "login"}
        self.assertEqual(names & set(mt5.FUNCTIONS), TALKING)  # none left out
        waves = [("initialize", False, None), ("the others, at once", True, calls),
                 ("login", True, [("login", lambda: mt5.login(12345), False, ("/account", None))])]
        for case in CASES:
            name, behaviour, code, deadline = case
            for wave, spare, wave_calls in waves:
                with self.subTest(case=name, wave=wave):
                    outcomes, server = self.wave(behaviour, deadline is not None, spare, wave_calls)
                    self.check(case, outcomes, server)

    def test_an_honest_slow_series_is_not_cut(self):
        # Above the minimum rate (64 KiB per timeout) the body may take longer than the timeout:
        # 64 KiB every timeout/4, eight times, is twice the timeout.
        timeout = 2 * T
        rows = 8 * (1 << 16) // 60
        body = bytes(range(60)) * rows
        pieces = [body[i:i + (1 << 16)] for i in range(0, len(body), 1 << 16)]

        def slow(server, sock, req):
            sock.sendall(series_head("Content-Length: %d\r\n" % len(body)))
            for p in pieces:
                if _watch(sock, req, timeout / 4):
                    return False
                sock.sendall(p)
            return True

        server = BrokenServer(slow, True)
        self.addCleanup(server.close)
        self.addCleanup(mt5.shutdown)  # first: the server's threads end with their connections
        self.assertTrue(mt5.initialize(url=server.url, timeout=int(timeout * 1000)))
        started = time.monotonic()
        ticks = mt5.copy_ticks_range("EURUSD", A, B, mt5.COPY_TICKS_ALL)
        took = time.monotonic() - started
        self.assertEqual(mt5.last_error()[0], 1)
        self.assertEqual(ticks.tobytes(), body)
        self.assertGreater(took, timeout)  # it did outlast the timeout

    def test_connect_is_bounded(self):
        full = socket.socket()  # listen(0): one connection fills the queue, the next SYN is dropped
        full.bind(("127.0.0.1", 0))
        full.listen(0)
        self.addCleanup(full.close)
        filler = socket.create_connection(full.getsockname())
        self.addCleanup(filler.close)
        started = time.monotonic()
        self.assertFalse(mt5.initialize(url="http://127.0.0.1:%d" % full.getsockname()[1], timeout=int(T * 1000)))
        took = time.monotonic() - started
        self.assertEqual(mt5.last_error()[0], -10005)
        self.assertGreaterEqual(took, T)
        self.assertLessEqual(took, T + SLACK)

    def test_bounds_and_key_are_arguments(self):
        for kw in ({"max_json_bytes": 0}, {"max_json_bytes": "1"}, {"max_series_bytes": -1},
                   {"max_json_bytes": True}, {"key": "a\r\nX-Other: b"}, {"key": "caf\u00e9"}):
            self.assertFalse(mt5.initialize(url="http://127.0.0.1:9", **kw), kw)
            self.assertEqual(mt5.last_error()[0], -2, kw)
        with self.assertRaises(TypeError):
            mt5.initialize(max_answer=1)


if __name__ == "__main__":
    unittest.main()
