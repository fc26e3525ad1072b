// The local history store (issue 26), against the simulated terminal:
//   sync       `tradeapi sync` of EURUSD ticks (runSync, in process) against the terminal's raw series
//              throughput over the same range (iterating copy_ticks_range, nothing written);
//              target >= 0.8
//   serve      the same ticks encoded as Parquet (the HTTP encoder, to a sink that drops the bytes)
//              from the store (the serving decorator) and from the simulator; target <= 1.5x
//   duckdb     the mean bid of every stored EURUSD tick (reads the column); target < 2 s for a year
//
// And with --bridge, over the Python bridge whose MetaTrader5 stand-in serves the simulator's very
// ticks (exported to .npy) as slowly as the model of a real terminal (bench/slow_bridge.py:
// 2 ms a call, at most 2 M ticks/s), for a range of --bridge-ticks ticks (default 10 M):
//   terminal   that range as Parquet through the bridge (the gateway's path without a store)
//   sync       `tradeapi sync` of the range's days through the bridge, against the bridge's raw
//              series throughput (copy_ticks_range iterated, nothing written); target >= 0.8
//   store      the range as Parquet from the store so filled (the bridge asked nothing but the
//              identity); target: >= 5x faster than the terminal, <= 1.5x the simulator's time
//
// Run: npm run build:ts && node dist/bench/store.js [--from 2023-12-01] [--to 2024-01-31] [--python build/pyenv/bin/python]
//        [--bridge [--bridge-ticks 1e7] [--bridge-python build/bridge-venv/bin/python]]
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { encodeSeries } from '../src/encode/index.js';
import { withStore } from '../src/store/store-terminal.js';
import { runSync } from '../src/sync/run.js';
import { openBridgeTerminal, openSimTerminal, type Terminal } from '../src/terminal/index.js';
import { repoRoot } from './bigpull.js';
import { exportTicks, parseCount } from './export-ticks.js';
import { isMain } from './is-main.js';
import { freePort, ServerProcess } from './processes.js';

const nullSink = { write: (): Promise<void> => Promise.resolve() };

async function rawPull(terminal: Terminal, fromMs: number, toMs: number): Promise<number> {
  let rows = 0;
  const series = await terminal.copyTicksRange('EURUSD', fromMs, toMs, -1);
  series.readAhead?.(true);
  series.setChunkRows?.(65_536);
  for await (const c of series) rows += c.rows;
  return rows;
}

async function encodeParquet(terminal: Terminal, fromMs: number, toMs: number): Promise<number> {
  let rows = 0;
  const series = await terminal.copyTicksRange('EURUSD', fromMs, toMs, -1);
  series.setChunkRows?.(16_384);
  series.readAhead?.(true);
  await encodeSeries('parquet', 'ticks', series, { onRows: (n) => (rows += n) }).writeTo(nullSink);
  return rows;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await fn();
  return [v, (performance.now() - t0) / 1000];
}

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      from: { type: 'string' }, to: { type: 'string' }, python: { type: 'string' },
      bridge: { type: 'boolean', default: false }, 'bridge-ticks': { type: 'string' }, 'bridge-python': { type: 'string' },
    },
  });
  const from = values.from ?? '2023-12-01';
  const to = values.to ?? '2024-01-31';
  const fromMs = Date.parse(`${from}T00:00:00Z`);
  const toMs = Date.parse(`${to}T00:00:00Z`) + 86_400_000 - 1;
  const python = values.python ?? path.resolve('build/pyenv/bin/python');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-bench-store-'));
  const store = path.join(dir, 'store');
  const terminal = openSimTerminal();
  try {
    // Warm the simulator's caches and the wasm module once.
    await rawPull(terminal, fromMs, fromMs + 86_400_000);
    const [rows, rawS] = await timed(() => rawPull(terminal, fromMs, toMs));
    const [code, syncS] = await timed(() =>
      runSync(['--store', store, '--symbols', 'EURUSD', '--from', from, '--to', to, '--only', 'ticks'], { env: {}, stdout: { write: () => true }, stderr: { write: () => true } }),
    );
    if (code !== 0) throw new Error(`sync failed with ${code}`);
    console.log(`range ${from} .. ${to}: ${rows.toLocaleString('en-US')} EURUSD ticks`);
    const syncRatio = rawS / syncS;
    console.log(`sync      ${syncS.toFixed(2)} s (${((rows / syncS) / 1e6).toFixed(2)} M ticks/s); raw series ${rawS.toFixed(2)} s (${((rows / rawS) / 1e6).toFixed(2)} M/s): ratio ${syncRatio.toFixed(2)} (target >= 0.80) ${syncRatio >= 0.8 ? 'ok' : 'MISSED'}`);

    const stored = withStore(terminal, { root: store, zone: 'UTC' });
    await encodeParquet(stored, fromMs, fromMs + 86_400_000); // warm
    const [simRows, simS] = await timed(() => encodeParquet(terminal, fromMs, toMs));
    const [storeRows, storeS] = await timed(() => encodeParquet(stored, fromMs, toMs));
    if (simRows !== storeRows) throw new Error(`rows differ: simulator ${simRows}, store ${storeRows}`);
    const serveRatio = storeS / simS;
    console.log(`serve     Parquet from the store ${storeS.toFixed(2)} s, from the simulator ${simS.toFixed(2)} s: ${serveRatio.toFixed(2)}x (target <= 1.50x) ${serveRatio <= 1.5 ? 'ok' : 'MISSED'}`);
    const bridgeFloorS = storeRows / 2e6;
    console.log(`          (computed: a bridge at 2 M ticks/s needs >= ${bridgeFloorS.toFixed(2)} s for these rows, ${(bridgeFloorS / storeS).toFixed(1)}x the store's time; --bridge measures it)`);

    const q = "select avg(bid), count(*) from read_parquet('store/ticks/*/*/*.parquet', hive_partitioning=1) where symbol='EURUSD'";
    const r = spawnSync(python, ['-c', `import duckdb, time\nt=time.perf_counter()\nr=duckdb.sql("""${q}""").fetchone()\nprint(time.perf_counter()-t, r[1])`], { cwd: dir, encoding: 'utf8' });
    if (r.status === 0) {
      const [s, n] = r.stdout.trim().split(' ').map(Number) as [number, number];
      const yearS = (s * 365 * 86_400_000) / (toMs - fromMs);
      console.log(`duckdb    mean bid of ${n.toLocaleString('en-US')} stored ticks in ${s.toFixed(2)} s; scaled to a year ~${yearS.toFixed(2)} s (target < 2 s) ${yearS < 2 ? 'ok' : 'MISSED'}`);
    } else console.log(`duckdb    not measured: ${python} cannot run it (${(r.stderr ?? r.error?.message ?? '').trim().split('\n').pop() ?? ''})`);
  } finally {
    await terminal.close();
    rmSync(dir, { recursive: true, force: true });
  }
  if (values.bridge) await overTheBridge(parseCount(values['bridge-ticks'] ?? '1e7'), path.resolve(values['bridge-python'] ?? 'build/bridge-venv/bin/python'));
}

/** The --bridge figures: the terminal behind a slowed bridge, a sync through it, the store after. */
async function overTheBridge(count: number, python: string): Promise<void> {
  const root = repoRoot();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-bench-store-bridge-'));
  const store = path.join(dir, 'store');
  const children: ServerProcess[] = [];
  const sim = openSimTerminal();
  let bridge: Terminal | undefined;
  try {
    const meta = await exportTicks({ path: path.join(dir, 'eurusd.npy'), fromMs: Date.parse('2024-01-08T00:00:00Z'), sizes: [count] });
    const range = meta.ranges[0]!;
    const port = await freePort();
    const secret = randomBytes(24).toString('hex');
    children.push(await ServerProcess.start({
      name: 'slow-bridge',
      command: python,
      args: [path.join(root, 'bench', 'slow_bridge.py'), '--listen', `127.0.0.1:${port}`],
      env: {
        ...process.env,
        PYTHONPATH: [path.join(root, 'bridge'), path.join(root, 'bridge', 'tests', 'stand_in')].join(path.delimiter),
        TRADEAPI_BRIDGE_SECRET: secret,
        MT5_STUB_TICKS: `EURUSD=${meta.path}`,
      },
      cwd: root,
      logDir: dir,
      readyLog: /"event": ?"listening"/,
    }));
    const url = `tcp://127.0.0.1:${port}`;
    bridge = openBridgeTerminal(url, secret, { callTimeoutMs: 600_000 });
    const [rawRows, rawS] = await timed(() => rawPull(bridge!, range.fromMs, range.toMs));
    const [termRows, termS] = await timed(() => encodeParquet(bridge!, range.fromMs, range.toMs));
    const days = [new Date(range.fromMs).toISOString().slice(0, 10), new Date(range.toMs).toISOString().slice(0, 10)] as const;
    let synced = 0;
    const [code, syncS] = await timed(() =>
      runSync(['--store', store, '--symbols', 'EURUSD', '--from', days[0], '--to', days[1], '--only', 'ticks'], {
        env: { TRADEAPI_TERMINAL: url, TRADEAPI_BRIDGE_SECRET: secret },
        stdout: { write: () => true },
        stderr: { write: (t: string) => ((synced = Number(/(\d+) rows/.exec(t)?.[1] ?? synced)), true) },
      }),
    );
    if (code !== 0) throw new Error(`sync through the bridge failed with ${code}`);
    const stored = withStore(bridge, { root: store, zone: 'UTC' });
    const [storeRows, storeS] = await timed(() => encodeParquet(stored, range.fromMs, range.toMs));
    await encodeParquet(sim, range.fromMs, range.fromMs + 86_400_000); // warm
    const [simRows, simS] = await timed(() => encodeParquet(sim, range.fromMs, range.toMs));
    if (new Set([termRows, storeRows, simRows, rawRows]).size !== 1) throw new Error(`rows differ: terminal ${termRows}, store ${storeRows}, simulator ${simRows}, raw ${rawRows}`);
    const n = termRows.toLocaleString('en-US');
    console.log(`bridge    ${n} EURUSD ticks, stand-in at 2 ms a call and <= 2 M ticks/s (bench/slow_bridge.py)`);
    console.log(`          raw series ${rawS.toFixed(2)} s (${(rawRows / rawS / 1e6).toFixed(2)} M/s); Parquet through the bridge ${termS.toFixed(2)} s`);
    const syncRatio = synced / syncS / (rawRows / rawS);
    console.log(`sync      ${synced.toLocaleString('en-US')} ticks (whole days) in ${syncS.toFixed(2)} s (${(synced / syncS / 1e6).toFixed(2)} M/s): ${syncRatio.toFixed(2)} of the bridge's raw throughput (target >= 0.80) ${syncRatio >= 0.8 ? 'ok' : 'MISSED'}`);
    const faster = termS / storeS;
    const vsSim = storeS / simS;
    console.log(`store     Parquet from the store ${storeS.toFixed(2)} s: ${faster.toFixed(1)}x faster than through the bridge (target >= 5x) ${faster >= 5 ? 'ok' : 'MISSED'}; simulator ${simS.toFixed(2)} s: ${vsSim.toFixed(2)}x (target <= 1.50x) ${vsSim <= 1.5 ? 'ok' : 'MISSED'}`);
  } finally {
    await bridge?.close();
    await sim.close();
    for (const c of children) await c.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await main(process.argv.slice(2));
