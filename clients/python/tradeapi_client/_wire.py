"""A lean HTTP/1.1 client connection: what the gateway client needs of http.client, without its cost.

http.client parses every response's headers through the email package and reads through a
buffered file object: on a loopback round trip (symbol_info_tick) that was most of the client's
CPU, and a packed series body was copied twice before reaching the numpy array. Here a request is
one send (TCP_NODELAY set), the head is parsed by hand, and a body is received straight into the
caller's buffer (``readinto``), chunked transfer-coding included.

The interface is the subset of http.client that ``_http`` and ``_events`` use (``request``,
``getresponse``, ``close``, ``sock``, ``timeout``; ``status``, ``reason``, ``getheader``,
``getheaders``, ``read``, ``readinto``, ``readline``), and the errors are http.client's own
(``RemoteDisconnected``, ``BadStatusLine``, ``IncompleteRead``, ``LineTooLong``; ``TooLarge`` for a
body past the reader's bound), so that callers handle them as before.

Time: every socket operation (connect, send, each receive) is armed with what is left until
``deadline`` (a ``time.monotonic()`` instant; ``socket.timeout`` once it has passed), or with
``idle`` seconds when there is no deadline (an event stream). So a server that drips its answer one
byte at a time cannot stretch a call past its deadline, as a per-receive timeout would let it.
Lengths: a Content-Length is ASCII digits and a chunk size hex digits, both bounded; anything else
is a malformed answer (``http.client.HTTPException``), never a ``ValueError`` or an allocation of
what the server declared."""
from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
import time
from typing import Any, Dict, List, Mapping, Optional, Tuple, cast

_RECV = 1 << 16
_MAX_HEAD = 1 << 16  # status line + headers; larger is not a gateway
_MAX_LINE = 1 << 16  # a chunk-size line, an event-stream line
_PREALLOCATE = 1 << 24  # a declared Content-Length up to this is allocated at once
_MAX_LENGTH = 1 << 53  # the largest Content-Length or chunk size taken at its word
_DIGITS = frozenset("0123456789")
_HEX = frozenset(b"0123456789abcdefABCDEF")


class TooLarge(http.client.HTTPException):
    """A body longer than the bound its reader set."""


def parse_length(value: str) -> int:
    """A Content-Length: ASCII digits, at most _MAX_LENGTH; else HTTPException (never ValueError)."""
    value = value.strip()
    if not value or len(value) > 16 or not _DIGITS.issuperset(value) or int(value) > _MAX_LENGTH:
        raise http.client.HTTPException("bad Content-Length %r" % value[:40])
    return int(value)


class Connection(object):
    """One keep-alive connection to host:port (TLS when ``context`` is given), opened lazily."""

    def __init__(self, host: str, port: int, timeout: float, context: Optional[ssl.SSLContext] = None) -> None:
        self.host = host
        self.port = port
        self.timeout = timeout
        self.idle: Optional[float] = timeout  # seconds each socket operation may wait when there is no deadline
        self.deadline: Optional[float] = None  # time.monotonic() instant every socket operation must end by
        self.context = context
        self.sock: Optional[socket.socket] = None
        self._rbuf = bytearray()  # bytes received past what has been consumed
        self._response: Optional[Response] = None  # the response whose body is still being read
        h = "[%s]" % host if ":" in host else host
        default = 443 if context is not None else 80
        self._host_header = h if port == default else "%s:%d" % (h, port)

    def _time_left(self) -> Optional[float]:
        """Seconds the next socket operation may take: to the deadline, else ``idle``; a passed
        deadline is ``socket.timeout`` at once."""
        if self.deadline is None:
            return self.idle
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise socket.timeout("deadline passed")
        return left if self.idle is None else min(left, self.idle)

    def _arm(self) -> socket.socket:
        """The socket, its timeout set to what is left (a closed connection: AttributeError)."""
        sock = cast(socket.socket, self.sock)
        sock.settimeout(self._time_left())
        return sock

    def connect(self) -> None:
        # socket.create_connection, but each address tried with what is left of the deadline (it
        # would give every address the whole timeout), and the name resolution bounded too.
        error: Optional[OSError] = None
        for family, kind, proto, _, address in resolve(self.host, self.port, self._time_left()):
            sock = socket.socket(family, kind, proto)
            try:
                sock.settimeout(self._time_left())
                sock.connect(address)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if self.context is not None:
                    sock.settimeout(self._time_left())  # the handshake as a whole (ssl keeps one deadline)
                    sock = self.context.wrap_socket(sock, server_hostname=self.host)
            except socket.timeout:
                sock.close()
                raise
            except OSError as e:
                sock.close()
                error = e
                continue
            except BaseException:
                sock.close()
                raise
            self.sock = sock
            self._rbuf = bytearray()
            return
        raise error if error is not None else OSError("no address for %r" % self.host)

    def close(self) -> None:
        sock, self.sock = self.sock, None
        self._response = None
        self._rbuf = bytearray()
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass

    def abort(self) -> None:
        """From another thread: cuts what this connection is doing (its socket shut down, not closed:
        the thread using it sees the end and closes it). The plain socket's shutdown, also for TLS."""
        sock = self.sock
        if sock is not None:
            try:
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError:
                pass

    def request(self, method: str, target: str, body: Optional[bytes] = None,
                headers: Optional[Mapping[str, str]] = None) -> None:
        """Sends the request in one write. A previous response must have been read to its end."""
        if self._response is not None and not self._response.complete:
            raise http.client.CannotSendRequest("the previous response was not read to its end")
        if self.sock is None:
            self.connect()
        lines = ["%s %s HTTP/1.1" % (method, target), "Host: " + self._host_header,
                 "Accept-Encoding: identity"]
        for k, v in (headers or {}).items():
            lines.append("%s: %s" % (k, v))
        if body is not None:
            lines.append("Content-Length: %d" % len(body))
        elif method in ("POST", "PUT", "PATCH"):
            lines.append("Content-Length: 0")
        data = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        if body:
            data += body
        self._method = method
        self._arm().sendall(data)  # one timeout for the whole send (Python >= 3.5)

    # ------------------------------------------------------------------ receiving

    def _fill(self) -> bool:
        """More bytes into the buffer; False at end of stream."""
        data = self._arm().recv(_RECV)
        if not data:
            return False
        self._rbuf += data
        return True

    def _line(self, limit: int = _MAX_LINE) -> Optional[bytes]:
        """One CRLF-terminated line (without it), or None at end of stream before any byte."""
        start = 0
        while True:
            i = self._rbuf.find(b"\n", start)
            if i >= 0:
                line = bytes(self._rbuf[:i + 1])
                del self._rbuf[:i + 1]
                return line.rstrip(b"\r\n")
            if len(self._rbuf) > limit:
                raise http.client.LineTooLong("line")
            start = len(self._rbuf)
            if not self._fill():
                if self._rbuf:
                    raise http.client.IncompleteRead(bytes(self._rbuf))
                return None

    def getresponse(self) -> Response:
        """Reads the status line and headers (skipping 1xx answers); the body is left to read."""
        while True:
            buf = self._rbuf
            while True:
                end = buf.find(b"\r\n\r\n")
                if end >= 0:
                    break
                if len(buf) > _MAX_HEAD:
                    raise http.client.LineTooLong("header block")
                if not self._fill():
                    if not buf:
                        raise http.client.RemoteDisconnected("Remote end closed connection without response")
                    raise http.client.BadStatusLine(bytes(buf[:80]).decode("latin-1"))
                buf = self._rbuf
            head = bytes(buf[:end]).decode("latin-1")
            del self._rbuf[:end + 4]
            lines = head.split("\r\n")
            parts = lines[0].split(" ", 2)
            if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or len(parts[1]) != 3 or not _DIGITS.issuperset(parts[1]):
                raise http.client.BadStatusLine(lines[0][:80])
            status = int(parts[1])
            headers = []
            for line in lines[1:]:
                name, sep, value = line.partition(":")
                if not sep:
                    raise http.client.BadStatusLine(line[:80])
                headers.append((name.strip(), value.strip()))
            if 100 <= status < 200 and status != 101:
                continue  # 100 Continue and friends: the real answer follows
            resp = Response(self, status, parts[2] if len(parts) > 2 else "", headers, parts[0] == "HTTP/1.0")
            self._response = resp
            return resp


def resolve(host: str, port: int, timeout: Optional[float]) -> List[Tuple[Any, ...]]:
    """getaddrinfo for a TCP connection, in at most ``timeout`` seconds (``socket.timeout`` then).
    getaddrinfo has no timeout of its own and a dead resolver blocks it for tens of seconds (5 s a
    try, several tries, several servers), so a name is resolved on a thread of its own that is left
    to finish if the caller stops waiting; an address literal (the usual gateway URL) needs none."""
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
        return socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM, 0, socket.AI_NUMERICHOST)
    except ValueError:
        pass
    if timeout is None:
        return socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
    result: List[Any] = []
    done = threading.Event()

    def lookup() -> None:
        try:
            result.append(socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM))
        except BaseException as e:  # noqa: B902 - handed to the caller
            result.append(e)
        done.set()

    threading.Thread(target=lookup, name="tradeapi-resolve", daemon=True).start()
    if not done.wait(timeout):
        raise socket.timeout("name resolution of %r did not answer within %g s" % (host, timeout))
    got = result[0]
    if isinstance(got, BaseException):
        raise got
    return cast(List[Tuple[Any, ...]], got)


class Response(object):
    def __init__(self, conn: Connection, status: int, reason: str, headers: List[Tuple[str, str]], http10: bool) -> None:
        self._conn = conn
        self.status = status
        self.reason = reason
        self._headers = headers
        h: Dict[str, str] = {}
        for k, v in headers:
            k = k.lower()
            h[k] = v if k not in h else h[k] + ", " + v
        self._h = h
        te = h.get("transfer-encoding", "").lower()
        connection = h.get("connection", "").lower()
        self.will_close = http10 and "keep-alive" not in connection or "close" in connection
        if conn._method == "HEAD" or status in (204, 304):
            self._mode, self._left = "length", 0
        elif "chunked" in te:
            self._mode, self._left = "chunked", 0  # _left: bytes left in the current chunk
        elif "content-length" in h:
            self._left = parse_length(h["content-length"])
            self._mode = "length"
        else:
            self._mode, self._left = "close", 0
            self.will_close = True
        self._eof = False
        self._done()

    # ------------------------------------------------------------------ headers

    def getheader(self, name: str, default: Optional[str] = None) -> Optional[str]:
        return self._h.get(name.lower(), default)

    def getheaders(self) -> List[Tuple[str, str]]:
        return list(self._headers)

    @property
    def length(self) -> Optional[int]:
        """Body bytes still to come by the declared Content-Length; None for a chunked or
        close-delimited body."""
        return self._left if self._mode == "length" else None

    @property
    def complete(self) -> bool:
        return self._eof

    def _done(self) -> None:
        if self._mode == "length" and self._left == 0 and not self._eof:
            self._finish()

    def _finish(self) -> None:
        self._eof = True
        if self.will_close:
            self._conn.close()

    # ------------------------------------------------------------------ body

    def _next_chunk(self) -> bool:
        """Positions at the next chunk's data; False after the last chunk (trailers consumed)."""
        conn = self._conn
        if self._chunk_started:
            if conn._line() != b"":  # the CRLF after a chunk's data
                raise http.client.IncompleteRead(b"")
        line = conn._line()
        if line is None:
            raise http.client.IncompleteRead(b"")
        digits = line.split(b";", 1)[0].strip()
        if not digits or len(digits) > 13 or not _HEX.issuperset(digits):  # at most 13 hex digits: < 2**52
            raise http.client.IncompleteRead(b"")
        size = int(digits, 16)
        self._chunk_started = True
        if size == 0:
            while True:  # trailers, up to the empty line
                t = conn._line()
                if t is None or t == b"":
                    break
            self._finish()
            return False
        self._left = size
        return True

    _chunk_started = False

    def readinto(self, view: memoryview) -> int:
        """Up to len(view) body bytes into view (a writable buffer); 0 at the end of the body."""
        if self._eof or len(view) == 0:
            return 0
        conn = self._conn
        if self._mode == "chunked" and self._left == 0:
            if not self._next_chunk():
                return 0
        if self._mode == "close":
            want = len(view)
        else:
            want = min(len(view), self._left)
        buffered = len(conn._rbuf)
        if buffered:
            n = min(want, buffered)
            view[:n] = conn._rbuf[:n]
            del conn._rbuf[:n]
        else:
            n = conn._arm().recv_into(view[:want] if want < len(view) else view, want)
            if n == 0:
                if self._mode == "close":
                    self._finish()
                    return 0
                conn.close()
                raise http.client.IncompleteRead(b"", self._left)
        if self._mode != "close":
            self._left -= n
            if self._mode == "length":
                self._done()
        return n

    def read(self, amt: Optional[int] = None, limit: Optional[int] = None) -> bytes:
        """The rest of the body (or up to amt bytes); ``TooLarge`` when it is longer than ``limit``
        bytes (a declared length at once, a chunked or close-delimited body as soon as it passes)."""
        if amt is not None:
            out = bytearray(amt)
            n = self.readinto(memoryview(out))
            return bytes(out[:n])
        if limit is not None and self._mode == "length" and self._left > limit:
            raise TooLarge("a body of %d bytes, more than %d" % (self._left, limit))
        if self._mode == "length" and self._left <= _PREALLOCATE:  # beyond, memory follows the bytes
            out = bytearray(self._left)
            view = memoryview(out)
            got = 0
            while got < len(out):
                n = self.readinto(view[got:])
                if n == 0:
                    break
                got += n
            view.release()
            return bytes(out)
        parts, total = [], 0
        piece = bytearray(_RECV)
        view = memoryview(piece)
        while True:
            n = self.readinto(view)
            if n == 0:
                break
            total += n
            if limit is not None and total > limit:
                view.release()
                raise TooLarge("a body of more than %d bytes" % limit)
            parts.append(bytes(view[:n]))
        view.release()
        return b"".join(parts)

    def readline(self, limit: int = _MAX_LINE) -> bytes:
        """One line of the body, b"\\n" included (event streams); b"" at the end of the body."""
        out = bytearray()
        conn = self._conn
        while len(out) < limit and not self._eof:
            if self._mode == "chunked" and self._left == 0:
                if not self._next_chunk():
                    break
            if not conn._rbuf:
                if not conn._fill():
                    if self._mode == "close":
                        self._finish()
                        break
                    conn.close()
                    raise http.client.IncompleteRead(bytes(out))
                continue
            avail = len(conn._rbuf) if self._mode == "close" else min(len(conn._rbuf), self._left)
            avail = min(avail, limit - len(out))
            i = conn._rbuf.find(b"\n", 0, avail)
            take = avail if i < 0 else i + 1
            out += conn._rbuf[:take]
            del conn._rbuf[:take]
            if self._mode != "close":
                self._left -= take
                if self._mode == "length":
                    self._done()
            if i >= 0:
                break
        return bytes(out)
