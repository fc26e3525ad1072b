// Account events (deal/order/position/account on GET /events): how long a change of the account
// takes to reach SSE clients at the default poll interval, and what watching an idle account costs.
//   npm run build:ts && node dist/bench/account-events.js [--clients 200] [--changes 40] [--trade-ms 100] [--idle-seconds 10]
// The server runs in this process on the simulator, with positions_get/history_deals_get answered
// from an account this program changes (a position's SL moved, or a deal added: stamped when the
// change is made); the clients run in a child process and stamp each event's arrival (one wall
// clock, sub-millisecond, across the two processes). Reported: latency change -> client
// (p50/p99/max over every client and change, and p99 as a ratio of the poll interval), events
// per change per client (1 expected), and the server process's CPU while the account is idle
// with every client connected (% of one core; a 2-core machine shared with others is noisy).
import { spawn } from 'node:child_process';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { createParser } from 'eventsource-parser';

import { loadConfig } from '../src/config/index.js';
import { pickAdapter } from '../src/http/adapters/index.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/server.js';
import { openSimTerminal, type Terminal } from '../src/terminal/index.js';
import type { TradePosition } from '../src/terminal/records.js';
import { isMain } from './is-main.js';
import { latency } from './load.js';

const now = (): number => performance.timeOrigin + performance.now();
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

async function main(): Promise<void> {
  if (process.argv[2] === '--clients-of') return clients(Number(process.argv[3]), Number(process.argv[4]));
  const n = arg('clients', 200);
  const changes = arg('changes', 40);
  const tradeMs = arg('trade-ms', 100);
  const idleSeconds = arg('idle-seconds', 10);
  const sim = openSimTerminal({ nowMs: Date.now(), seed: 42 });
  const base = (await sim.positionsGet())[0];
  if (!base) throw new Error('the simulator has no position');
  let position: TradePosition = { ...base };
  const stamps = new Map<number, number>();
  const terminal = new Proxy(sim, {
    get(target, key) {
      if (key === 'positionsGet') return () => Promise.resolve([{ ...position }]);
      const v: unknown = Reflect.get(target, key);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as Terminal;
  const config = loadConfig({ TRADEAPI_HOST: '127.0.0.1', TRADEAPI_PORT: '0', TRADEAPI_EVENTS_TRADE_MS: String(tradeMs), TRADEAPI_MAX_EVENT_CLIENTS: String(n + 10) });
  const server = await startServer({ terminal, config, adapter: pickAdapter(config.http).adapter, host: '127.0.0.1', port: 0, logger: createLogger('warn') });
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
  // Idle: every client connected, nothing changes.
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, idleSeconds * 1000));
  const cpu = process.cpuUsage(cpu0);
  const idlePct = ((cpu.user + cpu.system) / 1000 / (performance.now() - t0)) * 100;
  // Changes: a new SL at a random moment within each poll interval, one every 2.5 intervals.
  for (let i = 1; i <= changes; i++) {
    await new Promise((r) => setTimeout(r, tradeMs * (2 + Math.random())));
    const sl = Math.round((base.price_open - 0.001 * i) * 1e5) / 1e5;
    stamps.set(sl, now());
    position = { ...position, sl };
  }
  const deadline = performance.now() + 10_000;
  while (arrivals.length < n * changes && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  child.kill();
  await server.close();
  await sim.close();
  const lat = arrivals.filter(([sl]) => stamps.has(sl)).map(([sl, at]) => at - (stamps.get(sl) as number));
  const l = latency(lat);
  console.log(
    JSON.stringify({
      clients: n,
      changes,
      trade_ms: tradeMs,
      events_per_change_per_client: Math.round((arrivals.length / (n * changes)) * 1000) / 1000,
      latency_ms: l,
      p99_over_interval: Math.round((l.p99 / tradeMs) * 100) / 100,
      idle_cpu_pct_of_a_core: Math.round(idlePct * 100) / 100,
    }),
  );
}

if (isMain(import.meta.url)) await main();
