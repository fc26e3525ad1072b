// Account events (deal/order/position/account on GET /events): how long a change of the account
// takes to reach SSE clients at the default poll interval, and what watching an idle account costs.
//   npm run build:ts && node dist/bench/account-events.js [--clients 200] [--changes 40] [--trade-ms 100] [--idle-seconds 10]
//       [--terminal sim|bridge] [--pull-ticks N]
// --terminal bridge: the gateway's terminal is the Python bridge over the MetaTrader5 stand-in, whose
// position is changed by a script of wall-clock steps (MT5_STUB_WALL_SCRIPT: an SL moved at a planned
// instant, applied by the stand-in when the gateway's next poll reads the account), the change
// stamped with that instant; the bridge process's idle CPU is reported too. --pull-ticks N (bridge):
// /ticks/range pulls of N stand-in ticks as Parquet back to back while the changes are made (the
// issue's "while a 10 M-tick pull runs").
// The server runs in this process on the simulator, with positions_get/history_deals_get answered
// from an account this program changes (a position's SL moved, or a deal added: stamped when the
// change is made); the clients run in a child process and stamp each event's arrival (one wall
// clock, sub-millisecond, across the two processes). Reported: latency change -> client
// (p50/p99/max over every client and change, and p99 as a ratio of the poll interval), events
// per change per client (1 expected), and the server process's CPU while the account is idle
// with every client connected (% of one core; a 2-core machine shared with others is noisy).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { createParser } from 'eventsource-parser';

import { loadConfig } from '../src/config/index.js';
import { pickAdapter } from '../src/http/adapters/index.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/server.js';
import { openBridgeTerminal, openSimTerminal, type Terminal } from '../src/terminal/index.js';
import type { TradePosition } from '../src/terminal/records.js';
import { bridgeVenv, iso, repoRoot, ticksFile } from './bigpull.js';
import { isMain } from './is-main.js';
import { latency } from './load.js';
import { freePort, ServerProcess } from './processes.js';
import { pull } from './pull.js';

const now = (): number => performance.timeOrigin + performance.now();
/** The bench's own bridge secret (the bridge wants 16 bytes at least). */
const BRIDGE_SECRET = 'account-events-bench-secret';
function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Child: n SSE clients on the account kinds; prints one JSON line per position event: [sl, arrival]. */
async function clients(port: number, n: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  let ready = 0;
  await Promise.all(
    Array.from({ length: n }, () =>
      new Promise<void>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port, path: '/events?kinds=position,deal', agent, headers: { accept: 'text/event-stream' } }, (res) => {
          const parser = createParser({
            onEvent: (e) => {
              if (e.event === 'snapshot') {
                if (++ready === n) process.stdout.write('ready\n');
                return;
              }
              if (e.event === 'position') {
                const sl = (JSON.parse(e.data) as { position: TradePosition }).position.sl;
                process.stdout.write(`${JSON.stringify([sl, now()])}\n`);
              }
            },
          });
          res.setEncoding('utf8');
          res.on('data', (c: string) => parser.feed(c));
          resolve();
        });
        req.on('error', reject);
      }),
    ),
  );
}

function argText(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const sleepUntil = async (wallMs: number): Promise<void> => {
  for (let left = wallMs - now(); left > 0; left = wallMs - now()) await new Promise((r) => setTimeout(r, Math.min(left, 1000)));
};

/** CPU seconds a process has used (Linux /proc; NaN elsewhere). */
function processCpuS(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks (USER_HZ 100)
  } catch {
    return NaN;
  }
}

/** Where the account lives, and how one change of it is made: its SL set to `sl`; resolves with when it was made (wall ms). */
interface Setup {
  terminal: Terminal;
  basePrice: number;
  change(i: number, sl: number): Promise<number>;
  bridgePid?: number;
  /** A /ticks/range path of the pull to run beside the changes. */
  pullPath?: string;
  close(): Promise<void>;
}

function simSetup(): Promise<Setup> {
  const sim = openSimTerminal({ nowMs: Date.now(), seed: 42, tradesPerHour: 0 });
  return sim.positionsGet().then((positions) => {
    const base = positions[0];
    if (!base) throw new Error('the simulator has no position');
    let position: TradePosition = { ...base };
    const terminal = new Proxy(sim, {
      get(target, key) {
        if (key === 'positionsGet') return () => Promise.resolve([{ ...position }]);
        const v: unknown = Reflect.get(target, key);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as Terminal;
    return {
      terminal,
      basePrice: base.price_open,
      change: async (_i, sl) => {
        const at = now();
        position = { ...position, sl };
        return at;
      },
      close: () => sim.close(),
    };
  });
}

/** The bridge over the stand-in, its position's SL moved at planned wall-clock instants (MT5_STUB_WALL_SCRIPT). */
async function bridgeSetup(plan: readonly number[], pullTicks: number): Promise<Setup> {
  const root = repoRoot();
  const python = path.join(root, 'build', 'bridge-venv', 'bin', 'python');
  const skip = bridgeVenv(root, python, console.log);
  if (skip !== undefined) throw new Error(`the bridge's venv: ${skip}`);
  const basePrice = 1.1;
  const steps = [
    { op: 'open', ticket: 9001, deal: 9001, symbol: 'EURUSD', type: 0, volume: 0.1, price: basePrice, wall_ms: 0 },
    ...plan.map((wall_ms, i) => ({ op: 'modify', ticket: 9001, sl: Math.round((basePrice - 0.001 * (i + 1)) * 1e5) / 1e5, tp: 0, wall_ms })),
  ];
  const scriptFile = path.join(os.tmpdir(), `tradeapi-account-script-${process.pid}.json`);
  writeFileSync(scriptFile, JSON.stringify(steps));
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONPATH: [path.join(root, 'bridge'), path.join(root, 'bridge', 'tests', 'stand_in')].join(path.delimiter), TRADEAPI_BRIDGE_SECRET: BRIDGE_SECRET, MT5_STUB_WALL_SCRIPT: scriptFile };
  let pullPath: string | undefined;
  if (pullTicks > 0) {
    const fromMs = Date.parse('2024-01-08T00:00:00Z');
    const meta = await ticksFile({ cacheDir: path.join(root, 'bench', '.cache'), sizes: [pullTicks], symbol: 'GBPUSD', fromMs, log: console.log });
    const range = meta.ranges.find((r) => r.count === pullTicks);
    if (!range) throw new Error(`no range of ${pullTicks} ticks`);
    env.MT5_STUB_TICKS = `GBPUSD=${meta.path}`;
    pullPath = `/ticks/range?symbol=GBPUSD&date_from=${iso(fromMs)}&date_to=${iso(range.toMs)}&format=parquet`;
  }
  const port = await freePort();
  const bridge = await ServerProcess.start({
    name: 'account-events-bridge',
    command: python,
    args: ['-m', 'tradeapi_bridge', '--listen', `127.0.0.1:${port}`],
    env,
    cwd: root,
    logDir: path.join(root, 'bench', 'results', 'logs'),
    readyLog: /"event": ?"listening"/,
  });
  const terminal = openBridgeTerminal(`tcp://127.0.0.1:${port}`, BRIDGE_SECRET, {});
  return {
    terminal,
    basePrice,
    bridgePid: bridge.pid,
    pullPath,
    change: async (i) => {
      const at = plan[i - 1] as number;
      await sleepUntil(at);
      return at;
    },
    close: async () => {
      await terminal.close();
      await bridge.stop();
    },
  };
}

async function main(): Promise<void> {
  if (process.argv[2] === '--clients-of') return clients(Number(process.argv[3]), Number(process.argv[4]));
  const n = arg('clients', 200);
  const changes = arg('changes', 40);
  const tradeMs = arg('trade-ms', 100);
  const idleSeconds = arg('idle-seconds', 10);
  const setupSeconds = arg('setup-seconds', 30);
  const pullTicks = arg('pull-ticks', 0);
  const kind = argText('terminal', 'sim');
  if (kind !== 'sim' && kind !== 'bridge') throw new Error('--terminal: sim or bridge');
  // Over the bridge the changes are scripted before it starts: planned after the set-up and the idle
  // window, each at a random moment within a poll interval, one every 2.5 intervals on average.
  const plan: number[] = [];
  for (let i = 0, at = now() + (setupSeconds + idleSeconds) * 1000; i < changes; i++) plan.push((at += tradeMs * (2 + Math.random())));
  const setup = kind === 'sim' ? await simSetup() : await bridgeSetup(plan, pullTicks);
  const stamps = new Map<number, number>();
  const config = loadConfig({ TRADEAPI_HOST: '127.0.0.1', TRADEAPI_PORT: '0', TRADEAPI_EVENTS_TRADE_MS: String(tradeMs), TRADEAPI_MAX_EVENT_CLIENTS: String(n + 10) });
  const server = await startServer({ terminal: setup.terminal, config, adapter: pickAdapter(config.http).adapter, host: '127.0.0.1', port: 0, logger: createLogger('warn') });
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--clients-of', String(server.port), String(n)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const arrivals: Array<[number, number]> = [];
  let buffered = '';
  let onReady: () => void = () => undefined;
  const readyP = new Promise<void>((r) => (onReady = r));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (c: string) => {
    buffered += c;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (line === 'ready') onReady();
      else if (line) arrivals.push(JSON.parse(line) as [number, number]);
    }
  });
  await readyP;
  if (kind === 'bridge' && now() > (plan[0] as number) - idleSeconds * 1000) throw new Error(`the clients were ready too late for the scripted changes: raise --setup-seconds (${setupSeconds})`);
  // Idle: every client connected, nothing changes.
  const cpu0 = process.cpuUsage();
  const bridgeCpu0 = setup.bridgePid === undefined ? NaN : processCpuS(setup.bridgePid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, idleSeconds * 1000));
  const cpu = process.cpuUsage(cpu0);
  const idleMs = performance.now() - t0;
  const idlePct = ((cpu.user + cpu.system) / 1000 / idleMs) * 100;
  const bridgeIdlePct = setup.bridgePid === undefined ? undefined : ((processCpuS(setup.bridgePid) - bridgeCpu0) * 1000 / idleMs) * 100;
  // Changes, with pulls running beside them when asked.
  let pulling = setup.pullPath !== undefined;
  const pulls: number[] = [];
  const puller = (async () => {
    while (pulling) {
      const r = await pull(`http://127.0.0.1:${server.port}${setup.pullPath}`, 'opaque');
      if (r.status !== 200) throw new Error(`the pull answered ${r.status}`);
      pulls.push(r.totalMs);
    }
  })();
  for (let i = 1; i <= changes; i++) {
    if (kind === 'sim') await new Promise((r) => setTimeout(r, tradeMs * (2 + Math.random())));
    const sl = Math.round((setup.basePrice - 0.001 * i) * 1e5) / 1e5;
    stamps.set(sl, await setup.change(i, sl));
  }
  const deadline = performance.now() + 10_000;
  while (arrivals.length < n * changes && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  pulling = false;
  await puller;
  child.kill();
  await server.close();
  await setup.close();
  const lat = arrivals.filter(([sl]) => stamps.has(sl)).map(([sl, at]) => at - (stamps.get(sl) as number));
  const l = latency(lat);
  console.log(
    JSON.stringify({
      terminal: kind,
      clients: n,
      changes,
      trade_ms: tradeMs,
      pulls_during_changes: setup.pullPath ? { ticks: pullTicks, done: pulls.length, ms: pulls.map((x) => Math.round(x)) } : undefined,
      events_per_change_per_client: Math.round((arrivals.length / (n * changes)) * 1000) / 1000,
      latency_ms: l,
      p99_over_interval: Math.round((l.p99 / tradeMs) * 100) / 100,
      idle_cpu_pct_of_a_core: Math.round(idlePct * 100) / 100,
      bridge_idle_cpu_pct_of_a_core: bridgeIdlePct === undefined ? undefined : Math.round(bridgeIdlePct * 100) / 100,
    }),
  );
}

if (isMain(import.meta.url)) await main();
