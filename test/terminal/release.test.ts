// Series.release over the real addon: a released chunk's arrays are detached and their storage is
// back in the column pool at once (the next chunk is made from it); arrays the addon did not make
// are left alone; the wrappers that hand chunks on unchanged forward it.
import t from 'tap';

import { parseServerZone } from '../../src/config/server-zone.js';
import { MixedSeries, type Part } from '../../src/store/mixed-series.js';
import { addon, type ColumnPoolStats } from '../../src/terminal/native.js';
import { openSimTerminal, TickFields, type Series, type TickChunk } from '../../src/terminal/index.js';
import { withServerTime } from '../../src/terminal/with-server-time.js';
import { tickChunk } from '../encode/fixtures/index.js';

const NOW = Date.UTC(2024, 0, 10, 12, 0, 0);
const FROM = Date.UTC(2024, 0, 8);
const TO = Date.UTC(2024, 0, 9);
// 16 K rows: every column (flags: 64 KiB) is large enough for the pool (column_pool.h kMinBytes).
const ROWS = 16_384;

const term = openSimTerminal({ seed: 42, nowMs: NOW });
t.teardown(() => term.close());

const stats = (): ColumnPoolStats => {
  if (!addon.columnPoolStats) throw new Error('the addon has no columnPoolStats');
  return addon.columnPoolStats();
};
const lengths = (c: TickChunk): number[] => TickFields.map((f) => c[f].length);

t.test('a released chunk is detached and its storage pooled at once; the next chunk reuses it', async (t) => {
  t.type(addon.releaseColumns, 'function', 'the addon has releaseColumns');
  const series = await term.copyTicksRange('EURUSD', FROM, TO, -1, { chunkRows: ROWS });
  t.teardown(() => series.close());
  t.type(series.release, 'function', "the addon's series can release");
  const a = (await series.next())!;
  t.equal(a.rows, ROWS);
  const bid = a.bid.subarray(10, 20); // a view: detached with its buffer
  const before = stats();
  series.release!(a);
  const after = stats();
  t.same(lengths(a), TickFields.map(() => 0), 'every column reads as empty');
  t.equal(a.bid.buffer.byteLength, 0, 'the buffer is detached');
  t.equal(bid.length, 0, 'views too');
  t.equal(after.released - before.released, TickFields.length, 'eight columns released');
  t.ok(after.pooledBytes - before.pooledBytes >= ROWS * 60, `their storage is in the pool at once (+${after.pooledBytes - before.pooledBytes} bytes)`);
  t.equal(before.live - after.live, TickFields.length, 'no longer registered');
  series.release!(a);
  t.equal(stats().released, after.released, 'releasing again does nothing');
  // The buffers' finalizers still run (posted to the event loop at the detach): no holder is left behind.
  await new Promise((r) => setTimeout(r, 20));
  t.equal(before.holders - stats().holders, TickFields.length, 'their holders are freed');
  const b = (await series.next())!;
  const next = stats();
  t.ok(next.reused - after.reused >= TickFields.length, `the next chunk is made from pooled storage (${next.reused - after.reused} takes)`);
  t.equal(b.rows, ROWS);
  t.ok(b.time_msc[0]! > 0n, 'and reads as a chunk should');
});

t.test('arrays the addon did not make are left alone', async (t) => {
  const release = addon.releaseColumns!.bind(addon);
  const own = tickChunk(0, 1000);
  t.equal(release(own), 0, 'a chunk of JS arrays: nothing released');
  t.same(lengths(own), TickFields.map(() => 1000), 'and nothing detached');
  t.equal(release({ rows: 3, note: 'x', list: [1, 2, 3], buf: Buffer.alloc(100_000) }), 0, 'other values are skipped');
  const series = await term.copyTicksRange('EURUSD', FROM, TO, -1, { chunkRows: ROWS });
  t.teardown(() => series.close());
  const c = (await series.next())!;
  // A copy of a column (same bytes, its own buffer) is not the addon's.
  t.equal(release({ copy: c.bid.slice() }), 0, 'a copy is not released');
  t.equal(c.bid.length, ROWS, 'nor is the original');
  t.throws(() => release(null as unknown as object), TypeError, 'a chunk object is required');
});

t.test('withServerTime forwards release (it converts in place and hands the chunk on)', async (t) => {
  const zoned = withServerTime(term, parseServerZone('Europe/Athens'));
  const series = await zoned.copyTicksRange('EURUSD', FROM, TO, -1, { chunkRows: ROWS });
  t.teardown(() => series.close());
  const c = (await series.next())!;
  t.type(series.release, 'function');
  series.release!(c);
  t.equal(c.time.length, 0, 'released through the wrapper');
});

t.test('MixedSeries forwards release to the part each chunk came from, and only to parts that have it', async (t) => {
  const released: string[] = [];
  const part = (name: string, chunks: TickChunk[], release: boolean): Part<TickChunk> => ({
    next: () => Promise.resolve(chunks.shift() ?? null),
    close: () => undefined,
    ...(release ? { release: (c: TickChunk) => void released.push(`${name}:${c.rows}`) } : {}),
  });
  const mixed: Series<TickChunk> = new MixedSeries('test', [
    () => part('store', [tickChunk(0, 5)], false),
    () => part('a', [tickChunk(5, 6), tickChunk(11, 7)], true),
    () => part('b', [tickChunk(18, 8)], true),
  ]);
  const chunks: TickChunk[] = [];
  for (let c = await mixed.next(); c !== null; c = await mixed.next()) chunks.push(c);
  // Released in another order than read, after the parts were closed (as an encoder may).
  for (const c of chunks.reverse()) mixed.release!(c);
  mixed.release!(chunks[0]!);
  t.same(released, ['b:8', 'a:7', 'a:6'], 'each to its own part, once; none for the part without release');
  mixed.release!(tickChunk(0, 3));
  t.equal(released.length, 3, 'a chunk it did not hand out is ignored');
});
