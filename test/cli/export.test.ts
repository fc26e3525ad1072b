// `tradeapi export` as a user runs it: the real CLI in a child process, writing ticks and rates to
// Parquet, Arrow and JSON, read back with pyarrow (test/helpers/python.ts picks the Python) and
// compared with the answer of a live server for the same range; the JSON file is the HTTP body byte
// for byte. Then: an interrupted export leaves neither FILE nor its temp file, and the progress line
// shows on a TTY only. Failures and bad arguments: export-args.test.ts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { availableAdapters } from '../../src/http/adapters/index.js';
import { openSimTerminal } from '../../src/terminal/index.js';
import { cliCommand, root } from '../helpers/cli.js';
import { DOC_SNIPPETS, docBlock } from '../helpers/doc-blocks.js';
import { testPython } from '../helpers/python.js';
import { serve } from '../helpers/server.js';
import { patience } from '../helpers/patience.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// Configured by npm test (TRADEAPI_TEST_PYTHON): a Python without pyarrow is then a failure, not a skip.
const python = testPython(['pyarrow']);
const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-export-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

// The CLI's own simulator: the default one (a real clock; the history of a past range is fixed by the seed).
const terminal = openSimTerminal();
t.teardown(() => terminal.close());
const server = await serve(t, availableAdapters()[0]!, terminal);

/** The environment of the child: no terminal settings from the caller's shell. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['TRADEAPI_TERMINAL', 'TRADEAPI_BRIDGE_SECRET', 'TRADEAPI_SERVER_TZ', 'TRADEAPI_SIM_SERVER_TZ', 'TRADEAPI_SIM_CLOCK']) if (!(name in extra)) delete env[name];
  return env;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function exportCli(args: readonly string[], options: { env?: Record<string, string>; onSpawn?: (pid: number) => void } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliCommand(), 'export', ...args], { cwd: dir, env: childEnv(options.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), patience(9_000));
    child.on('error', reject);
    child.on('spawn', () => options.onSpawn?.(child.pid as number));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** What is left in `dir` that starts with `base` (the file and any temp file beside it). */
const leftovers = (base: string): string[] => readdirSync(dir).filter((f) => f.startsWith(base));

const RANGES = {
  ticks: { args: ['EURUSD', '--from', '2024-01-09T10:00:00Z', '--to', '2024-01-09T12:00:00Z'], http: '/ticks/range?symbol=EURUSD&date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T12:00:00Z' },
  rates: {
    args: ['USDJPY', '--from', '2024-01-02T00:00:00Z', '--to', '2024-01-09T00:00:00Z', '--timeframe', 'TIMEFRAME_M5'],
    http: '/rates/range?symbol=USDJPY&timeframe=TIMEFRAME_M5&date_from=2024-01-02T00:00:00Z&date_to=2024-01-09T00:00:00Z',
  },
} as const;

interface ReadBack {
  rows: number;
  schema?: Record<string, string>;
  first: Record<string, unknown> | null;
  last: Record<string, unknown> | null;
}

await t.test('ticks and rates to Parquet, Arrow and JSON, as the HTTP answer', async (t) => {
  if ('skip' in python) t.comment(`the files will not be read back with pyarrow: ${python.skip}`);
  const written: string[] = [];
  const expected = new Map<string, { rows: Record<string, unknown>[]; body: Buffer }>();
  for (const what of ['ticks', 'rates'] as const) {
    const res = await server.get(`${RANGES[what].http}&format=json`);
    t.equal(res.status, 200, `HTTP ${what}`);
    const body = Buffer.from(await res.arrayBuffer());
    const rows = JSON.parse(body.toString('utf8')) as Record<string, unknown>[];
    t.ok(rows.length > 100, `${what}: ${rows.length} rows over HTTP`);
    expected.set(what, { rows, body });
    for (const ext of ['parquet', 'arrow', 'json']) {
      const file = `${what}.${ext}`;
      const r = await exportCli([what, ...RANGES[what].args, '-o', file]);
      t.equal(r.code, 0, `export ${what} -o ${file}`, { stderr: r.stderr });
      t.equal(r.stdout, '', 'nothing on stdout');
      t.equal(r.stderr, '', 'no progress line when stderr is not a TTY');
      t.same(leftovers(file), [file], 'the file and no temp file');
      written.push(path.join(dir, file));
    }
    t.ok(readFileSync(path.join(dir, `${what}.json`)).equals(body), `${what}.json is the HTTP body byte for byte`);
    t.equal(readFileSync(path.join(dir, `${what}.parquet`)).subarray(0, 4).toString(), 'PAR1');
  }

  if ('skip' in python) {
    t.comment(`pyarrow read-back skipped: ${python.skip}`);
    return;
  }
  const r = spawnSync(python.python, [path.join(here, 'read_export.py'), ...written], { encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
  t.equal(r.status, 0, 'pyarrow reads every file', { stderr: r.stderr });
  const back = JSON.parse(r.stdout) as Record<string, ReadBack>;
  for (const file of written) {
    const what = path.basename(file).startsWith('ticks') ? 'ticks' : 'rates';
    const http = expected.get(what)!.rows;
    const got = back[file]!;
    t.equal(got.rows, http.length, `${path.basename(file)}: ${http.length} rows`);
    t.same(got.first, http[0], `${path.basename(file)}: first row as over HTTP`);
    t.same(got.last, http[http.length - 1], `${path.basename(file)}: last row as over HTTP`);
    if (got.schema) t.match(got.schema.time, /^timestamp\[/, `${path.basename(file)}: time is a timestamp`);
  }
});

await t.test('--format wins over the extension', async (t) => {
  const r = await exportCli(['ticks', ...RANGES.ticks.args, '--format', 'arrow', '-o', 'ticks.bin']);
  t.equal(r.code, 0, r.stderr);
  const bytes = readFileSync(path.join(dir, 'ticks.bin'));
  t.equal(bytes.readUInt32LE(0), 0xffffffff, 'an Arrow IPC stream (continuation marker)');
});

await t.test('the simulator on a broker clock (TRADEAPI_SIM_SERVER_TZ)', async (t) => {
  // New York close: every FX week is Monday-Friday in server time, so no Sunday D1 bar.
  const args = ['rates', 'EURUSD', '--from', '2024-01-01T00:00:00Z', '--to', '2024-03-01T00:00:00Z', '--timeframe', 'TIMEFRAME_D1', '-o', 'd1.json'];
  const r = await exportCli(args, { env: { TRADEAPI_SIM_SERVER_TZ: 'America/New_York+07:00' } });
  t.equal(r.code, 0, r.stderr);
  const days = (JSON.parse(readFileSync(path.join(dir, 'd1.json'), 'utf8')) as Array<{ time: number }>).map((b) => new Date(b.time * 1000).getUTCDay());
  t.equal(days.length, 44, 'nine weeks of five bars, less New Year\'s Day');
  t.notOk(days.includes(0) || days.includes(6), 'no weekend bar');
  const plain = await exportCli(args.map((a) => (a === 'd1.json' ? 'd1-utc.json' : a)));
  const utcDays = (JSON.parse(readFileSync(path.join(dir, 'd1-utc.json'), 'utf8')) as Array<{ time: number }>).map((b) => new Date(b.time * 1000).getUTCDay());
  t.equal(plain.code, 0);
  t.ok(utcDays.includes(0), 'at the default UTC clock the week opens on Sunday evening');
  const bad = await exportCli(args, { env: { TRADEAPI_SIM_SERVER_TZ: 'Nowhere/City' } });
  t.equal(bad.code, 2, 'a bad zone is a usage error');
  t.match(bad.stderr, /TRADEAPI_SIM_SERVER_TZ must be/);
});

await t.test('SIGINT while writing a big range: no FILE, no temp file, exit 130', async (t) => {
  const file = 'big.json';
  let pid = 0;
  const run = exportCli(['ticks', 'EURUSD', '--from', '2023-11-01T00:00:00Z', '--to', '2024-01-01T00:00:00Z', '-o', file], { onSpawn: (p) => (pid = p) });
  const temp = (): string | undefined => leftovers(file).find((f) => f.startsWith(`${file}.tmp-`));
  // Wait until the export is well into writing.
  const deadline = Date.now() + patience(6_000);
  let size = 0;
  while (Date.now() < deadline) {
    const tmp = temp();
    if (tmp) {
      try {
        size = statSync(path.join(dir, tmp)).size;
      } catch {
        size = 0;
      }
      if (size > 2_000_000) break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  t.ok(size > 2_000_000, `the temp file was being written (${size} bytes)`);
  t.equal(temp(), `${file}.tmp-${pid}`, 'the temp file is FILE.tmp-<pid>');
  t.notOk(existsSync(path.join(dir, file)), 'no FILE while writing');
  process.kill(pid, 'SIGINT');
  const r = await run;
  t.equal(r.code, 130, 'exit status 130');
  t.match(r.stderr, /interrupted by SIGINT/);
  t.same(leftovers(file), [], 'neither FILE nor its temp file is left');
});

await t.test(`${DOC_SNIPPETS.export.page}'s export commands, as written`, async (t) => {
  const block = docBlock(DOC_SNIPPETS.export);
  if (!block) return t.fail(`no sh block with \`node bin/tradeapi.js export ticks\` in ${DOC_SNIPPETS.export.page}`);
  const commands = block.split('\n').filter((l) => l.startsWith('node bin/tradeapi.js export '));
  t.equal(commands.length, 2, 'ticks and rates');
  for (const line of commands) {
    // The words of the line (no quoting in it) after `node bin/tradeapi.js export`.
    const args = line.split(/\s+/).slice(3);
    const r = await exportCli(args);
    t.equal(r.code, 0, line, { stderr: r.stderr });
    const out = args[args.indexOf('-o') + 1]!;
    t.ok(statSync(path.join(dir, out)).size > 10_000, `${out} written`);
  }
});

// util-linux `script` runs the CLI on a pseudo-terminal: the one way to see what a user at a terminal sees.
const script = spawnSync('script', ['--version'], { encoding: 'utf8' });
await t.test('a progress line on a TTY', { skip: script.status === 0 ? false : 'util-linux script is not installed' }, async (t) => {
  const command = [process.execPath, ...cliCommand(), 'export', 'ticks', 'EURUSD', '--from', '2023-12-01T00:00:00Z', '--to', '2024-01-01T00:00:00Z', '-o', path.join(dir, 'tty.parquet')]
    .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
    .join(' ');
  const r = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: root, env: childEnv(), encoding: 'utf8', timeout: patience(9_000) });
  t.equal(r.status, 0, 'exported', { stderr: r.stderr });
  const lines = r.stdout.split(/\r|\n/).map((l) => l.replace(/\x1b\[K/g, '').trim()).filter((l) => l !== '');
  t.ok(lines.some((l) => /^EURUSD ticks: [\d,]+ rows, [\d.]+ MB, [\d,]+ rows\/s, \d+ %/.test(l)), 'rows, MB, rows/s, % of the range', { lines: lines.slice(0, 5) });
  t.match(lines.at(-1), /^EURUSD ticks: [\d,]+ rows, [\d.]+ MB in [\d.]+ s -> .*tty\.parquet$/, 'a final line');
  t.ok(existsSync(path.join(dir, 'tty.parquet')));
});
