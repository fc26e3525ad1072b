// Live-event fan-out: N SSE clients (or WebSocket clients, --ws) x S symbols against the simulator on its wall clock.
//   npm run build:ts && node dist/bench/events.js [--clients 1000] [--symbols 10] [--seconds 20] [--poll-ms 100] [--ws]
// The server runs in this process (node:http, or TRADEAPI_HTTP=uws), with a probe on the terminal
// that stamps when each tick left the terminal layer (its copy_ticks_from chunk arrived); the
// clients run in a child process (so they do not share a thread or a core's accounting with the
// server). Two of them: the load (N - 50 clients, which count events and parse only gaps) and the
// probe (50 clients, connected LAST, so at the end of the server's fan-out loop: the worst place),
// which parse every event (eventsource-parser, JSON.parse) and stamp its arrival; so that the
// load's own parsing of ~1 000 streams does not delay the stamps. Reported: events per second
// delivered, latency terminal layer -> client (p50/p99/max over every tick event of the probe),
// gaps (drops), server CPU (this process; also per event delivered, which a loaded machine
// distorts less than latency) and RSS.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { createParser } from 'eventsource-parser';
import WebSocket from 'ws';

import { loadConfig, type Config } from '../src/config/index.js';
import { pickAdapter } from '../src/http/adapters/index.js';
import { createLogger } from '../src/log.js';
import { startServer, type RunningServer } from '../src/server.js';
import { openSimTerminal, type Terminal } from '../src/terminal/index.js';
import type { Series, TickChunk } from '../src/terminal/series.js';
import { isMain } from './is-main.js';
import { latency } from './load.js';

const SYMBOLS = ['EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF', 'USDCAD', 'AUDUSD', 'EURJPY', 'XAUUSD', 'BTCUSD', 'ETHUSD', 'NZDUSD', 'EURGBP'];
const SAMPLED_CLIENTS = 50;
const USAGE = `usage: node dist/bench/events.js [--clients N (1000)] [--symbols S (10, at most 12)] [--seconds T (20)] [--poll-ms P (100)] [--ws]
  N clients (SSE on GET /events, or WebSocket on /ws with --ws) on the same S symbols of the simulator;
  the server in this process (TRADEAPI_HTTP=uws for uWebSockets.js), the clients in a child process.`;
/** A wall-clock instant with sub-millisecond resolution, comparable across processes. */
const now = (): number => performance.timeOrigin + performance.now();

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

export interface ClientReport {
  connected: number;
  refused: number;
  events: number;
  gaps: number;
  dropped: number;
  /** [key, arrival] of the sampled clients' tick events. */
  samples: Array<[string, number]>;
  /** The client process's CPU over the window, % of a core. */
  cpuPct: number;
}

const keyOf = (symbol: string, timeMsc: number, bid: number, ask: number): string => `${symbol}|${timeMsc}|${bid}|${ask}`;

/** The events a client counts: what the feeds deliver, and the gaps that stand for what was dropped (not snapshots nor acks). */
const COUNTED = new Set(['tick', 'book', 'gap', 'deal', 'order', 'position', 'account']);

/** The SSE path and the WebSocket subscribe message for `kinds` ('tick': on `symbols`; account kinds: none). */
function subscription(kinds: string, symbols: string): { path: string; subscribe: string } {
  if (kinds === 'tick') return { path: `/events?symbols=${symbols}`, subscribe: JSON.stringify({ op: 'subscribe', symbols: symbols.split(',') }) };
  return { path: `/events?kinds=${kinds}`, subscribe: JSON.stringify({ op: 'subscribe', kinds: kinds.split(',') }) };
}

/** Child side: open the clients, count for `seconds` after `warmup`, print a report. */
async function clients(port: number, n: number, symbols: string, kinds: string, seconds: number, ws: boolean, probe: boolean): Promise<void> {
  const { path, subscribe } = subscription(kinds, symbols);
  const report: ClientReport = { connected: 0, refused: 0, events: 0, gaps: 0, dropped: 0, samples: [], cpuPct: 0 };
  let counting = false;
  const sampled = (_i: number): boolean => probe;
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const requests: Array<{ destroy(): void }> = [];
  const tickPrefix = Buffer.from('{"event":"tick"');
  const onWsMessage = (i: number, data: Buffer): void => {
    if (!counting) return;
    if (!sampled(i) && data.subarray(0, tickPrefix.length).equals(tickPrefix)) {
      report.events++;
      return;
    }
    const m = JSON.parse(data.toString('utf8')) as { event: string; data?: { symbol: string; time_msc: number; bid: number; ask: number; dropped?: number } };
    if (!COUNTED.has(m.event)) return;
    report.events++;
    if (m.event === 'gap') {
      report.gaps++;
      report.dropped += m.data?.dropped ?? 0;
    } else if (m.event === 'tick' && m.data) report.samples.push([keyOf(m.data.symbol, m.data.time_msc, m.data.bid, m.data.ask), now()]);
  };
  if (ws) {
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        new Promise<void>((resolve) => {
          const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`, { perMessageDeflate: false });
          socket.on('open', () => {
            report.connected++;
            socket.send(subscribe);
            resolve();
          });
          socket.on('message', (data: Buffer) => onWsMessage(i, data));
          socket.on('error', () => {
            report.refused++;
            resolve();
          });
          requests.push({ destroy: () => socket.terminate() });
        }),
      ),
    );
  } else await Promise.all(
    Array.from({ length: n }, (_, i) =>
      new Promise<void>((resolve) => {
        const req = http.get({ host: '127.0.0.1', port, path, agent, headers: { accept: 'text/event-stream' } }, (res) => {
          if (res.statusCode !== 200) {
            report.refused++;
            res.resume();
            resolve();
            return;
          }
          report.connected++;
          const parser = createParser({
            onEvent: (e) => {
              if (!counting || !COUNTED.has(e.event ?? 'message')) return;
              report.events++;
              if (e.event === 'gap') {
                report.gaps++;
                report.dropped += (JSON.parse(e.data) as { dropped?: number }).dropped ?? 0;
              } else if (e.event === 'tick' && sampled(i)) {
                const t = JSON.parse(e.data) as { symbol: string; time_msc: number; bid: number; ask: number };
                report.samples.push([keyOf(t.symbol, t.time_msc, t.bid, t.ask), now()]);
              }
            },
          });
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => parser.feed(chunk));
          resolve();
        });
        req.on('error', () => {
          report.refused++;
          resolve();
        });
        requests.push(req);
      }),
    ),
  );
  process.stderr.write(`${probe ? 'probe' : 'load'} clients: ${report.connected} connected, ${report.refused} refused\n`);
  // Connected: the parent says when to count (once both children are connected and warmed up).
  await new Promise<void>((resolve) => {
    process.once('message', () => resolve());
    process.send?.({ ready: true });
  });
  counting = true;
  process.send?.({ started: now() });
  const cpu0 = process.cpuUsage();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  counting = false;
  const cpu = process.cpuUsage(cpu0);
  report.cpuPct = Math.round(((cpu.user + cpu.system) / 1e6 / seconds) * 100);
  for (const req of requests) req.destroy();
  // Exit only once the report is out: a pending IPC message dies with the process.
  await new Promise<void>((resolve) => process.send?.(report, () => resolve()) ?? resolve());
}

/** Stamps when each tick row left the terminal layer (first time only: polls overlap at the boundary). */
function probed(terminal: Terminal, left: Map<string, number>): Terminal {
  return new Proxy(terminal, {
    get(target, key) {
      if (key !== 'copyTicksFrom') {
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (symbol: string, from: number, count: number, flags: number, opts?: { chunkRows?: number }): Promise<Series<TickChunk>> => {
        const series = await target.copyTicksFrom(symbol, from, count, flags, opts);
        const next = async (): Promise<TickChunk | null> => {
          const chunk = await series.next();
          const at = now();
          if (chunk) {
            for (let i = 0; i < chunk.rows; i++) {
              const key = keyOf(symbol, Number(chunk.time_msc[i]), chunk.bid[i] as number, chunk.ask[i] as number);
              if (!left.has(key)) left.set(key, at);
            }
          }
          return chunk;
        };
        return { ...series, next, close: () => series.close(), [Symbol.asyncIterator]: series[Symbol.asyncIterator].bind(series) };
      };
    },
  });
}

export interface FanOutOptions {
  /** Clients in all (the last SAMPLED_CLIENTS of them are the probe). */
  clients: number;
  /** The tick symbols, comma-separated (kinds 'tick'). */
  symbols: string;
  /** 'tick', or account kinds ('deal,order,position,account'). */
  kinds: string;
  seconds: number;
  ws: boolean;
}

export interface FanOutResult {
  report: ClientReport;
  /** The counting window, s. */
  elapsed: number;
  /** This process's CPU (user + system, every thread: server, simulator, probe) over the window, µs. */
  cpuUs: number;
  rssPeak: number;
  streams: number;
  polled: number;
  queuePeak: number;
}

/**
 * Connects `clients` clients (in two child processes: the load, then the probe) to `server`, waits for
 * them and a warm-up, counts their events for `seconds` while this process's CPU is measured, and
 * closes them.
 */
export async function fanOut(server: Pick<RunningServer, 'port' | 'eventStats'>, o: FanOutOptions): Promise<FanOutResult> {
  const probeN = Math.min(o.clients, SAMPLED_CLIENTS);
  const spawnClients = (count: number, probe: boolean) =>
    spawn(process.execPath, [fileURLToPath(import.meta.url), '--role-clients', String(server.port), String(count), o.symbols, o.kinds, String(o.seconds), o.ws ? '1' : '0', probe ? '1' : '0'], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
  let rssPeak = 0;
  let streams = 0;
  let polled = 0;
  let queuePeak = 0;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    const st = server.eventStats();
    streams = Math.max(streams, st.clients);
    polled = Math.max(polled, st.tickSymbols);
    queuePeak = Math.max(queuePeak, st.peakQueuedBytes);
  }, 250);
  /** Runs a child to its report; `connected` resolves once its clients are all connected. */
  const run = (child: ReturnType<typeof spawn>) => {
    let onConnected!: () => void;
    const connected = new Promise<void>((r) => (onConnected = r));
    const report = new Promise<ClientReport>((resolve, reject) => {
      child.on('message', (m: ClientReport | { started: number } | { ready: true }) => {
        if ('ready' in m) onConnected();
        else if (!('started' in m)) resolve(m);
      });
      // 'close', not 'exit': the report may still be in the IPC channel when the process has exited.
      child.on('close', (code) => reject(new Error(`clients exited with ${code} before their report`)));
    });
    return { child, connected, report };
  };
  const load = o.clients > probeN ? run(spawnClients(o.clients - probeN, false)) : undefined;
  await load?.connected;
  const probe = run(spawnClients(probeN, true));
  await probe.connected;
  await new Promise((r) => setTimeout(r, 3_000)); // warm-up
  const cpu0 = process.cpuUsage();
  const t0 = now();
  rssPeak = process.memoryUsage().rss;
  load?.child.send('go');
  probe.child.send('go');
  const [loadReport, probeReport] = await Promise.all([load?.report, probe.report]);
  const elapsed = (now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  const report: ClientReport = {
    connected: probeReport.connected + (loadReport?.connected ?? 0),
    refused: probeReport.refused + (loadReport?.refused ?? 0),
    events: probeReport.events + (loadReport?.events ?? 0),
    gaps: probeReport.gaps + (loadReport?.gaps ?? 0),
    dropped: probeReport.dropped + (loadReport?.dropped ?? 0),
    samples: probeReport.samples,
    cpuPct: probeReport.cpuPct + (loadReport?.cpuPct ?? 0),
  };
  return { report, elapsed, cpuUs: cpu.user + cpu.system, rssPeak, streams, polled, queuePeak };
}

/** The server's settings for `clients` event clients (all of them admitted) polling every `pollMs`. */
export function fanOutConfig(clients: number, pollMs: number, env: Readonly<Record<string, string>> = {}): Config {
  return loadConfig({
    TRADEAPI_HOST: '127.0.0.1',
    TRADEAPI_PORT: '0',
    TRADEAPI_EVENTS_POLL_MS: String(pollMs),
    TRADEAPI_MAX_EVENT_CLIENTS: String(Math.max(clients, 1)),
    TRADEAPI_MAX_CONNECTIONS: String(clients + 100),
    ...(process.env.TRADEAPI_HTTP ? { TRADEAPI_HTTP: process.env.TRADEAPI_HTTP } : {}),
    ...env,
  });
}

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const n = arg('clients', 1000);
  const s = arg('symbols', 10);
  const seconds = arg('seconds', 20);
  const pollMs = arg('poll-ms', 100);
  const ws = process.argv.includes('--ws');
  const symbols = SYMBOLS.slice(0, s).join(',');
  const left = new Map<string, number>();
  const sim = openSimTerminal({ seed: 42 });
  // Some of them (ETHUSD) are not in a fresh terminal's Market Watch, whose live tick it refuses.
  for (const symbol of SYMBOLS.slice(0, s)) await sim.symbolSelect(symbol, true);
  const config = fanOutConfig(n, pollMs);
  const adapter = pickAdapter(config.http).adapter;
  const server = await startServer({ terminal: probed(sim, left), config, adapter, host: '127.0.0.1', port: 0, logger: createLogger('error') });
  console.log(`== events fan-out: ${n} ${ws ? 'WebSocket' : 'SSE'} clients x ${s} symbols (${symbols}), poll ${pollMs} ms, adapter ${adapter.name}, ${seconds} s ==`);
  const probeN = Math.min(n, SAMPLED_CLIENTS);
  const { report, elapsed, cpuUs, rssPeak, streams, polled, queuePeak } = await fanOut(server, { clients: n, symbols, kinds: 'tick', seconds, ws });
  const lat: number[] = [];
  let unmatched = 0;
  for (const [key, arrival] of report.samples) {
    const at = left.get(key);
    if (at === undefined) unmatched++;
    else lat.push(arrival - at);
  }
  const l = latency(lat);
  console.log(`clients connected ${report.connected}, refused ${report.refused}; server held ${streams} streams and polled ${polled} symbols`);
  console.log(`events delivered: ${report.events} in ${elapsed.toFixed(1)} s = ${Math.round(report.events / elapsed)} events/s`);
  console.log(`latency terminal layer -> client (${lat.length} events of the ${probeN} probe clients, connected last): p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms${unmatched ? ` (${unmatched} unmatched)` : ''}`);
  console.log(`client processes CPU ${report.cpuPct} % of a core`);
  console.log(`gaps ${report.gaps}, dropped ${report.dropped}; server CPU ${((cpuUs / 1e6 / elapsed) * 100).toFixed(0)} % of a core = ${(cpuUs / Math.max(1, report.events)).toFixed(2)} µs per event delivered; RSS peak ${Math.round(rssPeak / 2 ** 20)} MiB; largest client queue ${queuePeak} bytes`);
  await server.close(1000);
  await sim.close();
}

if (isMain(import.meta.url)) {
  const role = process.argv.indexOf('--role-clients');
  if (role >= 0) {
    const [port, n, symbols, kinds, seconds, ws, probe] = process.argv.slice(role + 1);
    await clients(Number(port), Number(n), symbols as string, kinds as string, Number(seconds), ws === '1', probe === '1');
    process.exit(0);
  } else {
    await main();
  }
}
