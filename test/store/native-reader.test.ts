// The store's two decoders (src/store/reader.ts) on the same stored partitions: the addon's native
// Parquet reader and parquet-wasm must hand on the same rows, column for column, for a whole day,
// windows within it (row groups skipped by their time_msc statistics, edge groups clipped) and an
// empty window; the same for a month of M1 bars. Files of other writers (parquet-wasm's, snappy)
// go to parquet-wasm under 'auto'; a damaged file is an error from either, never a crash.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t, { type Test } from 'tap';

import { encodeSeries, type SeriesEncodeOptions } from '../../src/encode/index.js';
import { loadNativeParquetReader } from '../../src/encode/parquet-native-reader.js';
import { partitionFile } from '../../src/store/layout.js';
import { decodeDay, decodeRates } from '../../src/store/reader.js';
import { runSync } from '../../src/sync/run.js';
import { openSimTerminal, type RateChunk, type Terminal, type TickChunk } from '../../src/terminal/index.js';
import { looseFile } from '../helpers/store.js';

const pq = await loadNativeParquetReader();
if (!pq) {
  t.fail('the addon (build/Release/tradeapi.node) has no ParquetReader: rebuild it with npx cmake-js compile');
  process.exit(1);
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-store-native-'));
const store = path.join(dir, 'store');
const quiet = { write: () => true };
const DAY = Date.parse('2024-01-08T00:00:00Z');
const syncedDay = partitionFile(store, 'ticks', 'EURUSD', '2024-01-08');
const month = partitionFile(store, 'bars_m1', 'EURUSD', '2024-01');
const smallGroups = path.join(dir, 'lz4-small-groups.parquet');
const byWasm = path.join(dir, 'wasm-zstd.parquet');
const snappy = path.join(dir, 'wasm-snappy.parquet');

/** The simulator's day written to `file` by the HTTP encoder with `options`. */
async function writeDay(terminal: Terminal, file: string, options: SeriesEncodeOptions): Promise<void> {
  const parts: Uint8Array[] = [];
  const series = await terminal.copyTicksRange('EURUSD', DAY, DAY + 86_400_000 - 1, -1);
  await encodeSeries('parquet', 'ticks', series, options).writeTo({ write: (b: Uint8Array) => (parts.push(Buffer.from(b)), Promise.resolve()) });
  writeFileSync(file, Buffer.concat(parts));
}

// In t.before, not at the top level: with a teardown registered, tap ends a file's root test once
// it has been idle for a few timer turns, which a month's sync is.
t.before(async () => {
  t.equal(await runSync(['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-08', '--to', '2024-01-08', '--only', 'ticks'], { env: { TRADEAPI_SIM_CLOCK: '2024-01-10T00:00:00Z' }, stdout: quiet, stderr: quiet }), 0, 'a day of ticks is stored');
  t.equal(await runSync(['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-01', '--only', 'bars'], { env: { TRADEAPI_SIM_CLOCK: '2024-02-02T00:00:00Z' }, stdout: quiet, stderr: quiet }), 0, 'a month of M1 bars is stored');
  // The same day written again with other options: small row groups (so that windows skip some),
  // lz4, and by parquet-wasm (another writer) with zstd and with snappy.
  const terminal = openSimTerminal();
  try {
    await writeDay(terminal, smallGroups, { compression: 'lz4', rowGroupRows: 10_000, parquetEngine: 'native' });
    await writeDay(terminal, byWasm, { compression: 'zstd', parquetEngine: 'wasm' });
    await writeDay(terminal, snappy, { compression: 'snappy', parquetEngine: 'wasm' });
  } finally {
    await terminal.close();
  }
});
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

type Columns = Record<string, ArrayBufferView & { length: number }>;

/** Each column of the chunks, concatenated as bytes. */
function joined(chunks: readonly (TickChunk | RateChunk)[]): { rows: number; columns: Record<string, Buffer> } {
  const columns: Record<string, Buffer[]> = {};
  let rows = 0;
  for (const c of chunks) {
    rows += c.rows;
    for (const [name, v] of Object.entries(c as unknown as Columns)) {
      if (name === 'rows') continue;
      if (v.length !== c.rows) throw new Error(`column ${name}: ${v.length} values in a chunk of ${c.rows} rows`);
      (columns[name] ??= []).push(Buffer.from(v.buffer, v.byteOffset, v.byteLength));
    }
  }
  return { rows, columns: Object.fromEntries(Object.entries(columns).map(([k, v]) => [k, Buffer.concat(v)])) };
}

function same(t: Test, a: readonly (TickChunk | RateChunk)[], b: readonly (TickChunk | RateChunk)[], what: string): number {
  const x = joined(a);
  const y = joined(b);
  t.equal(x.rows, y.rows, `${what}: ${y.rows} rows`);
  t.same(Object.keys(x.columns).sort(), Object.keys(y.columns).sort(), `${what}: the same columns`);
  for (const name of Object.keys(y.columns)) {
    if (!x.columns[name]?.equals(y.columns[name]!)) t.fail(`${what}: column ${name} differs`);
  }
  return y.rows;
}

const WINDOWS = [
  { what: 'the whole day', from: DAY, to: DAY + 86_400_000 - 1 },
  { what: '10:00-12:00', from: DAY + 10 * 3_600_000, to: DAY + 12 * 3_600_000 },
  { what: 'one second', from: DAY + 15 * 3_600_000 + 123, to: DAY + 15 * 3_600_000 + 1123 },
  { what: 'before the first tick', from: DAY - 3_600_000, to: DAY - 1 },
];

for (const [name, file] of [['synced (zstd, 128 K-row groups)', syncedDay], ['lz4, 10 K-row groups', smallGroups]] as const) {
  await t.test(`${name}: native and parquet-wasm decode the same ticks`, async (t) => {
    const reader = new pq.ParquetReader(readFileSync(file));
    t.ok(reader.rowGroups.length >= 1 && reader.rowGroups.every((g) => g.minTimeMsc !== undefined && g.maxTimeMsc !== undefined), 'row groups with time_msc statistics');
    for (const w of WINDOWS) {
      const native = await decodeDay(looseFile(file), w.from, w.to, 'native');
      const wasm = await decodeDay(looseFile(file), w.from, w.to, 'wasm');
      const rows = same(t, native, wasm, w.what);
      if (w.what === 'before the first tick') t.equal(rows, 0, 'nothing before the day');
      else t.ok(rows > 0, `${w.what}: ticks`);
      same(t, await decodeDay(looseFile(file), w.from, w.to), native, `${w.what}, 'auto'`);
    }
  });
}

await t.test('a month of M1 bars: native and parquet-wasm decode the same bars', async (t) => {
  const native = (await decodeRates(looseFile(month, 'bars_m1'), 'native')) ?? [];
  const wasm = (await decodeRates(looseFile(month, 'bars_m1'), 'wasm')) ?? [];
  t.ok(same(t, native, wasm, 'January') > 20_000, 'a month of bars');
  t.equal(await decodeRates(looseFile(path.join(dir, 'absent.parquet'), 'bars_m1'), 'native'), undefined, 'an absent month is undefined');
  t.same(await decodeDay(looseFile(path.join(dir, 'absent.parquet')), DAY, DAY + 1000, 'native'), [], 'an absent day is empty');
});

await t.test("other writers' files: 'auto' decodes them as parquet-wasm does", async (t) => {
  const w = WINDOWS[1]!;
  for (const file of [byWasm, snappy]) {
    const auto = await decodeDay(looseFile(file), w.from, w.to);
    const wasm = await decodeDay(looseFile(file), w.from, w.to, 'wasm');
    t.ok(same(t, auto, wasm, path.basename(file)) > 0, `${path.basename(file)}: ticks`);
  }
  await t.rejects(decodeDay(looseFile(snappy), w.from, w.to, 'native'), { code: 'ERR_PARQUET_UNSUPPORTED' }, 'snappy: the native reader says it does not read it');
});

await t.test('damaged files: an error from either decoder, not a crash', async (t) => {
  const bytes = readFileSync(syncedDay);
  const cut = path.join(dir, 'cut.parquet');
  writeFileSync(cut, bytes.subarray(0, bytes.length - 100));
  await t.rejects(decodeDay(looseFile(cut), DAY, DAY + 86_400_000, 'native'), { code: 'ERR_PARQUET_CORRUPT' }, 'truncated: corrupt (no footer)');
  await t.rejects(decodeDay(looseFile(cut), DAY, DAY + 86_400_000), 'truncated, auto: parquet-wasm says so too');
  // A page body damaged in the middle of the first row group (the footer intact).
  const hurt = Buffer.from(bytes);
  for (let i = 1000; i < 1400; i++) hurt[i] = 0x5a;
  const damaged = path.join(dir, 'damaged.parquet');
  writeFileSync(damaged, hurt);
  await t.rejects(decodeDay(looseFile(damaged), DAY, DAY + 86_400_000, 'native'), { code: /^ERR_PARQUET_(CORRUPT|DECODE)$/ }, 'a damaged page: an error');
  t.throws(() => new pq.ParquetReader(Buffer.from('PAR1 nothing here PAR1')), { code: 'ERR_PARQUET_CORRUPT' });
  t.throws(() => new (pq.ParquetReader as unknown as new (x: unknown) => unknown)('not bytes'), TypeError);
  const reader = new pq.ParquetReader(bytes);
  t.throws(() => reader.decodeRowGroup(reader.rowGroups.length), RangeError, 'no such row group');
  t.throws(() => reader.decodeRowGroup(0, { columns: ['nope'] }), /no column "nope"/);
  t.throws(() => reader.decodeRowGroup(0, { msToSeconds: ['bid'] }), /not a signed INT64/);
  const only = await reader.decodeRowGroup(0, { columns: ['time_msc', 'flags'] });
  t.same(Object.keys(only).sort(), ['flags', 'time_msc'], 'only the columns asked for');
  t.ok(only.flags instanceof Uint32Array && only.time_msc instanceof BigInt64Array, 'typed as the terminal types them');
});
