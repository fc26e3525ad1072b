// Interactive calls under bulk load (issue 34, "Priority for interactive calls").
//
// One tradeapi server (`tradeapi serve`, simulator) as a child process; one prober process asking
// GET /symbols/EURUSD/tick and GET /health in turn, one request at a time, every --interval-ms;
// N load processes each pulling the same big tick range as Parquet in a loop (reading as fast as
// they can). Everything runs on this machine: the server, the prober and the loaders are separate
// processes the kernel schedules on the same cores (the figures say how many and the load average).
//
// Phases, in one run: idle (prober alone), then busy (prober + N loaders), then, with --lone, a lone
// pull timed --lone times (best of, for "a lone big pull is not slower").
//
//   node dist/bench/priority.js [--clients 2] [--ticks 1e7] [--seconds 20] [--interval-ms 5]
//                               [--http node|uws] [--lone 3] [--lone-only] [--json out.json]
//                               [--terminal sim|bridge] [--bridge-root DIR] [--series-ms MS]
//
// --terminal bridge: the gateway's terminal is the Python bridge (bridge/ over the MetaTrader5
// stand-in serving --ticks simulator ticks from one prepared array, as bench/bridge-link.ts), so
// the probes and the pulls share the bridge's single package thread too. --bridge-root runs the
// bridge package of another tree (e.g. the commit before a change to its worker). --series-ms: the
// stand-in takes that long (asleep, no CPU) for every copy_* call, as a real terminal producing a
// series window in its own process does, so a probe queued behind windows on the bridge's package
// thread waits as it would there (the stand-in's own windows cost microseconds).
//   roles used internally: --prober BASE SECONDS INTERVAL, --loader URL SECONDS
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { bridgeVenv, iso, ticksFile } from './bigpull.js';
import { isMain } from './is-main.js';
import { freePort, ServerProcess } from './processes.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const PROBE_PATHS = ['/symbols/EURUSD/tick', '/health'] as const;
/** The simulator's GBPUSD from this instant: ~10.3 M ticks a week (bench/bigpull.ts uses EURUSD the same way). */
const RANGE_FROM = '2024-01-08T00:00:00Z';

interface Stats {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => (s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]!);
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: s.length ? s[s.length - 1]! : NaN };
}

function get(agent: http.Agent, url: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      let bytes = 0;
      res.on('data', (b: Buffer) => (bytes += b.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** Prober role: alternates the probe paths for `seconds`, one request at a time; prints JSON latencies. */
async function prober(base: string, seconds: number, intervalMs: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const lat: Record<string, number[]> = Object.fromEntries(PROBE_PATHS.map((p) => [p, []]));
  const end = Date.now() + seconds * 1000;
  let i = 0;
  let errors = 0;
  while (Date.now() < end) {
    const p = PROBE_PATHS[i++ % PROBE_PATHS.length]!;
    const t0 = process.hrtime.bigint();
    try {
      const r = await get(agent, base + p);
      if (r.status !== 200) errors++;
      else lat[p]!.push(Number(process.hrtime.bigint() - t0) / 1e6);
    } catch {
      errors++;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  agent.destroy();
  process.stdout.write(JSON.stringify({ lat, errors }) + '\n');
}

/** Loader role: pulls `url` in a loop for `seconds` (the pull under way is finished); prints JSON. */
async function loader(url: string, seconds: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const end = Date.now() + seconds * 1000;
  const times: number[] = [];
  let bytes = 0;
  while (Date.now() < end) {
    const t0 = Date.now();
    const r = await get(agent, url);
    if (r.status !== 200) throw new Error(`loader: HTTP ${r.status}`);
    bytes = r.bytes;
    times.push(Date.now() - t0);
  }
  agent.destroy();
  process.stdout.write(JSON.stringify({ times, bytes }) + '\n');
}

/** Runs this script in a role as a separate process; resolves with its one JSON line. */
function role<T>(args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as T) : reject(new Error(`${args[0]} exited ${code}`))));
  });
}

interface Options {
  clients: number;
  ticks: number;
  seconds: number;
  intervalMs: number;
  http: string;
  lone: number;
  json?: string;
  symbol: string;
  loneOnly: boolean;
  terminal: 'sim' | 'bridge';
  bridgeRoot: string;
  seriesMs: number;
}

function parse(argv: string[]): Options {
  const o: Options = { clients: 2, ticks: 1e7, seconds: 20, intervalMs: 5, http: 'node', lone: 0, symbol: 'GBPUSD', loneOnly: false, terminal: 'sim', bridgeRoot: root, seriesMs: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = (): string => argv[++i] ?? '';
    if (a === '--clients') o.clients = Number(v());
    else if (a === '--ticks') o.ticks = Number(v());
    else if (a === '--seconds') o.seconds = Number(v());
    else if (a === '--interval-ms') o.intervalMs = Number(v());
    else if (a === '--http') o.http = v();
    else if (a === '--lone') o.lone = Number(v());
    else if (a === '--json') o.json = v();
    else if (a === '--symbol') o.symbol = v();
    else if (a === '--lone-only') o.loneOnly = true;
    else if (a === '--terminal') {
      const t = v();
      if (t !== 'sim' && t !== 'bridge') throw new Error('--terminal: sim or bridge');
      o.terminal = t;
    } else if (a === '--bridge-root') o.bridgeRoot = path.resolve(v());
    else if (a === '--series-ms') o.seriesMs = Number(v());
    else throw new Error(`unknown flag ${a}`);
  }
  return o;
}

/** date_to such that [RANGE_FROM, date_to] holds `ticks` ticks of `symbol` (the simulator is deterministic; as bench/export-ticks.ts). */
async function rangeFor(symbol: string, ticks: number): Promise<string> {
  const { openSimTerminal } = await import('../src/terminal/index.js');
  const terminal = openSimTerminal({});
  let last = Date.parse(RANGE_FROM);
  try {
    const series = await terminal.copyTicksFrom(symbol, last, ticks, -1, { chunkRows: 1 << 20 });
    for await (const chunk of series) if (chunk.rows > 0) last = Number(chunk.time_msc[chunk.rows - 1]);
  } finally {
    await terminal.close();
  }
  return new Date(last).toISOString();
}

/** The bridge over the stand-in serving `ticks` of the simulator's `symbol` from RANGE_FROM; its range's end. */
async function startBridge(o: Options, logDir: string, secret: string): Promise<{ bridge: ServerProcess; port: number; to: string }> {
  const fromMs = Date.parse(RANGE_FROM);
  const meta = await ticksFile({ cacheDir: path.join(root, 'bench', '.cache'), sizes: [o.ticks], symbol: o.symbol, fromMs, log: console.log });
  const range = meta.ranges.find((r) => r.count === o.ticks)!;
  const python = path.join(root, 'build', 'bridge-venv', 'bin', 'python');
  const skip = bridgeVenv(root, python, console.log);
  if (skip !== undefined) throw new Error(`the bridge's venv: ${skip}`);
  const port = await freePort();
  const bridge = await ServerProcess.start({
    name: 'priority-bridge',
    command: python,
    args: ['-m', 'tradeapi_bridge', '--listen', `127.0.0.1:${port}`],
    env: {
      ...process.env,
      PYTHONPATH: [path.join(o.bridgeRoot, 'bridge'), path.join(root, 'bridge', 'tests', 'stand_in')].join(path.delimiter),
      TRADEAPI_BRIDGE_SECRET: secret,
      MT5_STUB_TICKS: `${o.symbol}=${meta.path}`,
      MT5_STUB_SERIES_MS: String(o.seriesMs),
    },
    cwd: root,
    logDir,
    readyLog: /"event": ?"listening"/,
  });
  return { bridge, port, to: iso(range.toMs) };
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-priority-'));
  const secret = randomBytes(24).toString('hex');
  const linked = o.terminal === 'bridge' ? await startBridge(o, logDir, secret) : undefined;
  const terminalEnv = linked ? { TRADEAPI_TERMINAL: `tcp://127.0.0.1:${linked.port}`, TRADEAPI_BRIDGE_SECRET: secret } : {};
  const server = await ServerProcess.start({
    name: 'tradeapi',
    command: process.execPath,
    args: [path.join(root, 'bin', 'tradeapi.js'), 'serve', '--host', '127.0.0.1', '--port', String(port)],
    env: { ...process.env, TRADEAPI_HTTP: o.http, TRADEAPI_SECRET_KEY: '', ...terminalEnv },
    cwd: root,
    logDir,
    readyUrl: `${base}/health`,
  }).catch(async (e: unknown) => {
    await linked?.bridge.stop();
    throw e;
  });
  try {
    const to = linked ? linked.to : await rangeFor(o.symbol, o.ticks);
    const pull = `${base}/ticks/range?symbol=${o.symbol}&date_from=${RANGE_FROM}&date_to=${to}&flags=COPY_TICKS_ALL&format=parquet`;
    await get(new http.Agent(), pull); // warm-up
    const machine = `${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? '?'}), load average ${os.loadavg()[0]!.toFixed(1)} at start`;
    console.log(`terminal: ${linked ? `the bridge (${o.bridgeRoot}) over the MetaTrader5 stand-in (${o.seriesMs} ms a series call), pid ${linked.bridge.pid}` : 'the simulator'}`);
    console.log(`server pid ${server.pid} (${o.http}), prober and ${o.clients} loaders as separate processes on the same machine: ${machine}`);
    console.log(`pull: ${o.symbol} ${RANGE_FROM} .. ${to} (~${o.ticks} ticks) as Parquet`);

    const rows: Record<string, unknown>[] = [];
    const pulls: number[] = [];
    if (!o.loneOnly) {
    type Probe = { lat: Record<string, number[]>; errors: number };
    type Load = { times: number[]; bytes: number };
    const idle = await role<Probe>(['--prober', base, String(o.seconds), String(o.intervalMs)]);
    const loaders = Array.from({ length: o.clients }, () => role<Load>(['--loader', pull, String(o.seconds + 2)]));
    await new Promise((r) => setTimeout(r, 1000)); // the pulls are under way
    const busy = await role<Probe>(['--prober', base, String(o.seconds), String(o.intervalMs)]);
    const loads = await Promise.all(loaders);

    for (const p of PROBE_PATHS) {
      const i = stats(idle.lat[p]!);
      const b = stats(busy.lat[p]!);
      const target = 3 * i.p99 + 5;
      rows.push({ path: p, idle_n: i.n, idle_p50: i.p50, idle_p99: i.p99, busy_n: b.n, busy_p50: b.p50, busy_p99: b.p99, busy_max: b.max, target_p99: target, met: b.p99 <= target });
    }
    const f = (x: unknown): string => (typeof x === 'number' ? (Number.isInteger(x) ? String(x) : x.toFixed(1)) : String(x));
    console.log('\n| path | idle n | idle p50 ms | idle p99 ms | busy n | busy p50 ms | busy p99 ms | busy max ms | target p99 ms | met |');
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(`| ${Object.values(r).map(f).join(' | ')} |`);
    pulls.push(...loads.flatMap((l) => l.times));
    const ps = stats(pulls);
    console.log(`\nbusy: ${pulls.length} pulls by ${o.clients} clients, ${((loads[0]?.bytes ?? 0) / 1e6).toFixed(1)} MB each, p50 ${(ps.p50 / 1000).toFixed(2)} s; probe errors idle ${idle.errors}, busy ${busy.errors}`);
    }

    const lone: number[] = [];
    for (let k = 0; k < o.lone; k++) {
      const t0 = Date.now();
      await get(new http.Agent(), pull);
      lone.push((Date.now() - t0) / 1000);
    }
    if (lone.length) console.log(`lone pull: best ${Math.min(...lone).toFixed(2)} s of ${lone.map((x) => x.toFixed(2)).join(', ')}`);
    if (o.json) writeFileSync(o.json, JSON.stringify({ machine, options: o, rows, pulls, lone }, null, 2));
  } finally {
    await server.stop();
    await linked?.bridge.stop();
  }
}

if (isMain(import.meta.url)) {
  const a = process.argv.slice(2);
  const run = a[0] === '--prober' ? prober(a[1]!, Number(a[2]), Number(a[3])) : a[0] === '--loader' ? loader(a[1]!, Number(a[2])) : main();
  run.catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
