// The native Parquet writer (binding/parquet through src/encode/parquet-native.ts): files read back
// by independent readers — hyparquet always, pyarrow from the test Python (test/helpers/python.ts:
// TRADEAPI_TEST_PYTHON, which `npm test` sets, else build/pyenv, else python3) — with every value
// compared exactly to the input columns, the logical types, row groups (split, gathered, many of
// them encoded in parallel and written in order), empty series, bounded run-ahead of the sink, and
// clean stops (no footer) on failures. Also the addon class's own argument checks.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import t from 'tap';

import { encodeSeries, type ParquetCompression, type SeriesEncodeOptions } from '../../src/encode/index.js';
import { loadNativeParquet, PARQUET_MAGIC } from '../../src/encode/parquet-native.js';
import type { RateChunk, TickChunk } from '../../src/terminal/series.js';
import { testPython } from '../helpers/python.js';
import { collectingSink, fakeSeries, rateChunk, readParquet, tickChunk, type CollectingSink } from './fixtures/index.js';

const TICK_NAMES = ['time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'flags', 'volume_real'] as const;
const RATE_NAMES = ['time', 'open', 'high', 'low', 'close', 'tick_volume', 'spread', 'real_volume'] as const;
type Column = BigInt64Array | BigUint64Array | Float64Array | Uint32Array | Int32Array;

const addon = await loadNativeParquet();
if (!addon) {
  t.fail('the addon (build/Release/tradeapi.node) does not load: build it with npx cmake-js compile');
  process.exit(1);
}

const pythonChoice = testPython(['pyarrow']);
const python = 'python' in pythonChoice ? pythonChoice.python : undefined;
const hasPyarrow = python !== undefined;
if ('skip' in pythonChoice) t.comment(`pyarrow cross-checks skipped: ${pythonChoice.skip}`);
const dir = mkdtempSync(path.join(tmpdir(), 'tradeapi-parquet-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

function ticks(sizes: readonly number[]): TickChunk[] {
  let start = 0;
  return sizes.map((n) => {
    const c = tickChunk(start, n);
    start += n;
    return c;
  });
}

async function encode(kind: 'ticks' | 'rates', chunks: readonly (TickChunk | RateChunk)[], options: SeriesEncodeOptions = {}): Promise<CollectingSink> {
  const sink = collectingSink();
  await encodeSeries('parquet', kind, fakeSeries(chunks) as never, { parquetEngine: 'native', ...options }).writeTo(sink);
  return sink;
}

/** The bytes Parquet must hold for a column: the chunks' values in order (`time` in ms). */
function expectedBytes(chunks: readonly (TickChunk | RateChunk)[], name: string): Buffer {
  const parts = chunks.map((c) => {
    const col = (c as unknown as Record<string, Column>)[name]!.subarray(0, c.rows);
    const values = name === 'time' ? BigInt64Array.from(col as BigInt64Array, (v) => BigInt.asIntN(64, v * 1000n)) : col;
    return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  });
  return Buffer.concat(parts);
}

interface PyarrowView {
  num_rows: number;
  num_row_groups: number;
  row_group_rows: number[];
  types: Record<string, string>;
  /** Each column's values as little-endian bytes, hex. */
  hex: Record<string, string>;
  created_by: string;
}

function readWithPyarrow(bytes: Uint8Array): PyarrowView {
  const file = path.join(dir, `f${Math.random().toString(36).slice(2)}.parquet`);
  writeFileSync(file, bytes);
  const script = `
import json, sys
import pyarrow as pa, pyarrow.parquet as pq
f = pq.ParquetFile(sys.argv[1])
t = f.read()
out = {'num_rows': t.num_rows, 'num_row_groups': f.num_row_groups,
       'row_group_rows': [f.metadata.row_group(i).num_rows for i in range(f.num_row_groups)],
       'types': {n: str(t.schema.field(n).type) for n in t.schema.names}, 'hex': {},
       'created_by': f.metadata.created_by}
for n in t.schema.names:
    col = t.column(n).combine_chunks()
    buf = col.buffers()[1]  # the values (no numpy needed); little-endian hosts
    w = col.type.bit_width // 8
    out['hex'][n] = '' if buf is None else bytes(buf)[col.offset * w:(col.offset + len(col)) * w].hex()
print(json.dumps(out))
`;
  const r = spawnSync(python as string, ['-c', script, file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`pyarrow failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as PyarrowView;
}

const TICK_TYPES_PYARROW = {
  time: 'timestamp[ms, tz=UTC]',
  bid: 'double',
  ask: 'double',
  last: 'double',
  volume: 'uint64',
  time_msc: 'timestamp[ms, tz=UTC]',
  flags: 'uint32',
  volume_real: 'double',
};

t.test('ticks: every value read back exactly by hyparquet (and pyarrow), each codec', async (t) => {
  const chunks = ticks([1000, 2500, 1, 700]);
  for (const compression of ['zstd', 'lz4', 'none'] as const) {
    const sink = await encode('ticks', chunks, { compression, rowGroupRows: 1000, parallelism: 3 });
    const bytes = sink.bytes();
    t.same([...bytes.subarray(0, 4)], [...PARQUET_MAGIC], `${compression}: leading magic`);
    const back = await readParquet(bytes);
    t.same(back.metadata.row_groups.map((g) => Number(g.num_rows)), [1000, 1000, 1000, 1000, 201], `${compression}: row groups gathered/split at 1000`);
    t.equal(back.metadata.row_groups[0]!.columns[0]!.meta_data!.codec, { zstd: 'ZSTD', lz4: 'LZ4_RAW', none: 'UNCOMPRESSED' }[compression]);
    t.match(back.metadata.created_by, /tradeapi/);
    t.same([...back.columns.keys()], TICK_NAMES);
    t.match(back.columns.get('time')!.logical_type, { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' });
    t.match(back.columns.get('time_msc')!.logical_type, { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' });
    t.match(back.columns.get('volume')!.logical_type, { type: 'INTEGER', bitWidth: 64, isSigned: false });
    t.match(back.columns.get('flags')!.logical_type, { type: 'INTEGER', bitWidth: 32, isSigned: false });
    t.equal(back.columns.get('flags')!.type, 'INT32');
    t.equal(back.columns.get('bid')!.type, 'DOUBLE');
    t.equal(back.columns.get('bid')!.repetition_type, 'REQUIRED');
    t.same(back.metadata.row_groups[1]!.columns[5]!.meta_data!.encodings, ['DELTA_BINARY_PACKED'], 'time_msc delta-encoded');
    // Prices take few distinct values in a row group: a dictionary page and bit-packed indices.
    t.same(back.metadata.row_groups[1]!.columns[1]!.meta_data!.encodings, ['PLAIN', 'RLE', 'RLE_DICTIONARY'], 'bid dictionary-encoded');
    t.ok(back.metadata.row_groups[1]!.columns[1]!.meta_data!.dictionary_page_offset !== undefined, 'bid has a dictionary page');
    // Every value, every column.
    let i = 0;
    let mismatches = 0;
    for (const c of chunks) {
      for (let r = 0; r < c.rows; r++, i++) {
        const row = back.rows[i]!;
        const ok =
          (row.time as Date).getTime() === Number(c.time[r]!) * 1000 &&
          (row.time_msc as Date).getTime() === Number(c.time_msc[r]!) &&
          Object.is(row.bid, c.bid[r]) &&
          Object.is(row.ask, c.ask[r]) &&
          Object.is(row.last, c.last[r]) &&
          row.volume === c.volume[r] &&
          row.flags === c.flags[r] &&
          Object.is(row.volume_real, c.volume_real[r]);
        if (!ok) mismatches++;
      }
    }
    t.equal(back.rows.length, 4201);
    t.equal(mismatches, 0, `${compression}: hyparquet values equal the input`);
    if (hasPyarrow) {
      const py = readWithPyarrow(bytes);
      t.equal(py.num_rows, 4201);
      t.same(py.row_group_rows, [1000, 1000, 1000, 1000, 201]);
      t.same(py.types, TICK_TYPES_PYARROW, 'pyarrow: UTC ms timestamps, unsigned ints');
      for (const name of TICK_NAMES) t.equal(py.hex[name], expectedBytes(chunks, name).toString('hex'), `pyarrow ${compression}: ${name} exact`);
    }
  }
});

t.test('odd values: NaN, infinities, -0, extreme integers survive exactly', { skip: !hasPyarrow && 'pyarrow not available' }, async (t) => {
  const c = tickChunk(0, 9);
  c.bid.set([NaN, Infinity, -Infinity, -0, 5e-324, Number.MAX_VALUE, -1.5, 0, 1]);
  c.time.set([-(2n ** 50n), 0n, 1n, -1n, 2n ** 50n, 3n, 4n, 5n, 6n]);
  c.time_msc.set([-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n, 1n, 2n, 3n, 4n, 5n]);
  c.volume.set([2n ** 64n - 1n, 0n, 2n ** 63n, 1n, 2n, 3n, 4n, 5n, 6n]);
  c.flags.set([0xffffffff, 0x80000000, 0, 1, 2, 3, 4, 5, 6]);
  const sink = await encode('ticks', [c]);
  const py = readWithPyarrow(sink.bytes());
  for (const name of TICK_NAMES) t.equal(py.hex[name], expectedBytes([c], name).toString('hex'), name);
  // Statistics in the logical order (unsigned for volume), NaN left out of the double range.
  const meta = (await readParquet(sink.bytes())).metadata.row_groups[0]!.columns;
  t.match(meta[4]!.meta_data!.statistics, { min_value: 0n, max_value: 2n ** 64n - 1n, null_count: 0n });
  t.match(meta[1]!.meta_data!.statistics, { min_value: -Infinity, max_value: Infinity });
  t.match(meta[6]!.meta_data!.statistics, { min_value: 0, max_value: 0xffffffff });
});

t.test('rates: types and values (pyarrow and hyparquet)', async (t) => {
  const chunks = [rateChunk(0, 400), rateChunk(400, 333)];
  chunks[1]!.spread.set([-5, 2147483647, -2147483648], 0);
  const sink = await encode('rates', chunks, { rowGroupRows: 500 });
  const back = await readParquet(sink.bytes());
  t.same([...back.columns.keys()], RATE_NAMES);
  t.same(back.metadata.row_groups.map((g) => Number(g.num_rows)), [500, 233]);
  t.match(back.columns.get('spread')!, { type: 'INT32' });
  t.notOk(back.columns.get('spread')!.logical_type, 'spread: plain signed int32');
  t.match(back.columns.get('tick_volume')!.logical_type, { type: 'INTEGER', bitWidth: 64, isSigned: false });
  t.match(back.columns.get('real_volume')!.logical_type, { type: 'INTEGER', bitWidth: 64, isSigned: false });
  const r = back.rows[401]!;
  t.same(r.time, new Date(Number(chunks[1]!.time[1]!) * 1000));
  t.equal(r.spread, 2147483647);
  t.equal(back.rows[402]!.spread, -2147483648);
  t.equal(r.tick_volume, chunks[1]!.tick_volume[1]);
  if (hasPyarrow) {
    const py = readWithPyarrow(sink.bytes());
    t.same(py.types, {
      time: 'timestamp[ms, tz=UTC]',
      open: 'double',
      high: 'double',
      low: 'double',
      close: 'double',
      tick_volume: 'uint64',
      spread: 'int32',
      real_volume: 'uint64',
    });
    for (const name of RATE_NAMES) t.equal(py.hex[name], expectedBytes(chunks, name).toString('hex'), `pyarrow: ${name}`);
  }
});

t.test('empty series: the schema and zero rows', async (t) => {
  for (const chunks of [[], [tickChunk(0, 0)], [tickChunk(0, 0), tickChunk(0, 0)]]) {
    const sink = await encode('ticks', chunks);
    const back = await readParquet(sink.bytes());
    t.equal(Number(back.metadata.num_rows), 0);
    t.equal(back.metadata.row_groups.length, 0);
    t.same([...back.columns.keys()], TICK_NAMES);
    t.match(back.columns.get('time')!.logical_type, { type: 'TIMESTAMP', unit: 'MILLIS' });
    if (hasPyarrow) {
      const py = readWithPyarrow(sink.bytes());
      t.equal(py.num_rows, 0);
      t.same(py.types, TICK_TYPES_PYARROW);
    }
  }
});

t.test('many row groups encoded in parallel are written in order', async (t) => {
  // Uneven chunks so that groups span chunks and encode in uneven times.
  const sizes = Array.from({ length: 40 }, (_, k) => 50 + ((k * 7919) % 900));
  const chunks = ticks(sizes);
  const total = sizes.reduce((a, b) => a + b, 0);
  for (const parallelism of [1, 2, 8]) {
    const sink = await encode('ticks', chunks, { rowGroupRows: 333, parallelism, compression: 'zstd', compressionLevel: 3 });
    const back = await readParquet(sink.bytes());
    t.equal(back.rows.length, total);
    t.equal(back.metadata.row_groups.length, Math.ceil(total / 333));
    t.equal(sink.parts.length, 1 + back.metadata.row_groups.length + 1, 'magic, one write per row group, footer');
    const ms = back.rows.map((r) => (r.time_msc as Date).getTime());
    const want = chunks.flatMap((c) => Array.from(c.time_msc, Number));
    t.same(ms, want, `x${parallelism}: rows in series order`);
  }
});

t.test('a large chunk is split into bounded row groups; default 128 K rows', async (t) => {
  const sink = await encode('ticks', ticks([300_000]));
  const back = await readParquet(sink.bytes());
  t.same(back.metadata.row_groups.map((g) => Number(g.num_rows)), [131_072, 131_072, 37_856]);
  t.equal((back.rows[299_999]!.time_msc as Date).getTime(), Number(tickChunk(299_999, 1).time_msc[0]!));
});

t.test('backpressure: the encoder stays a bounded number of row groups ahead of the sink', async (t) => {
  const rowGroupRows = 500;
  for (const parallelism of [1, 3]) {
    let pulled = 0;
    let written = -1; // the first write is the magic
    let worst = 0;
    const series = fakeSeries(ticks(Array.from({ length: 20 }, () => rowGroupRows)));
    let writing = false;
    let overlap = false;
    const origNext = series.next.bind(series);
    series.next = () => {
      if (writing) overlap = true;
      return origNext();
    };
    await encodeSeries('parquet', 'ticks', series, {
      parquetEngine: 'native',
      rowGroupRows,
      parallelism,
      onRows: (n) => {
        pulled += n;
        worst = Math.max(worst, pulled / rowGroupRows - Math.max(0, written));
      },
    }).writeTo({
      async write() {
        writing = true;
        await new Promise((r) => setTimeout(r, 3));
        written++;
        writing = false;
      },
    });
    t.ok(worst <= parallelism + 1, `x${parallelism}: at most ${parallelism + 1} groups pulled ahead of the sink (saw ${worst})`);
    t.notOk(overlap, 'no chunk asked for while a write is pending');
    t.equal(written, 21, 'all 20 groups and the footer written');
  }
});

t.test('failures stop cleanly: no footer, series closed, error propagated', async (t) => {
  // The sink goes away after the magic and one row group.
  const series = fakeSeries(ticks(Array.from({ length: 12 }, () => 1000)));
  const gone = new Error('client gone');
  const sink = collectingSink({ failOnWrite: 2, error: gone });
  await t.rejects(encodeSeries('parquet', 'ticks', series, { parquetEngine: 'native', rowGroupRows: 1000, parallelism: 4 }).writeTo(sink), gone);
  t.equal(series.closeCalls, 1);
  t.ok(series.nextCalls <= 6, `stopped asking (${series.nextCalls} next calls)`);
  t.equal(sink.parts.length, 2, 'magic and one row group');

  // The series fails mid-way while row groups are in flight.
  const lost = new Error('terminal lost');
  const failing = fakeSeries(ticks([1000, 1000, 1000, 1000, 1000]), { failAt: 3, error: lost });
  const s2 = collectingSink();
  await t.rejects(encodeSeries('parquet', 'ticks', failing, { parquetEngine: 'native', rowGroupRows: 1000, parallelism: 4 }).writeTo(s2), lost);
  t.equal(failing.closeCalls, 1);
  t.notSame(Buffer.from(s2.bytes().subarray(-4)).toString('latin1'), 'PAR1', 'no footer');

  // Fails at once: nothing written.
  const s3 = collectingSink();
  await t.rejects(
    encodeSeries('parquet', 'ticks', fakeSeries<TickChunk>([], { failAt: 0, error: lost }), { parquetEngine: 'native' }).writeTo(s3),
    lost,
  );
  t.equal(s3.parts.length, 0);

  // A malformed chunk after good ones.
  const bad = { ...tickChunk(0, 10), ask: new Float64Array(3) };
  await t.rejects(
    encodeSeries('parquet', 'ticks', fakeSeries<TickChunk>([tickChunk(0, 10), bad]), { parquetEngine: 'native' }).writeTo(collectingSink()),
    { name: 'TypeError', message: /ask/ },
  );
  // Let groups still in flight settle: an unhandled rejection would fail this file.
  await new Promise((r) => setTimeout(r, 50));
});

t.test('engine choice: native for zstd/lz4/none, wasm for snappy or on request', async (t) => {
  const chunks = ticks([100]);
  const createdBy = async (compression: ParquetCompression, options: SeriesEncodeOptions = {}): Promise<string> => {
    const sink = collectingSink();
    await encodeSeries('parquet', 'ticks', fakeSeries(chunks), { compression, ...options }).writeTo(sink);
    return (await readParquet(sink.bytes())).metadata.created_by ?? '';
  };
  t.match(await createdBy('zstd'), /tradeapi/, 'default: native');
  t.match(await createdBy('none'), /tradeapi/);
  t.notMatch(await createdBy('snappy'), /tradeapi/, 'snappy: parquet-wasm');
  t.notMatch(await createdBy('zstd', { parquetEngine: 'wasm' }), /tradeapi/, 'wasm on request');
  await t.rejects(createdBy('snappy', { parquetEngine: 'native' }), /no snappy codec/);
});

t.test('the addon class checks its arguments', async (t) => {
  const W = addon.ParquetWriter;
  t.throws(() => new W('bars' as never), /kind/);
  t.throws(() => new W('ticks', { codec: 'snappy' as never }), /codec/);
  t.throws(() => new W('ticks', { codec: 'zstd', level: 99 }), /level/);
  t.throws(() => new W('ticks', { codec: 'zstd', level: 1.5 }), /level/);
  t.throws(() => new W('ticks', { pageRows: 0 }), /pageRows/);
  const w = new W('ticks', { codec: 'zstd', level: 3 });
  t.equal(w.codec, 'zstd');
  t.equal(w.level, 3);
  const c = tickChunk(0, 100);
  t.throws(() => w.encodeRowGroup([[{ ...c, bid: new Int32Array(100) } as never, 0, 100]]), /bid.*Float64Array/);
  t.throws(() => w.encodeRowGroup([[c, 0, 101]]), /fewer than 101/);
  t.throws(() => w.encodeRowGroup([[c, 50, 10]]), /from > to/);
  t.throws(() => w.encodeRowGroup([]), /at least one row/);
  const p = w.encodeRowGroup([[c, 0, 60], [c, 60, 100]]);
  t.equal(w.pending, 1);
  t.throws(() => w.finish(), /still encoding/);
  const bytes = await p;
  t.ok(bytes.length > 100);
  t.equal(w.pending, 0);
  t.equal(w.rowGroups, 1);
  const footer = w.finish();
  t.equal(footer.subarray(-4).toString('latin1'), 'PAR1');
  t.throws(() => w.finish(), /already finished/);
  t.throws(() => w.encodeRowGroup([[c, 0, 1]]), /finished/);
  const back = await readParquet(Buffer.concat([PARQUET_MAGIC, bytes, footer]));
  t.equal(back.rows.length, 100);
  t.equal((back.rows[99]!.time_msc as Date).getTime(), Number(c.time_msc[99]!));
});

t.test('BYTE_STREAM_SPLIT doubles (an option) read back exactly', async (t) => {
  const chunks = ticks([700, 300]);
  chunks[0]!.bid.set([NaN, -0, Infinity, 5e-324], 0);
  const w = new addon.ParquetWriter('ticks', { codec: 'zstd', byteStreamSplit: true });
  const groups = [await w.encodeRowGroup([[chunks[0]!, 0, 700], [chunks[1]!, 0, 100]]), await w.encodeRowGroup([[chunks[1]!, 100, 300]])];
  const bytes = Buffer.concat([PARQUET_MAGIC, ...groups, w.finish()]);
  const back = await readParquet(bytes);
  t.same(back.metadata.row_groups[0]!.columns[1]!.meta_data!.encodings, ['BYTE_STREAM_SPLIT']);
  t.same(back.metadata.row_groups[0]!.columns[0]!.meta_data!.encodings, ['DELTA_BINARY_PACKED'], 'int64 columns unchanged');
  const bids = back.rows.map((r) => r.bid as number);
  t.same(Buffer.from(Float64Array.from(bids).buffer).toString('hex'), expectedBytes(chunks, 'bid').toString('hex'), 'hyparquet: bid exact');
  if (hasPyarrow) {
    const py = readWithPyarrow(bytes);
    for (const name of TICK_NAMES) t.equal(py.hex[name], expectedBytes(chunks, name).toString('hex'), `pyarrow: ${name}`);
  }
});

t.test('dictionary encoding: on by default for the non-time columns, off on request, same values either way', async (t) => {
  const chunks = ticks([900, 400]);
  chunks[0]!.bid.set([NaN, -0, 0, Infinity, 5e-324], 0); // bits that compare equal stay apart
  const files: Record<string, Buffer> = {};
  for (const dictionary of [true, false]) {
    const w = new addon.ParquetWriter('ticks', { codec: 'zstd', dictionary });
    const groups = [await w.encodeRowGroup([[chunks[0]!, 0, 900]]), await w.encodeRowGroup([[chunks[1]!, 0, 400]])];
    const bytes = Buffer.concat([PARQUET_MAGIC, ...groups, w.finish()]);
    files[String(dictionary)] = bytes;
    const back = await readParquet(bytes);
    const meta = (c: number) => back.metadata.row_groups[0]!.columns[c]!.meta_data!;
    t.same(meta(2).encodings, dictionary ? ['PLAIN', 'RLE', 'RLE_DICTIONARY'] : ['PLAIN'], `ask, dictionary ${dictionary}`);
    t.same(meta(0).encodings, ['DELTA_BINARY_PACKED'], 'time is never dictionary-encoded');
    t.equal(meta(2).dictionary_page_offset !== undefined, dictionary);
    for (const name of ['bid', 'ask', 'last', 'flags'] as const) {
      const got = back.rows.map((r) => r[name] as number);
      const want = chunks.flatMap((c) => [...(c[name] as Float64Array | Uint32Array)]);
      const hex = (v: number[]) => (name === 'flags' ? Buffer.from(Uint32Array.from(v).buffer) : Buffer.from(Float64Array.from(v).buffer)).toString('hex');
      t.equal(hex(got), hex(want), `hyparquet, dictionary ${dictionary}: ${name} exact`);
    }
    if (hasPyarrow) {
      const py = readWithPyarrow(bytes);
      for (const name of TICK_NAMES) t.equal(py.hex[name], expectedBytes(chunks, name).toString('hex'), `pyarrow, dictionary ${dictionary}: ${name}`);
    }
  }
  // (Sizes are not compared here: these made-up prices are not a market's; bench/sides.ts and
  // docs/benchmarks.md measure simulated EURUSD, where the dictionary saves ~6 % and ~40 % of the CPU.)
  t.ok(files['true']!.length > 0 && files['false']!.length > 0);
});
