// mergeSeries (src/terminal/merged-series.ts, the addon's SeriesMerger): several symbols' series in
// chunks of every small size merged against a reference sort, rows of equal time in list order,
// through refills at every chunk boundary, empty chunks and series, and small output chunks.
import t from 'tap';

import { mergeSeries } from '../../src/terminal/merged-series.js';
import type { BarChunk, RateChunk, Series, TickChunk } from '../../src/terminal/series.js';

/** A series over fixed chunks (JS arrays, as a store or a test terminal might hand them). */
function seriesOf<C extends { rows: number }>(chunks: C[]): Series<C> & { closed: boolean } {
  let i = 0;
  const s = {
    closed: false,
    next: () => Promise.resolve(s.closed ? null : (chunks[i++] ?? null)),
    close() {
      s.closed = true;
    },
    async *[Symbol.asyncIterator]() {
      for (let c = await s.next(); c !== null; c = await s.next()) yield c;
    },
  };
  return s;
}

/** A tick chunk of the given times (ms); every other field derived from (symbol, row) so rows are told apart. */
function ticks(symbol: number, times: number[], first: number): TickChunk {
  const n = times.length;
  const f = (k: number) => Float64Array.from(times, (_, i) => symbol * 1000 + first + i + k / 10);
  return {
    rows: n,
    time: BigInt64Array.from(times, (ms) => BigInt(Math.floor(ms / 1000))),
    bid: f(1),
    ask: f(2),
    last: f(3),
    volume: BigUint64Array.from(times, (_, i) => BigInt(first + i)),
    time_msc: BigInt64Array.from(times, (ms) => BigInt(ms)),
    flags: Uint32Array.from(times, () => symbol),
    volume_real: f(4),
  };
}

let seed = 36;
const random = (n: number): number => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed % n;
};

/** One symbol's times (many equal ones) cut in chunks of 0 to 6 rows. */
function makeSymbol(symbol: number, rows: number): { all: number[]; chunks: TickChunk[] } {
  const all: number[] = [];
  let ms = 1_700_000_000_000;
  for (let i = 0; i < rows; i++) all.push((ms += random(3)));
  const chunks: TickChunk[] = [];
  for (let at = 0; at < rows; ) {
    const take = Math.min(rows - at, random(7));
    chunks.push(ticks(symbol, all.slice(at, at + take), at));
    at += take;
  }
  return { all, chunks };
}

t.test('ticks merge as a stable sort by time_msc, then by list order', async (t) => {
  const symbols = [0, 1, 2, 3, 4].map((s) => makeSymbol(s, s === 3 ? 0 : 200 + random(300)));
  const sources = symbols.map((s) => seriesOf(s.chunks));
  const merged = mergeSeries('ticks', sources, { minOutRows: 1 });
  merged.setChunkRows?.(37);
  const got: [number, number, number][] = [];
  let strays = 0;
  for await (const chunk of merged) {
    t.ok(chunk.rows <= 37, 'output chunks of at most the rows asked for');
    for (let i = 0; i < chunk.rows; i++) got.push([Number(chunk.time_msc[i]), chunk.symbol[i]!, Number(chunk.volume[i])]);
    // Every field follows its row.
    for (let i = 0; i < chunk.rows; i++) {
      const id = chunk.symbol[i]!;
      if (chunk.flags[i] !== id || chunk.bid[i] !== id * 1000 + Number(chunk.volume[i]) + 0.1 || chunk.time[i] !== chunk.time_msc[i]! / 1000n) strays++;
    }
  }
  t.equal(strays, 0, 'every field of a row comes from the same source row');
  const want = symbols.flatMap((s, id) => s.all.map((ms, row) => [ms, id, row] as [number, number, number]));
  want.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  t.same(got, want, `${want.length} rows in merged order`);
  t.ok(sources.every((s) => s.closed), 'every source closed at the end');
});

t.test('bars merge by time; closing early closes every source', async (t) => {
  const bar = (times: number[]): RateChunk => ({
    rows: times.length,
    time: BigInt64Array.from(times, BigInt),
    open: Float64Array.from(times),
    high: Float64Array.from(times),
    low: Float64Array.from(times),
    close: Float64Array.from(times),
    tick_volume: BigUint64Array.from(times, () => 1n),
    spread: Int32Array.from(times, () => 2),
    real_volume: BigUint64Array.from(times, () => 0n),
  });
  const a = seriesOf([bar([60, 120]), bar([180])]);
  const b = seriesOf([bar([0, 60, 240])]);
  const merged = mergeSeries('rates', [a, b]);
  const first = await merged.next();
  t.same(Array.from(first!.time, Number), [0, 60, 60, 120, 180, 240]);
  t.same(Array.from(first!.symbol), [1, 0, 1, 0, 0, 1], 'the bar at 60 of the first listed goes first');
  t.equal(await merged.next(), null);

  const c = seriesOf([bar([60]), bar([120])]);
  const d = seriesOf([bar([60])]);
  const early = mergeSeries('rates', [c, d]);
  early.close();
  t.ok(c.closed && d.closed, 'close() closes the sources');
  t.equal(await early.next(), null);
});

t.test("custom bars merge by time, each row's time_close_msc with it, across every chunk boundary", async (t) => {
  // Many bars of equal time (tick bars), in chunks of 0 to 6 rows, 37-row outputs: a source's chunk
  // is replaced while rows of the one before still wait in the output being filled.
  const symbols = [0, 1, 2, 3].map((s) => makeSymbol(s, s === 2 ? 0 : 150 + random(200)));
  const asBars = (c: TickChunk, symbol: number): BarChunk => ({
    rows: c.rows,
    time: c.time,
    open: c.bid,
    high: c.ask,
    low: c.last,
    close: c.volume_real,
    tick_volume: c.volume,
    spread: Int32Array.from(c.flags),
    real_volume: c.volume,
    // Beyond 2^32, negative for some symbols: both 32-bit halves must follow the row.
    time_close_msc: BigInt64Array.from(c.volume, (v) => (symbol % 2 ? -1n : 1n) * (BigInt(symbol) * 2n ** 40n + v)),
  });
  const sources = symbols.map((s, id) => seriesOf(s.chunks.map((c) => asBars(c, id))));
  const merged = mergeSeries('bars', sources, { minOutRows: 1 });
  merged.setChunkRows?.(37);
  const got: [number, number, number][] = [];
  let strays = 0;
  for await (const chunk of merged) {
    t.ok(chunk.time_close_msc instanceof BigInt64Array && chunk.time_close_msc.length === chunk.rows, 'a time_close_msc column of the chunk\'s rows');
    for (let i = 0; i < chunk.rows; i++) {
      const id = chunk.symbol[i]!;
      got.push([Number(chunk.time[i]), id, Number(chunk.tick_volume[i])]);
      if (chunk.time_close_msc[i] !== (id % 2 ? -1n : 1n) * (BigInt(id) * 2n ** 40n + chunk.tick_volume[i]!)) strays++;
    }
  }
  t.equal(strays, 0, "every row's time_close_msc is its own source row's");
  const want = symbols.flatMap((s, id) => s.all.map((ms, row) => [Math.floor(ms / 1000), id, row] as [number, number, number]));
  want.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  t.same(got, want, `${want.length} bars in merged order`);
  t.ok(sources.every((s) => s.closed), 'every source closed at the end');
});

t.test('a source that fails fails the merged series and closes the others', async (t) => {
  const good = seriesOf([ticks(0, [1, 2, 3], 0)]);
  const bad: Series<TickChunk> = { ...seriesOf<TickChunk>([]), next: () => Promise.reject(new Error('terminal gone')) };
  const merged = mergeSeries('ticks', [good, bad]);
  await t.rejects(merged.next(), /terminal gone/);
  t.ok(good.closed, 'the other source is closed');
});
