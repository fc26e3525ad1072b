"""Frame encoding and decoding (docs/bridge-protocol.md §2). One job: bytes <-> frames.

Every frame is a 16-byte little-endian header followed by `length` payload bytes:
    magic "TB" | version u8 | type u8 | flags u16 | reserved u16 | request_id u32 | length u32
"""
import json
import socket
import struct
import time
from typing import NamedTuple, Optional

MAGIC = b"TB"
VERSION = 1
HEADER = struct.Struct("<2sBBHHII")
HEADER_SIZE = HEADER.size  # 16
MAX_PAYLOAD = 16 * 1024 * 1024  # enforced by both sides; a larger frame is a protocol error
# Before AUTH_OK the bridge accepts no larger frame. The gateway's AUTH is 162 bytes; a peer that
# has not proven the secret gets no more memory than this from a header's say-so.
MAX_HANDSHAKE_PAYLOAD = 4096
# Payloads are received in pieces of at most this, each allocated only when the previous one is
# full: memory follows the bytes that arrive, not the length a header declares.
RECV_STEP = 256 * 1024

# Frame types. Handshake 0x0_, requests/replies 0x1_, series 0x2_, keepalive 0x3_.
HELLO = 0x01
AUTH = 0x02
AUTH_OK = 0x03
REQUEST = 0x10
RESULT = 0x11
ERROR = 0x12
SERIES_HEAD = 0x20
SERIES_CHUNK = 0x21
SERIES_END = 0x22
SERIES_NEXT = 0x23
SERIES_CANCEL = 0x24
PING = 0x30
PONG = 0x31

KNOWN_TYPES = frozenset(
    (HELLO, AUTH, AUTH_OK, REQUEST, RESULT, ERROR, SERIES_HEAD, SERIES_CHUNK, SERIES_END,
     SERIES_NEXT, SERIES_CANCEL, PING, PONG)
)
NAMES = {
    HELLO: "HELLO", AUTH: "AUTH", AUTH_OK: "AUTH_OK", REQUEST: "REQUEST", RESULT: "RESULT",
    ERROR: "ERROR", SERIES_HEAD: "SERIES_HEAD", SERIES_CHUNK: "SERIES_CHUNK",
    SERIES_END: "SERIES_END", SERIES_NEXT: "SERIES_NEXT", SERIES_CANCEL: "SERIES_CANCEL",
    PING: "PING", PONG: "PONG",
}


class ProtocolError(Exception):
    """The peer broke the protocol: the connection that did it is closed, nothing else."""


class Frame(NamedTuple):
    type: int
    request_id: int
    payload: bytes


def header(frame_type: int, request_id: int, length: int) -> bytes:
    if length > MAX_PAYLOAD:
        # Never send what the peer must reject: a series is split into chunks well below this.
        raise ValueError("payload of %d bytes exceeds the %d-byte frame limit" % (length, MAX_PAYLOAD))
    return HEADER.pack(MAGIC, VERSION, frame_type, 0, 0, request_id & 0xFFFFFFFF, length)


def encode_json(value) -> bytes:
    # allow_nan=False: NaN/Infinity are not JSON and a strict C++ parser would reject them;
    # callers turn non-finite floats into null first (records.py).
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def decode_json(frame: Frame) -> dict:
    """A JSON-object payload, or ProtocolError (a malformed payload drops the connection)."""
    try:
        value = json.loads(frame.payload.decode("utf-8")) if frame.payload else {}
    except (UnicodeDecodeError, ValueError) as e:
        raise ProtocolError("%s payload is not UTF-8 JSON: %s" % (NAMES.get(frame.type, frame.type), e))
    if not isinstance(value, dict):
        raise ProtocolError("%s payload is not a JSON object" % NAMES.get(frame.type, frame.type))
    return value


def _recv_exact(sock: socket.socket, n: int, at_boundary: bool, deadline: Optional[float]) -> Optional[bytes]:
    """n bytes, or None if the peer closed cleanly before the first byte of a frame."""
    parts = []
    got = 0
    if deadline is None and n <= RECV_STEP:
        # The usual case, a header or a small payload already here: one recv, no buffer juggling.
        first = sock.recv(n)
        if len(first) == n:
            return first
        if not first:
            if at_boundary:
                return None
            raise ProtocolError("connection closed inside a frame (0 of %d bytes)" % n)
        parts.append(first)
        got = len(first)
    while got < n:
        piece = bytearray(min(RECV_STEP, n - got))
        view = memoryview(piece)
        filled = 0
        while filled < len(piece):
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise socket.timeout("deadline passed")
                sock.settimeout(left)
            r = sock.recv_into(view[filled:], len(piece) - filled)
            if r == 0:
                if got + filled == 0 and at_boundary:
                    return None
                raise ProtocolError("connection closed inside a frame (%d of %d bytes)" % (got + filled, n))
            filled += r
        parts.append(piece)
        got += filled
    return bytes(parts[0]) if len(parts) == 1 else b"".join(parts)


def read_frame(sock: socket.socket, max_payload: int = MAX_PAYLOAD, deadline: Optional[float] = None) -> Optional[Frame]:
    """The next frame; None on a clean close between frames. Socket timeouts propagate.

    deadline (time.monotonic()): the whole frame must have arrived by then, else socket.timeout,
    however the bytes are spread (a per-recv timeout alone lets a peer trickle forever). It sets
    the socket's timeout as it goes."""
    raw = _recv_exact(sock, HEADER_SIZE, True, deadline)
    if raw is None:
        return None
    magic, version, ftype, flags, reserved, request_id, length = HEADER.unpack(raw)
    if magic != MAGIC:
        raise ProtocolError("bad magic %r" % magic)
    if version != VERSION:
        raise ProtocolError("unsupported frame version %d (this side speaks %d)" % (version, VERSION))
    if ftype not in KNOWN_TYPES:
        raise ProtocolError("unknown frame type 0x%02x" % ftype)
    if flags or reserved:
        raise ProtocolError("non-zero flags/reserved bits")
    if length > max_payload:
        # Checked before reading a byte of the payload, so an oversized frame costs no memory.
        raise ProtocolError("frame of %d bytes exceeds the %d-byte limit" % (length, max_payload))
    payload = _recv_exact(sock, length, False, deadline) if length else b""
    return Frame(ftype, request_id, payload)


def send_frame(sock: socket.socket, frame_type: int, request_id: int, payload=b"") -> None:
    """Send one frame. Small payloads go in one write; large ones (series chunks, a memoryview
    over the array's own buffer) are written after the header without being copied."""
    length = len(payload) if not isinstance(payload, memoryview) else payload.nbytes
    head = header(frame_type, request_id, length)
    if length <= 64 * 1024:
        sock.sendall(head + bytes(payload))
    else:
        sock.sendall(head)
        sock.sendall(payload)


def send_json(sock: socket.socket, frame_type: int, request_id: int, value) -> None:
    send_frame(sock, frame_type, request_id, encode_json(value))
