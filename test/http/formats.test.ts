// Parquet and Arrow bodies read back with independent readers, checked against the JSON answer.
import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { tableFromIPC } from 'apache-arrow';
import t from 'tap';

import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

type Row = Record<string, unknown>;

async function parquet(res: Response): Promise<{ rows: Row[]; columns: string[]; types: Record<string, string> }> {
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  const file = await res.arrayBuffer();
  const metadata = parquetMetadata(file);
  const schema = parquetSchema(metadata);
  const columns = schema.children.map((c) => c.element.name);
  const types: Record<string, string> = {};
  for (const c of schema.children) types[c.element.name] = String(c.element.type);
  const rows = (await parquetReadObjects({ file, compressors })) as Row[];
  return { rows, columns, types };
}

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal);

  const cases: Array<[string, string]> = [
    ['records', '/symbols?group=*USD*'],
    ['records', '/positions'],
    ['records', '/history/deals?date_from=2023-06-01T00:00:00Z&date_to=2024-01-10T00:00:00Z'],
    ['object', '/account'],
    ['object', '/symbols/total'],
    ['series', '/rates/from?symbol=EURUSD&timeframe=TIMEFRAME_M1&date_from=2024-01-10T00:00:00Z&count=999'],
    ['series', '/ticks/range?symbol=EURUSD&date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T10:10:00Z'],
  ];
  for (const [kind, path] of cases) {
    await t.test(`parquet ${path}`, async (t) => {
      const jsonRes = await s.get(path);
      const answer = (await jsonRes.json()) as Row[] | Row;
      const rows = Array.isArray(answer) ? answer : [answer];
      const pq = await parquet(await s.get(path, { headers: { accept: 'application/parquet' } }));
      t.equal(pq.rows.length, rows.length, `${kind}: same row count (${rows.length})`);
      const jsonColumns = Object.keys(rows[0] ?? {});
      for (const c of jsonColumns) t.ok(pq.columns.includes(c), `column ${c} present`);
      // Types: every JSON number column is a numeric Parquet column, strings are BYTE_ARRAY.
      for (const c of jsonColumns) {
        const sample = rows[0]?.[c];
        const type = pq.types[c] ?? '';
        if (typeof sample === 'string') t.equal(type, 'BYTE_ARRAY', `${c} string`);
        else if (typeof sample === 'boolean') t.equal(type, 'BOOLEAN', `${c} boolean`);
        else if (typeof sample === 'number') t.match(type, /^(INT32|INT64|DOUBLE|FLOAT)$/, `${c} numeric (${type})`);
      }
      // Values agree (integers may come back as BigInt or Date for timestamp columns).
      const norm = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.getTime() : v);
      const first = rows[0];
      const back = pq.rows[0];
      if (first && back) {
        for (const c of jsonColumns) {
          const a = first[c];
          if (typeof a === 'number' && !Number.isInteger(a)) t.equal(norm(back[c]), a, `${c} value`);
          if (typeof a === 'string') t.equal(back[c], a, `${c} value`);
        }
      }
    });
  }

  await t.test('format=parquet and format=arrow for a series', async (t) => {
    const path = '/rates/range?symbol=EURUSD&timeframe=TIMEFRAME_M1&date_from=2024-01-09T00:00:00Z&date_to=2024-01-09T03:00:00Z';
    const rows = (await (await s.get(path)).json()) as Row[];
    const pqRes = await s.get(`${path}&format=parquet`);
    t.equal(pqRes.headers.get('content-type'), 'application/parquet');
    t.equal((await parquet(pqRes)).rows.length, rows.length);
    const arrowRes = await s.get(path, { headers: { accept: 'application/vnd.apache.arrow.stream' } });
    t.equal(arrowRes.headers.get('content-type'), 'application/vnd.apache.arrow.stream');
    if (arrowRes.status !== 200) throw new Error(`arrow: ${arrowRes.status} ${await arrowRes.text()}`);
    const table = tableFromIPC(new Uint8Array(await arrowRes.arrayBuffer()));
    t.equal(table.numRows, rows.length, 'arrow rows');
    t.same(table.schema.fields.map((f) => f.name).filter((n) => n in (rows[0] ?? {})), Object.keys(rows[0] ?? {}));
    t.equal(table.getChild('close')?.get(0), rows[0]?.close);
  });

  await t.test('compression= picks the Parquet codec of a series', async (t) => {
    const path = '/ticks/range?symbol=EURUSD&date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T10:30:00Z&format=parquet';
    const json = (await (await s.get(path.replace('format=parquet', 'format=json'))).json()) as Row[];
    const codecs: Record<string, string> = { zstd: 'ZSTD', lz4: 'LZ4_RAW', snappy: 'SNAPPY', none: 'UNCOMPRESSED' };
    const sizes: Record<string, number> = {};
    for (const [codec, stored] of Object.entries(codecs)) {
      const res = await s.get(`${path}&compression=${codec}`);
      t.equal(res.status, 200, codec);
      const file = await res.arrayBuffer();
      sizes[codec] = file.byteLength;
      const metadata = parquetMetadata(file);
      t.equal(String(metadata.row_groups[0]?.columns[0]?.meta_data?.codec), stored, `${codec} is stored as ${stored}`);
      const rows = (await parquetReadObjects({ file, compressors })) as Row[];
      t.equal(rows.length, json.length, `${codec}: every row`);
      t.equal(rows.at(-1)?.bid, json.at(-1)?.bid, `${codec}: same values`);
    }
    t.ok(sizes.zstd! < sizes.none!, `zstd (${sizes.zstd}) smaller than none (${sizes.none})`);
    const bad = await s.get(`${path}&compression=brotli`);
    t.equal(bad.status, 400);
    t.match(((await bad.json()) as { detail: string }).detail, /compression/);
  });

  await t.test('empty series in every format', async (t) => {
    const path = '/rates/range?symbol=EURUSD&timeframe=TIMEFRAME_M1&date_from=2024-01-06T10:00:00Z&date_to=2024-01-06T10:30:00Z';
    t.same(await (await s.get(path)).json(), []);
    t.equal((await parquet(await s.get(`${path}&format=parquet`))).rows.length, 0);
    const arrow = await s.get(`${path}&format=arrow`);
    t.equal(arrow.status, 200);
    t.equal(tableFromIPC(new Uint8Array(await arrow.arrayBuffer())).numRows, 0);
  });

  await t.test('a client that leaves mid-stream does not hurt the server', async (t) => {
    const controller = new AbortController();
    const res = await s.get('/ticks/from?symbol=EURUSD&date_from=2024-01-02T00:00:00Z&count=1000000', { signal: controller.signal });
    t.equal(res.status, 200);
    const reader = res.body?.getReader();
    await reader?.read();
    controller.abort();
    await reader?.cancel().catch(() => undefined);
    const health = await s.get('/health');
    t.equal(health.status, 200, 'still serving');
    await health.arrayBuffer();
  });
});
