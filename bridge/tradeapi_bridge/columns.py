"""Series chunks as columns (docs/bridge-protocol.md §7, protocol 2). One job: numpy rows <-> the
SERIES_CHUNK payload, and nothing of sockets.

A chunk payload is a 12-byte head, then the body, compressed as the head says:

    rows u32 | codec u8 (0 none, 1 zstd) | 3 reserved bytes (0) | body_length u32 | body

The body (body_length bytes once decompressed) is one block per field of the SERIES_HEAD dtype, in
the dtype's order. Each block starts with its encoding byte:

    RAW     (0): rows values of the field's type, little-endian, back to back
    DELTA   (1): integer fields. width u8 (0, 1, 2, 4 or 8) | first i64 | rows-1 signed deltas of
                 `width` bytes; value[i] = value[i-1] + delta[i-1] in wrapping 64-bit arithmetic,
                 then truncated to the field's type (width 0: every value equals the first)
    SCALED  (2): float64 fields whose every value in the chunk is an integer k of points, exactly:
                 op u8 (0: value = k / scale, 1: value = k * scale) | scale f8 | then k as a DELTA
                 block without its encoding byte (width, first, deltas)
    SECONDS (3): the field `time` (int64) when it equals time_msc // 1000 (floor) on every row of the
                 chunk: no bytes; the client derives it from the decoded time_msc

The encoder checks every claim on the chunk's own rows before making it (prices: the decoded double
must equal the original bit for bit; time: equal on every row), so decoding gives back exactly the
package's rows, and anything else (NaN, prices off the point grid, a broker's odd stamp) is sent RAW.
"""
import struct

import numpy as np

RAW, DELTA, SCALED, SECONDS = 0, 1, 2, 3
CODEC_NONE, CODEC_ZSTD = 0, 1
CODEC_NAMES = {"none": CODEC_NONE, "zstd": CODEC_ZSTD}
OP_DIVIDE, OP_MULTIPLY = 0, 1

CHUNK_HEAD = struct.Struct("<IB3xI")  # rows, codec, reserved, body_length: 12 bytes
_DELTA_HEAD = struct.Struct("<BBq")   # encoding, width, first
_SCALED_HEAD = struct.Struct("<BBdBq")  # encoding, op, scale, width, first
_WIDTH_TYPES = {1: np.dtype("<i1"), 2: np.dtype("<i2"), 4: np.dtype("<i4"), 8: np.dtype("<i8")}
_INT_KINDS = "iu"


def price_scales(digits, point=None):
    """The (op, scale) candidates for a price column of a symbol with these digits and point:
    k / 10**digits first (the double nearest a decimal with `digits` places, which is how a price
    normally is stored), then k * point (the formula the package's documentation suggests)."""
    out = []
    if isinstance(digits, int) and 0 <= digits <= 15:
        out.append((OP_DIVIDE, float(10 ** digits)))
    if isinstance(point, float) and point > 0 and np.isfinite(point):
        out.append((OP_MULTIPLY, point))
    return tuple(out)


def step_digits(step):
    """Decimal places of a volume step (0.01 -> 2), or None when it has more than 8."""
    if not isinstance(step, float) or not step > 0:
        return None
    for d in range(9):
        scaled = step * 10 ** d
        if abs(scaled - round(scaled)) <= 1e-9 * max(1.0, scaled):
            return d
    return None


def _width(lo, hi):
    if lo == 0 and hi == 0:
        return 0
    if lo >= -0x80 and hi <= 0x7F:
        return 1
    if lo >= -0x8000 and hi <= 0x7FFF:
        return 2
    if lo >= -0x80000000 and hi <= 0x7FFFFFFF:
        return 4
    return 8


def _delta_tail(deltas):
    """(width, bytes) of a chunk's deltas: the narrowest width that holds them all."""
    if len(deltas) == 0:
        return 0, b""
    w = _width(int(deltas.min()), int(deltas.max()))
    if w == 0:
        return 0, b""
    return w, deltas.astype(_WIDTH_TYPES[w], copy=False).tobytes()


class _Column(object):
    """One field: its buffers (reused from window to window, so that a long series does not
    allocate and free tens of MB per window) and what its chunks are made from."""

    def __init__(self, name, t, kind, candidates):
        self.name, self.t, self.kind, self.candidates = name, t, kind, candidates
        self.cap = 0
        self.derived_ok = None  # time: rows where time == time_msc // 1000 (this window)
        self.exact = []  # per candidate: (k, diffs, ok) once made for this window

    def grow(self, n):
        if n <= self.cap:
            return
        self.cap = n
        if self.kind == "int":
            self.values_buf = np.empty(n, np.int64)
            self.diffs_buf = np.empty(n, np.int64)
        elif self.kind == "float":
            self.values_buf = np.empty(n, np.float64)
            self.tmp_buf = np.empty(n, np.float64)
            self.k_bufs = [(np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.bool_))
                           for _ in self.candidates]
        else:
            self.values_buf = np.empty(n, self.t)

    def load(self, arr, n):
        """This window's values (and deltas) into the buffers."""
        self.grow(n)
        field = arr[self.name]
        self.values = self.values_buf[:n]
        self.derived_ok = None
        if self.kind == "int":
            np.copyto(self.values, field.view(np.int64) if self.t.itemsize == 8 else field, casting="unsafe")
            self.diffs = self.diffs_buf[:max(0, n - 1)]
            if n > 1:
                np.subtract(self.values[1:], self.values[:-1], out=self.diffs)  # wraps like the decoder's adds
        else:
            np.copyto(self.values, field)
            self.exact = [None] * len(self.candidates)
            self.constant = None

    def is_constant(self):
        """Whether every value of this window has the same bits (last and volume_real of FX ticks:
        all 0.0), which spares the window's rounding passes."""
        if self.constant is None:
            bits = self.values.view(np.int64)
            self.constant = bool(bits[0] == bits[-1]) and bool((bits == bits[0]).all())
        return self.constant

    def scaled(self, i):
        """(k, diffs of k, rows exact) for candidate i, made for the whole window when first asked;
        for a constant window (k of its one value, None, whether that value is exact)."""
        got = self.exact[i]
        if got is None and self.is_constant():
            op, scale = self.candidates[i]
            v = self.values[:1]
            with np.errstate(all="ignore"):
                k = np.rint(v * scale if op == OP_DIVIDE else v / scale).astype(np.int64)
                back = k / scale if op == OP_DIVIDE else k * scale
            got = self.exact[i] = (int(k[0]), None, bool(back.view(np.int64)[0] == v.view(np.int64)[0]))
        elif got is None:
            op, scale = self.candidates[i]
            n = len(self.values)
            kb, db, ob = self.k_bufs[i]
            k, d, ok = kb[:n], db[:max(0, n - 1)], ob[:n]
            tmp = self.tmp_buf[:n]
            with np.errstate(all="ignore"):
                (np.multiply if op == OP_DIVIDE else np.divide)(self.values, scale, out=tmp)
                np.rint(tmp, out=tmp)
                np.copyto(k, tmp, casting="unsafe")
                (np.divide if op == OP_DIVIDE else np.multiply)(k, scale, out=tmp)
            np.equal(tmp.view(np.int64), self.values.view(np.int64), out=ok)  # bit for bit: -0.0, NaN stay RAW
            if n > 1:
                np.subtract(k[1:], k[:-1], out=d)
            got = self.exact[i] = (k, d, ok)
        return got

    def block(self, s, e):
        if self.derived_ok is not None and self.derived_ok[s:e].all():
            return _SECONDS_BLOCK
        if self.kind == "int":
            first = int(self.values[s])
            w, tail = _delta_tail(self.diffs[s:e - 1])
            return _DELTA_HEAD.pack(DELTA, w, first) + tail
        if self.kind == "float":
            for i, (op, scale) in enumerate(self.candidates):
                k, d, ok = self.scaled(i)
                if d is None:  # a constant window
                    if ok:
                        return _SCALED_HEAD.pack(SCALED, op, scale, 0, k)
                    continue
                if ok[s:e].all():
                    first = int(k[s])
                    w, tail = _delta_tail(d[s:e - 1])
                    return _SCALED_HEAD.pack(SCALED, op, scale, w, first) + tail
        return _RAW_BLOCK + self.values[s:e].tobytes()


_SECONDS_BLOCK = bytes((SECONDS,))
_RAW_BLOCK = bytes((RAW,))


class Encoder(object):
    """Encodes windows (numpy structured arrays of one dtype) into chunk payloads.

    scales: {field name: ((op, scale), ...)} candidates for float64 fields (price_scales); fields
    without candidates are sent RAW. compress: None, or a callable bytes -> bytes (zstd), applied
    to a chunk's body when it makes it smaller."""

    def __init__(self, dtype, scales=None, compress=None):
        self.dtype = dtype
        self.compress = compress
        scales = scales or {}
        names = dtype.names or ()
        self.columns = []
        for name in names:
            t = dtype.fields[name][0]
            if t.kind in _INT_KINDS and t.itemsize in (4, 8):
                kind = "int"
            elif t == np.dtype("<f8") and scales.get(name):
                kind = "float"
            else:
                kind = "raw"
            self.columns.append(_Column(name, t, kind, tuple(scales.get(name, ())) if kind == "float" else ()))
        by_name = {c.name: c for c in self.columns}
        time_col, msc_col = by_name.get("time"), by_name.get("time_msc")
        i8 = np.dtype("<i8")
        self._derive = (time_col, msc_col) if time_col and msc_col and time_col.t == i8 and msc_col.t == i8 else None
        self._seconds = np.empty(0, np.int64)
        self._same = np.empty(0, np.bool_)

    def _load(self, arr):
        n = len(arr)
        for c in self.columns:
            c.load(arr, n)
        if self._derive is not None:
            t, tm = self._derive
            if len(self._seconds) < n:
                self._seconds = np.empty(n, np.int64)
                self._same = np.empty(n, np.bool_)
            sec, same = self._seconds[:n], self._same[:n]
            np.floor_divide(tm.values, 1000, out=sec)
            np.equal(t.values, sec, out=same)
            t.derived_ok = same

    def chunks(self, arr, rows_per_chunk):
        """(rows, payload) of each chunk of one window, rows_per_chunk rows each (the last fewer)."""
        n = len(arr)
        if n == 0:
            return
        self._load(arr)
        for s in range(0, n, rows_per_chunk):
            e = min(n, s + rows_per_chunk)
            blocks = [c.block(s, e) for c in self.columns]
            length = sum(map(len, blocks))
            if self.compress is not None:
                body = b"".join(blocks)
                squeezed = self.compress(body)
                if len(squeezed) < length:
                    yield e - s, CHUNK_HEAD.pack(e - s, CODEC_ZSTD, length) + squeezed
                    continue
            yield e - s, b"".join([CHUNK_HEAD.pack(e - s, CODEC_NONE, length)] + blocks)


# ---------------------------------------------------------------------- decoding (the reference client)

class DecodeError(ValueError):
    pass


def decode_chunk(payload, dtype, decompress=None):
    """A chunk payload back into a structured array of `dtype` (what the package returned).
    decompress(data, body_length) -> bytes for zstd bodies. Raises DecodeError on anything the
    protocol does not allow."""
    if len(payload) < CHUNK_HEAD.size:
        raise DecodeError("chunk shorter than its head")
    rows, codec, body_length = CHUNK_HEAD.unpack_from(payload)
    if payload[5:8] != b"\0\0\0":
        raise DecodeError("chunk head's reserved bytes are not zero")
    if rows == 0:
        raise DecodeError("chunk of 0 rows")
    data = memoryview(payload)[CHUNK_HEAD.size:]
    if codec == CODEC_ZSTD:
        if decompress is None:
            raise DecodeError("zstd chunk without a decompressor")
        data = memoryview(decompress(bytes(data), body_length))
    elif codec != CODEC_NONE:
        raise DecodeError("unknown codec %d" % codec)
    if len(data) != body_length:
        raise DecodeError("body of %d bytes, head says %d" % (len(data), body_length))
    out = np.zeros(rows, dtype=dtype)
    pos = 0
    derived = []
    for name in dtype.names:
        t = dtype.fields[name][0]
        if pos >= len(data):
            raise DecodeError("body ends before field %s" % name)
        enc = data[pos]
        if enc == RAW:
            n = rows * t.itemsize
            if pos + 1 + n > len(data):
                raise DecodeError("RAW block of %s runs past the body" % name)
            out[name] = np.frombuffer(data[pos + 1:pos + 1 + n], dtype=t)
            pos += 1 + n
        elif enc in (DELTA, SCALED):
            if enc == DELTA:
                if t.kind not in _INT_KINDS:
                    raise DecodeError("DELTA block for non-integer field %s" % name)
                head = _DELTA_HEAD
            else:
                if t != np.dtype("<f8"):
                    raise DecodeError("SCALED block for non-float64 field %s" % name)
                head = _SCALED_HEAD
            if pos + head.size > len(data):
                raise DecodeError("block of %s runs past the body" % name)
            parts = head.unpack_from(data, pos)
            w, first = parts[-2], parts[-1]
            pos += head.size
            if w not in (0, 1, 2, 4, 8):
                raise DecodeError("delta width %d of %s" % (w, name))
            k = np.empty(rows, dtype=np.int64)
            k[0] = first
            if w:
                n = (rows - 1) * w
                if pos + n > len(data):
                    raise DecodeError("deltas of %s run past the body" % name)
                d = np.frombuffer(data[pos:pos + n], dtype=_WIDTH_TYPES[w]).astype(np.int64)
                pos += n
                with np.errstate(over="ignore"):
                    k[1:] = first + np.cumsum(d)  # wrapping, as the encoder's np.diff
            else:
                k[1:] = first
            if enc == SCALED:
                op, scale = parts[1], parts[2]
                out[name] = k / scale if op == OP_DIVIDE else k * scale
            else:
                out[name] = k.astype(t) if t.itemsize == 8 else k.astype(np.int64).astype(t)
        elif enc == SECONDS:
            if name != "time" or "time_msc" not in dtype.names:
                raise DecodeError("SECONDS block for %s" % name)
            derived.append(name)
            pos += 1
        else:
            raise DecodeError("unknown encoding %d for %s" % (enc, name))
    if pos != len(data):
        raise DecodeError("%d bytes left after the last block" % (len(data) - pos))
    for name in derived:
        out[name] = out["time_msc"] // 1000
    return out
