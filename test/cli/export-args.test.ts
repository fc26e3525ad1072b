// `tradeapi export` when it cannot or must not write: bad arguments exit 2 with one clear line and
// create nothing; a failed export (unknown symbol, unreachable bridge) leaves an existing FILE as it
// was and no temp file. The failed exports, one bad argument and --help run the real CLI in child
// processes, as a user would; the other bad arguments and environment run the command's own entry
// (runExport, whose result src/cli.ts exits with) in this process: the same code and words,
// without a Node process start per case.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t from 'tap';

import { runExport } from '../../src/export/run.js';
import { cliCommand } from '../helpers/cli.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-export-args-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** The environment of the child: no terminal settings from the caller's shell. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['TRADEAPI_TERMINAL', 'TRADEAPI_BRIDGE_SECRET', 'TRADEAPI_SERVER_TZ']) if (!(name in extra)) delete env[name];
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
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('spawn', () => options.onSpawn?.(child.pid as number));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** `tradeapi export ARGS` run in this process from `dir`, as the CLI runs it (src/cli.ts: exit code = runExport's). */
async function exportInProcess(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const out = {
    isTTY: false,
    write(chunk: string | Uint8Array, callback?: (err?: Error | null) => void): boolean {
      stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      callback?.();
      return true;
    },
    on: (): void => undefined,
    off: (): void => undefined,
  };
  const err = { isTTY: false, write: (text: string) => ((stderr += text), true) };
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const code = await runExport(args, { env: childEnv(env), stdout: out, stderr: err });
    return { code, signal: null, stdout, stderr };
  } finally {
    process.chdir(cwd);
  }
}

/** What is left in `dir` that starts with `base` (the file and any temp file beside it). */
const leftovers = (base: string): string[] => readdirSync(dir).filter((f) => f.startsWith(base));

const from = ['--from', '2024-01-09T10:00:00Z', '--to', '2024-01-09T11:00:00Z'];

await t.test('a failed export leaves an existing FILE as it was', async (t) => {
  const file = path.join(dir, 'keep.parquet');
  writeFileSync(file, 'previous export');
  const r = await exportCli(['ticks', 'NOPE', '--from', '2024-01-09T10:00:00Z', '--to', '2024-01-09T11:00:00Z', '-o', 'keep.parquet']);
  t.equal(r.code, 2, 'an unknown symbol is the caller\'s: exit 2');
  t.match(r.stderr, /symbol "NOPE" is not known to the terminal/);
  t.equal(readFileSync(file, 'utf8'), 'previous export', 'FILE untouched');
  t.same(leftovers('keep.parquet'), ['keep.parquet'], 'no temp file');
  const unreachable = await exportCli(['ticks', 'EURUSD', ...from, '-o', 'keep.parquet'], {
    env: { TRADEAPI_TERMINAL: 'tcp://127.0.0.1:9', TRADEAPI_BRIDGE_SECRET: 'export-test-secret-0123456789' },
  });
  t.equal(unreachable.code, 1, 'a bridge that does not answer: exit 1');
  t.match(unreachable.stderr, /terminal is not available/);
  t.notMatch(unreachable.stderr, /export-test-secret/, 'the secret is never printed');
  t.equal(readFileSync(file, 'utf8'), 'previous export', 'FILE untouched');
});

await t.test('bad arguments: a clear message and exit 2, no file', async (t) => {
  const cases: Array<[args: string[], message: RegExp]> = [
    [[], /give ticks or rates/],
    [['candles', 'EURUSD', ...from, '-o', 'x.parquet'], /"candles" is neither ticks nor rates/],
    [['ticks', ...from, '-o', 'x.parquet'], /SYMBOL is missing|SYMBOL/],
    [['ticks', 'EURUSD', ...from], /-o FILE is required/],
    [['ticks', 'EURUSD', ...from, '-o'], /option -o needs a value/],
    [['ticks', 'EURUSD', '--to', '2024-01-09T11:00:00Z', '-o', 'x.parquet'], /--from is required/],
    [['ticks', 'EURUSD', '--from', '2024-01-09T10:00', '--to', '2024-01-09T11:00:00Z', '-o', 'x.parquet'], /--from must be YYYY-MM-DD or an ISO 8601 UTC timestamp/],
    [['ticks', 'EURUSD', '--from', '2024-01-09T12:00:00Z', '--to', '2024-01-09T11:00:00Z', '-o', 'x.parquet'], /--from .* must not be later than --to/],
    [['ticks', 'EURUSD', ...from, '-o', 'x.csv'], /cannot tell the format from "x.csv"/],
    [['ticks', 'EURUSD', ...from, '--format', 'csv', '-o', 'x.parquet'], /--format must be one of parquet, arrow, json/],
    [['ticks', 'EURUSD', ...from, '--timeframe', 'TIMEFRAME_M1', '-o', 'x.parquet'], /--timeframe is for rates/],
    [['ticks', 'EURUSD', ...from, '--flags', 'COPY_TICKS_NOPE', '-o', 'x.parquet'], /--flags must be a COPY_TICKS constant/],
    [['rates', 'EURUSD', ...from, '-o', 'x.parquet'], /--timeframe is required/],
    [['rates', 'EURUSD', ...from, '--timeframe', 'M1', '-o', 'x.parquet'], /--timeframe must be a TIMEFRAME constant/],
    [['rates', 'EURUSD', ...from, '--timeframe', '1', '--compression', 'gzip', '-o', 'x.parquet'], /--compression/],
    [['ticks', 'EURUSD', ...from, '--bogus', '-o', 'x.parquet'], /unknown option --bogus/],
    [['ticks', 'EURUSD', 'extra', ...from, '-o', 'x.parquet'], /unexpected argument "extra"/],
    [['ticks', 'EURUSD', ...from, '-o', 'no/such/dir/x.parquet'], /cannot write the output file/],
  ];
  // The first through the real CLI (argument to exit status and stderr in a process of its own),
  // the others in this process, one after another (each changes into `dir`).
  const results: Run[] = [await exportCli(cases[0]![0])];
  for (const [args] of cases.slice(1)) results.push(await exportInProcess(args));
  cases.forEach(([args, message], i) => {
    const r = results[i]!;
    t.equal(r.code, 2, `exit 2: export ${args.join(' ')}`);
    t.match(r.stderr, message, `  says ${message}`);
    t.match(r.stderr, /^tradeapi export: [^\n]+\n$/, '  one line naming the command');
  });
  t.same(leftovers('x.'), [], 'no file was created');
  const env = await exportInProcess(['ticks', 'EURUSD', ...from, '-o', 'x.parquet'], { TRADEAPI_TERMINAL: 'ftp://nowhere' });
  t.equal(env.code, 2, 'a bad TRADEAPI_TERMINAL: exit 2');
  t.match(env.stderr, /TRADEAPI_TERMINAL must be/);
  const help = await exportCli(['--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /tradeapi export ticks SYMBOL --from DATE --to DATE/);
});

