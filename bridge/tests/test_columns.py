"""SERIES_CHUNK as columns (tradeapi_bridge/columns.py, docs/bridge-protocol.md §7) at the frame
level: every series the package returns comes back from its chunks bit for bit, whatever the
encoding each column got; what each column got; chunk boundaries; empty series; compression; and
payloads the protocol forbids. The same chunks are the C++ client's fixture (gen_chunk_fixture.py)."""
import os
import struct
import unittest

import numpy as np

import chunk_cases
import gen_chunk_fixture
from tradeapi_bridge import columns, compression
from tradeapi_bridge.series import RATE_DTYPE, TICK_DTYPE

ZSTD = compression.compressor("zstd", 1)
UNZSTD = compression.decompressor()


def encode(arr, scales, rows_per_chunk, compress=None, windows=None):
    """Payloads of `arr` sent as the bridge does: windows (default: the whole array), then chunks."""
    enc = columns.Encoder(arr.dtype, scales, compress)
    out = []
    step = windows or max(1, len(arr))
    for w in range(0, len(arr), step):
        out.extend(p for _, p in enc.chunks(arr[w:w + step], rows_per_chunk))
    return out


def decode(payloads, dtype):
    parts = [columns.decode_chunk(p, dtype, UNZSTD) for p in payloads]
    return np.concatenate(parts) if parts else np.zeros(0, dtype)


def blocks(payload, dtype):
    """[(field, encoding, extra)] of an uncompressed chunk: extra is (op, scale, width) for SCALED,
    width for DELTA."""
    rows, codec, length = columns.CHUNK_HEAD.unpack_from(payload)
    assert codec == columns.CODEC_NONE
    body = payload[columns.CHUNK_HEAD.size:]
    pos, out = 0, []
    for name in dtype.names:
        t = dtype.fields[name][0]
        enc = body[pos]
        if enc == columns.RAW:
            out.append((name, enc, None))
            pos += 1 + rows * t.itemsize
        elif enc == columns.DELTA:
            w = body[pos + 1]
            out.append((name, enc, w))
            pos += 10 + (rows - 1) * w
        elif enc == columns.SCALED:
            op, scale, w = struct.unpack_from("<BdB", body, pos + 1)
            out.append((name, enc, (op, scale, w)))
            pos += 19 + (rows - 1) * w
        else:
            out.append((name, enc, None))
            pos += 1
    assert pos == len(body)
    return dict((n, (e, x)) for n, e, x in out)


class RoundTrip(unittest.TestCase):
    def test_every_case_comes_back_as_the_packages_rows(self):
        for name, arr, scales, per_chunk in chunk_cases.cases():
            for compress in (None, ZSTD):
                for windows in (None, 97):
                    with self.subTest(case=name, zstd=compress is not None, windows=windows):
                        payloads = encode(arr, scales, per_chunk, compress, windows)
                        rows = [columns.CHUNK_HEAD.unpack_from(p)[0] for p in payloads]
                        self.assertEqual(sum(rows), len(arr))
                        self.assertTrue(all(0 < r <= per_chunk for r in rows))
                        self.assertEqual(decode(payloads, arr.dtype).tobytes(), arr.tobytes())

    def test_fx_ticks_are_points_deltas_and_derived_seconds(self):
        t = chunk_cases.fx_ticks(1000)
        b = blocks(encode(t, chunk_cases.tick_scales(chunk_cases.FX), 1000)[0], TICK_DTYPE)
        self.assertEqual(b["time"], (columns.SECONDS, None))
        self.assertEqual(b["bid"], (columns.SCALED, (columns.OP_DIVIDE, 1e5, 1)))
        self.assertEqual(b["ask"][0], columns.SCALED)
        self.assertEqual(b["last"], (columns.SCALED, (columns.OP_DIVIDE, 1e5, 0)))  # all 0.0: nothing but the first
        self.assertEqual(b["volume"], (columns.DELTA, 0))
        self.assertEqual(b["time_msc"], (columns.DELTA, 2))
        self.assertEqual(b["flags"], (columns.DELTA, 1))
        self.assertEqual(b["volume_real"][0], columns.SCALED)
        payload = encode(t, chunk_cases.tick_scales(chunk_cases.FX), 1000)[0]
        self.assertLess(len(payload), 1000 * 6)  # against 60 bytes a row

    def test_widths_follow_each_chunks_own_deltas(self):
        t = chunk_cases.exchange_ticks(700)
        payloads = encode(t, chunk_cases.tick_scales(chunk_cases.INDEX), 200)
        widths = [blocks(p, TICK_DTYPE)["bid"][1][2] for p in payloads]
        self.assertEqual(widths, [1, 4, 1, 1])  # the 70 000-point jump at row 350 is in the second chunk only
        self.assertEqual(blocks(payloads[0], TICK_DTYPE)["volume"][0], columns.DELTA)

    def test_prices_off_the_grid_go_raw_or_as_k_times_point(self):
        t = chunk_cases.off_grid(chunk_cases.fx_ticks(400))
        for p in encode(t, chunk_cases.tick_scales(chunk_cases.FX), 128):
            b = blocks(p, TICK_DTYPE)
            self.assertEqual(b["bid"], (columns.RAW, None))  # 6 decimals on a 5-digit symbol
            self.assertEqual(b["ask"][0], columns.SCALED)
            self.assertEqual(b["ask"][1][:2], (columns.OP_MULTIPLY, 1e-05))  # k * point, not k / 10**5
        ratio = np.mean(t["ask"] == np.rint(t["ask"] * 1e5) / 1e5)
        self.assertLess(ratio, 0.9)  # the division form really fails for some of them

    def test_values_no_claim_holds_are_sent_raw_per_chunk(self):
        t = chunk_cases.odd(chunk_cases.fx_ticks(40))
        payloads = encode(t, chunk_cases.tick_scales(chunk_cases.FX), 16)
        first, second = blocks(payloads[0], TICK_DTYPE), blocks(payloads[1], TICK_DTYPE)
        for name in ("bid", "ask", "last", "volume_real"):
            self.assertEqual(first[name], (columns.RAW, None), name)  # -0.0, NaN, inf, 1e300 in rows 1..7
            self.assertEqual(second[name][0], columns.SCALED, name)   # the next chunk is clean again
        self.assertEqual(first["time"], (columns.DELTA, 1))  # row 4: time != time_msc // 1000
        self.assertEqual(second["time"], (columns.SECONDS, None))
        self.assertEqual(first["volume"], (columns.DELTA, 1))  # 0 -> 2**64 - 1 -> 0: -1 and +1, wrapping
        self.assertEqual(first["flags"][0], columns.DELTA)
        self.assertEqual(decode(payloads, TICK_DTYPE).tobytes(), t.tobytes())

    def test_rates(self):
        r = chunk_cases.m1_rates(500)
        b = blocks(encode(r, chunk_cases.rate_scales(chunk_cases.JPY), 500)[0], RATE_DTYPE)
        self.assertEqual(b["time"], (columns.DELTA, 1))  # 60 s apart
        for name in ("open", "high", "low", "close"):
            self.assertEqual(b[name][0], columns.SCALED)
        self.assertEqual(b["spread"], (columns.DELTA, 1))
        self.assertEqual(b["real_volume"], (columns.DELTA, 8))

    def test_empty_windows_make_no_chunk(self):
        self.assertEqual(encode(np.zeros(0, TICK_DTYPE), chunk_cases.tick_scales(chunk_cases.FX), 10), [])
        self.assertEqual(len(decode([], TICK_DTYPE)), 0)

    def test_compression_only_where_it_shrinks_the_chunk(self):
        t = chunk_cases.fx_ticks(1000)
        (big,) = encode(t, chunk_cases.tick_scales(chunk_cases.FX), 1000, ZSTD)
        (plain,) = encode(t, chunk_cases.tick_scales(chunk_cases.FX), 1000)
        self.assertEqual(columns.CHUNK_HEAD.unpack_from(big)[1], columns.CODEC_ZSTD)
        self.assertLess(len(big), len(plain))
        self.assertEqual(columns.CHUNK_HEAD.unpack_from(big)[2], len(plain) - columns.CHUNK_HEAD.size)
        noise = np.frombuffer(np.random.default_rng(1).bytes(60), dtype=TICK_DTYPE)  # one row of noise
        (tiny,) = encode(noise, {}, 10, ZSTD)  # zstd's frame would be larger than the body
        self.assertEqual(columns.CHUNK_HEAD.unpack_from(tiny)[1], columns.CODEC_NONE)
        self.assertEqual(tiny, encode(noise, {}, 10)[0])
        self.assertEqual(decode([tiny], TICK_DTYPE).tobytes(), noise.tobytes())

    def test_buffers_are_reused_across_windows_of_any_size(self):
        t = chunk_cases.fx_ticks(1000)
        enc = columns.Encoder(TICK_DTYPE, chunk_cases.tick_scales(chunk_cases.FX))
        out = []
        for lo, hi in ((0, 10), (10, 600), (600, 601), (601, 1000)):
            out.extend(p for _, p in enc.chunks(t[lo:hi], 128))
        self.assertEqual(decode(out, TICK_DTYPE).tobytes(), t.tobytes())


class Refused(unittest.TestCase):
    """Payloads a client must refuse (the C++ client refuses the same: bridge_chunk_test.cpp)."""

    def setUp(self):
        t = chunk_cases.fx_ticks(20)
        (self.good,) = encode(t, chunk_cases.tick_scales(chunk_cases.FX), 20)
        self.rows, _, self.length = columns.CHUNK_HEAD.unpack_from(self.good)
        self.body = self.good[columns.CHUNK_HEAD.size:]

    def refuse(self, payload, why):
        with self.assertRaises(columns.DecodeError, msg=why):
            columns.decode_chunk(payload, TICK_DTYPE, UNZSTD)

    def test_refusals(self):
        head = columns.CHUNK_HEAD
        self.refuse(self.good[:11], "shorter than its head")
        self.refuse(head.pack(0, 0, self.length) + self.body, "0 rows")
        self.refuse(head.pack(self.rows, 2, self.length) + self.body, "unknown codec")
        self.refuse(head.pack(self.rows, 0, self.length + 1) + self.body, "length differs")
        self.refuse(self.good + b"\0", "bytes after the last block")
        self.refuse(self.good[:8] + b"\0" + self.good[9:], "length differs")
        bad = bytearray(self.good)
        bad[5] = 1
        self.refuse(bytes(bad), "reserved byte")
        # time (the first block) as SECONDS is fine; bid (after it) as DELTA is not: a float field
        body = bytearray(self.body)
        self.assertEqual(body[0], columns.SECONDS)
        self.assertEqual(body[1], columns.SCALED)
        body[1] = columns.DELTA
        self.refuse(head.pack(self.rows, 0, len(body)) + bytes(body), "DELTA for a float")
        body[1] = 9
        self.refuse(head.pack(self.rows, 0, len(body)) + bytes(body), "unknown encoding")
        body = bytearray(self.body)
        body[1 + 10] = 3  # bid's width
        self.refuse(head.pack(self.rows, 0, len(body)) + bytes(body), "width 3")
        self.refuse(head.pack(self.rows * 1000, 0, self.length) + self.body, "rows past the body")


class Fixture(unittest.TestCase):
    def test_the_cpp_fixture_is_what_this_encoder_makes(self):
        path = gen_chunk_fixture.PATH
        with open(path, encoding="utf-8") as f:
            on_disk = f.read()
        self.assertEqual(on_disk, gen_chunk_fixture.render(),
                         "%s is stale: run python bridge/tests/gen_chunk_fixture.py" % os.path.relpath(path))


if __name__ == "__main__":
    unittest.main()
