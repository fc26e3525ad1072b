// Many symbols on custom bars (issue 36): /ticks/bars with `symbols=` and `group=` through the real
// server equals each symbol's own /ticks/bars answer merged by a reference here (every field, every
// row, ties by time in list order), for time bars and tick bars (whose time_close_msc the merge
// carries), in JSON, Arrow, Parquet and packed rows; the 400s and 404s come before anything is sent;
// docs/api.md's curl block for it, as written.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { tableFromIPC, type Dictionary } from 'apache-arrow';
import t from 'tap';

import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import { PACKED_MULTI_BAR_ROW_BYTES } from '../../src/encode/packed-rows.js';
import { curlMissing, curlScript, DOC_SNIPPETS, docBlock } from '../helpers/doc-blocks.js';
import { expectProblem, forEachAdapter, serve, simTerminal, type TestServer } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

type Row = Record<string, unknown>;
const RANGE = 'date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T12:00:00Z';
const NAMES = ['USDJPY', 'EURUSD', 'GBPUSD'];
const FIELDS = ['symbol', 'time', 'open', 'high', 'low', 'close', 'tick_volume', 'spread', 'real_volume', 'time_close_msc'];

async function json(s: TestServer, path: string): Promise<Row[]> {
  const res = await s.get(path);
  if (res.status !== 200) throw new Error(`${path}: status ${res.status}: ${await res.text()}`);
  return (await res.json()) as Row[];
}

/** Each symbol's own answer, rows tagged with their symbol, stably sorted by time then list order. */
async function reference(s: TestServer, names: readonly string[], query: string): Promise<Row[]> {
  const tagged: { row: Row; at: number; n: number }[] = [];
  for (const [at, name] of names.entries()) (await json(s, `/ticks/bars?symbol=${name}&${query}`)).forEach((row, n) => tagged.push({ row: { symbol: name, ...row }, at, n }));
  tagged.sort((a, b) => (a.row.time as number) - (b.row.time as number) || a.at - b.at || a.n - b.n);
  return tagged.map((x) => x.row);
}

/** Timestamps and 64-bit integers as the JSON answer has them. */
const plain = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.getTime() : v);
/** The first row (of `rows`, read from Arrow or Parquet, time in ms) unlike the JSON reference, or -1. */
function firstUnlike(count: number, get: (i: number, name: string) => unknown, want: readonly Row[]): number {
  if (count !== want.length) return count;
  for (let i = 0; i < count; i++) {
    if (FIELDS.some((n) => plain(get(i, n)) !== (n === 'time' ? (want[i]![n] as number) * 1000 : want[i]![n]))) return i;
  }
  return -1;
}

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal);

  for (const period of ['90s', 'ticks:20'] as const) {
    const query = `period=${period}&${RANGE}`;
    const want = await reference(s, NAMES, query);
    const multi = `/ticks/bars?symbols=${NAMES.join(',')}&${query}`;

    await t.test(`${period}, JSON: the per-symbol answers merged by time, ties in list order`, async (t) => {
      t.equal(new Set(want.map((r) => r.symbol)).size, NAMES.length, 'every symbol has bars');
      const ties = want.filter((r, i) => i > 0 && r.time === want[i - 1]!.time && r.symbol !== want[i - 1]!.symbol).length;
      t.ok(ties > 0, `bars of different symbols at the same time (${ties})`);
      const res = await s.get(multi);
      t.equal(res.status, 200);
      t.equal(res.headers.get('tradeapi-symbols'), NAMES.join(','), 'the symbols, in list order, in a header');
      const got = (await res.json()) as Row[];
      t.equal(got.length, want.length);
      t.same(Object.keys(got[0]!), FIELDS, 'symbol first, time_close_msc last');
      t.equal(got.findIndex((r, i) => JSON.stringify(r) !== JSON.stringify(want[i])), -1, 'every row, every field, in order');
    });

    await t.test(`${period}, Arrow: the same rows, the symbol a Dictionary<Utf8, Uint16>`, async (t) => {
      const res = await s.get(multi, { headers: { accept: 'application/vnd.apache.arrow.stream' } });
      t.equal(res.status, 200);
      const table = tableFromIPC(new Uint8Array(await res.arrayBuffer()));
      const type = table.schema.fields[0]!.type as Dictionary;
      t.equal(table.schema.fields[0]!.name, 'symbol');
      t.ok(type.indices?.bitWidth === 16 && !type.indices.isSigned, 'uint16 indices');
      t.same(table.schema.fields.map((f) => f.name), FIELDS);
      t.equal(firstUnlike(table.numRows, (i, n) => table.getChild(n)!.get(i), want), -1, 'every row, every field, in order');
    });

    await t.test(`${period}, Parquet: the same rows, the symbol a dictionary-encoded string`, async (t) => {
      for (const compression of ['zstd', 'snappy']) {
        const res = await s.get(`${multi}&format=parquet&compression=${compression}`);
        t.equal(res.status, 200, compression);
        const file = await res.arrayBuffer();
        const meta = parquetMetadata(file);
        t.equal(meta.schema[1]?.name, 'symbol');
        t.equal(meta.schema[1]?.type, 'BYTE_ARRAY');
        t.ok(meta.row_groups.every((g) => g.columns[0]?.meta_data?.encodings.some((e) => e.includes('DICTIONARY'))), 'symbol: dictionary-encoded');
        const rows = (await parquetReadObjects({ file, compressors })) as Row[];
        t.equal(firstUnlike(rows.length, (i, n) => rows[i]![n], want), -1, `${compression}: every row, every field, in order (time in ms)`);
      }
    });

    await t.test(`${period}, packed: 72-byte rows, the symbol a uint32 index into Tradeapi-Symbols`, async (t) => {
      const res = await s.get(`${multi}&format=packed`);
      t.equal(res.status, 200);
      const names = res.headers.get('tradeapi-symbols')!.split(',').map(decodeURIComponent);
      const body = Buffer.from(await res.arrayBuffer());
      const size = PACKED_MULTI_BAR_ROW_BYTES;
      t.equal(body.byteLength, want.length * size);
      let bad = -1;
      for (let i = 0; i < want.length && bad < 0; i++) {
        const [at, w] = [i * size, want[i]!];
        const same =
          names[body.readUInt32LE(at + 68)] === w.symbol &&
          Number(body.readBigInt64LE(at)) === w.time &&
          body.readDoubleLE(at + 32) === w.close &&
          Number(body.readBigInt64LE(at + 60)) === w.time_close_msc;
        if (!same) bad = i;
      }
      t.equal(bad, -1, 'symbol, time, close and time_close_msc of every row');
    });
  }

  await t.test('group=: the Market Watch symbols it matches, in symbols_get order', async (t) => {
    const group = '*USD*,!EURUSD';
    const listed = (await json(s, `/symbols?group=${encodeURIComponent(group)}`)).filter((x) => x.select === true).map((x) => x.name as string);
    t.ok(listed.length >= 2, `the group matches ${listed.join(', ')}`);
    const query = 'period=1h&date_from=2024-01-08T00:00:00Z&date_to=2024-01-09T00:00:00Z';
    const byGroup = await s.get(`/ticks/bars?group=${encodeURIComponent(group)}&${query}`);
    t.equal(byGroup.status, 200);
    t.equal(byGroup.headers.get('tradeapi-symbols'), listed.map(encodeURIComponent).join(','));
    const got = (await byGroup.json()) as Row[];
    t.ok(got.length > 24, `${got.length} hourly bars`);
    t.same(got, await reference(s, listed, query), "each symbol's own bars, merged");
  });

  await t.test('the 400s and 404s, before anything is streamed', async (t) => {
    const q = `period=90s&${RANGE}`;
    let p = await expectProblem(t, await s.get(`/ticks/bars?${q}`), 400, '/errors/validation-error');
    t.match(p.detail, /'symbol', 'symbols' or 'group' is required/);
    p = await expectProblem(t, await s.get(`/ticks/bars?symbol=EURUSD&group=*USD*&${q}`), 400, '/errors/validation-error');
    t.match(p.detail, /exclude each other/);
    p = await expectProblem(t, await s.get(`/ticks/bars?symbols=EURUSD,,GBPUSD&${q}`), 400, '/errors/validation-error');
    t.match(p.detail, /empty name \(at position 2\)/);
    p = await expectProblem(t, await s.get(`/ticks/bars?symbols=EURUSD,NOPE&${q}&format=arrow`), 404, '/errors/symbol-not-found');
    t.match(p.detail, /"NOPE" is not known/);
    p = await expectProblem(t, await s.get(`/ticks/bars?symbols=EURUSD,eurusd&${q}`), 404, '/errors/symbol-not-found');
    t.match(p.detail, /did you mean EURUSD\?/);
    p = await expectProblem(t, await s.get(`/ticks/bars?group=NOTHING*&${q}`), 404, '/errors/not-found');
    t.match(p.detail, /matches no symbol in Market Watch/);
    p = await expectProblem(t, await s.get(`/ticks/bars?symbols=EURUSD,GBPUSD&period=volume:10&${RANGE}`), 400, '/errors/validation-error');
    t.match(p.detail, /volume/, 'a volume bar of a symbol without trades: the one-symbol 400');
    p = await expectProblem(t, await s.get(`/ticks/bars?symbols=EURUSD,GBPUSD&period=7m&${RANGE}`), 400, '/errors/validation-error');
    t.match(p.detail, /period/);
  });

  await t.test('symbols without ticks in the range: an empty answer, as for one symbol', async (t) => {
    const weekend = '/ticks/bars?symbols=EURUSD,GBPUSD&period=1h&date_from=2024-01-06T00:00:00Z&date_to=2024-01-06T23:59:59Z';
    t.same(await json(s, weekend.replace('symbols=EURUSD,GBPUSD', 'symbol=EURUSD')), [], 'no EURUSD bar on a Saturday');
    t.same(await json(s, weekend), [], 'JSON: []');
    const arrow = await s.get(`${weekend}&format=arrow`);
    t.equal(arrow.status, 200);
    const table = tableFromIPC(new Uint8Array(await arrow.arrayBuffer()));
    t.equal(table.numRows, 0, 'Arrow: no rows');
    t.same(table.schema.fields.map((f) => f.name), FIELDS, 'Arrow: the schema all the same');
    const mixed = await json(s, '/ticks/bars?symbols=EURUSD,BTCUSD&period=1h&date_from=2024-01-06T00:00:00Z&date_to=2024-01-06T23:59:59Z');
    t.ok(mixed.length >= 20 && mixed.every((r) => r.symbol === 'BTCUSD'), `BTCUSD trades at weekends: ${mixed.length} bars, all of it`);
  });

  await t.test('TRADEAPI_MAX_SYMBOLS_PER_REQUEST: a clear 400 past it', async (t) => {
    const small = await serve(t, adapter, terminal, { TRADEAPI_MAX_SYMBOLS_PER_REQUEST: '2' });
    const p = await expectProblem(t, await small.get(`/ticks/bars?symbols=EURUSD,GBPUSD,USDJPY&period=90s&${RANGE}`), 400, '/errors/validation-error');
    t.match(p.detail, /names 3 symbols, more than the 2 one request may merge \(TRADEAPI_MAX_SYMBOLS_PER_REQUEST\)/);
    t.equal((await small.get(`/ticks/bars?symbols=EURUSD,GBPUSD&period=90s&${RANGE}`)).status, 200, 'two is allowed');
  });
});

await t.test(`${DOC_SNIPPETS.multiSymbolBars.page}'s multi-symbol custom bars block, as written`, { skip: curlMissing() }, async (t) => {
  const s = await serve(t, nodeAdapter, terminal);
  const block = docBlock(DOC_SNIPPETS.multiSymbolBars);
  if (!block) return t.fail(`no sh block with ${DOC_SNIPPETS.multiSymbolBars.marker} in ${DOC_SNIPPETS.multiSymbolBars.page}`);
  const cwd = mkdtempSync(path.join(tmpdir(), 'tradeapi-multi-bars-doc-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  const script = curlScript(block, s.base);
  const { stdout } = await promisify(execFile)('bash', ['-e', '-c', script], { cwd });
  const rows = JSON.parse(stdout) as Row[];
  t.same(
    rows.map((r) => [r.symbol, r.time]),
    [1704794400, 1704794490, 1704794580].flatMap((time) => [['USDJPY', time], ['EURUSD', time]]),
    'as the page says: three 90-second bars of each, USDJPY first at each time',
  );
  t.ok(rows.every((r) => typeof r.time_close_msc === 'number'), 'each with its time_close_msc');
  const file = readFileSync(path.join(cwd, 'fx-bars.parquet'));
  t.equal(file.subarray(0, 4).toString(), 'PAR1', 'the second writes fx-bars.parquet');
  const buffer = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
  t.equal(parquetMetadata(buffer).schema[1]?.name, 'symbol');
  const symbols = new Set(((await parquetReadObjects({ file: buffer, compressors })) as Row[]).map((r) => r.symbol));
  t.ok(symbols.size >= 2 && !symbols.has('EURUSD'), `the group's symbols, EURUSD left out (${[...symbols].join(', ')})`);
});
