// The store read in place (issue 26), with no server running: DuckDB and Polars run docs/store.md's
// queries, as written there, on a store `tradeapi sync` filled, and their counts, types and values
// agree with the terminal's. (Spark: the snippet is in docs/store.md; pyspark is not in the test venv.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { runSync } from '../../src/sync/run.js';
import { openSimTerminal, type Terminal } from '../../src/terminal/index.js';
import { testPython } from '../helpers/python.js';

const docs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/store.md');
const choice = testPython(['duckdb', 'polars']);

/** The fenced block of docs/store.md that contains `marker`. */
function block(marker: string): string {
  const text = readFileSync(docs, 'utf8');
  const found = [...text.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => m[2] as string).find((b) => b.includes(marker));
  if (found === undefined) throw new Error(`docs/store.md has no block with ${marker}`);
  return found;
}

async function count(terminal: Terminal, symbol: string, fromMs: number, toMs: number): Promise<{ rows: number; sumBid: number; first: number; last: number }> {
  let rows = 0;
  let sumBid = 0;
  let first = -1;
  let last = -1;
  for await (const c of await terminal.copyTicksRange(symbol, fromMs, toMs, -1)) {
    for (let i = 0; i < c.rows; i++) sumBid += c.bid[i] as number;
    if (c.rows > 0) {
      if (first < 0) first = Number(c.time_msc[0]);
      last = Number(c.time_msc[c.rows - 1]);
    }
    rows += c.rows;
  }
  return { rows, sumBid, first, last };
}

if ('skip' in choice) {
  t.plan(0, choice.skip);
} else {
  await t.test('DuckDB and Polars read a synced store in place', async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-store-interop-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const terminal = openSimTerminal();
    t.teardown(() => terminal.close());
    // docs/store.md's sync command.
    const sync = block('bin/tradeapi.js sync --store').split('\n').find((l) => l.startsWith('node bin/tradeapi.js sync'));
    t.ok(sync, 'docs/store.md shows the sync command');
    // Its words after `node bin/tradeapi.js sync`, as written, with the store in this test's directory.
    const args = (sync ?? '').split(/\s+/).slice(3).map((w, i, all) => (all[i - 1] === '--store' ? path.join(dir, w) : w));
    t.same(args.slice(2), ['--symbols', 'EURUSD,USDJPY', '--from', '2024-01-08', '--to', '2024-01-10'], 'the range this test checks');
    const code = await runSync(args, {
      env: {},
      stdout: { write: () => true },
      stderr: { write: () => true },
    });
    t.equal(code, 0, 'synced');
    const from = Date.UTC(2024, 0, 8);
    const to = Date.UTC(2024, 0, 11) - 1;
    const eur = await count(terminal, 'EURUSD', from, to);
    const jpy = await count(terminal, 'USDJPY', from, to);

    const script = `
import json, duckdb, polars as pl
out = {}
con = duckdb.connect()
out['duckdb_count'] = con.sql("""${block("read_parquet('store/ticks").split('\n').find((l) => l.startsWith('duckdb -c'))?.replace(/^duckdb -c "(.*)"$/, '$1') ?? 'missing'}""").fetchone()[0]
r = con.sql("""select count(*), avg(bid), epoch_ms(min(time_msc)), epoch_ms(max(time_msc)), count(distinct date), typeof(any_value(time_msc)), typeof(any_value(date))
               from read_parquet('store/ticks/*/*/*.parquet', hive_partitioning=1) where symbol='USDJPY'""").fetchone()
out['duckdb_jpy'] = list(r)
out['duckdb_bars'] = con.sql("select symbol, count(*) from read_parquet('store/bars_m1/*/*/*.parquet', hive_partitioning=1) group by all order by all").fetchall()
ns = {}
exec(${JSON.stringify(block('pl.scan_parquet'))}, ns)
out['polars'] = ns['df'].to_dicts()
lf = pl.scan_parquet('store/ticks/**/*.parquet', hive_partitioning=True)
schema = lf.collect_schema()
out['polars_schema'] = {k: str(v) for k, v in schema.items()}
print(json.dumps(out))
`;
    const r = spawnSync(choice.python, ['-c', script], { cwd: dir, encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }, timeout: 100_000 });
    t.equal(r.status, 0, 'the Python script ran', { stderr: r.stderr });
    const out = JSON.parse(r.stdout) as {
      duckdb_count: number;
      duckdb_jpy: [number, number, number, number, number, string, string];
      duckdb_bars: Array<[string, number]>;
      polars: Array<{ symbol: string; ticks: number; mean_bid: number }>;
      polars_schema: Record<string, string>;
    };
    t.equal(out.duckdb_count, eur.rows, `DuckDB, docs/store.md's query: ${eur.rows} EURUSD ticks`);
    const [rows, avgBid, first, last, days, timeType, dateType] = out.duckdb_jpy;
    t.equal(rows, jpy.rows, 'DuckDB: USDJPY rows');
    t.ok(Math.abs(avgBid - jpy.sumBid / jpy.rows) < 1e-9, 'DuckDB: the mean bid (reads the column)');
    t.same([first, last], [jpy.first, jpy.last], 'DuckDB: first and last tick times, UTC');
    t.equal(days, 3, 'three date partitions');
    t.equal(timeType, 'TIMESTAMP WITH TIME ZONE', 'time_msc is a UTC timestamp');
    t.equal(dateType, 'DATE', 'the date partition reads as a DATE');
    t.equal(out.duckdb_bars.length, 2, 'bars of both symbols');
    const polars = Object.fromEntries(out.polars.map((row) => [row.symbol, row]));
    t.equal(polars.EURUSD?.ticks, eur.rows, 'Polars, docs/store.md\'s snippet: EURUSD rows');
    t.ok(Math.abs((polars.EURUSD?.mean_bid ?? 0) - eur.sumBid / eur.rows) < 1e-9, 'Polars: the mean bid');
    t.equal(polars.USDJPY?.ticks, jpy.rows);
    t.match(out.polars_schema, { time_msc: "Datetime(time_unit='ms', time_zone='UTC')", symbol: 'String', date: 'Date', bid: 'Float64', volume: 'UInt64' });
  });
}
