// Load generation shared by the HTTP benches: requests over keep-alive agents, latency
// percentiles, "n in a row", "n at once" and "n connections for s seconds"; and starting the real
// CLI as a child process (so that client and server do not share a thread).
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

import { ServerProcess, freePort } from './processes.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface Latency {
  p50: number;
  p99: number;
  max: number;
}

export interface Answer {
  status: number;
  bytes: number;
}

const pct = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
export const round = (x: number): number => Math.round(x * 100) / 100;

export function latency(values: readonly number[]): Latency {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: round(pct(sorted, 50)), p99: round(pct(sorted, 99)), max: round(sorted.at(-1) ?? NaN) };
}

export function request(agent: http.Agent, port: number, path: string, headers: Readonly<Record<string, string>>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** One request at a time, `n` times: the latency without contention. */
export async function sequential(port: number, path: string, headers: Readonly<Record<string, string>>, n: number): Promise<Latency & { bytes: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let bytes = 0;
  let errors = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await request(agent, port, path, headers);
    times.push(performance.now() - t0);
    bytes = r.bytes;
    if (r.status !== 200) errors++;
  }
  agent.destroy();
  return { ...latency(times), bytes, errors };
}

/** `concurrent` requests fired at once, `rounds` times; `wallP50` is the median round. */
export async function burst(port: number, path: string, headers: Readonly<Record<string, string>>, concurrent: number, rounds: number): Promise<Latency & { wallP50: number; bytes: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrent });
  const times: number[] = [];
  const walls: number[] = [];
  let bytes = 0;
  let errors = 0;
  for (let r = 0; r < rounds; r++) {
    const w0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrent }, async () => {
        const t0 = performance.now();
        const a = await request(agent, port, path, headers);
        times.push(performance.now() - t0);
        bytes = a.bytes;
        if (a.status !== 200) errors++;
      }),
    );
    walls.push(performance.now() - w0);
  }
  agent.destroy();
  return { ...latency(times), wallP50: latency(walls).p50, bytes, errors };
}

/** `connections` loops issuing requests back to back for `seconds`. */
export async function loadFor(port: number, path: string, headers: Readonly<Record<string, string>>, connections: number, seconds: number): Promise<Latency & { rps: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const times: number[] = [];
  let errors = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const r = await request(agent, port, path, headers).catch(() => ({ status: 0, bytes: 0 }));
        times.push(performance.now() - t0);
        if (r.status !== 200) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  return { ...latency(times), rps: Math.round(times.length / elapsed), errors };
}

export interface Tradeapi {
  server: ServerProcess;
  port: number;
  /** Which HTTP adapter serves, from the start-up line (absent below log level INFO). */
  adapter: string;
}

/** Starts `tradeapi serve` on a free port with `env`, ready once `readyPath` answers. */
export async function startTradeapi(name: string, extraArgs: readonly string[], env: NodeJS.ProcessEnv, readyPath: string): Promise<Tradeapi> {
  const port = await freePort();
  const server = await ServerProcess.start({
    name,
    command: process.execPath,
    args: ['bin/tradeapi.js', 'serve', '--port', String(port), ...extraArgs],
    env: { ...process.env, ...env },
    cwd: root,
    logDir: path.join(os.tmpdir(), 'tradeapi-bench-logs'),
    readyUrl: `http://127.0.0.1:${port}${readyPath}`,
  });
  const adapter = /"adapter":"(\w+)"/.exec(server.logTail(100_000))?.[1] ?? process.env.TRADEAPI_HTTP ?? 'default';
  return { server, port, adapter };
}
