// Many symbols in one pull (issue 36 §2) through the real server: /ticks/range and /rates/range with
// `symbols=` and `group=` equal the per-symbol answers merged by a reference here (every field, every
// row, ties in list order), in JSON, Parquet (hyparquet), Arrow (apache-arrow) and packed rows; the
// symbol column is dictionary-encoded in Parquet and Arrow; the 400s and 404s; the read-only prefix.
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
import { curlMissing, curlScript, DOC_SNIPPETS, docBlock } from '../helpers/doc-blocks.js';
import { expectProblem, forEachAdapter, READ_ONLY_KEY, serve, serveReadOnly, simTerminal, type TestServer } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

type Row = Record<string, unknown>;
const HOUR = 'date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T11:00:00Z';
const TICK_SYMBOLS = ['GBPUSD', 'EURUSD', 'USDJPY'];
const RATE_SYMBOLS = ['USDJPY', 'EURUSD'];
const RATES = 'timeframe=TIMEFRAME_M1&date_from=2024-01-08T00:00:00Z&date_to=2024-01-09T00:00:00Z';

async function json(s: TestServer, path: string, init?: RequestInit): Promise<Row[]> {
  const res = await s.get(path, init);
  if (res.status !== 200) throw new Error(`${path}: status ${res.status}: ${await res.text()}`);
  return (await res.json()) as Row[];
}

/** The reference: each symbol's own answer, rows tagged with their symbol, stably sorted by `key` then list order. */
async function reference(s: TestServer, route: string, names: readonly string[], query: string, key: string, prefix = ''): Promise<Row[]> {
  const tagged: { row: Row; at: number; row_no: number }[] = [];
  for (const [at, name] of names.entries()) {
    const rows = await json(s, `${prefix}${route}?symbol=${name}&${query}`, prefix ? { headers: { 'x-api-key': READ_ONLY_KEY } } : undefined);
    rows.forEach((row, row_no) => tagged.push({ row: { symbol: name, ...row }, at, row_no }));
  }
  tagged.sort((a, b) => (a.row[key] as number) - (b.row[key] as number) || a.at - b.at || a.row_no - b.row_no);
  return tagged.map((x) => x.row);
}

/** Timestamps and 64-bit integers as the JSON answer has them. */
const plain = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.getTime() : v);

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal);

  const want = await reference(s, '/ticks/range', TICK_SYMBOLS, HOUR, 'time_msc');
  const multi = `/ticks/range?symbols=${TICK_SYMBOLS.join(',')}&${HOUR}`;

  await t.test('JSON: the per-symbol answers merged by time_msc, ties in list order', async (t) => {
    const ties = want.filter((r, i) => i > 0 && r.time_msc === want[i - 1]!.time_msc && r.symbol !== want[i - 1]!.symbol).length;
    t.ok(ties > 0, `the hour has ticks of different symbols at the same millisecond (${ties})`);
    t.ok(want.length > 16_384, `more rows (${want.length}) than one stream chunk: merged across refills`);
    const res = await s.get(multi);
    t.equal(res.headers.get('tradeapi-symbols'), TICK_SYMBOLS.join(','), 'the symbols, in list order, in a header');
    const got = (await res.json()) as Row[];
    t.equal(got.length, want.length);
    t.same(Object.keys(got[0]!), ['symbol', 'time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'flags', 'volume_real'], 'symbol first');
    t.ok(got.every((r, i) => JSON.stringify(r) === JSON.stringify(want[i])), 'every row, every field, in order');
  });

  await t.test('Parquet: the same rows, the symbol a dictionary-encoded string', async (t) => {
    const res = await s.get(`${multi}&format=parquet`);
    t.equal(res.status, 200);
    const file = await res.arrayBuffer();
    const meta = parquetMetadata(file);
    t.equal(meta.schema[1]?.name, 'symbol');
    t.equal(meta.schema[1]?.type, 'BYTE_ARRAY');
    t.equal(meta.schema[1]?.converted_type, 'UTF8');
    for (const g of meta.row_groups) t.ok(g.columns[0]?.meta_data?.encodings.includes('RLE_DICTIONARY'), 'symbol: RLE_DICTIONARY');
    const rows = (await parquetReadObjects({ file, compressors })) as Row[];
    t.equal(rows.length, want.length);
    const bad = rows.findIndex((r, i) => Object.keys(want[i]!).some((k) => (k === 'time' ? plain(r[k]) !== (want[i]![k] as number) * 1000 : plain(r[k]) !== want[i]![k])));
    t.equal(bad, -1, 'every row, every field, in order (time in ms)');
  });

  await t.test('Arrow: the same rows, the symbol a Dictionary<Utf8, Uint16>', async (t) => {
    const res = await s.get(multi, { headers: { accept: 'application/vnd.apache.arrow.stream' } });
    t.equal(res.status, 200);
    const table = tableFromIPC(new Uint8Array(await res.arrayBuffer()));
    const field = table.schema.fields[0]!;
    t.equal(field.name, 'symbol');
    t.ok(field.type instanceof Object && (field.type as Dictionary).indices?.bitWidth === 16 && !(field.type as Dictionary).indices.isSigned, 'uint16 indices');
    t.equal(String((field.type as Dictionary).dictionary), 'Utf8');
    t.equal(table.numRows, want.length);
    const names = want.length > 0 ? Object.keys(want[0]!) : [];
    const columns = names.map((n) => table.getChild(n)!);
    let bad = -1;
    for (let i = 0; i < table.numRows && bad < 0; i++) {
      // Arrow's time is timestamp[s], read back in ms as every Arrow timestamp.
      if (names.some((n, c) => plain(columns[c]!.get(i)) !== (n === 'time' ? (want[i]![n] as number) * 1000 : want[i]![n]))) bad = i;
    }
    t.equal(bad, -1, 'every row, every field, in order');
  });

  await t.test('packed: 64-byte rows, the symbol a uint32 index into Tradeapi-Symbols', async (t) => {
    const res = await s.get(`${multi}&format=packed`);
    t.equal(res.status, 200);
    const names = res.headers.get('tradeapi-symbols')!.split(',').map(decodeURIComponent);
    const body = Buffer.from(await res.arrayBuffer());
    t.equal(body.byteLength, want.length * 64);
    let bad = -1;
    for (let i = 0; i < want.length && bad < 0; i++) {
      const at = i * 64;
      const w = want[i]!;
      if (names[body.readUInt32LE(at + 60)] !== w.symbol || Number(body.readBigInt64LE(at + 40)) !== w.time_msc || body.readDoubleLE(at + 8) !== w.bid) bad = i;
    }
    t.equal(bad, -1, 'symbol, time_msc and bid of every row');
  });

  await t.test('bars: /rates/range merged by time, ties (every minute) in list order', async (t) => {
    const ref = await reference(s, '/rates/range', RATE_SYMBOLS, RATES, 'time');
    const got = await json(s, `/rates/range?symbols=${RATE_SYMBOLS.join(',')}&${RATES}`);
    t.equal(got.length, ref.length);
    t.ok(got.every((r, i) => JSON.stringify(r) === JSON.stringify(ref[i])), 'every bar, every field, in order');
    t.equal(got[0]!.symbol, 'USDJPY', 'the first listed first at the same minute');
  });

  await t.test('group=: the Market Watch symbols it matches, in symbols_get order', async (t) => {
    const group = '*USD*,!EURUSD';
    const listed = (await json(s, `/symbols?group=${encodeURIComponent(group)}`)).filter((x) => x.select === true).map((x) => x.name as string);
    t.ok(listed.length >= 2, `the group matches ${listed.join(', ')}`);
    const byGroup = await s.get(`/rates/range?group=${encodeURIComponent(group)}&timeframe=TIMEFRAME_H1&date_from=2024-01-08T00:00:00Z&date_to=2024-01-08T06:00:00Z`);
    t.equal(byGroup.headers.get('tradeapi-symbols'), listed.map(encodeURIComponent).join(','));
    const bySymbols = await json(s, `/rates/range?symbols=${listed.map(encodeURIComponent).join(',')}&timeframe=TIMEFRAME_H1&date_from=2024-01-08T00:00:00Z&date_to=2024-01-08T06:00:00Z`);
    t.same(await byGroup.json(), bySymbols, 'the same answer as listing them');
  });

  await t.test('the 400s and 404s, before anything is streamed', async (t) => {
    const range = `&${HOUR}`;
    let p = await expectProblem(t, await s.get(`/ticks/range?${HOUR}`), 400, '/errors/validation-error');
    t.match(p.detail, /'symbol', 'symbols' or 'group' is required/);
    p = await expectProblem(t, await s.get(`/ticks/range?symbol=EURUSD&symbols=GBPUSD${range}`), 400, '/errors/validation-error');
    t.match(p.detail, /exclude each other/);
    p = await expectProblem(t, await s.get(`/ticks/range?symbols=EURUSD,,GBPUSD${range}`), 400, '/errors/validation-error');
    t.match(p.detail, /empty name \(at position 2\)/);
    p = await expectProblem(t, await s.get(`/ticks/range?symbols=EURUSD,GBPUSD,EURUSD${range}`), 400, '/errors/validation-error');
    t.match(p.detail, /names "EURUSD" twice/);
    p = await expectProblem(t, await s.get(`/ticks/range?symbols=EURUSD,GBPUSD${range}&format=parquet&compression=snappy`), 400, '/errors/validation-error');
    t.match(p.detail, /compression=snappy is not available/);
    p = await expectProblem(t, await s.get(`/ticks/range?symbols=EURUSD,NOPE,GBPUSD${range}&format=parquet`), 404, '/errors/symbol-not-found');
    t.match(p.detail, /"NOPE" is not known/);
    p = await expectProblem(t, await s.get(`/rates/range?symbols=EURUSD,eurusd&${RATES}`), 404, '/errors/symbol-not-found');
    t.match(p.detail, /"eurusd" is not known.*did you mean EURUSD\?/);
    p = await expectProblem(t, await s.get(`/ticks/range?group=NOTHING*${range}`), 404, '/errors/not-found');
    t.match(p.detail, /matches no symbol in Market Watch/);
    p = await expectProblem(t, await s.get(`/rates/range?symbols=EURUSD,GBPUSD&timeframe=TIMEFRAME_M1&date_from=2030-01-01T00:00:00Z&date_to=2030-01-02T00:00:00Z`), 404, '/errors/not-found');
    t.match(p.detail, /no EURUSD bars there/);
  });

  await t.test('TRADEAPI_MAX_SYMBOLS_PER_REQUEST: a clear 400 past it', async (t) => {
    const small = await serve(t, adapter, terminal, { TRADEAPI_MAX_SYMBOLS_PER_REQUEST: '2' });
    const p = await expectProblem(t, await small.get(`/ticks/range?symbols=EURUSD,GBPUSD,USDJPY&${HOUR}`), 400, '/errors/validation-error');
    t.match(p.detail, /names 3 symbols, more than the 2 one request may merge \(TRADEAPI_MAX_SYMBOLS_PER_REQUEST\)/);
    const q = await expectProblem(t, await small.get(`/ticks/range?group=*USD*&${HOUR}`), 400, '/errors/validation-error');
    t.match(q.detail, /matches \d+ Market Watch symbols, more than the 2/);
    t.equal((await small.get(`/ticks/range?symbols=EURUSD,GBPUSD&${HOUR}`)).status, 200, 'two is allowed');
  });

  await t.test('read-only: the same under /api/v1', async (t) => {
    const ro = await serveReadOnly(t, adapter, terminal);
    const key = { headers: { 'x-api-key': READ_ONLY_KEY } };
    const ref = await reference(ro, '/ticks/range', TICK_SYMBOLS, 'date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T10:05:00Z', 'time_msc', '/api/v1');
    const got = await json(ro, `/api/v1/ticks/range?symbols=${TICK_SYMBOLS.join(',')}&date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T10:05:00Z`, key);
    t.ok(got.length > 0 && got.every((r, i) => JSON.stringify(r) === JSON.stringify(ref[i])) && got.length === ref.length, 'merged as in the full variant');
  });
});

await t.test(`${DOC_SNIPPETS.multiSymbol.page}'s multi-symbol curl block, as written`, { skip: curlMissing() }, async (t) => {
  const s = await serve(t, nodeAdapter, terminal);
  const block = docBlock(DOC_SNIPPETS.multiSymbol);
  if (!block) return t.fail(`no sh block with ${DOC_SNIPPETS.multiSymbol.marker} in ${DOC_SNIPPETS.multiSymbol.page}`);
  const cwd = mkdtempSync(path.join(tmpdir(), 'tradeapi-multi-doc-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  const script = curlScript(block, s.base);
  const { stdout } = await promisify(execFile)('bash', ['-e', '-c', script], { cwd });
  const rows = JSON.parse(stdout) as Row[];
  t.ok(rows.length > 1, `the first answers ticks (${rows.length})`);
  t.match(rows[0], { symbol: 'GBPUSD', time: 1704794400 }, 'as the page says it starts');
  t.ok(rows.every((r) => r.symbol === 'EURUSD' || r.symbol === 'GBPUSD'), 'both symbols, nothing else');
  const file = readFileSync(path.join(cwd, 'usd.parquet'));
  t.equal(file.subarray(0, 4).toString(), 'PAR1', 'the second writes usd.parquet');
  const meta = parquetMetadata(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength));
  t.equal(meta.schema[1]?.name, 'symbol');
});
