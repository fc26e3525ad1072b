// Stalled readers: N clients each ask for a year of EURUSD ticks (Parquet by default) and then
// read nothing. The server must stop producing for each of them once a few MB are buffered, so its
// RSS grows by a bounded amount whatever N is, /health stays fast meanwhile, and the streams are
// closed after the send timeout. Prints RSS before/after, /health latency under the stall, how the
// stalled requests were answered, and (with --hold) when the server closed them.
//
//   node dist/bench/stalled.js [--clients 100] [--format parquet|json|arrow] [--hold 20]
//                              [--send-timeout-ms 60000] [--max-streams N] [--http node|uws]
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { isMain } from './is-main.js';
import { latency, round, sequential, startTradeapi } from './load.js';
import { readRss } from './rss-probe.js';

export interface StalledOptions {
  clients: number;
  format: 'parquet' | 'json' | 'arrow';
  /** Seconds to keep the stalled clients connected before measuring and letting go. */
  holdSeconds: number;
  sendTimeoutMs?: number;
  maxStreams?: number;
  http?: string;
}

export interface StalledResult {
  clients: number;
  format: string;
  rssBeforeMB: number;
  rssStalledMB: number;
  rssGrowthMB: number;
  /** How the stalled requests' heads read: status -> count (0 = no head before the hold ended). */
  statuses: Record<string, number>;
  /** Connections the server closed during the hold (send timeout). */
  closedByServer: number;
  health: { p50: number; p99: number; max: number; errors: number };
}

const MB = 1024 * 1024;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A client that sends one request and never reads: its socket is paused right away. */
function stalledClient(port: number, path: string): { socket: net.Socket; status: Promise<number>; closed: Promise<void> } {
  const socket = net.connect(port, '127.0.0.1');
  let head = '';
  let resolveStatus!: (s: number) => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  socket.on('error', () => undefined);
  socket.once('connect', () => {
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  });
  // Read just the head (the first segment), then stop reading: the kernel buffers fill, and the
  // server sees a peer that takes nothing.
  socket.once('data', (chunk: Buffer) => {
    head += chunk.subarray(0, 64).toString('latin1');
    socket.pause();
    resolveStatus(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? -1));
  });
  socket.once('close', () => resolveStatus(0));
  return { socket, status, closed };
}

export async function runStalled(o: StalledOptions): Promise<StalledResult> {
  const env: NodeJS.ProcessEnv = { TRADEAPI_LOG_LEVEL: 'WARNING' };
  if (o.http) env.TRADEAPI_HTTP = o.http;
  if (o.sendTimeoutMs !== undefined) env.TRADEAPI_SEND_TIMEOUT_MS = String(o.sendTimeoutMs);
  if (o.maxStreams !== undefined) env.TRADEAPI_MAX_STREAMS = String(o.maxStreams);
  const { server, port } = await startTradeapi('stalled', [], env, '/health');
  try {
    // Warm up: one small pull in the format, so that start-up costs are not counted as growth.
    await sequential(port, `/ticks/from?symbol=EURUSD&date_from=2025-01-06T00:00:00Z&count=1000&format=${o.format}`, {}, 3);
    await sleep(500);
    const before = readRss(server.pid)?.rss ?? Number.NaN;
    const year = `/ticks/range?symbol=EURUSD&date_from=2024-01-01T00:00:00Z&date_to=2024-12-31T23:59:59Z&format=${o.format}`;
    const clients = Array.from({ length: o.clients }, () => stalledClient(port, year));
    let closedByServer = 0;
    for (const c of clients) void c.closed.then(() => closedByServer++);
    // Let every stream fill its buffers, sampling /health latency meanwhile.
    const healthTimes: number[] = [];
    let healthErrors = 0;
    const until = performance.now() + o.holdSeconds * 1000;
    let peak = before;
    while (performance.now() < until) {
      const h = await sequential(port, '/health', {}, 1).catch(() => ({ p50: Number.NaN, errors: 1 }));
      healthTimes.push(h.p50);
      healthErrors += h.errors;
      peak = Math.max(peak, readRss(server.pid)?.rss ?? 0);
      await sleep(200);
    }
    const statuses: Record<string, number> = {};
    for (const c of clients) {
      const s = await Promise.race([c.status, sleep(10).then(() => 0)]);
      statuses[String(s)] = (statuses[String(s)] ?? 0) + 1;
    }
    const result: StalledResult = {
      clients: o.clients,
      format: o.format,
      rssBeforeMB: round(before / MB),
      rssStalledMB: round(peak / MB),
      rssGrowthMB: round((peak - before) / MB),
      statuses,
      closedByServer,
      health: { ...latency(healthTimes.filter((x) => Number.isFinite(x))), errors: healthErrors },
    };
    for (const c of clients) c.socket.destroy();
    return result;
  } finally {
    await server.stop();
  }
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '100' },
      format: { type: 'string', default: 'parquet' },
      hold: { type: 'string', default: '20' },
      'send-timeout-ms': { type: 'string' },
      'max-streams': { type: 'string' },
      http: { type: 'string' },
    },
  });
  const format = values.format as StalledOptions['format'];
  if (!['parquet', 'json', 'arrow'].includes(format)) throw new Error('--format must be parquet, json or arrow');
  const result = await runStalled({
    clients: Number(values.clients),
    format,
    holdSeconds: Number(values.hold),
    ...(values['send-timeout-ms'] !== undefined ? { sendTimeoutMs: Number(values['send-timeout-ms']) } : {}),
    ...(values['max-streams'] !== undefined ? { maxStreams: Number(values['max-streams']) } : {}),
    ...(values.http !== undefined ? { http: values.http } : {}),
  });
  console.log(
    `stalled readers: ${result.clients} × year of EURUSD ticks as ${result.format}: server RSS ${result.rssBeforeMB} -> ${result.rssStalledMB} MB ` +
      `(+${result.rssGrowthMB} MB, ${round(result.rssGrowthMB / result.clients)} MB per stream); heads ${JSON.stringify(result.statuses)}; ` +
      `closed by the server during the hold: ${result.closedByServer}; /health p50 ${result.health.p50} ms p99 ${result.health.p99} ms max ${result.health.max} ms, errors ${result.health.errors}`,
  );
}
