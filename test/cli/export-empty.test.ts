// Issue 23 item 4, third friction, the export's side: a range that holds no rows (a mistyped year,
// a weekend) wrote an empty file and exited 0 without a word. The export still writes what the
// HTTP answer holds and exits as it answers (ticks: copy_ticks_range's empty array, 200 []: exit
// 0; bars wholly outside the history: MT5 fails, a 404: exit 2), but now says on stderr that the
// range held no rows, also when stderr is not a terminal. The answers themselves and where they
// are documented: test/http/empty-ranges.test.ts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t from 'tap';

import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-export-empty-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** The child's environment: the default simulator, whatever the caller's shell has set. */
const env: NodeJS.ProcessEnv = { ...process.env };
for (const name of ['TRADEAPI_TERMINAL', 'TRADEAPI_BRIDGE_SECRET', 'TRADEAPI_SERVER_TZ', 'TRADEAPI_SIM_SERVER_TZ', 'TRADEAPI_SIM_CLOCK']) delete env[name];

t.test('ticks in a year before the history: an empty file, exit 0, and a line on stderr saying so', async (t) => {
  const out = path.join(dir, 'ticks-2019.json');
  const r = await runCli(['export', 'ticks', 'EURUSD', '--from', '2019-01-01T00:00:00Z', '--to', '2019-02-01T00:00:00Z', '-o', out], env);
  t.equal(r.code, 0, 'exit 0: the HTTP answer is 200 [] (copy_ticks_range gives an empty array)', { stderr: r.stderr });
  t.equal(readFileSync(out, 'utf8'), '[]', 'the file holds what the HTTP answer holds');
  t.match(r.stderr, /^tradeapi export: EURUSD ticks: no rows from 2019-01-01T00:00:00\.000Z to 2019-02-01T00:00:00\.000Z; wrote an empty file/, r.stderr);
  t.match(r.stderr, /check --from and --to/);
  t.equal(r.stderr.split('\n').filter((l) => l !== '').length, 1, 'one line');
});

t.test('bars on a weekend inside the history: empty, exit 0, said on stderr', async (t) => {
  const out = path.join(dir, 'h1-saturday.parquet');
  const r = await runCli(['export', 'rates', 'EURUSD', '--timeframe', 'TIMEFRAME_H1', '--from', '2024-01-06T06:00:00Z', '--to', '2024-01-06T18:00:00Z', '-o', out], env);
  t.equal(r.code, 0, { stderr: r.stderr });
  t.equal(readFileSync(out).subarray(0, 4).toString(), 'PAR1', 'an empty Parquet file with its schema');
  t.match(r.stderr, /EURUSD rates: no rows from 2024-01-06T06:00:00\.000Z to 2024-01-06T18:00:00\.000Z; wrote an empty file/);
});

t.test('bars wholly outside the history: MT5 fails, the HTTP answer is a 404, the export exits 2', async (t) => {
  const out = path.join(dir, 'h1-2019.json');
  const r = await runCli(['export', 'rates', 'EURUSD', '--timeframe', 'TIMEFRAME_H1', '--from', '2019-01-01T00:00:00Z', '--to', '2019-02-01T00:00:00Z', '-o', out], env);
  t.equal(r.code, 2, { stderr: r.stderr });
  t.match(r.stderr, /wholly outside the history/);
});

t.test('a symbol in the wrong case: exit 2, and the names that match it', async (t) => {
  const r = await runCli(['export', 'ticks', 'eurusd', '--from', '2024-01-09T00:00:00Z', '--to', '2024-01-09T01:00:00Z', '-o', path.join(dir, 'x.json')], env);
  t.equal(r.code, 2);
  t.match(r.stderr, /symbol "eurusd" is not known to the terminal \(.*\); did you mean EURUSD\?/);
});
