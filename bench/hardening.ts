// The hardening load figures (issue 9), against a fresh `tradeapi serve` child process:
//   1. mixed load: N keep-alive connections opened at once (default 1 000), each issuing a mix of
//      requests back to back for S seconds (quotes, symbol info, account, positions, bars, a small
//      tick pull, a margin calculation, /health); errors (non-2xx, resets, no answer within 10 s),
//      latency p50/p99/max, req/s, and server RSS before, at the peak, and after;
//   2. stalled readers: bench/stalled.ts's scenario (100 clients each asking a year of ticks as
//      Parquet and reading nothing), RSS growth and /health latency meanwhile.
//
//   node dist/bench/hardening.js [--connections 1000] [--seconds 60] [--stalled 100] [--hold 20]
//                                [--http node|uws] [--skip-load] [--skip-stalled]
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { isMain } from './is-main.js';
import { latency, round, startTradeapi, type Latency } from './load.js';
import { readRss } from './rss-probe.js';
import { runStalled } from './stalled.js';

/** The request mix, in turn per connection: what a dashboard and a few scripts ask all day. */
export const MIX: readonly string[] = [
  '/symbols/EURUSD/tick',
  '/symbols/USDJPY/tick',
  '/symbols/EURUSD',
  '/account',
  '/positions',
  '/orders',
  '/rates/from-pos?symbol=EURUSD&timeframe=TIMEFRAME_M1&start_pos=0&count=100',
  '/ticks/from?symbol=GBPUSD&date_from=2025-01-06T10:00:00Z&count=200',
  '/calc/margin?action=ORDER_TYPE_BUY&symbol=EURUSD&volume=1&price=1.1',
  '/health',
];

export interface MixedResult extends Latency {
  connections: number;
  seconds: number;
  requests: number;
  rps: number;
  errors: number;
  /** Error kinds: status code, 'timeout', or the socket error code. */
  errorKinds: Record<string, number>;
  rssBeforeMB: number;
  rssPeakMB: number;
  rssAfterMB: number;
}

const MB = 1024 * 1024;

function get(agent: http.Agent, port: number, path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? undefined : String(res.statusCode)));
      res.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    req.on('timeout', () => {
      req.destroy();
      resolve('timeout');
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
  });
}

export async function runMixed(connections: number, seconds: number, httpAdapter?: string): Promise<MixedResult> {
  const env: NodeJS.ProcessEnv = { TRADEAPI_LOG_LEVEL: 'WARNING' };
  if (httpAdapter) env.TRADEAPI_HTTP = httpAdapter;
  const { server, port } = await startTradeapi('hardening-mixed', [], env, '/health');
  try {
    const before = readRss(server.pid)?.rss ?? Number.NaN;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, readRss(server.pid)?.rss ?? 0)), 200);
    const agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
    const times: number[] = [];
    const errorKinds: Record<string, number> = {};
    const started = performance.now();
    const end = started + seconds * 1000;
    // Every connection starts at once (the burst), then keeps going.
    await Promise.all(
      Array.from({ length: connections }, async (_, c) => {
        for (let i = c; performance.now() < end; i++) {
          const t0 = performance.now();
          const error = await get(agent, port, MIX[i % MIX.length] as string);
          times.push(performance.now() - t0);
          if (error) errorKinds[error] = (errorKinds[error] ?? 0) + 1;
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(sampler);
    agent.destroy();
    await new Promise((r) => setTimeout(r, 1000));
    const after = readRss(server.pid)?.rss ?? Number.NaN;
    return {
      ...latency(times),
      connections,
      seconds,
      requests: times.length,
      rps: Math.round(times.length / elapsed),
      errors: Object.values(errorKinds).reduce((a, b) => a + b, 0),
      errorKinds,
      rssBeforeMB: round(before / MB),
      rssPeakMB: round(peak / MB),
      rssAfterMB: round(after / MB),
    };
  } finally {
    await server.stop();
  }
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      connections: { type: 'string', default: '1000' },
      seconds: { type: 'string', default: '60' },
      stalled: { type: 'string', default: '100' },
      hold: { type: 'string', default: '20' },
      http: { type: 'string' },
      'skip-load': { type: 'boolean', default: false },
      'skip-stalled': { type: 'boolean', default: false },
    },
  });
  if (!values['skip-load']) {
    const m = await runMixed(Number(values.connections), Number(values.seconds), values.http);
    console.log(
      `mixed load: ${m.connections} connections at once for ${m.seconds} s: ${m.requests} requests, ${m.rps} req/s, ` +
        `errors ${m.errors} ${JSON.stringify(m.errorKinds)}; latency p50 ${m.p50} ms, p99 ${m.p99} ms, max ${m.max} ms; ` +
        `server RSS ${m.rssBeforeMB} MB before, ${m.rssPeakMB} MB peak, ${m.rssAfterMB} MB after`,
    );
  }
  if (!values['skip-stalled']) {
    const s = await runStalled({ clients: Number(values.stalled), format: 'parquet', holdSeconds: Number(values.hold), ...(values.http ? { http: values.http } : {}) });
    console.log(
      `stalled readers: ${s.clients} × a year of EURUSD ticks as Parquet, none read: server RSS ${s.rssBeforeMB} -> ${s.rssStalledMB} MB ` +
        `(+${s.rssGrowthMB} MB); heads ${JSON.stringify(s.statuses)}; /health during the stall p50 ${s.health.p50} ms, p99 ${s.health.p99} ms, errors ${s.health.errors}`,
    );
  }
}
