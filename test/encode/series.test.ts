// encodeSeries: the three formats read back by independent readers, chunking into row groups /
// record batches, empty series, zero copy, backpressure, and stopping cleanly on failures.
import t from 'tap';

import { encodeSeries, MediaTypes, type Encoded, type Format } from '../../src/encode/index.js';
import { secondsToMillis } from '../../src/encode/int64.js';
import { IpcStreamParts } from '../../src/encode/ipc-stream-parts.js';
import { RateLayout, TickLayout, type SeriesChunk, type SeriesLayout } from '../../src/encode/series-layout.js';
import type { RateChunk, TickChunk } from '../../src/terminal/series.js';
import {
  arrowTypes,
  collectingSink,
  fakeSeries,
  plainRows,
  rateChunk,
  readArrow,
  readParquet,
  tickChunk,
  T0_MS,
} from './fixtures/index.js';

const FORMATS: readonly Format[] = ['json', 'arrow', 'parquet'];

function ticks(sizes: readonly number[]): TickChunk[] {
  let start = 0;
  return sizes.map((n) => {
    const c = tickChunk(start, n);
    start += n;
    return c;
  });
}

t.test('JSON ticks: equals JSON.stringify of the plain rows, byte for byte', async (t) => {
  const chunks = ticks([1000, 20_000, 1]);
  const sink = collectingSink();
  const e = encodeSeries('json', 'ticks', fakeSeries(chunks));
  t.equal(e.contentType, MediaTypes.json);
  await e.writeTo(sink);
  const expected = JSON.stringify(chunks.flatMap(plainRows));
  t.equal(sink.text(), expected);
  t.ok(sink.parts.length >= 4, `written in ${sink.parts.length} pieces`);
  const first = (JSON.parse(sink.text()) as Record<string, number>[])[0]!;
  t.same(Object.keys(first), ['time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'flags', 'volume_real'], 'numpy dtype order');
  t.equal(first.time_msc, T0_MS, 'time_msc kept as integer ms');
  t.equal(first.time, T0_MS / 1000, 'time kept as integer seconds');
});

t.test('JSON rates: numpy order and exact text', async (t) => {
  const chunks = [rateChunk(0, 500), rateChunk(500, 700)];
  const sink = collectingSink();
  await encodeSeries('json', 'rates', fakeSeries(chunks)).writeTo(sink);
  t.equal(sink.text(), JSON.stringify(chunks.flatMap(plainRows)));
  t.same(Object.keys((JSON.parse(sink.text()) as object[])[0]!), ['time', 'open', 'high', 'low', 'close', 'tick_volume', 'spread', 'real_volume']);
});

t.test('JSON: odd values print as JSON.stringify prints them', async (t) => {
  const c = tickChunk(0, 8);
  c.bid.set([NaN, Infinity, -Infinity, -0, 1e21, 1e-7, 0.1 + 0.2, -1.5]);
  c.time.set([-1n, 0n, -(2n ** 52n), 2n ** 53n, -4294967296n, 4294967295n, 4294967296n, 1n]);
  c.volume.set([0n, 2n ** 53n, 2n ** 32n, 2n ** 32n - 1n, 1n, 7n, 9n, 11n]);
  const sink = collectingSink();
  await encodeSeries('json', 'ticks', fakeSeries([c])).writeTo(sink);
  t.equal(sink.text(), JSON.stringify(plainRows(c)));

  // Random values over every magnitude, for the digit writer and the float path.
  let seed = 0x9e3779b9;
  const rand = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  };
  const n = 20_000;
  const r = tickChunk(0, n);
  const f64 = new Float64Array(1);
  const u32 = new Uint32Array(f64.buffer);
  for (let i = 0; i < n; i++) {
    const digits = Math.floor(rand() * 16);
    const int = Math.floor(rand() * 10 ** digits) * (rand() < 0.5 ? -1 : 1);
    r.time[i] = BigInt(int);
    r.time_msc[i] = BigInt(i % 2 ? Math.floor(rand() * 2 ** 53) : -Math.floor(rand() * 2 ** 53));
    r.volume[i] = BigInt(Math.floor(rand() * 10 ** Math.floor(rand() * 16)));
    r.flags[i] = Math.floor(rand() * 4294967296);
    u32[0] = Math.floor(rand() * 4294967296);
    u32[1] = Math.floor(rand() * 4294967296);
    r.bid[i] = f64[0]!; // any bit pattern: subnormals, NaNs, infinities, huge and tiny
    r.ask[i] = Math.round(rand() * 10 ** Math.floor(rand() * 12)) / 10 ** Math.floor(rand() * 9);
    r.last[i] = (rand() - 0.5) * 10 ** (Math.floor(rand() * 40) - 20);
  }
  const s1 = collectingSink();
  await encodeSeries('json', 'ticks', fakeSeries([r])).writeTo(s1);
  t.equal(s1.text(), JSON.stringify(plainRows(r)), 'random values');

  const rates = rateChunk(0, 1000);
  for (let i = 0; i < 1000; i++) rates.spread[i] = Math.floor((rand() - 0.5) * 2 ** 32);
  const s3 = collectingSink();
  await encodeSeries('json', 'rates', fakeSeries([rates])).writeTo(s3);
  t.equal(s3.text(), JSON.stringify(plainRows(rates)), 'negative int32 spreads');

  // Beyond 2^53 the exact integer is printed (JSON.stringify of a Number would round it).
  const big = tickChunk(0, 2);
  big.volume.set([2n ** 64n - 1n, 2n ** 53n + 1n]);
  big.time.set([-(2n ** 63n), 2n ** 63n - 1n]);
  const s2 = collectingSink();
  await encodeSeries('json', 'ticks', fakeSeries([big])).writeTo(s2);
  t.match(s2.text(), /^\[\{"time":-9223372036854775808,.*"volume":18446744073709551615,/);
  t.match(s2.text(), /\{"time":9223372036854775807,.*"volume":9007199254740993,/);
});

t.test('Arrow ticks: IPC stream, one record batch per chunk, typed columns', async (t) => {
  const chunks = ticks([3000, 5000, 0, 2500]);
  const sink = collectingSink();
  const e = encodeSeries('arrow', 'ticks', fakeSeries(chunks));
  t.equal(e.contentType, MediaTypes.arrow);
  await e.writeTo(sink);
  const table = readArrow(sink.bytes());
  t.equal(table.numRows, 10_500);
  t.equal(table.batches.length, 3, 'one batch per non-empty chunk');
  t.same(arrowTypes(table), {
    time: 'Timestamp<SECOND, UTC>',
    bid: 'Float64',
    ask: 'Float64',
    last: 'Float64',
    volume: 'Uint64',
    time_msc: 'Timestamp<MILLISECOND, UTC>',
    flags: 'Uint32',
    volume_real: 'Float64',
  });
  t.same(table.batches[1]!.getChild('time')!.data[0]!.values, chunks[1]!.time);
  t.same(table.batches[2]!.getChild('time_msc')!.data[0]!.values, chunks[3]!.time_msc);
  t.same(table.batches[0]!.getChild('bid')!.data[0]!.values, chunks[0]!.bid);
  t.same(table.batches[2]!.getChild('volume')!.data[0]!.values, chunks[3]!.volume);
  // Stream framing: ends with the end-of-stream marker (continuation 0xFFFFFFFF + length 0).
  t.same([...sink.bytes().subarray(-8)], [255, 255, 255, 255, 0, 0, 0, 0]);
});

t.test('Arrow rates: spread int32, volumes uint64', async (t) => {
  const sink = collectingSink();
  await encodeSeries('arrow', 'rates', fakeSeries([rateChunk(0, 100), rateChunk(100, 50)])).writeTo(sink);
  const table = readArrow(sink.bytes());
  t.equal(table.numRows, 150);
  t.same(arrowTypes(table), {
    time: 'Timestamp<SECOND, UTC>',
    open: 'Float64',
    high: 'Float64',
    low: 'Float64',
    close: 'Float64',
    tick_volume: 'Uint64',
    spread: 'Int32',
    real_volume: 'Uint64',
  });
});

t.test('zero copy: batches and IPC body pieces are views of the chunk arrays', async (t) => {
  const c = tickChunk(0, 50_000);
  const batch = TickLayout.batch(c, 'arrow');
  t.equal(batch.getChild('time')!.data[0]!.values, c.time, 'time (seconds timestamp) over the same BigInt64Array');
  t.equal(batch.getChild('time_msc')!.data[0]!.values, c.time_msc);
  t.equal(batch.getChild('volume')!.data[0]!.values, c.volume);
  t.equal(batch.getChild('bid')!.data[0]!.values, c.bid);
  const seen: ArrayBufferLike[] = [];
  await encodeSeries('arrow', 'ticks', fakeSeries([c])).writeTo({
    write(part) {
      seen.push(part.buffer);
      return Promise.resolve();
    },
  });
  for (const name of ['time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'volume_real'] as const) {
    t.ok(seen.includes(c[name].buffer), `${name} written from its own buffer`);
  }
});

t.test("Arrow: a row count's batch message is reused (no apache-arrow per batch), the bytes are apache-arrow's own", async (t) => {
  /** The series through encodeSeries, against every batch through apache-arrow's stream writer (as before). */
  const compare = async (what: string, encoded: Encoded, layout: SeriesLayout, chunks: readonly SeriesChunk[]): Promise<void> => {
    const sink = collectingSink();
    await encoded.writeTo(sink);
    const ref = new IpcStreamParts(layout.schema('arrow'));
    for (const c of chunks) ref.write(layout.batch(c, 'arrow'));
    ref.finish();
    const expected = Buffer.concat(ref.take());
    t.ok(Buffer.from(sink.bytes()).equals(expected), `${what}: the same ${expected.byteLength} bytes as apache-arrow's writer`);
    const table = readArrow(sink.bytes());
    t.equal(table.numRows, chunks.reduce((n, c) => n + c.rows, 0), `${what}: every row`);
    t.equal(table.batches.length, chunks.length, `${what}: one batch per chunk`);
  };
  // Big chunks of one size (the message kept from the second), a small one (columns joined: never
  // kept), the big size again, an odd last one. Rates too: other columns, other widths.
  const tickChunks = ticks([20_000, 20_000, 20_000, 300, 20_000, 20_001, 20_001, 7]);
  await compare('ticks', encodeSeries('arrow', 'ticks', fakeSeries(tickChunks)), TickLayout, tickChunks);
  const rateChunks = [rateChunk(0, 20_000), rateChunk(20_000, 20_000), rateChunk(40_000, 20_000), rateChunk(60_000, 5)];
  await compare('rates', encodeSeries('arrow', 'rates', fakeSeries(rateChunks)), RateLayout, rateChunks);
});

t.test('Parquet ticks: several row groups, typed columns, values', async (t) => {
  const chunks = ticks([1000, 1000, 1000, 500]);
  const sink = collectingSink();
  const rowsSeen: number[] = [];
  const e = encodeSeries('parquet', 'ticks', fakeSeries(chunks), { rowGroupRows: 1000, onRows: (n) => rowsSeen.push(n) });
  t.equal(e.contentType, MediaTypes.parquet);
  await e.writeTo(sink);
  t.same(rowsSeen, [1000, 1000, 1000, 500], 'onRows per chunk');
  t.ok(sink.parts.length >= 3, `bytes sent as the row groups complete (${sink.parts.length} writes)`);
  const back = await readParquet(sink.bytes());
  t.same(back.metadata.row_groups.map((g) => Number(g.num_rows)), [1000, 1000, 1000, 500], 'one row group per chunk');
  t.same([...back.columns.keys()], ['time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'flags', 'volume_real']);
  t.match(back.columns.get('time')!.logical_type, { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' });
  t.match(back.columns.get('time_msc')!.logical_type, { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' });
  t.match(back.columns.get('volume')!.logical_type, { type: 'INTEGER', bitWidth: 64, isSigned: false });
  t.match(back.columns.get('flags')!.logical_type, { type: 'INTEGER', bitWidth: 32, isSigned: false });
  t.equal(back.columns.get('bid')!.type, 'DOUBLE');
  t.equal(back.metadata.row_groups[0]!.columns[0]!.meta_data!.codec, 'ZSTD', 'zstd by default');
  const expected = chunks.flatMap(plainRows);
  t.equal(back.rows.length, expected.length);
  for (const i of [0, 999, 1000, 2345, 3499]) {
    const row = back.rows[i]!;
    const want = expected[i]!;
    t.same(row.time, new Date(want.time! * 1000), `time row ${i}`);
    t.same(row.time_msc, new Date(want.time_msc!), `time_msc row ${i}`);
    t.equal(row.bid, want.bid);
    t.equal(row.last, want.last);
    t.equal(row.volume, BigInt(want.volume!), 'uint64 as bigint');
    t.equal(row.flags, want.flags);
    t.equal(row.volume_real, want.volume_real);
  }
});

t.test('seconds -> milliseconds for Parquet time columns, exact over the whole range', async (t) => {
  const src = BigInt64Array.of(0n, 1n, -1n, 1704888000n, -4294967296n, 4294967295n, 2n ** 43n - 1n, -(2n ** 43n), 2n ** 43n, 2n ** 50n, -(2n ** 60n) / 1000n);
  t.same(Array.from(secondsToMillis(src)), Array.from(src, (v) => BigInt.asIntN(64, v * 1000n)));
  const view = new BigInt64Array(new BigInt64Array(8).fill(5n).buffer, 16, 3);
  t.same(Array.from(secondsToMillis(view)), [5000n, 5000n, 5000n], 'a view at an offset');
});

t.test('Parquet: a chunk larger than the row-group bound is split; small chunks are gathered', async (t) => {
  const sink = collectingSink();
  await encodeSeries('parquet', 'ticks', fakeSeries(ticks([300_000]))).writeTo(sink);
  const back = await readParquet(sink.bytes());
  t.same(back.metadata.row_groups.map((g) => Number(g.num_rows)), [131_072, 131_072, 37_856], 'default bound 128 K rows');

  const s2 = collectingSink();
  await encodeSeries('parquet', 'ticks', fakeSeries(ticks([700, 700, 700])), { rowGroupRows: 1000 }).writeTo(s2);
  const b2 = await readParquet(s2.bytes());
  t.same(b2.metadata.row_groups.map((g) => Number(g.num_rows)), [1000, 1000, 100]);
  t.equal(b2.rows.length, 2100);
});

t.test('Parquet rates and every compression', async (t) => {
  for (const compression of ['zstd', 'snappy', 'lz4', 'none'] as const) {
    const chunks: RateChunk[] = [rateChunk(0, 400), rateChunk(400, 400)];
    const sink = collectingSink();
    await encodeSeries('parquet', 'rates', fakeSeries(chunks), { compression }).writeTo(sink);
    const back = await readParquet(sink.bytes());
    t.equal(back.rows.length, 800, compression);
    t.equal(back.metadata.row_groups[0]!.columns[0]!.meta_data!.codec, { zstd: 'ZSTD', snappy: 'SNAPPY', lz4: 'LZ4_RAW', none: 'UNCOMPRESSED' }[compression]);
    t.match(back.columns.get('spread')!, { type: 'INT32' });
    t.match(back.columns.get('tick_volume')!.logical_type, { type: 'INTEGER', bitWidth: 64, isSigned: false });
    const r = back.rows[401]!;
    t.same(r.time, new Date(Number(chunks[1]!.time[1]!) * 1000));
    t.equal(r.open, chunks[1]!.open[1]);
    t.equal(r.spread, chunks[1]!.spread[1]);
    t.equal(r.tick_volume, chunks[1]!.tick_volume[1]);
  }
});

t.test('Parquet: concurrent streams share the wasm module without mixing', async (t) => {
  const runs = [0, 1, 2].map(async (k) => {
    const chunks = ticks([900 + k * 100, 900 + k * 100, 900 + k * 100]);
    const sink = collectingSink({ delayMs: 1 });
    await encodeSeries('parquet', 'ticks', fakeSeries(chunks, { delayMs: 1 }), { rowGroupRows: 500, compression: k === 1 ? 'snappy' : 'zstd' }).writeTo(sink);
    return { chunks, back: await readParquet(sink.bytes()) };
  });
  for (const { chunks, back } of await Promise.all(runs)) {
    const expected = chunks.flatMap(plainRows);
    t.equal(back.rows.length, expected.length);
    t.equal(back.rows.at(-1)!.bid, expected.at(-1)!.bid);
    t.same(back.rows.at(-1)!.time_msc, new Date(expected.at(-1)!.time_msc!));
  }
});

t.test('empty series: valid bodies with the full schema', async (t) => {
  const json = collectingSink();
  await encodeSeries('json', 'ticks', fakeSeries<TickChunk>([])).writeTo(json);
  t.equal(json.text(), '[]');

  const arrow = collectingSink();
  await encodeSeries('arrow', 'ticks', fakeSeries<TickChunk>([])).writeTo(arrow);
  const table = readArrow(arrow.bytes());
  t.equal(table.numRows, 0);
  t.equal(arrowTypes(table).time_msc, 'Timestamp<MILLISECOND, UTC>');
  t.equal(table.schema.fields.length, 8);

  const pq = collectingSink();
  await encodeSeries('parquet', 'rates', fakeSeries<RateChunk>([rateChunk(0, 0)])).writeTo(pq);
  const back = await readParquet(pq.bytes());
  t.equal(Number(back.metadata.num_rows), 0);
  t.same([...back.columns.keys()], ['time', 'open', 'high', 'low', 'close', 'tick_volume', 'spread', 'real_volume']);
  t.match(back.columns.get('time')!.logical_type, { type: 'TIMESTAMP', unit: 'MILLIS' });
});

t.test('backpressure: the next chunk is asked for only once the sink took the previous bytes', async (t) => {
  for (const format of FORMATS) {
    const series = fakeSeries(ticks([2000, 2000, 2000, 2000]));
    const sink = collectingSink({ delayMs: 5 });
    let writing = 0;
    let overlap = false;
    const inner = sink.write.bind(sink);
    sink.write = async (chunk) => {
      writing++;
      if (series.pending) overlap = true;
      try {
        await inner(chunk);
      } finally {
        writing--;
      }
    };
    const origNext = series.next.bind(series);
    series.next = () => {
      if (writing > 0) overlap = true;
      return origNext();
    };
    await encodeSeries(format, 'ticks', series, { rowGroupRows: 2000 }).writeTo(sink);
    t.notOk(overlap, `${format}: no next() while a write is pending`);
    t.equal(series.closeCalls, 1, `${format}: series closed`);
  }
});

t.test('sink rejection stops production, closes the series and rejects writeTo', async (t) => {
  for (const format of FORMATS) {
    const series = fakeSeries(ticks(Array.from({ length: 10 }, () => 1000)));
    const error = new Error(`gone (${format})`);
    const sink = collectingSink({ failOnWrite: 1, error });
    await t.rejects(encodeSeries(format, 'ticks', series, { rowGroupRows: 1000 }).writeTo(sink), error, format);
    t.equal(series.closeCalls, 1, `${format}: closed`);
    t.ok(series.nextCalls <= 3, `${format}: stopped asking for chunks (${series.nextCalls} next calls)`);
    // Give any stray asynchronous work a chance to show up.
    await new Promise((r) => setTimeout(r, 20));
    t.ok(series.nextCalls <= 3, `${format}: still stopped`);
  }
});

t.test('series failing mid-way rejects writeTo with its error; the body is never completed', async (t) => {
  for (const format of FORMATS) {
    const error = new Error(`terminal lost (${format})`);
    const series = fakeSeries(ticks([1000, 1000, 1000, 1000]), { failAt: 2, error });
    const sink = collectingSink();
    await t.rejects(encodeSeries(format, 'ticks', series, { rowGroupRows: 1000 }).writeTo(sink), error, format);
    t.equal(series.closeCalls, 1, `${format}: closed`);
    const bytes = sink.bytes();
    if (format === 'json') {
      t.ok(bytes.length > 0 && sink.text().endsWith('}'), 'json: rows written, no closing bracket');
      t.throws(() => JSON.parse(sink.text()));
    } else if (format === 'arrow') {
      t.notSame([...bytes.subarray(-8)], [255, 255, 255, 255, 0, 0, 0, 0], 'arrow: no end-of-stream marker');
    } else {
      t.notSame(Buffer.from(bytes.subarray(-4)).toString('latin1'), 'PAR1', 'parquet: no footer');
    }
  }
});

t.test('a series that fails at once writes nothing', async (t) => {
  for (const format of FORMATS) {
    const error = new Error('unknown symbol');
    const series = fakeSeries<TickChunk>([], { failAt: 0, error });
    const sink = collectingSink();
    await t.rejects(encodeSeries(format, 'ticks', series).writeTo(sink), error, format);
    t.equal(sink.parts.length, 0, `${format}: nothing written`);
    t.equal(series.closeCalls, 1);
  }
});

t.test('a malformed chunk is an error, not garbage output', async (t) => {
  for (const format of FORMATS) {
    const bad = { ...tickChunk(0, 10), bid: new Float64Array(5) };
    const series = fakeSeries<TickChunk>([bad]);
    await t.rejects(encodeSeries(format, 'ticks', series).writeTo(collectingSink()), { name: 'TypeError', message: /bid/ }, format);
    t.equal(series.closeCalls, 1);
  }
});

t.test('writeTo runs once', async (t) => {
  const e = encodeSeries('json', 'ticks', fakeSeries(ticks([10])));
  await e.writeTo(collectingSink());
  await t.rejects(e.writeTo(collectingSink()), /once/);
});
