// The addon's JSON series encoder (binding/encode/json_rows.h through src/encode/json-native.ts)
// against the TypeScript one (json-rows.ts): the same bytes for the same chunks, piece by piece and
// for whole bodies — edge values (±0, NaN, ±Infinity, the bounds of positional notation 1e-7 and
// 1e21, subnormals, the largest doubles, int64 and uint64 beyond 2^53 up to their limits), a
// million random doubles (random bit patterns and 5-digit prices), simulator ticks and bars —
// and the pipeline's order, run-ahead bound and stops on failures, and the addon's argument checks.
import t, { type Test } from 'tap';

import { encodeSeries, type SeriesEncodeOptions } from '../../src/encode/index.js';
import { loadNativeJson } from '../../src/encode/json-native.js';
import { rowsJsonOf } from '../../src/encode/json-rows.js';
import type { SeriesChunk } from '../../src/encode/series-layout.js';
import { openSimTerminal, type RateChunk, type Series, type TickChunk } from '../../src/terminal/index.js';
import { collectingSink, fakeSeries, rateChunk, tickChunk } from './fixtures/index.js';

const addon = await loadNativeJson();
if (!addon) {
  t.fail('the addon (build/Release/tradeapi.node) does not load or has no jsonRows: build it with npx cmake-js compile');
  process.exit(1);
}

const EDGE_DOUBLES: readonly number[] = [
  0, -0, NaN, Infinity, -Infinity, 1, -1, 0.1, 0.2, 0.3, 1 / 3, 2 / 3, 1.0945, 1.09452, 109.45, 4.35, 0.07, 123.456,
  1e-6, 1e-7, 9.99e-7, 1.5e-7, 0.000001, 0.0000012345, 1e-5, 1.2345e-6, -1e-7, 5e-324, -5e-324, 2.2250738585072014e-308,
  2.225073858507201e-308, 1.7976931348623157e308, -1.7976931348623157e308, 1e20, 1e21, 9.999999999999999e20, 1e22, 1.5e21,
  123456789012345680000, 1e300, 1e-300, 2 ** 53, 2 ** 53 - 1, 2 ** 53 + 2, -(2 ** 53), 2 ** 63, 2 ** 64, 2 ** 31, 2 ** 32 + 0.5,
  4294967295, 0.5, 1.5, 100, 1e15, 1e16, 1e17, 123456789.123, 5e-7, 4.9406564584124654e-324, 9007199254740993, 0.1 + 0.2,
  Number.EPSILON, 1 + Number.EPSILON, 1e-320, 3e-310, 1e23, 8.41e21, 5e-6, 299792458, 6.02214076e23, -123.5e-10,
];
const EDGE_INT64: readonly bigint[] = [
  0n, 1n, -1n, 9n, 10n, 99n, 100n, 1704672000n, 1704672000123n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n),
  -(2n ** 53n) - 1n, 9223372036854775807n, -9223372036854775808n, 99999999n, 100000000n, 10n ** 16n, 10n ** 18n,
];
const EDGE_UINT64: readonly bigint[] = [0n, 1n, 9n, 10n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n, 18446744073709551615n, 10n ** 19n, 12345678901234567890n];
const EDGE_UINT32: readonly number[] = [0, 1, 2, 6, 9, 10, 4294967295, 2147483648, 99999999, 100000000];
const EDGE_INT32: readonly number[] = [0, 1, -1, 2147483647, -2147483648, 10, -10, 99999999, -100000000];

const at = <T>(list: readonly T[], i: number): T => list[i % list.length]!;

/** A tick chunk of `rows` rows whose every field cycles through its edge values (and `doubles` for prices). */
function edgeTicks(doubles: readonly number[], rows = doubles.length): TickChunk {
  const c: TickChunk = {
    rows,
    time: new BigInt64Array(rows),
    bid: new Float64Array(rows),
    ask: new Float64Array(rows),
    last: new Float64Array(rows),
    volume: new BigUint64Array(rows),
    time_msc: new BigInt64Array(rows),
    flags: new Uint32Array(rows),
    volume_real: new Float64Array(rows),
  };
  for (let i = 0; i < rows; i++) {
    c.time[i] = at(EDGE_INT64, i);
    c.bid[i] = at(doubles, i);
    c.ask[i] = at(doubles, i + 1);
    c.last[i] = at(doubles, i + 2);
    c.volume[i] = at(EDGE_UINT64, i);
    c.time_msc[i] = at(EDGE_INT64, i + 3);
    c.flags[i] = at(EDGE_UINT32, i);
    c.volume_real[i] = at(doubles, i + 3);
  }
  return c;
}

function edgeRates(doubles: readonly number[], rows = doubles.length): RateChunk {
  const c: RateChunk = {
    rows,
    time: new BigInt64Array(rows),
    open: new Float64Array(rows),
    high: new Float64Array(rows),
    low: new Float64Array(rows),
    close: new Float64Array(rows),
    tick_volume: new BigUint64Array(rows),
    spread: new Int32Array(rows),
    real_volume: new BigUint64Array(rows),
  };
  for (let i = 0; i < rows; i++) {
    c.time[i] = at(EDGE_INT64, i + 1);
    c.open[i] = at(doubles, i);
    c.high[i] = at(doubles, i + 1);
    c.low[i] = at(doubles, i + 2);
    c.close[i] = at(doubles, i + 3);
    c.tick_volume[i] = at(EDGE_UINT64, i + 1);
    c.spread[i] = at(EDGE_INT32, i);
    c.real_volume[i] = at(EDGE_UINT64, i + 2);
  }
  return c;
}

/** Deterministic random doubles: half from random 64-bit patterns (every exponent, subnormals, NaN
 *  payloads), the rest prices and quantities with 0-7 decimals as the terminal makes them, and
 *  doubles a few ulps away from such decimals. */
function randomDoubles(n: number, seed: number): number[] {
  let s = BigInt(seed) | 1n;
  const next = (): bigint => {
    // xorshift64*
    s ^= s >> 12n;
    s ^= (s << 25n) & 0xffffffffffffffffn;
    s ^= s >> 27n;
    return (s * 2685821657736338717n) & 0xffffffffffffffffn;
  };
  const bits = new BigUint64Array(1);
  const asDouble = new Float64Array(bits.buffer);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = next();
    if (i % 2 === 0) {
      bits[0] = r;
      out.push(asDouble[0]!);
    } else {
      const u = Number(r >> 11n) / 2 ** 53;
      const digits = Number(r & 7n);
      const scale = 10 ** digits;
      const magnitude = 10 ** (Number((r >> 3n) & 7n) - 2);
      const price = Math.round(u * magnitude * scale) / scale;
      if (i % 4 !== 3 || price === 0) {
        out.push(price);
      } else {
        // A few ulps beside a short decimal: the native encoder's fast path for few decimals must
        // see that the short text does not read back to it.
        asDouble[0] = price;
        bits[0] = bits[0]! + ((r >> 6n) & 1n ? 1n : -1n) * (1n + ((r >> 7n) & 3n));
        out.push(asDouble[0]!);
      }
    }
  }
  return out;
}

function same(t: Test, actual: Uint8Array, expected: Uint8Array, what: string): void {
  if (Buffer.compare(Buffer.from(actual), Buffer.from(expected)) === 0) {
    t.pass(what);
    return;
  }
  const a = Buffer.from(actual).toString('latin1');
  const e = Buffer.from(expected).toString('latin1');
  let i = 0;
  while (i < a.length && a[i] === e[i]) i++;
  t.fail(`${what}: differs at byte ${i}`, { native: a.slice(Math.max(0, i - 60), i + 60), ts: e.slice(Math.max(0, i - 60), i + 60) });
}

async function compareSlices(t: Test, kind: 'ticks' | 'rates', chunk: SeriesChunk, rows: number, what: string): Promise<void> {
  const ts = rowsJsonOf(kind);
  const slices: [number, number, boolean][] = [[0, rows, true], [0, rows, false], [0, 0, false], [0, 0, true], [Math.floor(rows / 3), rows, false], [1, Math.min(rows, 2), true]];
  for (const [from, to, first] of slices) {
    same(t, await addon!.jsonRows(kind, chunk, from, to, first), ts(chunk, from, to, first), `${what} [${from}, ${to}) first=${first}`);
  }
}

t.test('edge values: the same bytes as the TypeScript encoder', async (t) => {
  const doubles = [...EDGE_DOUBLES, ...EDGE_DOUBLES.map((x) => -x), ...EDGE_DOUBLES.map((x) => x * 3), ...EDGE_DOUBLES.map((x) => x / 7)];
  await compareSlices(t, 'ticks', edgeTicks(doubles), doubles.length, 'ticks');
  await compareSlices(t, 'rates', edgeRates(doubles), doubles.length, 'rates');
  // Spot checks of the rules themselves, independent of either encoder.
  const one = (x: number): string => {
    const c = edgeTicks([x], 1);
    c.ask[0] = c.last[0] = c.volume_real[0] = 0;
    return /"bid":([^,]*),/.exec(rowsJsonOf('ticks')(c, 0, 1, true).toString())![1]!;
  };
  const cases: [number, string][] = [[-0, '0'], [NaN, 'null'], [Infinity, 'null'], [1e-7, '1e-7'], [1e-6, '0.000001'], [1e21, '1e+21'], [1e20, '100000000000000000000'], [0.1 + 0.2, '0.30000000000000004'], [5e-324, '5e-324'], [2 ** 53 + 2, '9007199254740994']];
  for (const [x, text] of cases) {
    const c = edgeTicks([x, 0, 0, 0], 1);
    const native = Buffer.from(await addon!.jsonRows('ticks', c, 0, 1, true)).toString();
    t.equal(/"bid":([^,]*),/.exec(native)![1], text, `${Object.is(x, -0) ? '-0' : x} prints ${text}`);
    t.equal(one(x), text, `(the TS encoder agrees for ${text})`);
  }
});

t.test('a million random doubles: the same bytes as the TypeScript encoder', async (t) => {
  for (let seed = 1; seed <= 4; seed++) {
    const doubles = randomDoubles(250_000, seed * 7919);
    const chunk = edgeTicks(doubles);
    same(t, await addon!.jsonRows('ticks', chunk, 0, chunk.rows, seed === 1), rowsJsonOf('ticks')(chunk, 0, chunk.rows, seed === 1), `seed ${seed}: ticks`);
    const rates = edgeRates(doubles.slice(0, 50_000));
    same(t, await addon!.jsonRows('rates', rates, 0, rates.rows, false), rowsJsonOf('rates')(rates, 0, rates.rows, false), `seed ${seed}: rates`);
  }
});

async function body(format: 'ticks' | 'rates', chunks: readonly SeriesChunk[], options: SeriesEncodeOptions): Promise<Uint8Array> {
  const sink = collectingSink();
  await encodeSeries('json', format, fakeSeries(chunks) as Series<never>, options).writeTo(sink);
  return sink.bytes();
}

t.test('a sink that releases its writes: pieces written into a few reused buffers, the same bytes', async (t) => {
  // The sink copies each write at once (as uWS does with what the socket does not take), so the
  // encoder may reuse the buffer when the write resolves; a slow write shows it does not reuse
  // a buffer before that.
  const ticks = [tickChunk(0, 5000), edgeTicks(EDGE_DOUBLES), tickChunk(5001, 12_345)];
  for (const parallelism of [1, 3]) {
    const parts: Buffer[] = [];
    const buffers = new Set<ArrayBufferLike>();
    let writes = 0;
    const sink = {
      releasesWrites: true,
      async write(chunk: Uint8Array): Promise<void> {
        buffers.add(chunk.buffer);
        const copy = Buffer.from(chunk);
        writes++;
        await new Promise((r) => setTimeout(r, writes % 3 === 0 ? 5 : 0));
        // Unchanged while the write was pending: nothing wrote into it meanwhile.
        if (Buffer.compare(copy, Buffer.from(chunk)) !== 0) t.fail('a buffer was reused before its write resolved');
        parts.push(copy);
      },
    };
    await encodeSeries('json', 'ticks', fakeSeries(ticks) as Series<never>, { jsonEngine: 'native', jsonPieceRows: 700, parallelism }).writeTo(sink);
    same(t, Buffer.concat(parts), await body('ticks', ticks, { jsonEngine: 'js', jsonPieceRows: 700 }), `${parallelism} in flight: the same bytes`);
    t.ok(writes > 20, `${writes} pieces written`);
    // The first two pieces' own buffers, the pool's (parallelism + 1 at most) and the closing bracket's.
    t.ok(buffers.size <= 2 + parallelism + 2, `${buffers.size} distinct buffers for ${writes} writes`);
  }
});

t.test('jsonRowsInto: refuses a buffer smaller than the bound, and anything but a Uint8Array', async (t) => {
  const c = tickChunk(0, 10);
  const bound = addon.jsonRowsBound!('ticks', 10);
  t.ok(bound > 0);
  await t.rejects(async () => addon.jsonRowsInto!('ticks', c, 0, 10, true, Buffer.alloc(bound - 1)), /out holds \d+ bytes, \d+ needed/);
  await t.rejects(async () => addon.jsonRowsInto!('ticks', c, 0, 10, true, new Float64Array(bound) as unknown as Uint8Array), /must be a Uint8Array/);
  const out = Buffer.alloc(bound);
  const n = await addon.jsonRowsInto!('ticks', c, 0, 10, true, out);
  same(t, out.subarray(0, n), rowsJsonOf('ticks')(c, 0, 10, true), 'into the buffer: the same bytes');
});

t.test('whole bodies: native and js engines write the same bytes', async (t) => {
  const ticks = [tickChunk(0, 5000), tickChunk(5000, 0), tickChunk(5000, 1), edgeTicks(EDGE_DOUBLES), tickChunk(5001, 12_345)];
  const rates = [rateChunk(0, 3000), edgeRates(EDGE_DOUBLES), rateChunk(3000, 7)];
  for (const pieceRows of [1, 7, 4096, 100_000]) {
    for (const parallelism of [1, 2, 5]) {
      const native = await body('ticks', ticks, { jsonEngine: 'native', jsonPieceRows: pieceRows, parallelism });
      same(t, native, await body('ticks', ticks, { jsonEngine: 'js', jsonPieceRows: pieceRows }), `ticks, ${pieceRows}-row pieces, ${parallelism} in flight`);
      t.equal((JSON.parse(Buffer.from(native).toString()) as unknown[]).length, 5000 + 1 + EDGE_DOUBLES.length + 12_345);
    }
    same(t, await body('rates', rates, { jsonEngine: 'native', jsonPieceRows: pieceRows }), await body('rates', rates, { jsonEngine: 'js', jsonPieceRows: pieceRows }), `rates, ${pieceRows}-row pieces`);
  }
  t.equal(Buffer.from(await body('ticks', [], { jsonEngine: 'native' })).toString(), '[]', 'empty series');
  t.equal(Buffer.from(await body('ticks', [tickChunk(0, 0)], { jsonEngine: 'native' })).toString(), '[]', 'only empty chunks');
});

t.test('simulator ticks and bars: the same bytes', async (t) => {
  const term = openSimTerminal({ seed: 42, nowMs: Date.UTC(2024, 0, 10, 12), accountAnchor: Date.UTC(2024, 0, 10) / 1000 });
  t.teardown(() => term.close());
  const from = Date.UTC(2024, 0, 8), to = Date.UTC(2024, 0, 8, 6);
  for (const symbol of ['EURUSD', 'USDJPY', 'XAUUSD', 'BTCUSD']) {
    const native = collectingSink();
    await encodeSeries('json', 'ticks', await term.copyTicksRange(symbol, from, to, -1, { chunkRows: 16_384 }), { jsonEngine: 'native', jsonPieceRows: 4096 }).writeTo(native);
    const js = collectingSink();
    await encodeSeries('json', 'ticks', await term.copyTicksRange(symbol, from, to, -1, { chunkRows: 16_384 }), { jsonEngine: 'js', jsonPieceRows: 4096 }).writeTo(js);
    t.ok(native.bytes().length > 100_000, `${symbol}: ${native.bytes().length} bytes of ticks`);
    same(t, native.bytes(), js.bytes(), `${symbol} ticks`);
    const rn = collectingSink();
    await encodeSeries('json', 'rates', await term.copyRatesRange(symbol, 1, from / 1000, Date.UTC(2024, 0, 9) / 1000), { jsonEngine: 'native' }).writeTo(rn);
    const rj = collectingSink();
    await encodeSeries('json', 'rates', await term.copyRatesRange(symbol, 1, from / 1000, Date.UTC(2024, 0, 9) / 1000), { jsonEngine: 'js' }).writeTo(rj);
    t.ok(rn.bytes().length > 50_000, `${symbol}: ${rn.bytes().length} bytes of bars`);
    same(t, rn.bytes(), rj.bytes(), `${symbol} M1 bars`);
  }
});

t.test('a chunk with other typed arrays is refused before any byte (layout check), as by the TypeScript encoder', async (t) => {
  const odd = { ...tickChunk(100, 500), flags: new Int32Array(500) } as unknown as TickChunk;
  t.throws(() => addon.jsonRows('ticks', odd, 0, 1, true), /"flags" must be a Uint32Array/);
  const sink = collectingSink();
  await t.rejects(encodeSeries('json', 'ticks', fakeSeries([odd]), { jsonEngine: 'native' }).writeTo(sink), /column "flags" must be a Uint32Array/);
  t.equal(sink.parts.length, 0, 'nothing written');
});

t.test('pieces are written in order, at most `parallelism` ahead of the sink', async (t) => {
  const chunks = [tickChunk(0, 1000), tickChunk(1000, 1000), tickChunk(2000, 1000)];
  const sink = collectingSink({ delayMs: 2 });
  let most = 0;
  const series = fakeSeries(chunks);
  sink.onWrite = () => {
    most = Math.max(most, series.nextCalls);
  };
  await encodeSeries('json', 'ticks', series, { jsonEngine: 'native', jsonPieceRows: 100, parallelism: 2 }).writeTo(sink);
  same(t, sink.bytes(), await body('ticks', chunks, { jsonEngine: 'js' }), 'same bytes');
  t.ok(sink.parts.length >= 30, `${sink.parts.length} writes`);
  t.ok(most <= 4, `the series is read no further ahead than needed (${most} next() calls at a write)`);
});

t.test('failures: the sink or the series stops the body, the error propagates', async (t) => {
  const chunks = [tickChunk(0, 1000), tickChunk(1000, 1000), tickChunk(2000, 1000)];
  const failingSink = collectingSink({ failOnWrite: 2 });
  const s1 = fakeSeries(chunks);
  await t.rejects(encodeSeries('json', 'ticks', s1, { jsonEngine: 'native', jsonPieceRows: 100 }).writeTo(failingSink), /client went away/);
  t.equal(failingSink.parts.length, 2, 'nothing written after the failed write');
  t.equal(s1.closeCalls, 1, 'series closed');
  const sink = collectingSink();
  const s2 = fakeSeries(chunks, { failAt: 1, error: new Error('terminal gone') });
  await t.rejects(encodeSeries('json', 'ticks', s2, { jsonEngine: 'native' }).writeTo(sink), /terminal gone/);
  t.notOk(sink.text().endsWith(']'), 'no closing bracket');
  t.equal(s2.closeCalls, 1, 'series closed');
});

t.test('argument checks', async (t) => {
  const c = tickChunk(0, 10);
  t.throws(() => addon.jsonRows('bars' as never, c, 0, 1, true), /kind must be/);
  t.throws(() => addon.jsonRows('ticks', null as never, 0, 1, true), /chunk must be an object/);
  t.throws(() => addon.jsonRows('ticks', c, 2, 1, true), /from > to/);
  t.throws(() => addon.jsonRows('ticks', c, 0, 11, true), /fewer than 11/);
  t.throws(() => addon.jsonRows('ticks', c, -1, 1, true), /non-negative integer/);
  t.throws(() => addon.jsonRows('ticks', { ...c, bid: new Float32Array(10) } as never, 0, 1, true), /"bid" must be a Float64Array/);
  t.throws(() => addon.jsonRows('rates', c, 0, 1, true), /"open" must be/);
});
