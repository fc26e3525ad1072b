"""One client connection: handshake, then requests one at a time (docs/bridge-protocol.md).
Anything the client does wrong ends this connection only; terminal failures are answered with
ERROR frames and the connection carries on."""
import socket
import threading
import time

from . import PROTOCOL_VERSION, __version__, admission, auth, columns, compression, errors, frames, log, ops
from .frames import ProtocolError


class Settings(object):
    def __init__(self, secret: bytes, max_payload: int, chunk_bytes: int, window_rows: int, window_bars: int,
                 handshake_timeout: float, auth_fail_delay: float, credit_timeout: float,
                 compression_mode: str = "auto", zstd_level: int = compression.DEFAULT_ZSTD_LEVEL):
        self.compression_mode = compression_mode
        self.zstd_level = zstd_level
        self.secret = secret
        self.max_payload = max_payload
        self.chunk_bytes = chunk_bytes
        self.window_rows = window_rows
        self.window_bars = window_bars
        self.handshake_timeout = handshake_timeout
        self.auth_fail_delay = auth_fail_delay
        self.credit_timeout = credit_timeout

    def __repr__(self):
        return "Settings(<secret hidden>)"


MAX_WINDOW = 64  # most chunk credits a client may hold at once
MAX_TIMEOUT_MS = 3600000  # a REQUEST's timeout_ms: at most an hour (the bridge's own limit applies too)


def dtype_description(dtype) -> dict:
    """The wire form of a structured dtype: every field with its numpy type string (byte order
    included), offset, plus the row size. Enough for C++ to read a row without numpy."""
    fields = []
    for name in dtype.names:
        ftype, offset = dtype.fields[name][:2]
        fields.append({"name": name, "type": ftype.str, "offset": offset})
    return {"itemsize": dtype.itemsize, "fields": fields}


class _ReadAhead(object):
    """The next window of a series fetched on a thread of its own while this one is encoded and
    sent: the package call (on the worker) and the encoding overlap instead of taking turns. One
    window ahead at most (two in memory); a window's failure is raised where it would have been.
    close() leaves a fetch in progress to finish and drops it."""

    def __init__(self, windows):
        self._windows = windows
        self._cond = threading.Condition()
        self._wanted = False
        self._ready = False
        self._item = None
        self._error = None
        self._closed = False
        threading.Thread(target=self._run, name="read-ahead", daemon=True).start()
        self._ask()

    def _ask(self):
        with self._cond:
            self._wanted = True
            self._cond.notify_all()

    def _run(self):
        while True:
            with self._cond:
                while not self._wanted and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                self._wanted = False
            try:
                item, error = next(self._windows, None), None
            except BaseException as e:  # BridgeError and anything else: the consumer raises it
                item, error = None, e
            with self._cond:
                self._item, self._error, self._ready = item, error, True
                self._cond.notify_all()
                if error is not None or item is None:
                    return

    def next(self):
        """The next window (None at the end); asks for the one after it at once."""
        with self._cond:
            while not self._ready:
                self._cond.wait()
            item, error = self._item, self._error
            self._item, self._ready = None, False
        if error is not None:
            raise error
        if item is not None:
            self._ask()
        return item

    def close(self):
        with self._cond:
            self._closed = True
            self._cond.notify_all()


class Connection(object):
    def __init__(self, sock: socket.socket, peer, session, settings: Settings, ticket: admission.Ticket):
        self.sock = sock
        self.peer = "%s:%s" % peer[:2]
        self.session = session
        self.settings = settings
        self.ticket = ticket  # this connection's place among the handshaking, then the authenticated
        self.compression = compression.NONE  # chosen at the handshake (§4)
        self.compress = None  # its bytes -> bytes, None for none

    def serve(self):
        try:
            if self._handshake():
                self._requests()
        except ProtocolError as e:
            if self.ticket.state == admission.EVICTED:
                return  # the server logged handshake_evicted; the EOF it caused says nothing more
            log.event("connection_dropped", peer=self.peer, reason=str(e))
        except socket.timeout:
            reason = "timed out" if self.ticket.state != admission.PENDING else (
                "handshake not completed within %gs" % self.settings.handshake_timeout)
            log.event("connection_dropped", peer=self.peer, reason=reason)
        except OSError as e:
            log.event("connection_closed", peer=self.peer, reason=type(e).__name__)
        except Exception as e:  # a bug must cost one connection, never the bridge
            log.event("connection_error", peer=self.peer, error="%s: %s" % (type(e).__name__, e))
        finally:
            self.ticket.release()  # before close(): see Ticket.release
            try:
                self.sock.close()
            except OSError:
                pass

    # ------------------------------------------------------------------ handshake (§4)

    def _read(self):
        return frames.read_frame(self.sock, self.settings.max_payload)

    def _handshake(self) -> bool:
        s = self.settings
        # One deadline for the whole handshake, not a timeout per recv(): a peer sending a byte now
        # and then would otherwise hold its place for ever.
        deadline = time.monotonic() + s.handshake_timeout
        self.sock.settimeout(s.handshake_timeout)
        server_nonce = auth.new_nonce()
        offered = compression.offered(s.compression_mode, s.zstd_level)
        frames.send_json(self.sock, frames.HELLO, 0, {
            "protocol": PROTOCOL_VERSION, "nonce": server_nonce.hex(), "bridge": __version__,
            "compression": offered})
        # Before AUTH_OK only a small frame is read (the gateway's AUTH is 162 bytes): a header
        # declaring 16 MiB from a peer without the secret is refused before any payload is read.
        frame = frames.read_frame(self.sock, min(s.max_payload, frames.MAX_HANDSHAKE_PAYLOAD), deadline)
        if frame is None or self.ticket.evicted.is_set():
            return False
        if frame.type != frames.AUTH:
            raise ProtocolError("expected AUTH, got %s" % frames.NAMES[frame.type])
        body = frames.decode_json(frame)
        if body.get("protocol") != PROTOCOL_VERSION:
            frames.send_json(self.sock, frames.ERROR, frame.request_id, {
                "kind": errors.PROTOCOL, "code": -5,
                "message": "protocol %r not supported; this bridge speaks %d" % (body.get("protocol"), PROTOCOL_VERSION)})
            # Both versions in the log: version skew is named at the handshake (issue 22 item 11).
            log.event("auth_refused", peer=self.peer, reason="protocol version",
                      client_protocol=body.get("protocol"), bridge_protocol=PROTOCOL_VERSION)
            return False
        chosen = body.get("compression", compression.NONE)
        if chosen not in offered:
            frames.send_json(self.sock, frames.ERROR, frame.request_id, {
                "kind": errors.PROTOCOL, "code": -5,
                "message": "compression %r not offered; this bridge offers %s" % (chosen, ", ".join(offered))})
            log.event("auth_refused", peer=self.peer, reason="compression", client_compression=str(chosen)[:32])
            return False
        client_nonce = auth.parse_hex(body.get("nonce"), auth.NONCE_BYTES)
        proof = auth.parse_hex(body.get("mac"), 32)
        ok = (client_nonce is not None and proof is not None
              and auth.verify(auth.client_proof(s.secret, server_nonce, client_nonce), proof))
        if not ok:
            # A fixed delay before the answer: a wrong guess costs the guesser, and the timing
            # says nothing about how wrong it was.
            log.event("auth_refused", peer=self.peer, reason="bad proof")
            # Waiting on the eviction flag, not sleeping: a newer connection that needs this place
            # takes it at once (this peer has failed anyway).
            if self.ticket.evicted.wait(s.auth_fail_delay):
                return False
            frames.send_json(self.sock, frames.ERROR, frame.request_id, {
                "kind": errors.AUTH_FAILED, "code": errors.RES_E_AUTH_FAILED, "message": "authentication failed"})
            return False
        place = self.ticket.promote()
        if place == admission.FULL:
            frames.send_json(self.sock, frames.ERROR, frame.request_id, {
                "kind": errors.UNAVAILABLE, "code": errors.RES_E_INTERNAL_FAIL,
                "message": "bridge: %d authenticated connections open (--max-connections)" % self.ticket.max_authenticated})
            log.event("connection_refused", peer=self.peer,
                      reason="%d authenticated connections open" % self.ticket.max_authenticated)
            return False
        if place != admission.PROMOTED:
            return False  # displaced by a newer connection while checking the proof
        frames.send_json(self.sock, frames.AUTH_OK, frame.request_id, {
            "mac": auth.server_proof(s.secret, server_nonce, client_nonce).hex()})
        self.compression = chosen
        self.compress = compression.compressor(chosen, s.zstd_level)
        log.event("client_authenticated", peer=self.peer, compression=chosen)
        self.sock.settimeout(None)  # an authenticated idle connection may wait for requests
        return True

    # ------------------------------------------------------------------ requests (§5)

    def _requests(self):
        while True:
            frame = self._read()
            if frame is None:
                log.event("connection_closed", peer=self.peer, reason="client closed")
                return
            if frame.type == frames.PING:
                frames.send_frame(self.sock, frames.PONG, frame.request_id, frame.payload)
                continue
            if frame.type in (frames.SERIES_NEXT, frames.SERIES_CANCEL):
                continue  # late flow control for a series that already ended: harmless
            if frame.type != frames.REQUEST:
                raise ProtocolError("unexpected %s frame" % frames.NAMES[frame.type])
            self._request(frame)

    def _request(self, frame):
        rid = frame.request_id
        body = frames.decode_json(frame)
        window = body.get("window", 1)
        if isinstance(window, bool) or not isinstance(window, int) or not 1 <= window <= MAX_WINDOW:
            self._error(rid, errors.invalid_params("window: expected an integer 1..%d" % MAX_WINDOW))
            return
        timeout_ms = body.get("timeout_ms")
        if timeout_ms is not None and (isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int)
                                       or not 1 <= timeout_ms <= MAX_TIMEOUT_MS):
            self._error(rid, errors.invalid_params("timeout_ms: expected an integer 1..%d" % MAX_TIMEOUT_MS))
            return
        session = self.session if timeout_ms is None else self.session.within(timeout_ms / 1000.0)
        op = body.get("op")
        started = time.monotonic()
        try:
            result = ops.run(session, op, body.get("args"), self.settings)
            if isinstance(result, ops.Series):
                sent = self._series(rid, result, window)
                if sent is not None:
                    # bytes: every frame of the series as it went to the socket (headers included);
                    # package_cpu_ms: the worker's CPU inside the package calls (the rest of the
                    # bridge's CPU for the series is paging, encoding and sending); credit_wait_ms:
                    # time spent waiting for the client's SERIES_NEXT (the client was the slower).
                    log.event("series_sent", peer=self.peer, id=rid, op=op, rows=sent[0], bytes=sent[1],
                              compression=self.compression, ms=round((time.monotonic() - started) * 1000, 1),
                              package_cpu_ms=round(result.package_cpu * 1000, 1),
                              credit_wait_ms=round(result.credit_wait * 1000, 1))
                return
            frames.send_json(self.sock, frames.RESULT, rid, {"value": result})
        except errors.BridgeError as e:
            self._error(rid, e)
            log.event("request_failed", peer=self.peer, id=rid, op=op, kind=e.kind, code=e.code,
                      message=e.message)

    def _error(self, rid, e):
        frames.send_json(self.sock, frames.ERROR, rid, e.to_wire())

    # ------------------------------------------------------------------ series (§7)

    def _series(self, rid, plan, credits):
        """HEAD after the first window (so a call that fails at once is a plain ERROR), CHUNKs of
        at most --chunk-bytes of rows each, encoded as columns (columns.py) as credits allow, END
        with the row count. A failure after HEAD is an ERROR frame: a series without END is never
        complete. (rows, bytes sent) when complete, None otherwise."""
        windows = iter(plan.windows)
        first = next(windows, None)  # BridgeError propagates: plain ERROR, no HEAD
        dtype = first.dtype if first is not None else plan.dtype
        head = frames.encode_json({"dtype": dtype_description(dtype)})
        frames.send_frame(self.sock, frames.SERIES_HEAD, rid, head)
        sent = frames.HEADER_SIZE + len(head)
        rows_per_chunk = max(1, self.settings.chunk_bytes // dtype.itemsize)
        encoder = columns.Encoder(dtype, plan.scales, self.compress)
        ahead = _ReadAhead(windows) if first is not None else None
        rows = 0
        pending = first
        try:
            while True:
                if pending is None:
                    pending = ahead.next() if ahead is not None else None
                    if pending is None:
                        end = frames.encode_json({"rows": rows})
                        frames.send_frame(self.sock, frames.SERIES_END, rid, end)
                        return rows, sent + frames.HEADER_SIZE + len(end)
                    if pending.dtype != dtype:
                        raise errors.BridgeError(errors.CALL_FAILED, errors.RES_E_FAIL,
                                                 "bridge: the package changed the series dtype midway")
                for n, payload in encoder.chunks(pending, rows_per_chunk):
                    if credits == 0:
                        waited = time.monotonic()
                        while credits == 0:
                            credits = self._await_credit(rid)
                            if credits is None:
                                return None  # cancelled
                        plan.credit_wait += time.monotonic() - waited
                    frames.send_frame(self.sock, frames.SERIES_CHUNK, rid, payload)
                    rows += n
                    sent += frames.HEADER_SIZE + len(payload)
                    credits -= 1
                pending = None
        except errors.BridgeError as e:
            self._error(rid, e)
            log.event("series_failed", peer=self.peer, id=rid, rows_sent=rows, kind=e.kind, code=e.code,
                      message=e.message)
            return None
        finally:
            if ahead is not None:
                ahead.close()

    def _await_credit(self, rid):
        """Block for SERIES_NEXT (credits) or SERIES_CANCEL. None when cancelled."""
        self.sock.settimeout(self.settings.credit_timeout)
        try:
            frame = self._read()
        except socket.timeout:
            raise errors.BridgeError(errors.TIMEOUT, errors.RES_E_INTERNAL_FAIL_TIMEOUT,
                                     "bridge: no SERIES_NEXT within %gs; series abandoned" % self.settings.credit_timeout)
        finally:
            self.sock.settimeout(None)
        if frame is None:
            raise ProtocolError("client closed during a series")
        if frame.type == frames.PING:
            frames.send_frame(self.sock, frames.PONG, frame.request_id, frame.payload)
            return 0
        if frame.request_id != rid or frame.type not in (frames.SERIES_NEXT, frames.SERIES_CANCEL):
            raise ProtocolError("expected SERIES_NEXT/SERIES_CANCEL for request %d, got %s for %d"
                                % (rid, frames.NAMES[frame.type], frame.request_id))
        if frame.type == frames.SERIES_CANCEL:
            self._error(rid, errors.BridgeError(errors.CANCELLED, errors.RES_E_FAIL, "series cancelled by the client"))
            log.event("series_cancelled", peer=self.peer, id=rid)
            return None
        if len(frame.payload) != 4:
            raise ProtocolError("SERIES_NEXT payload must be a u32 credit count")
        grant = int.from_bytes(frame.payload, "little")
        if not 1 <= grant <= MAX_WINDOW:
            raise ProtocolError("SERIES_NEXT grants %d credits (1..%d)" % (grant, MAX_WINDOW))
        return grant
