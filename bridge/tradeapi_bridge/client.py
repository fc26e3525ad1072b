"""A small blocking client for the bridge protocol, exactly as docs/bridge-protocol.md states it
(the C++ client follows the same document). Used by the tests and handy for tools:

    with Client.connect("127.0.0.1", 18812, secret) as c:
        c.call("symbol_info", symbol="EURUSD")
        dtype, arr = c.series("copy_ticks_range", symbol="EURUSD", date_from_msc=..., date_to_msc=..., flags=-1)

Series chunks are decoded from columns (columns.decode_chunk) back into the package's rows.
"""
import socket

import numpy as np

from . import PROTOCOL_VERSION, auth, columns, compression, frames


class RemoteError(Exception):
    """An ERROR frame: {kind, code, message}."""

    def __init__(self, kind, code, message, rows_before=None):
        super().__init__("%s (%s): %s" % (kind, code, message))
        self.kind, self.code, self.message = kind, code, message
        self.rows_before = rows_before  # for a series: rows received before the error


class Client(object):
    def __init__(self, sock):
        self.sock = sock
        self._next_id = 1
        self.timeout_ms = None  # sent with every REQUEST when set (§5)
        self.offered = None  # HELLO's compression list
        self.compression = compression.NONE  # what this client chose (§4)
        self._decompress = None

    @classmethod
    def connect(cls, host, port, secret: bytes, timeout: float = 30.0, compression_choice: str = "zstd"):
        """compression_choice: zstd (when offered, else none) or none."""
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        c = cls(sock)
        try:
            c._handshake(secret, compression_choice)
        except BaseException:
            sock.close()
            raise
        return c

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read(self):
        frame = frames.read_frame(self.sock)
        if frame is None:
            raise ConnectionError("bridge closed the connection")
        return frame

    def _handshake(self, secret: bytes, choice: str):
        hello = self._read()
        if hello.type != frames.HELLO:
            raise frames.ProtocolError("expected HELLO")
        body = frames.decode_json(hello)
        if body.get("protocol") != PROTOCOL_VERSION:
            raise frames.ProtocolError("bridge speaks protocol %r" % body.get("protocol"))
        server_nonce = auth.parse_hex(body.get("nonce"), auth.NONCE_BYTES)
        if server_nonce is None:
            raise frames.ProtocolError("bad HELLO nonce")
        self.offered = body.get("compression")
        if not isinstance(self.offered, list):
            raise frames.ProtocolError("HELLO without a compression list")
        if choice in self.offered and (choice != compression.ZSTD or compression.decompressor() is not None):
            self.compression = choice
        self._decompress = compression.decompressor() if self.compression == compression.ZSTD else None
        client_nonce = auth.new_nonce()
        frames.send_json(self.sock, frames.AUTH, 0, {
            "protocol": PROTOCOL_VERSION, "nonce": client_nonce.hex(),
            "mac": auth.client_proof(secret, server_nonce, client_nonce).hex(), "compression": self.compression})
        reply = self._read()
        if reply.type == frames.ERROR:
            e = frames.decode_json(reply)
            raise RemoteError(e.get("kind"), e.get("code"), e.get("message"))
        if reply.type != frames.AUTH_OK:
            raise frames.ProtocolError("expected AUTH_OK")
        proof = auth.parse_hex(frames.decode_json(reply).get("mac"), 32)
        # The bridge proves it knows the secret too: never send requests to an impostor.
        if proof is None or not auth.verify(auth.server_proof(secret, server_nonce, client_nonce), proof):
            raise frames.ProtocolError("the bridge failed to prove the shared secret")

    def _request(self, op, args, window=None):
        rid = self._next_id
        self._next_id = (self._next_id % 0xFFFFFFFF) + 1  # 0 is the handshake's id
        body = {"op": op, "args": args}
        if window is not None:
            body["window"] = window
        if self.timeout_ms is not None:
            body["timeout_ms"] = self.timeout_ms
        frames.send_json(self.sock, frames.REQUEST, rid, body)
        return rid

    def call(self, op, **args):
        """A record op: its value, or RemoteError."""
        rid = self._request(op, args)
        frame = self._read()
        if frame.request_id != rid:
            raise frames.ProtocolError("reply for request %d, expected %d" % (frame.request_id, rid))
        body = frames.decode_json(frame)
        if frame.type == frames.ERROR:
            raise RemoteError(body.get("kind"), body.get("code"), body.get("message"))
        if frame.type != frames.RESULT:
            raise frames.ProtocolError("expected RESULT, got %s" % frames.NAMES[frame.type])
        return body["value"]

    def series_frames(self, op, window=1, cancel_after_chunks=None, **args):
        """Yield (type, request_id, payload) of a series reply, granting one credit per chunk."""
        rid = self._request(op, args, window)
        chunks = 0
        while True:
            frame = self._read()
            yield frame
            if frame.type in (frames.ERROR, frames.SERIES_END, frames.RESULT):
                return
            if frame.type == frames.SERIES_CHUNK:
                chunks += 1
                if cancel_after_chunks is not None and chunks == cancel_after_chunks:
                    frames.send_frame(self.sock, frames.SERIES_CANCEL, rid)
                    cancel_after_chunks = None
                    continue
                frames.send_frame(self.sock, frames.SERIES_NEXT, rid, (1).to_bytes(4, "little"))

    def series(self, op, window=2, **args):
        """A series op: (dtype, array). Raises RemoteError if an ERROR frame comes at any point,
        and ProtocolError if END's row count disagrees with the rows received."""
        dtype = None
        parts = []
        rows = 0
        for frame in self.series_frames(op, window=window, **args):
            if frame.type == frames.SERIES_HEAD:
                dtype = dtype_from_wire(frames.decode_json(frame)["dtype"])
            elif frame.type == frames.SERIES_CHUNK:
                if dtype is None:
                    raise frames.ProtocolError("chunk before HEAD")
                try:
                    parts.append(columns.decode_chunk(frame.payload, dtype, self._decompress))
                except columns.DecodeError as e:
                    raise frames.ProtocolError("bad SERIES_CHUNK: %s" % e)
                rows += len(parts[-1])
            elif frame.type == frames.ERROR:
                e = frames.decode_json(frame)
                raise RemoteError(e.get("kind"), e.get("code"), e.get("message"), rows_before=rows)
            elif frame.type == frames.SERIES_END:
                if frames.decode_json(frame).get("rows") != rows:
                    raise frames.ProtocolError("END says %r rows, received %d" % (frames.decode_json(frame).get("rows"), rows))
                arr = np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
                return dtype, arr
            else:
                raise frames.ProtocolError("unexpected %s in a series" % frames.NAMES[frame.type])
        raise frames.ProtocolError("series ended without END")


def dtype_from_wire(desc: dict):
    fields = desc["fields"]
    return np.dtype({"names": [f["name"] for f in fields], "formats": [f["type"] for f in fields],
                     "offsets": [f["offset"] for f in fields], "itemsize": desc["itemsize"]})
