// examples/ runs as written against live servers (offline): curl, requests + pandas, polars, DuckDB
// from Python and DuckDB's CLI, each against the full variant with a key and the read-only variant
// (prefix in TRADEAPI_URL), their output checked against the servers' JSON answers. Also
// docs/clients.md's curl block (its Python and DuckDB snippets are run by test/interop/read_back.py).
// Python: test/helpers/python.ts (TRADEAPI_TEST_PYTHON, which npm test sets, else build/pyenv, else
// python3). npm test runs this file in its interop stage, with TRADEAPI_TEST_PYTHON at the venv it
// makes from exactly examples/requirements.txt, what a user installs: a module missing there fails
// here. The DuckDB CLI is that venv's duckdb-cli.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import { curlScript, DOC_SNIPPETS, docBlock } from '../helpers/doc-blocks.js';
import { testPython } from '../helpers/python.js';
import { READ_ONLY_KEY, serve, serveReadOnly, simTerminal } from '../helpers/server.js';

const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples');
const TICKS = '/ticks/range?symbol=EURUSD&date_from=2024-01-08T00:00:00Z&date_to=2024-01-09T00:00:00Z';
const BARS = '/rates/from?symbol=EURUSD&timeframe=TIMEFRAME_H1&date_from=2024-01-10T00:00:00Z&count=24';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  cwd: string;
}

/** Asynchronous: the servers answering the example run on this process's event loop. */
function run(cmd: string, args: string[], env: Record<string, string>): Promise<Run> {
  const cwd = mkdtempSync(path.join(tmpdir(), 'tradeapi-example-'));
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, cwd });
    });
  });
}

const choice = testPython(['requests', 'pandas', 'pyarrow', 'polars', 'duckdb']);
const python = 'python' in choice ? choice.python : undefined;
// The venv's bin first: its duckdb CLI.
const PATH = [python?.includes('/') ? path.dirname(python) : undefined, process.env.PATH].filter(Boolean).join(path.delimiter);

const terminal = simTerminal();
t.teardown(() => terminal.close());

const full = await serve(t, nodeAdapter, terminal, { TRADEAPI_SECRET_KEY: 'example-key' });
const readOnly = await serveReadOnly(t, nodeAdapter, terminal);
const deployments = [
  { name: 'full variant with a key', url: full.base, key: 'example-key', get: (p: string) => full.get(p, { headers: { 'x-api-key': 'example-key' } }) },
  { name: 'read-only variant', url: `${readOnly.base}/api/v1`, key: READ_ONLY_KEY, get: (p: string) => readOnly.get(`/api/v1${p}`, { headers: { 'x-api-key': READ_ONLY_KEY } }) },
];

for (const d of deployments) {
  await t.test(d.name, async (t) => {
    const ticks = (await (await d.get(TICKS)).json()) as Array<{ time_msc: number }>;
    const bars = (await (await d.get(BARS)).json()) as unknown[];
    t.ok(ticks.length > 1000 && bars.length === 24, `the day has ${ticks.length} ticks`);
    const hours = new Set(ticks.map((x) => Math.floor(x.time_msc / 3_600_000))).size;
    const env = { TRADEAPI_URL: d.url, TRADEAPI_API_KEY: d.key, PATH };
    const done = (r: Run, what: string) => {
      t.equal(r.code, 0, `${what}: exit 0`, { stderr: r.stderr.slice(-2000) });
      rmSync(r.cwd, { recursive: true, force: true });
    };

    await t.test('curl.sh', async (t) => {
      const r = await run('bash', [path.join(examples, 'curl.sh')], env);
      const lines = r.stdout.trim().split('\n');
      t.match(JSON.parse(lines[0] ?? 'null'), { bid: Number, ask: Number, time_msc: Number }, 'the latest tick');
      t.same(JSON.parse(lines[1] ?? 'null'), bars, 'the H1 bars, as the server answers them');
      const file = path.join(r.cwd, 'ticks.parquet');
      t.ok(existsSync(file) && readFileSync(file).subarray(0, 4).toString() === 'PAR1', 'ticks.parquet is Parquet');
      t.match(lines[2], /^ticks\.parquet: \d+ bytes$/);
      done(r, 'curl.sh');
      const keyless = await run('bash', [path.join(examples, 'curl.sh')], { ...env, TRADEAPI_API_KEY: '' });
      t.not(keyless.code, 0, 'without the key it stops at the first 401 (curl -f)');
      rmSync(keyless.cwd, { recursive: true, force: true });
    });

    await t.test('the Python examples', { skip: 'skip' in choice ? choice.skip : false }, async (t) => {
      const py = python as string;
      const pandas = await run(py, [path.join(examples, 'pandas_ticks.py')], env);
      t.match(pandas.stdout, new RegExp(`^${ticks.length} ticks, 24 bars, mean spread 0\\.\\d+$`, 'm'), 'pandas_ticks.py: every tick and bar');
      done(pandas, 'pandas_ticks.py');
      for (const name of ['polars_hourly.py', 'duckdb_hourly.py']) {
        const r = await run(py, [path.join(examples, name)], env);
        t.match(r.stdout, new RegExp(`^${hours} hours, ${ticks.length} ticks$`, 'm'), `${name}: every tick, in ${hours} hours`);
        done(r, name);
      }
    });

    await t.test('duckdb_cli.sh', { skip: 'skip' in choice ? choice.skip : false }, async (t) => {
      const r = await run('bash', [path.join(examples, 'duckdb_cli.sh')], env);
      const rows = [...r.stdout.matchAll(/2024-01-0[89] \d\d:00:00\S*\s*│\s*(\d+)/g)];
      t.equal(rows.length, hours, `one row per hour (${hours})`);
      t.equal(rows.reduce((n, m) => n + Number(m[1]), 0), ticks.length, 'every tick counted');
      done(r, 'duckdb_cli.sh');
    });
  });
}

await t.test(`${DOC_SNIPPETS.curl.page}'s curl block, as written`, async (t) => {
  const open = await serve(t, nodeAdapter, terminal);
  const block = docBlock(DOC_SNIPPETS.curl);
  if (!block) return t.fail(`no sh block with the tick curl in ${DOC_SNIPPETS.curl.page}`);
  const script = curlScript(block, open.base, true);
  const r = await run('bash', ['-e', '-c', script], {});
  t.equal(r.code, 0, 'every request answered 2xx', { stderr: r.stderr.slice(-2000) });
  const answers = r.stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as unknown);
  t.equal(answers.length, 4, 'tick, bars, margin, order check (the Parquet one goes to a file)');
  t.match(answers[0], { bid: Number, ask: Number });
  t.equal((answers[1] as unknown[]).length, 24, '24 H1 bars');
  t.match(answers[2], { margin: Number });
  t.match(answers[3], { retcode: Number, request: { symbol: 'USDJPY' } });
  t.equal(readFileSync(path.join(r.cwd, 'ticks.parquet')).subarray(0, 4).toString(), 'PAR1', 'ticks.parquet');
  rmSync(r.cwd, { recursive: true, force: true });
});
