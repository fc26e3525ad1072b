// HTTP figures against the real CLI in a child process (so client and server do not share a
// thread): /health at 64 concurrent connections, and /rates/from with 999 M1 bars, 100 requests at
// once. Build first: npm run build:ts && node dist/bench/http.js  (TRADEAPI_HTTP=node|uws to force).
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Server {
  child: ChildProcess;
  port: number;
  adapter: string;
}

/** A port free right now (the server's start-up line is not logged at level ERROR, so we choose). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function waitForHealth(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not come up');
}

async function startServer(logLevel: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/tradeapi.js', 'serve', '--port', String(port)], {
    cwd: root,
    env: { ...process.env, TRADEAPI_LOG_LEVEL: logLevel, TRADEAPI_SECRET_KEY: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const onData = (d: Buffer): void => {
    out += d.toString();
  };
  child.stdout?.on('data', onData);
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`))));
  await Promise.race([waitForHealth(port), exited]);
  // Keep draining the request log so that the server never blocks on a full pipe.
  child.stdout?.off('data', onData);
  child.stdout?.resume();
  const adapter = /"adapter":"(\w+)"/.exec(out)?.[1] ?? (process.env.TRADEAPI_HTTP ?? 'default (uws where it loads, else node)');
  exited.catch(() => undefined);
  return { child, adapter, port };
}

function request(agent: http.Agent, port: number, path: string, accept = 'application/json'): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent, headers: { accept } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const ms = (x: number): string => `${x.toFixed(2)} ms`;

/** `connections` loops, each issuing requests back to back for `seconds`. */
async function loadFor(port: number, path: string, connections: number, seconds: number): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const r = await request(agent, port, path).catch(() => ({ status: 0, bytes: 0 }));
        latencies.push(performance.now() - t0);
        if (r.status !== 200) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p50: pct(latencies, 50), p99: pct(latencies, 99), errors };
}

/** `concurrent` requests fired at once, `rounds` times; latency of each request. */
async function burst(port: number, path: string, accept: string, concurrent: number, rounds: number): Promise<{ p50: number; p99: number; wall: number; bytes: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrent });
  const latencies: number[] = [];
  const walls: number[] = [];
  let bytes = 0;
  let errors = 0;
  for (let round = 0; round < rounds; round++) {
    const w0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrent }, async () => {
        const t0 = performance.now();
        const r = await request(agent, port, path, accept);
        latencies.push(performance.now() - t0);
        bytes = r.bytes;
        if (r.status !== 200) errors++;
      }),
    );
    walls.push(performance.now() - w0);
  }
  agent.destroy();
  latencies.sort((a, b) => a - b);
  walls.sort((a, b) => a - b);
  return { p50: pct(latencies, 50), p99: pct(latencies, 99), wall: pct(walls, 50), bytes, errors };
}

async function main(): Promise<void> {
  const rates = '/rates/from?symbol=EURUSD&timeframe=TIMEFRAME_M1&date_from=2024-01-10T00:00:00Z&count=999';
  for (const level of ['INFO', 'ERROR']) {
    const server = await startServer(level);
    try {
      console.log(`\n== adapter ${server.adapter}, log level ${level} ==`);
      await loadFor(server.port, '/health', 64, 1); // warm-up
      const h = await loadFor(server.port, '/health', 64, 5);
      console.log(`/health, 64 connections, 5 s: ${h.rps.toFixed(0)} req/s, p50 ${ms(h.p50)}, p99 ${ms(h.p99)}, errors ${h.errors}`);
      for (const accept of ['application/json', 'application/parquet']) {
        await burst(server.port, rates, accept, 100, 2); // warm-up
        const r = await burst(server.port, rates, accept, 100, 10);
        console.log(
          `/rates/from 999 M1 bars, 100 at once x10, ${accept}: p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, 100 requests in ${ms(r.wall)} (median round), ${r.bytes} bytes each, errors ${r.errors}`,
        );
      }
    } finally {
      const gone = new Promise((r) => server.child.once('exit', r));
      server.child.kill('SIGTERM');
      await gone;
    }
  }
}

await main();
