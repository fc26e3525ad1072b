"""The gateway connection: keep-alive HTTP/1.1 connections in a small pool (one per thread in
flight), deadlines, bounds, 429/503-busy answers retried after their Retry-After while the deadline
allows, and every failure turned into the real package's (code, message).

Deadlines (``timeout``, seconds). A JSON answer (records, totals, problems) must be over — connect,
request, headers, body — by the call's deadline. A series must have its headers by the request's
start + timeout; its body must then keep a minimum rate: every MIN_RATE_BYTES (64 KiB) within
timeout of the previous ones, so a server that drips is cut and an honest large pull over a slow
link is not. Every socket operation is armed with what is left (``_wire``), never a fresh timeout per
receive. A passed deadline is -10005.

Answers. Only a 2xx is a result. A 3xx is -10002 and is never followed (the key never goes to
another address), as is any other status that is not 4xx/5xx, an answer that is not HTTP, is cut or
malformed, or is longer than its bound: ``max_json_bytes`` for JSON, the rows asked for (and
``max_series_bytes`` when set) for series. Whatever a request raises becomes a Fail here, save
what is not an ``Exception`` (KeyboardInterrupt), which closes the connection and propagates."""
from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
from typing import Any, Dict, List, Mapping, Optional, Tuple
from urllib.parse import quote, urlencode, urlsplit

import numpy as np
import numpy.typing as npt

from ._errors import Fail, Problem, problem_to_fail
from ._wire import Connection, Response, TooLarge

USER_AGENT = "tradeapi-client"
# Answers worth waiting for (their Retry-After): the gateway is busy, not broken.
_RETRY_TYPES = ("rate-limit-exceeded", "too-many-streams", "too-many-event-clients", "connection-limit")
_IDLE_POOL = 8
_READ = 1 << 20
MIN_RATE_BYTES = 1 << 16  # a series body brings at least this much per timeout
DEFAULT_MAX_JSON_BYTES = 64 << 20  # a JSON answer longer than this is not the gateway's
_FIRST_SERIES_BUFFER = 1 << 22  # a series buffer starts at most this large, whatever is declared
_RECV_FAILED = "IPC recv failed"


def transport_fail(exc: BaseException, answered: bool) -> Fail:
    """The Fail for an exception a request raised. ``answered``: the gateway had begun its answer
    (a connection lost then is a cut answer, -10002, not an unreachable gateway, -10004)."""
    if isinstance(exc, Fail):
        return exc
    if isinstance(exc, socket.timeout):
        return Fail(-10005)
    if isinstance(exc, TooLarge):
        return Fail(-10002, "%s: the answer is too large (%s)" % (_RECV_FAILED, exc))
    if isinstance(exc, http.client.RemoteDisconnected) and not answered:
        return Fail(-10004)
    if isinstance(exc, http.client.HTTPException):
        return Fail(-10002, "%s: a malformed or cut answer (%s)" % (_RECV_FAILED, type(exc).__name__))
    if isinstance(exc, ssl.SSLError) and not answered:
        return Fail(-10004, "TLS: %s" % exc)
    if isinstance(exc, OSError):
        return Fail(-10002) if answered else Fail(-10004)
    if isinstance(exc, MemoryError):
        return Fail(-3)
    return Fail(-10002, "%s: %s" % (_RECV_FAILED, type(exc).__name__))


class Job(object):
    """One call run by ``tradeapi_client.aio`` in a pool thread (``with job:`` around it there): the
    connections it takes, so that ``abort()``, from any thread, cuts its request when the awaiting
    task is cancelled. A connection leaves the job when it goes back to the pool, so an abort never
    reaches another call's request; an aborted job's next request fails at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conns: List[Connection] = []
        self.aborted = False

    def __enter__(self) -> "Job":
        _jobs.current = self
        return self

    def __exit__(self, *exc: object) -> None:
        _jobs.current = None
        with self._lock:
            self._conns = []

    def abort(self) -> None:
        with self._lock:  # under the lock: a connection it holds cannot be released meanwhile
            self.aborted = True
            for conn in self._conns:
                conn.abort()

    def attach(self, conn: Connection) -> bool:
        with self._lock:
            if not self.aborted:
                self._conns.append(conn)
            return not self.aborted

    def detach(self, conn: Connection) -> None:
        with self._lock:
            if conn in self._conns:
                self._conns.remove(conn)


_jobs = threading.local()  # .current: the Job the thread runs, if any


def _job() -> Optional[Job]:
    job: Optional[Job] = getattr(_jobs, "current", None)
    return job


_CANCELLED = "IPC timeout: the call was cancelled"


def is_loopback(host: Optional[str]) -> bool:
    h = (host or "").strip("[]").lower()
    return h in ("localhost", "::1") or h.startswith("127.") or h.endswith(".localhost")


class Gateway(object):
    """One gateway: base URL (with any route prefix), API key, timeout (seconds), bounds."""

    def __init__(self, url: str, key: Optional[str] = None, timeout: float = 60.0, encoding: Optional[str] = None,
                 max_json_bytes: Optional[int] = DEFAULT_MAX_JSON_BYTES, max_series_bytes: Optional[int] = None) -> None:
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
        self.max_json_bytes = max_json_bytes
        self.max_series_bytes = max_series_bytes
        self.loopback = is_loopback(self.host)
        self.encoding = encoding
        self._idle: List[Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    # ------------------------------------------------------------------ connections

    def _new_connection(self) -> Connection:
        return Connection(self.host, self.port, self.timeout, ssl.create_default_context() if self.https else None)

    def _acquire(self, deadline: float) -> Tuple[Connection, bool]:
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        reused = conn is not None
        if conn is None:
            conn = self._new_connection()
        conn.deadline, conn.idle = deadline, None
        job = _job()
        if job is not None and not job.attach(conn):
            if reused:
                self._release(conn)  # untouched: back to the pool
            else:
                conn.close()
            raise Fail(-10005, _CANCELLED)
        return conn, reused

    def _release(self, conn: Connection) -> None:
        job = _job()
        if job is not None:
            job.detach(conn)
        with self._lock:
            if not self._closed and len(self._idle) < _IDLE_POOL:
                self._idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for c in idle:
            c.close()

    # ------------------------------------------------------------------ requests

    def path(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        target = self.prefix + path
        if query:
            pairs = [(k, v) for k, v in query.items() if v is not None]
            if pairs:
                target += "?" + urlencode(pairs, quote_via=quote)
        return target

    def _headers(self, accept: str, body: Optional[bytes], extra: Optional[Mapping[str, str]]) -> Dict[str, str]:
        h = {"Accept": accept, "User-Agent": USER_AGENT}
        if self.key:
            h["X-API-Key"] = self.key
        if body is not None:
            h["Content-Type"] = "application/json"
        if extra:
            h.update(extra)
        return h

    def open(self, method: str, path: str, query: Optional[Mapping[str, Any]] = None, body: Any = None,
             accept: str = "application/json", timeout: Optional[float] = None, headers: Optional[Mapping[str, str]] = None,
             deadline: Optional[float] = None) -> Tuple[Response, Connection]:
        """Sends a request; returns (response, connection) once a 2xx answer's head has arrived, the
        body not yet read. ``deadline`` (a time.monotonic() instant; default now + timeout) bounds
        everything until then. Raises Fail for transport failures, exhausted retries and answers
        that are not results (3xx, 1xx), Problem for 4xx/5xx (their body read)."""
        if deadline is None:
            deadline = time.monotonic() + (self.timeout if timeout is None else float(timeout))
        target = self.path(path, query)
        payload = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        hdrs = self._headers(accept, payload, headers)
        while True:
            if deadline - time.monotonic() <= 0:
                raise Fail(-10005)
            conn, reused = self._acquire(deadline)
            try:
                conn.request(method, target, body=payload, headers=hdrs)
                resp = conn.getresponse()
            except BaseException as e:
                conn.close()
                if not isinstance(e, Exception):
                    raise
                if reused and isinstance(e, (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError,
                                             http.client.CannotSendRequest)):
                    continue  # a keep-alive connection the gateway had closed: once more, fresh
                raise transport_fail(e, False)
            job = _job()
            if job is not None and job.aborted:  # cancelled while it connected (no socket to cut yet)
                conn.close()
                raise Fail(-10005, _CANCELLED)
            if 200 <= resp.status < 300:
                return resp, conn
            if resp.status < 400 or resp.status > 599:
                conn.close()  # a redirect is not followed: the key goes nowhere else
                raise Fail(-10002, "%s: the gateway answered %d %s, not a result (redirects are not followed)"
                           % (_RECV_FAILED, resp.status, resp.reason[:80]))
            raw = self.read_json_body(resp, conn)
            try:
                problem_body = json.loads(raw.decode("utf-8")) if raw else {}
            except (ValueError, RecursionError):
                problem_body = {}
            p = Problem(resp.status, problem_body, dict((k.lower(), v) for k, v in resp.getheaders()))
            kind = p.type.rsplit("/", 1)[-1]
            # Any 429 is "too many requests" (RFC 6585), also one from a proxy in front of the
            # gateway (nginx's limit_req, a cloud edge) that carries no problem type; a 503 only
            # when the gateway says it is busy (a terminal-down 503 fails at once).
            if resp.status == 429 or (resp.status == 503 and kind in _RETRY_TYPES):
                wait = _retry_after(p.headers.get("retry-after"))
                if time.monotonic() + wait < deadline:
                    time.sleep(wait)
                    continue
                raise Fail(-10005, _refused(p, kind, wait))
            raise p

    def read_json_body(self, resp: Response, conn: Connection) -> bytes:
        """A JSON answer's body: at most max_json_bytes, by the connection's deadline."""
        try:
            raw = resp.read(limit=self.max_json_bytes)
        except BaseException as e:
            conn.close()
            if not isinstance(e, Exception):
                raise
            raise transport_fail(e, True)
        self._release(conn)
        return raw

    def call(self, method: str, path: str, query: Optional[Mapping[str, Any]] = None, body: Any = None,
             timeout: Optional[float] = None, deadline: Optional[float] = None) -> Any:
        """A JSON answer, parsed (None for an empty body), the whole call by ``deadline`` (default:
        now + timeout). Raises Fail (transport, deadline, bounds, not JSON) or Problem."""
        resp, conn = self.open(method, path, query, body, timeout=timeout, deadline=deadline)
        raw = self.read_json_body(resp, conn)
        try:
            return json.loads(raw.decode("utf-8")) if raw else None
        except (ValueError, RecursionError):
            raise Fail(-10002, "%s: the gateway's answer is not JSON" % _RECV_FAILED)

    def read_into_array(self, resp: Response, conn: Connection, dtype: npt.DTypeLike, max_bytes: Optional[int] = None
                        ) -> npt.NDArray[Any]:
        """The rest of a response body as a numpy array of ``dtype`` records: read straight into one
        growing buffer (numpy's realloc: large blocks grow in place), then viewed, never parsed.
        The body must be a whole number of records, at most ``max_bytes`` (and max_series_bytes),
        and keep the minimum rate; a cut, long or slow body fails (-10002, -10002, -10005). What
        the server declares is checked, never allocated before it arrives."""
        dt = np.dtype(dtype)
        itemsize = dt.itemsize
        limit = _smaller(max_bytes, self.max_series_bytes)
        try:
            declared = resp.length
            if declared is not None and (declared % itemsize or (limit is not None and declared > limit)):
                raise Fail(-10002, "%s: a series of %d bytes declared (whole %d-byte rows, at most %s)"
                           % (_RECV_FAILED, declared, itemsize, limit))
            cap = min(declared if declared is not None else _FIRST_SERIES_BUFFER, _FIRST_SERIES_BUFFER)
            if limit is not None:
                cap = min(cap, limit + 1)  # one byte past the bound shows a body too long
            buf = np.empty(max(cap, itemsize), np.uint8)
            n = mark = 0
            conn.deadline = time.monotonic() + self.timeout  # the body's first MIN_RATE_BYTES
            while True:
                if n == len(buf):
                    size = len(buf) * 2 if limit is None else min(len(buf) * 2, limit + 1)
                    buf.resize(size, refcheck=False)
                view = memoryview(buf)[n:]  # type: ignore[arg-type, unused-ignore]  # numpy < 2.1's stubs
                try:
                    got = resp.readinto(view[:_READ * 8])
                finally:
                    view.release()
                if not got:
                    break
                n += got
                if limit is not None and n > limit:
                    raise Fail(-10002, "%s: the series is longer than %d bytes (the rows asked for%s)"
                               % (_RECV_FAILED, limit, ", max_series_bytes" if limit == self.max_series_bytes else ""))
                if n - mark >= MIN_RATE_BYTES:
                    mark = n
                    conn.deadline = time.monotonic() + self.timeout
        except BaseException as e:
            conn.close()
            if not isinstance(e, Exception):
                raise
            raise transport_fail(e, True)
        self._release(conn)
        if n % itemsize:
            raise Fail(-10002, "%s: %d bytes are not whole %d-byte records" % (_RECV_FAILED, n, itemsize))
        buf.resize(n, refcheck=False)
        return buf.view(dt)

    def read_all(self, resp: Response, conn: Connection, max_bytes: Optional[int] = None) -> bytes:
        """A series body in another form (Parquet, JSON rows) as bytes: the same minimum rate and bounds."""
        return self.read_into_array(resp, conn, np.uint8, max_bytes).tobytes()


def _smaller(a: Optional[int], b: Optional[int]) -> Optional[int]:
    return b if a is None else a if b is None else min(a, b)


def _retry_after(value: Optional[str]) -> float:
    try:
        return max(0.0, float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 1.0


def _refused(p: Problem, kind: str, wait: float) -> str:
    """last_error()'s text for a busy answer still refused at the call's deadline: who refused, and when to retry."""
    if p.status == 429:
        why = ("the gateway's rate limit refused the call (429" if kind in _RETRY_TYPES
               else "a rate limit in front of the gateway refused the call (429")
    else:
        why = "the gateway is busy (%d %s" % (p.status, kind)
    detail = (": " + p.detail[:200]) if p.detail else ""
    return "IPC timeout: %s%s); retry after %g s" % (why, detail, wait)


def fail_of(exc: BaseException) -> Fail:
    """A Fail for anything a call raised (Problem or Fail)."""
    if isinstance(exc, Fail):
        return exc
    if isinstance(exc, Problem):
        return problem_to_fail(exc)
    raise exc
