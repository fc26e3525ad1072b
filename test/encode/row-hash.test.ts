// The series content hash (src/encode/row-hash.ts over binding/encode/row_hash.h): the digests of
// python-xxhash over the MetaTrader5 package's numpy arrays (vectors shared with
// binding/tests/row_hash_test.cpp; and, where a Python with xxhash and numpy is found, computed by
// it for odd values: NaN, -0, 2^64 - 1), digests that do not depend on how the rows are cut into
// chunks or on the arrays being views at an offset, the simulated terminal's own chunks, and the
// argument checks (a TypeError, nothing hashed).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import t from 'tap';

import { createRowHasher, hashRows } from '../../src/encode/row-hash.js';
import { openSimTerminal, type RateChunk, type TickChunk } from '../../src/terminal/index.js';
import { VENV_PYTHON } from '../helpers/python.js';
import { rateChunk, tickChunk } from './fixtures/index.js';

const EMPTY = '99aa06d3014798d86001c324468d497f'; // XXH3-128 of no bytes

/** python: time = 1704700800 + i // 7; bid = 1.1 + i * 1e-5; (time, bid, bid + 2e-5, 0.0 if i % 5 else bid,
 *  i * 3, time * 1000 + (i * 37) % 1000, 2 + (i % 3) * 4, i * 0.5) as MetaTrader5's tick dtype. */
function pythonTicks(n: number): TickChunk {
  const c = {
    rows: n,
    time: new BigInt64Array(n),
    bid: new Float64Array(n),
    ask: new Float64Array(n),
    last: new Float64Array(n),
    volume: new BigUint64Array(n),
    time_msc: new BigInt64Array(n),
    flags: new Uint32Array(n),
    volume_real: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const time = 1704700800 + Math.floor(i / 7);
    const bid = 1.1 + i * 1e-5;
    c.time[i] = BigInt(time);
    c.bid[i] = bid;
    c.ask[i] = bid + 2e-5;
    c.last[i] = i % 5 ? 0 : bid;
    c.volume[i] = BigInt(i * 3);
    c.time_msc[i] = BigInt(time * 1000 + ((i * 37) % 1000));
    c.flags[i] = 2 + (i % 3) * 4;
    c.volume_real[i] = i * 0.5;
  }
  return c;
}

/** python: o = 150.0 + i * 0.001; (1704700800 + i * 60, o, o + 0.05, o - 0.04, o + 0.01, 100 + i, (i % 11) - 3, i * 1000003). */
function pythonRates(n: number): RateChunk {
  const c = {
    rows: n,
    time: new BigInt64Array(n),
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    tick_volume: new BigUint64Array(n),
    spread: new Int32Array(n),
    real_volume: new BigUint64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const o = 150.0 + i * 0.001;
    c.time[i] = BigInt(1704700800 + i * 60);
    c.open[i] = o;
    c.high[i] = o + 0.05;
    c.low[i] = o - 0.04;
    c.close[i] = o + 0.01;
    c.tick_volume[i] = BigInt(100 + i);
    c.spread[i] = (i % 11) - 3;
    c.real_volume[i] = BigInt(i * 1000003);
  }
  return c;
}

type Columns = Record<string, BigInt64Array | BigUint64Array | Float64Array | Uint32Array | Int32Array>;

/** Rows [from, to) of a chunk as views (subarray) of its own arrays: offsets into shared buffers. */
function slice<C extends TickChunk | RateChunk>(chunk: C, from: number, to: number): C {
  const out: Record<string, unknown> = { rows: to - from };
  for (const [k, v] of Object.entries(chunk)) if (k !== 'rows') out[k] = (v as Columns[string]).subarray(from, to);
  return out as C;
}

/** The same rows in a chunk whose arrays are longer than `rows` (a terminal's pooled columns may be). */
function padded<C extends TickChunk | RateChunk>(chunk: C, extra: number): C {
  const out: Record<string, unknown> = { rows: chunk.rows };
  for (const [k, v] of Object.entries(chunk)) {
    if (k === 'rows') continue;
    const src = v as Columns[string];
    const Ctor = src.constructor as new (n: number) => Columns[string];
    const big = new Ctor(src.length + extra + 3);
    (big as unknown as { set(a: unknown, at: number): void }).set(src, 3);
    out[k] = big.subarray(3); // starts at a byte offset, ends `extra` values past rows
  }
  return out as C;
}

t.test('the digests python-xxhash computes over the MetaTrader5 arrays', async (t) => {
  const ticks = createRowHasher('ticks');
  t.equal(ticks.digest(), EMPTY, 'no rows: XXH3-128 of nothing');
  t.equal(ticks.rows, 0);
  ticks.update(pythonTicks(5000));
  t.equal(ticks.digest(), '4ca8fe8806e07716ac061842477b351b');
  t.equal(ticks.rows, 5000);
  t.equal(hashRows('rates', [pythonRates(5000)]).digest, 'd8f7bddb216fdd098ae17ec6a7e1f11c');
});

t.test('chunking, views at offsets and longer arrays never change the digest', async (t) => {
  for (const kind of ['ticks', 'rates'] as const) {
    const n = 7000; // several of the hasher's 64 KiB batches (1092 rows)
    const all = kind === 'ticks' ? tickChunk(0, n) : rateChunk(0, n);
    const whole = hashRows(kind, [all]).digest;
    t.match(whole, /^[0-9a-f]{32}$/);
    t.equal(hashRows(kind, [padded(all, 17)]).digest, whole, `${kind}: arrays longer than rows, at a byte offset`);
    // The fixture made in pieces: separate arrays per chunk.
    t.equal(hashRows(kind, [0, 1, 1093, 3000, 6999].map((from, i, a) => {
      const to = a[i + 1] ?? n;
      return kind === 'ticks' ? tickChunk(from, to - from) : rateChunk(from, to - from);
    })).digest, whole, `${kind}: chunks made separately`);
    let seed = 7;
    const rand = (k: number): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % k);
    for (let round = 0; round < 20; round++) {
      const h = createRowHasher(kind);
      for (let at = 0; at < n; ) {
        const take = Math.min(n - at, round === 0 ? 1 : rand(2500)); // empty chunks too
        h.update(slice(all, at, at + take));
        at += take;
        t.equal(h.rows, at);
      }
      t.equal(h.digest(), whole, `${kind}: split ${round}`);
    }
    // One value's last bit changes the digest.
    const other = slice(all, 0, n);
    const prices = (kind === 'ticks' ? (other as TickChunk).ask : (other as RateChunk).close).slice();
    prices[n - 1] = prices[n - 1]! + Number.EPSILON;
    t.not(hashRows(kind, [{ ...other, [kind === 'ticks' ? 'ask' : 'close']: prices }]).digest, whole);
  }
});

t.test("the simulated terminal's chunks (external buffers) hash as the same rows copied", async (t) => {
  const term = openSimTerminal({ seed: 42, nowMs: Date.UTC(2024, 0, 10, 12) });
  t.teardown(() => term.close());
  const from = Date.UTC(2024, 0, 8, 6);
  const to = Date.UTC(2024, 0, 8, 9);
  const direct = createRowHasher('ticks');
  const copies: TickChunk[] = [];
  const series = await term.copyTicksRange('EURUSD', from, to, -1, { chunkRows: 4096 });
  for (let c = await series.next(); c !== null; c = await series.next()) {
    direct.update(c);
    copies.push(padded(c, 0)); // copied into arrays of our own
  }
  t.ok(direct.rows > 10_000, `${direct.rows} ticks`);
  const copied = hashRows('ticks', copies);
  t.equal(copied.rows, direct.rows);
  t.equal(copied.digest, direct.digest());
  // Another chunk size from the terminal: the same digest.
  const again = createRowHasher('ticks');
  const s2 = await term.copyTicksRange('EURUSD', from, to, -1, { chunkRows: 1000 });
  for (let c = await s2.next(); c !== null; c = await s2.next()) again.update(c);
  t.equal(again.digest(), direct.digest());
});

t.test('bad arguments are TypeErrors and hash nothing', async (t) => {
  t.throws(() => createRowHasher('bars' as never), TypeError);
  const h = createRowHasher('ticks');
  h.update(tickChunk(0, 10));
  const before = h.digest();
  const good = tickChunk(0, 5);
  const bad: [string, unknown][] = [
    ['not an object', 42],
    ['a RateChunk', rateChunk(0, 5)],
    ['rows missing', { ...good, rows: undefined }],
    ['rows negative', { ...good, rows: -1 }],
    ['rows fractional', { ...good, rows: 1.5 }],
    ['rows beyond the arrays', { ...good, rows: 6 }],
    ['time as Float64Array', { ...good, time: new Float64Array(5) }],
    ['volume signed', { ...good, volume: new BigInt64Array(5) }],
    ['flags as Int32Array', { ...good, flags: new Int32Array(5) }],
    ['a column missing', { ...good, volume_real: undefined }],
    ['a plain array', { ...good, bid: [1, 2, 3, 4, 5] }],
  ];
  for (const [what, chunk] of bad) {
    t.throws(() => h.update(chunk as TickChunk), TypeError, what);
  }
  t.equal(h.rows, 10);
  t.equal(h.digest(), before, 'nothing hashed by the failed calls');
  const r = createRowHasher('rates');
  t.throws(() => r.update({ ...rateChunk(0, 3), spread: new Uint32Array(3) } as never), TypeError, 'spread must be Int32Array');
  t.throws(() => r.update(tickChunk(0, 3) as never), TypeError, 'a TickChunk to a rates hasher');
  r.update({ ...rateChunk(0, 3), rows: 0 });
  t.equal(r.digest(), EMPTY, 'zero rows hash nothing');
});

/** A Python with xxhash and numpy, if one is here (never required: the vectors above are its). */
function xxhashPython(): string | undefined {
  const candidates = [process.env.TRADEAPI_TEST_PYTHON, existsSync(VENV_PYTHON) ? VENV_PYTHON : undefined, 'python3'];
  for (const p of candidates) {
    if (p && spawnSync(p, ['-c', 'import xxhash, numpy'], { encoding: 'utf8' }).status === 0) return p;
  }
  return undefined;
}

const python = xxhashPython();
const noPython = 'no Python with xxhash and numpy here (pip install xxhash numpy): the fixed vectors above still ran';
t.test('python-xxhash over numpy arrays of the same columns, odd values included', { skip: python ? false : noPython }, async (t) => {
  if (!python) return;
  const dir = mkdtempSync(path.join(tmpdir(), 'tradeapi-rowhash-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ticks = tickChunk(100, 3000);
  ticks.bid[7] = NaN;
  ticks.ask[8] = -0;
  ticks.last[9] = -Infinity;
  ticks.volume[10] = 2n ** 64n - 1n;
  ticks.time_msc[11] = -(2n ** 63n);
  ticks.flags[12] = 0xffffffff;
  const rates = rateChunk(5, 2500);
  rates.spread[3] = -2147483648;
  rates.real_volume[4] = 2n ** 63n;
  const script = `
import sys, numpy as np, xxhash
names = sys.argv[2].split(',')
types = sys.argv[3].split(',')
dt = np.dtype([(n, t) for n, t in zip(names, types)])
assert dt.itemsize == 60
rows = int(sys.argv[4])
a = np.zeros(rows, dtype=dt)
for n, t in zip(names, types):
    a[n] = np.fromfile(sys.argv[1] + '/' + n, dtype=t)
print(xxhash.xxh3_128_hexdigest(a.tobytes()))
`;
  const cases = [
    ['ticks', ticks, ['<i8', '<f8', '<f8', '<f8', '<u8', '<i8', '<u4', '<f8']],
    ['rates', rates, ['<i8', '<f8', '<f8', '<f8', '<f8', '<u8', '<i4', '<u8']],
  ] as const;
  for (const [kind, chunk, types] of cases) {
    const names = Object.keys(chunk).filter((k) => k !== 'rows');
    for (const n of names) {
      const v = (chunk as unknown as Columns)[n]!;
      writeFileSync(path.join(dir, n), Buffer.from(v.buffer, v.byteOffset, v.byteLength));
    }
    const r = spawnSync(python, ['-c', script, dir, names.join(','), types.join(','), String(chunk.rows)], { encoding: 'utf8' });
    t.equal(r.status, 0, r.stderr);
    t.equal(hashRows(kind, [chunk]).digest, r.stdout.trim(), `${kind}: python-xxhash's digest (${python})`);
  }
});
