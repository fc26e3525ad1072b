"""The gateway connection: keep-alive HTTP/1.1 connections in a small pool (one per thread in
flight), one deadline per call, 429/503-busy answers retried after their Retry-After while the
deadline allows, and every failure turned into the real package's (code, message)."""
import http.client
import json
import socket
import ssl
import threading
import time
from urllib.parse import quote, urlencode, urlsplit

import numpy as np

from ._errors import Fail, Problem, problem_to_fail
from ._wire import Connection

USER_AGENT = "tradeapi-client"
# Answers worth waiting for (their Retry-After): the gateway is busy, not broken.
_RETRY_TYPES = ("rate-limit-exceeded", "too-many-streams", "too-many-event-clients", "connection-limit")
_IDLE_POOL = 8
_READ = 1 << 20


def is_loopback(host):
    h = (host or "").strip("[]").lower()
    return h in ("localhost", "::1") or h.startswith("127.") or h.endswith(".localhost")


class Gateway(object):
    """One gateway: base URL (with any route prefix), API key, default timeout (seconds)."""

    def __init__(self, url, key=None, timeout=60.0, encoding=None):
        parts = urlsplit(url if "://" in url else "http://" + url)
        if parts.scheme not in ("http", "https"):
            raise ValueError("unsupported URL scheme %r (http or https)" % parts.scheme)
        if not parts.hostname:
            raise ValueError("no host in %r" % url)
        self.url = url
        self.https = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.https else 80)
        self.prefix = parts.path.rstrip("/")
        self.key = key or None
        self.timeout = float(timeout)
        self.loopback = is_loopback(self.host)
        self.encoding = encoding
        self._idle = []
        self._lock = threading.Lock()
        self._closed = False

    # ------------------------------------------------------------------ connections

    def _new_connection(self, timeout):
        return Connection(self.host, self.port, timeout, ssl.create_default_context() if self.https else None)

    def _acquire(self, timeout):
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            return self._new_connection(timeout), False
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        return conn, True

    def _release(self, conn):
        with self._lock:
            if not self._closed and len(self._idle) < _IDLE_POOL:
                self._idle.append(conn)
                return
        conn.close()

    def close(self):
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for c in idle:
            c.close()

    # ------------------------------------------------------------------ requests

    def path(self, path, query=None):
        target = self.prefix + path
        if query:
            pairs = [(k, v) for k, v in query.items() if v is not None]
            if pairs:
                target += "?" + urlencode(pairs, quote_via=quote)
        return target

    def _headers(self, accept, body, extra):
        h = {"Accept": accept, "User-Agent": USER_AGENT}
        if self.key:
            h["X-API-Key"] = self.key
        if body is not None:
            h["Content-Type"] = "application/json"
        if extra:
            h.update(extra)
        return h

    def open(self, method, path, query=None, body=None, accept="application/json", timeout=None, headers=None):
        """Sends a request; returns (response, connection) once a final answer has arrived, the
        response not yet read. Raises Fail for transport failures and exhausted retries, Problem
        for other error answers (their body read)."""
        timeout = self.timeout if timeout is None else float(timeout)
        deadline = time.monotonic() + timeout
        target = self.path(path, query)
        payload = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        hdrs = self._headers(accept, payload, headers)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Fail(-10005)
            conn, reused = self._acquire(left)
            try:
                conn.request(method, target, body=payload, headers=hdrs)
                resp = conn.getresponse()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError,
                    http.client.CannotSendRequest, http.client.BadStatusLine):
                conn.close()
                if reused:
                    continue  # a keep-alive connection the gateway had closed: once more, fresh
                raise Fail(-10004)
            except socket.timeout:
                conn.close()
                raise Fail(-10005)
            except ssl.SSLError as e:
                conn.close()
                raise Fail(-10004, "TLS: %s" % e)
            except OSError:
                conn.close()
                raise Fail(-10004)
            except http.client.HTTPException:  # a malformed answer (too long a head, cut short)
                conn.close()
                raise Fail(-10002)
            if resp.status < 400:
                return resp, conn
            try:
                raw = resp.read()
            except (OSError, http.client.HTTPException):
                conn.close()
                raise Fail(-10002)
            self._release(conn)
            try:
                problem_body = json.loads(raw.decode("utf-8")) if raw else {}
            except ValueError:
                problem_body = {}
            p = Problem(resp.status, problem_body, dict((k.lower(), v) for k, v in resp.getheaders()))
            kind = p.type.rsplit("/", 1)[-1]
            if resp.status in (429, 503) and kind in _RETRY_TYPES:
                wait = _retry_after(p.headers.get("retry-after"))
                if time.monotonic() + wait < deadline:
                    time.sleep(wait)
                    continue
                raise Fail(-10005)
            raise p

    def call(self, method, path, query=None, body=None, timeout=None):
        """A JSON answer, parsed. Raises Fail (transport) or Problem."""
        resp, conn = self.open(method, path, query, body, timeout=timeout)
        try:
            raw = resp.read()
        except socket.timeout:
            conn.close()
            raise Fail(-10005)
        except (OSError, http.client.HTTPException):
            conn.close()
            raise Fail(-10002)
        self._release(conn)
        try:
            return json.loads(raw.decode("utf-8")) if raw else None
        except ValueError:
            raise Fail(-10002, "IPC recv failed: the gateway's answer is not JSON")

    def read_into_array(self, resp, conn, dtype):
        """The rest of a response body as a numpy array of ``dtype`` records: read straight into one
        growing buffer (numpy's realloc: large blocks grow in place), then viewed, never parsed.
        The body must be a whole number of records; a cut stream is a receive failure."""
        itemsize = np.dtype(dtype).itemsize
        length = resp.getheader("content-length")
        cap = int(length) if length is not None else 64 * itemsize * 1024
        buf = np.empty(max(cap, itemsize), np.uint8)
        n = 0
        try:
            while True:
                if n == len(buf):
                    buf.resize(len(buf) * 2, refcheck=False)
                view = memoryview(buf)[n:]
                try:
                    got = resp.readinto(view[:_READ * 8])
                finally:
                    view.release()
                if not got:
                    break
                n += got
        except socket.timeout:
            conn.close()
            raise Fail(-10005)
        except (OSError, http.client.HTTPException, ValueError):
            conn.close()
            raise Fail(-10002)
        self._release(conn)
        if n % itemsize:
            raise Fail(-10002, "IPC recv failed: %d bytes are not whole %d-byte records" % (n, itemsize))
        buf.resize(n, refcheck=False)
        return buf.view(dtype)

    def read_all(self, resp, conn):
        try:
            raw = resp.read()
        except socket.timeout:
            conn.close()
            raise Fail(-10005)
        except (OSError, http.client.HTTPException):
            conn.close()
            raise Fail(-10002)
        self._release(conn)
        return raw


def _retry_after(value):
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        return 1.0


def fail_of(exc):
    """A Fail for anything a call raised (Problem or Fail)."""
    if isinstance(exc, Fail):
        return exc
    if isinstance(exc, Problem):
        return problem_to_fail(exc)
    raise exc
