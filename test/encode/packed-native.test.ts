// format=packed through the addon's packer (packedRows, binding/napi/json_js.cpp: the rows packed on
// the libuv thread pool, off the event loop) against the TypeScript packRows: the same bytes for
// tick and bar chunks (edge values and simulator rows, whole chunks and ranges inside them), whole
// bodies the same through writePacked either way, the next chunk asked for while one is written,
// a sink failure stopping it, and the addon's argument checks.
import t from 'tap';

import { loadNativePacked, packRows, writePacked } from '../../src/encode/packed-rows.js';
import { RateLayout, TickLayout, type SeriesChunk } from '../../src/encode/series-layout.js';
import { openSimTerminal, type RateChunk, type TickChunk } from '../../src/terminal/index.js';
import { collectingSink, fakeSeries, rateChunk, tickChunk } from './fixtures/index.js';

const addon = await loadNativePacked();
if (!addon) {
  t.fail('the addon (build/Release/tradeapi.node) does not load or has no packedRows: build it with npx cmake-js compile');
  process.exit(1);
}

function edgeTicks(rows: number): TickChunk {
  const c = tickChunk(0, rows);
  const doubles = [0, -0, NaN, Infinity, -Infinity, 1.04211, 5e-324, 1.7976931348623157e308];
  for (let i = 0; i < rows; i++) {
    c.bid[i] = doubles[i % doubles.length]!;
    c.volume[i] = [0n, 18446744073709551615n, 2n ** 63n][i % 3]!;
    c.time_msc[i] = [-9223372036854775808n, 9223372036854775807n, 1704672000123n][i % 3]!;
    c.flags[i] = [0, 4294967295, 6][i % 3]!;
  }
  return c;
}

t.test('packedRows gives packRows bytes for ticks and bars, whole chunks and ranges inside them', async (t) => {
  const sim = openSimTerminal({ seed: 5, nowMs: Date.UTC(2024, 0, 10, 12), symbols: ['EURUSD'] });
  const ticks = await sim.copyTicksRange('EURUSD', Date.UTC(2024, 0, 10, 9), Date.UTC(2024, 0, 10, 10), -1, { chunkRows: 5000 });
  const tickChunks: TickChunk[] = [];
  for (let c = await ticks.next(); c !== null; c = await ticks.next()) tickChunks.push(c);
  const rates = await sim.copyRatesRange('EURUSD', 1, Date.UTC(2024, 0, 8) / 1000, Date.UTC(2024, 0, 10) / 1000, { chunkRows: 1000 });
  const rateChunks: RateChunk[] = [];
  for (let c = await rates.next(); c !== null; c = await rates.next()) rateChunks.push(c);
  await sim.close();
  t.ok(tickChunks.length > 0 && rateChunks.length > 0, 'simulator rows');
  const cases: [string, 'ticks' | 'rates', SeriesChunk][] = [
    ...tickChunks.map((c, i): [string, 'ticks', SeriesChunk] => [`ticks ${i}`, 'ticks', c]),
    ...rateChunks.map((c, i): [string, 'rates', SeriesChunk] => [`rates ${i}`, 'rates', c]),
    ['edge ticks', 'ticks', edgeTicks(97)],
    ['fixture rates', 'rates', rateChunk(0, 33)],
  ];
  for (const [name, kind, chunk] of cases) {
    const rows = (kind === 'ticks' ? TickLayout : RateLayout).rowsOf(chunk);
    for (const [from, to] of [[0, rows], [1, Math.max(1, rows - 1)], [3, 3]] as const) {
      const native = await addon.packedRows(kind, chunk, from, to);
      t.ok(Buffer.from(packRows(kind, chunk, from, to)).equals(native), `${name} [${from}, ${to})`);
    }
  }
});

t.test('writePacked: the same body natively as in TypeScript; the next chunk is asked for during a write', async (t) => {
  const chunks = [tickChunk(0, 10), edgeTicks(31), tickChunk(50, 1)];
  const viaTs = collectingSink();
  await writePacked(TickLayout, fakeSeries(chunks), viaTs, undefined, null);
  const viaNative = collectingSink({ delayMs: 20 });
  const series = fakeSeries(chunks);
  let askedDuringWrite = 0;
  viaNative.onWrite = () => {
    if (series.pending || series.nextCalls > viaNative.parts.length) askedDuringWrite++;
  };
  let counted = 0;
  await writePacked(TickLayout, series, viaNative, (n) => (counted += n), addon);
  t.ok(Buffer.from(viaTs.bytes()).equals(Buffer.from(viaNative.bytes())), 'the same bytes');
  t.equal(viaNative.bytes().length, 42 * 60);
  t.equal(counted, 42);
  t.ok(askedDuringWrite >= 2, `the next chunk was asked for while writing (${askedDuringWrite} of 3 writes)`);
});

t.test('writePacked: a sink that fails stops it, and the failure is the one reported', async (t) => {
  const err = new Error('client went away');
  await t.rejects(writePacked(TickLayout, fakeSeries([tickChunk(0, 5), tickChunk(5, 5), tickChunk(10, 5)]), collectingSink({ failOnWrite: 1, error: err }), undefined, addon), err);
});

t.test('packedRows checks its arguments', async (t) => {
  const c = tickChunk(0, 4);
  const call = (kind: string, chunk: unknown, from: number, to: number): Promise<Buffer> =>
    (addon.packedRows as unknown as (k: string, c: unknown, f: number, t: number) => Promise<Buffer>)(kind, chunk, from, to);
  t.throws(() => call('bars', c, 0, 1), /kind must be 'ticks' or 'rates'/);
  t.throws(() => call('ticks', c, 0, 5), /fewer than 5 values/);
  t.throws(() => call('ticks', c, 2, 1), /from > to/);
  t.throws(() => call('ticks', { ...c, bid: new Float32Array(4) }, 0, 1), /field "bid" must be a Float64Array/);
  t.equal((await call('ticks', c, 2, 2)).length, 0);
});
