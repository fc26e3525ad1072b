// What a native Parquet file carries to prove what it holds (issue 33): the footer's key-value
// metadata (encodeSeries' footerMetadata, asked for once after the last row group; read back by
// the addon's reader as `metadata`, and by pyarrow), with the rows' content hash computed while
// they streamed; and a CRC-32 in every page header, which the addon's reader checks (a flipped bit
// inside a page: ERR_PARQUET_CORRUPT) and pyarrow verifies on request.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import t from 'tap';

import { encodeSeries, type SeriesEncodeOptions } from '../../src/encode/index.js';
import { loadNativeParquet, PARQUET_MAGIC } from '../../src/encode/parquet-native.js';
import { loadNativeParquetReader, type NativeParquetReader } from '../../src/encode/parquet-native-reader.js';
import { createRowHasher, hashRows } from '../../src/encode/row-hash.js';
import type { RateChunk, Series, TickChunk } from '../../src/terminal/series.js';
import { testPython } from '../helpers/python.js';
import { collectingSink, fakeSeries, rateChunk, readParquet, tickChunk } from './fixtures/index.js';

const writerAddon = await loadNativeParquet();
const readerAddon = await loadNativeParquetReader();
if (!writerAddon || !readerAddon) {
  t.fail('the addon does not load (or lacks its Parquet writer or reader): build it with npm run build:native');
  process.exit(1);
}
const pythonChoice = testPython(['pyarrow']);
const python = 'python' in pythonChoice ? pythonChoice.python : undefined;
const dir = mkdtempSync(path.join(tmpdir(), 'tradeapi-pqfooter-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

function ticks(sizes: readonly number[]): TickChunk[] {
  let start = 0;
  return sizes.map((n) => {
    const c = tickChunk(start, n);
    start += n;
    return c;
  });
}

async function encode(kind: 'ticks' | 'rates', series: Series<TickChunk | RateChunk>, options: SeriesEncodeOptions = {}): Promise<Uint8Array> {
  const sink = collectingSink();
  await encodeSeries('parquet', kind, series as never, { parquetEngine: 'native', ...options }).writeTo(sink);
  return sink.bytes();
}

/** Every row group decoded by the addon's reader, as chunks (time in seconds, as the terminal's). */
async function decodeAll(reader: NativeParquetReader): Promise<TickChunk[]> {
  const out: TickChunk[] = [];
  for (let g = 0; g < reader.rowGroups.length; g++) {
    const cols = await reader.decodeRowGroup(g, { msToSeconds: ['time'] });
    out.push({ rows: reader.rowGroups[g]!.rows, ...cols } as unknown as TickChunk);
  }
  return out;
}

/** A series that hashes each chunk as it is taken (what sync does), and counts what was taken. */
function hashingSeries(kind: 'ticks' | 'rates', chunks: readonly (TickChunk | RateChunk)[]) {
  const inner = fakeSeries(chunks);
  const hasher = createRowHasher(kind);
  let ended = false;
  const series = {
    ...inner,
    async next() {
      const c = await inner.next();
      if (c) hasher.update(c);
      else ended = true;
      return c;
    },
  };
  return { series: series as unknown as Series<TickChunk | RateChunk>, hasher, ended: () => ended, inner };
}

function pyarrowMetadata(bytes: Uint8Array): Record<string, string> {
  const file = path.join(dir, `m${Math.random().toString(36).slice(2)}.parquet`);
  writeFileSync(file, bytes);
  const script = `
import json, sys
import pyarrow.parquet as pq
md = pq.read_metadata(sys.argv[1]).metadata or {}
print(json.dumps({k.decode(): v.decode() for k, v in md.items()}))
`;
  const r = spawnSync(python as string, ['-c', script, file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pyarrow failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, string>;
}

t.test('footerMetadata: asked for once, after every row was taken and written, read back by the addon and pyarrow', async (t) => {
  const chunks = ticks([1000, 2500, 1, 700]);
  const h = hashingSeries('ticks', chunks);
  let calls = 0;
  let writtenBefore = 0;
  const sink = collectingSink();
  const footerMetadata = (): Record<string, string> => {
    calls++;
    t.ok(h.ended(), 'the series has ended when the footer metadata is asked for');
    writtenBefore = sink.parts.length;
    return {
      'tradeapi.symbol': 'EURUSD',
      'tradeapi.rows': String(h.hasher.rows),
      'tradeapi.hash': h.hasher.digest(),
      'tradeapi.note': 'ünïcode € 📈',
      '10': 'an integer-like key (JS lists it first)',
      empty: '',
    };
  };
  await encodeSeries('parquet', 'ticks', h.series as Series<TickChunk>, { parquetEngine: 'native', rowGroupRows: 1000, parallelism: 3, footerMetadata }).writeTo(sink);
  t.equal(calls, 1, 'called once');
  t.equal(sink.parts.length, writtenBefore + 1, 'only the footer was written after it');
  const bytes = sink.bytes();
  const reader = new readerAddon.ParquetReader(Buffer.from(bytes));
  const expected = {
    '10': 'an integer-like key (JS lists it first)',
    'tradeapi.symbol': 'EURUSD',
    'tradeapi.rows': '4201',
    'tradeapi.hash': hashRows('ticks', chunks).digest,
    'tradeapi.note': 'ünïcode € 📈',
    empty: '',
  };
  t.same({ ...reader.metadata }, expected);
  t.same(Object.keys(reader.metadata), Object.keys(expected), 'keys in the order given');
  t.ok(Object.isFrozen(reader.metadata), 'frozen');
  t.equal(Object.getPrototypeOf(reader.metadata), null, 'no prototype: no key is inherited');
  t.equal(reader.metadata, reader.metadata, 'made once');
  // The hash in the footer is the hash of the rows the file holds.
  t.equal(hashRows('ticks', await decodeAll(reader)).digest, reader.metadata['tradeapi.hash']);
  // hyparquet sees the same pairs.
  const hyp = await readParquet(bytes);
  t.same(
    Object.fromEntries((hyp.metadata.key_value_metadata ?? []).map((kv) => [kv.key, kv.value])),
    expected,
    'hyparquet reads the pairs',
  );
  t.equal(hyp.rows.length, 4201);
  if (python) t.same(pyarrowMetadata(bytes), expected, 'pyarrow reads the pairs');
  else t.comment(`pyarrow check skipped: ${(pythonChoice as { skip: string }).skip}`);
});

t.test('no footerMetadata: an empty metadata object; rates and empty series carry theirs', async (t) => {
  const plain = await encode('ticks', fakeSeries(ticks([10])));
  const r = new readerAddon.ParquetReader(Buffer.from(plain));
  t.same({ ...r.metadata }, {});
  t.equal(Object.keys(r.metadata).length, 0);
  const rates = [rateChunk(0, 50)];
  const rb = await encode('rates', fakeSeries(rates), { footerMetadata: () => ({ hash: hashRows('rates', rates).digest }) });
  t.same({ ...new readerAddon.ParquetReader(Buffer.from(rb)).metadata }, { hash: hashRows('rates', rates).digest });
  const eb = await encode('ticks', fakeSeries<TickChunk>([]), { footerMetadata: () => ({ rows: '0', hash: createRowHasher('ticks').digest() }) });
  const er = new readerAddon.ParquetReader(Buffer.from(eb));
  t.equal(er.numRows, 0);
  t.same({ ...er.metadata }, { rows: '0', hash: '99aa06d3014798d86001c324468d497f' });
});

t.test('footerMetadata failures: not called when the series fails, no footer when it throws, refused by the wasm writer', async (t) => {
  let called = 0;
  const lost = new Error('terminal lost');
  const s1 = collectingSink();
  await t.rejects(
    encodeSeries('parquet', 'ticks', fakeSeries(ticks([100, 100, 100]), { failAt: 2, error: lost }), {
      parquetEngine: 'native',
      footerMetadata: () => {
        called++;
        return {};
      },
    }).writeTo(s1),
    lost,
  );
  t.equal(called, 0, 'not asked for when the series failed');
  const oops = new Error('hash mismatch');
  const s2 = collectingSink();
  const series = fakeSeries(ticks([100]));
  await t.rejects(
    encodeSeries('parquet', 'ticks', series, {
      parquetEngine: 'native',
      footerMetadata: () => {
        throw oops;
      },
    }).writeTo(s2),
    oops,
  );
  t.equal(series.closeCalls, 1);
  t.notSame(Buffer.from(s2.bytes().subarray(-4)).toString('latin1'), 'PAR1', 'no footer');
  // A value that is not a string, or too many or too long pairs: the addon refuses.
  await t.rejects(encode('ticks', fakeSeries(ticks([5])), { footerMetadata: () => ({ n: 5 as unknown as string }) }), { name: 'TypeError', message: /"n" must be a string/ });
  const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
  await t.rejects(encode('ticks', fakeSeries(ticks([5])), { footerMetadata: () => many }), { name: 'RangeError', message: /at most 64/ });
  await t.rejects(encode('ticks', fakeSeries(ticks([5])), { footerMetadata: () => ({ k: 'x'.repeat(4097) }) }), { name: 'RangeError', message: /4096/ });
  const limit = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`.padEnd(4096, '.'), 'é'.repeat(2048)]));
  const ok = await encode('ticks', fakeSeries(ticks([5])), { footerMetadata: () => limit });
  t.same({ ...new readerAddon.ParquetReader(Buffer.from(ok)).metadata }, limit, '64 pairs of 4096 bytes: written and read');
  // parquet-wasm: refused before anything is written.
  for (const options of [{ parquetEngine: 'wasm' }, { compression: 'snappy' }] as SeriesEncodeOptions[]) {
    const s = collectingSink();
    const w = fakeSeries(ticks([5]));
    await t.rejects(
      encodeSeries('parquet', 'ticks', w, { ...options, footerMetadata: () => ({}) }).writeTo(s),
      /footerMetadata needs the native Parquet writer/,
    );
    t.equal(s.parts.length, 0, `${JSON.stringify(options)}: nothing written`);
    t.equal(w.nextCalls, 0, 'the series was not read');
  }
});

t.test("the addon's finish(metadata) checks its argument and stays unfinished when refused", async (t) => {
  const w = new writerAddon.ParquetWriter('ticks');
  const c = tickChunk(0, 10);
  const group = await w.encodeRowGroup([[c, 0, 10]]);
  t.throws(() => w.finish(42 as never), TypeError);
  t.throws(() => w.finish(['a'] as never), TypeError);
  t.throws(() => w.finish({ a: 'b', c: null } as never), { name: 'TypeError', message: /"c"/ });
  const proto = Object.create({ inherited: 'no' }) as Record<string, string>;
  proto.own = 'yes';
  Object.defineProperty(proto, 'hidden', { value: 'no', enumerable: false });
  const footer = w.finish(proto);
  const reader = new readerAddon.ParquetReader(Buffer.concat([PARQUET_MAGIC, group, footer]));
  t.same({ ...reader.metadata }, { own: 'yes' }, 'own enumerable keys only');
  t.equal(reader.numRows, 10);
  const w2 = new writerAddon.ParquetWriter('ticks');
  const footer2 = w2.finish(undefined);
  t.same({ ...new readerAddon.ParquetReader(Buffer.concat([PARQUET_MAGIC, footer2])).metadata }, {});
  // "__proto__" is a key like any other, on both sides.
  const w3 = new writerAddon.ParquetWriter('ticks');
  const odd = JSON.parse('{"__proto__": "x", "constructor": "y"}') as Record<string, string>;
  const r3 = new readerAddon.ParquetReader(Buffer.concat([PARQUET_MAGIC, w3.finish(odd)]));
  t.equal(Object.getOwnPropertyDescriptor(r3.metadata, '__proto__')?.value, 'x');
  t.equal(r3.metadata.constructor, 'y');
});

/** pyarrow reads every row with page_checksum_verification: null when it succeeds, else its error. */
function pyarrowVerifies(bytes: Uint8Array): string | null {
  const file = path.join(dir, `c${Math.random().toString(36).slice(2)}.parquet`);
  writeFileSync(file, bytes);
  const script = `
import sys
import pyarrow.parquet as pq
try:
    f = pq.ParquetFile(sys.argv[1], page_checksum_verification=True)
    n = 0
    for g in range(f.num_row_groups):
        n += f.read_row_group(g).num_rows
    print('ok', n)
except Exception as e:
    print('error', type(e).__name__, e)
`;
  const r = spawnSync(python as string, ['-c', script, file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pyarrow failed: ${r.stderr}`);
  const out = r.stdout.trim();
  return out.startsWith('ok ') ? null : out;
}

t.test('page CRCs: a flipped bit inside any page fails the decode with ERR_PARQUET_CORRUPT; pyarrow verifies them', async (t) => {
  for (const compression of ['zstd', 'lz4', 'none'] as const) {
    const chunks = ticks([3000, 2000]);
    const bytes = Buffer.from(await encode('ticks', fakeSeries(chunks), { compression, rowGroupRows: 2500 }));
    const reader = new readerAddon.ParquetReader(bytes);
    const decoded = await decodeAll(reader);
    t.equal(hashRows('ticks', decoded).digest, hashRows('ticks', chunks).digest, `${compression}: read back whole, every CRC checked`);
    // Where each column chunk lies (hyparquet reads the footer): flip one bit of its last byte
    // (inside its last page), and of the byte before its first data page when it has a dictionary
    // page (inside that one).
    const meta = (await readParquet(bytes)).metadata;
    let flipped = 0;
    for (let g = 0; g < meta.row_groups.length; g++) {
      for (const column of meta.row_groups[g]!.columns) {
        const m = column.meta_data!;
        const name = m.path_in_schema[0]!;
        const start = Number(m.dictionary_page_offset ?? m.data_page_offset);
        const targets = [start + Number(m.total_compressed_size) - 1];
        if (m.dictionary_page_offset !== undefined) targets.push(Number(m.data_page_offset) - 1);
        for (const at of targets) {
          const bad = Buffer.from(bytes);
          bad[at]! ^= 0x10;
          const r = new readerAddon.ParquetReader(bad); // the footer is intact
          await t.rejects(
            r.decodeRowGroup(g, { columns: [name] }),
            { code: 'ERR_PARQUET_CORRUPT', message: new RegExp(`page CRC mismatch in column "${name}"`) },
            `${compression}: row group ${g} ${name}, byte ${at}`,
          );
          flipped++;
        }
      }
    }
    t.ok(flipped >= 16, `${flipped} pages damaged, each caught`);
    // Written without CRCs (the writer's option): read as before, and the damage goes unseen by the CRC.
    const w = new writerAddon.ParquetWriter('ticks', { codec: compression, pageCrc: false });
    const plain = Buffer.concat([PARQUET_MAGIC, await w.encodeRowGroup([[chunks[0]!, 0, 3000]]), w.finish()]);
    t.ok(plain.length < bytes.length, 'smaller without CRCs');
    const pr = new readerAddon.ParquetReader(plain);
    t.equal((await decodeAll(pr))[0]!.rows, 3000);
    if (python) {
      t.equal(pyarrowVerifies(bytes), null, `${compression}: pyarrow with page_checksum_verification reads every row`);
      const bad = Buffer.from(bytes);
      const first = meta.row_groups[0]!.columns[1]!.meta_data!;
      bad[Number(first.data_page_offset) - 1]! ^= 0x10; // bid's dictionary page
      t.match(pyarrowVerifies(bad), /CRC|checksum/i, `${compression}: pyarrow finds the flipped bit too`);
    }
  }
});
