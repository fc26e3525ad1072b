// The read-only mode against the spec's performance targets (Variant B):
//   - health check under 500 ms under normal load;
//   - market-data queries under 2 s for typical datasets (fewer than 1000 records);
//   - 100 concurrent requests without significant degradation.
// The real CLI runs as a child process (`serve --read-only`, so client and server do not share a
// thread), with the key, the rate limiter and CORS all on. The limiter is set high enough never to
// refuse (every request comes from 127.0.0.1), so that its cost is measured, not its refusals; one
// extra run compares the same requests against the full variant to show what the guards cost.
// Build first: npm run build:ts && node dist/bench/readonly.js [--json out.json]
// (TRADEAPI_HTTP=node|uws to force an adapter).
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

import { isMain } from './is-main.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'bench-read-only-key';
const ORIGIN = 'https://app.example.com';

/** The spec's targets, in milliseconds. */
export const TARGETS = { healthMs: 500, marketDataMs: 2000 } as const;

interface Server {
  child: ChildProcess;
  port: number;
  adapter: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function waitForHealth(port: number, prefix: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}${prefix}/health`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not come up');
}

async function startServer(readOnly: boolean, logLevel: string): Promise<Server> {
  const port = await freePort();
  const args = ['bin/tradeapi.js', 'serve', '--port', String(port), ...(readOnly ? ['--read-only'] : [])];
  const env = readOnly
    ? { API_LOG_LEVEL: logLevel, TRADE_API_KEY: KEY, API_RATE_LIMIT: '1000000000', API_CORS_ORIGINS: ORIGIN }
    : { TRADEAPI_LOG_LEVEL: logLevel, TRADEAPI_SECRET_KEY: KEY, TRADEAPI_ROUTER_PREFIX: '/api/v1' };
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const onData = (d: Buffer): void => {
    out += d.toString();
  };
  child.stdout?.on('data', onData);
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`))));
  await Promise.race([waitForHealth(port, '/api/v1'), exited]);
  child.stdout?.off('data', onData);
  child.stdout?.resume(); // keep draining the request log
  exited.catch(() => undefined);
  const adapter = /"adapter":"(\w+)"/.exec(out)?.[1] ?? (process.env.TRADEAPI_HTTP ?? 'default');
  return { child, port, adapter };
}

async function stopServer(server: Server): Promise<void> {
  const gone = new Promise((r) => server.child.once('exit', r));
  server.child.kill('SIGTERM');
  await gone;
}

interface Answer {
  status: number;
  bytes: number;
}

function request(agent: http.Agent, port: number, path: string, accept: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { accept, 'x-api-key': KEY, origin: ORIGIN };
    const req = http.get({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const pct = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const round = (x: number): number => Math.round(x * 100) / 100;

interface Latency {
  p50: number;
  p99: number;
  max: number;
}
const latency = (values: number[]): Latency => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: round(pct(sorted, 50)), p99: round(pct(sorted, 99)), max: round(sorted.at(-1) ?? NaN) };
};

/** One request at a time, `n` times: the latency without contention. */
async function sequential(port: number, path: string, accept: string, n: number): Promise<Latency & { bytes: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let bytes = 0;
  let errors = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await request(agent, port, path, accept);
    times.push(performance.now() - t0);
    bytes = r.bytes;
    if (r.status !== 200) errors++;
  }
  agent.destroy();
  return { ...latency(times), bytes, errors };
}

/** `concurrent` requests fired at once, `rounds` times. */
async function burst(port: number, path: string, accept: string, concurrent: number, rounds: number): Promise<Latency & { wallP50: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrent });
  const times: number[] = [];
  const walls: number[] = [];
  let errors = 0;
  for (let r = 0; r < rounds; r++) {
    const w0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrent }, async () => {
        const t0 = performance.now();
        const a = await request(agent, port, path, accept);
        times.push(performance.now() - t0);
        if (a.status !== 200) errors++;
      }),
    );
    walls.push(performance.now() - w0);
  }
  agent.destroy();
  return { ...latency(times), wallP50: round(pct([...walls].sort((a, b) => a - b), 50)), errors };
}

/** `connections` loops issuing requests back to back for `seconds`. */
async function loadFor(port: number, path: string, connections: number, seconds: number): Promise<Latency & { rps: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const times: number[] = [];
  let errors = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const r = await request(agent, port, path, 'application/json').catch(() => ({ status: 0, bytes: 0 }));
        times.push(performance.now() - t0);
        if (r.status !== 200) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  return { ...latency(times), rps: Math.round(times.length / elapsed), errors };
}

/** Market-data queries of fewer than 1000 records (the spec's "typical datasets"). */
const QUERIES: ReadonlyArray<{ name: string; path: string; accept: string }> = [
  { name: 'rates/from 999 M1 bars, JSON', path: '/api/v1/rates/from?symbol=EURUSD&timeframe=1&date_from=2024-01-10T00:00:00Z&count=999', accept: 'application/json' },
  { name: 'rates/from 999 M1 bars, Parquet', path: '/api/v1/rates/from?symbol=EURUSD&timeframe=1&date_from=2024-01-10T00:00:00Z&count=999', accept: 'application/parquet' },
  { name: 'ticks/from 999 ticks, JSON', path: '/api/v1/ticks/from?symbol=EURUSD&date_from=2024-01-09T10:00:00Z&count=999', accept: 'application/json' },
  { name: 'symbols, JSON', path: '/api/v1/symbols', accept: 'application/json' },
  { name: 'symbols/EURUSD, JSON', path: '/api/v1/symbols/EURUSD', accept: 'application/json' },
  { name: 'account, JSON', path: '/api/v1/account', accept: 'application/json' },
  { name: 'history/orders, all, JSON', path: '/api/v1/history/orders?date_from=2020-01-01T00:00:00Z&date_to=2030-01-01T00:00:00Z', accept: 'application/json' },
  { name: 'history/deals, all, Parquet', path: '/api/v1/history/deals?date_from=2020-01-01T00:00:00Z&date_to=2030-01-01T00:00:00Z', accept: 'application/parquet' },
];

interface QueryFigures {
  name: string;
  /** Records in the answer (counted on the JSON form). */
  rows: number;
  bytes: number;
  /** Median round of 100 at once divided by 100, against `alone.p50`: how throughput holds up. */
  perRequestAt100: number;
  alone: Latency;
  at100: Latency & { wallP50: number };
  errors: number;
  meetsTarget: boolean;
}

interface RunFigures {
  adapter: string;
  logLevel: string;
  health: { alone: Latency; under64: Latency & { rps: number }; at100: Latency; errors: number; meetsTarget: boolean };
  queries: QueryFigures[];
  guards: { path: string; readOnly: Latency & { rps: number }; full: Latency & { rps: number } };
}

const ms = (x: number): string => `${x.toFixed(1)} ms`;

/** Records in a query's answer: the JSON form of the same request, parsed once. */
async function rows(port: number, path: string): Promise<number> {
  const url = new URL(`http://127.0.0.1:${port}${path}`);
  url.searchParams.set('format', 'json');
  const body = (await (await fetch(url, { headers: { 'x-api-key': KEY } })).json()) as unknown;
  return Array.isArray(body) ? body.length : 1;
}

async function measure(logLevel: string, knownAdapter?: string): Promise<RunFigures> {
  const server = await startServer(true, logLevel);
  // Below INFO the start line (which names the adapter) is not logged: reuse the earlier run's.
  if (server.adapter === 'default' && knownAdapter) server.adapter = knownAdapter;
  let figures: RunFigures;
  try {
    const port = server.port;
    console.log(`\n== read-only, adapter ${server.adapter}, API_LOG_LEVEL=${logLevel} ==`);
    // Health: alone, while 64 connections hammer it, and 100 at once.
    await loadFor(port, '/api/v1/health', 64, 1); // warm-up
    const healthAlone = await sequential(port, '/api/v1/health', 'application/json', 200);
    const under64 = await loadFor(port, '/api/v1/health', 64, 5);
    const health100 = await burst(port, '/api/v1/health', 'application/json', 100, 10);
    const healthErrors = healthAlone.errors + under64.errors + health100.errors;
    const healthOk = under64.p99 < TARGETS.healthMs && health100.p99 < TARGETS.healthMs && healthErrors === 0;
    console.log(
      `/health: alone p50 ${ms(healthAlone.p50)} p99 ${ms(healthAlone.p99)}; 64 connections x 5 s ${under64.rps} req/s p50 ${ms(under64.p50)} p99 ${ms(under64.p99)}; ` +
        `100 at once p50 ${ms(health100.p50)} p99 ${ms(health100.p99)}; errors ${healthErrors}; target < ${TARGETS.healthMs} ms: ${healthOk ? 'met' : 'MISSED'}`,
    );

    const queries: QueryFigures[] = [];
    for (const q of QUERIES) {
      await burst(port, q.path, q.accept, 100, 2); // warm-up
      const alone = await sequential(port, q.path, q.accept, 50);
      const at100 = await burst(port, q.path, q.accept, 100, 10);
      const errors = alone.errors + at100.errors;
      const count = await rows(port, q.path);
      const meetsTarget = at100.max < TARGETS.marketDataMs && errors === 0 && count < 1000;
      const perRequestAt100 = round(at100.wallP50 / 100);
      queries.push({ name: q.name, rows: count, bytes: alone.bytes, perRequestAt100, alone, at100, errors, meetsTarget });
      console.log(
        `${q.name} (${count} rows, ${alone.bytes} B): alone p50 ${ms(alone.p50)} p99 ${ms(alone.p99)}; 100 at once x10 p50 ${ms(at100.p50)} p99 ${ms(at100.p99)} max ${ms(at100.max)}, ` +
          `100 answered in ${ms(at100.wallP50)} (median round, ${ms(perRequestAt100)} per request); errors ${errors}; target < ${TARGETS.marketDataMs} ms: ${meetsTarget ? 'met' : 'MISSED'}`,
      );
    }
    figures = {
      adapter: server.adapter,
      logLevel,
      health: { alone: healthAlone, under64, at100: health100, errors: healthErrors, meetsTarget: healthOk },
      queries,
      guards: { path: '/api/v1/version', readOnly: await loadFor(port, '/api/v1/version', 64, 5), full: { p50: NaN, p99: NaN, max: NaN, rps: NaN } },
    };
  } finally {
    await stopServer(server);
  }
  // The same /version load against the full variant (same key and prefix, no limiter, no CORS).
  const full = await startServer(false, logLevel);
  try {
    await loadFor(full.port, '/api/v1/version', 64, 1); // warm-up
    figures.guards.full = await loadFor(full.port, '/api/v1/version', 64, 5);
  } finally {
    await stopServer(full);
  }
  const g = figures.guards;
  console.log(
    `guards (key + rate limit + CORS) on /version, 64 connections x 5 s: read-only ${g.readOnly.rps} req/s p99 ${ms(g.readOnly.p99)}; ` +
      `full variant ${g.full.rps} req/s p99 ${ms(g.full.p99)}`,
  );
  return figures;
}

async function main(): Promise<void> {
  const out = process.argv.indexOf('--json');
  const runs: RunFigures[] = [];
  for (const level of ['INFO', 'ERROR']) runs.push(await measure(level, runs[0]?.adapter));
  if (out > 0 && process.argv[out + 1]) {
    writeFileSync(process.argv[out + 1] as string, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, runs }, null, 2)}\n`);
  }
  const missed = runs.some((r) => !r.health.meetsTarget || r.queries.some((q) => !q.meetsTarget));
  console.log(`\nspec targets (Variant B): ${missed ? 'MISSED (see above)' : 'all met'}`);
  process.exitCode = missed ? 1 : 0;
}

if (isMain(import.meta.url)) await main();
