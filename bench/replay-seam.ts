// The seam of a replay that runs into live (issue 36 §3: "the seam adds no more than one poll
// interval of delay"). Two SSE clients of one server on the simulator's wall clock, same symbols:
// a live one (no start), connected first, and a replay from --minutes ago at speed 0. Each tick
// event's arrival is stamped on both; for every tick both received, the replay client's arrival
// minus the live client's is what the replay added. Reported over the ticks the live client got
// after the replay client's `replay-complete` (the first --seam-ms of live after the seam), and over
// those of the steady state after it, against TRADEAPI_EVENTS_POLL_MS.
//   npm run build:ts && node dist/bench/replay-seam.js [--minutes 30] [--seconds 20] [--seam-ms 1000] [--poll-ms 100]
// The server and both clients run in this process (node:http, or TRADEAPI_HTTP=uws): both clients
// share its event loop, so a difference is the server's, not one client's parsing against another's.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

import { createParser } from 'eventsource-parser';

import { loadConfig } from '../src/config/index.js';
import { pickAdapter } from '../src/http/adapters/index.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/server.js';
import { openSimTerminal } from '../src/terminal/index.js';
import { isMain } from './is-main.js';
import { latency } from './load.js';

const USAGE = `usage: node dist/bench/replay-seam.js [--minutes M (30)] [--seconds T (20)] [--seam-ms S (1000)] [--poll-ms P (100)] [--symbols BTCUSD,ETHUSD]
  A live SSE client and a replay from M minutes ago (speed 0) on the same symbols; the replay's
  extra delay per tick (its arrival minus the live client's), at the seam and after it.`;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

interface Stream {
  /** Arrival (ms, performance.now) of each tick, by symbol|time_msc|bid|ask|occurrence. */
  readonly ticks: Map<string, number>;
  /** When `replay-complete` arrived (NaN: not yet). */
  seamAt: number;
  replayed: number;
  close(): void;
}

function open(url: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const stream: Stream = { ticks: new Map(), seamAt: NaN, replayed: 0, close: () => req.destroy() };
    const seen = new Map<string, number>();
    const parser = createParser({
      onEvent(e) {
        const at = performance.now();
        if (e.event === 'replay-complete') {
          stream.seamAt = at;
          stream.replayed = (JSON.parse(e.data) as { ticks: number }).ticks;
          return;
        }
        if (e.event !== 'tick') return;
        const d = JSON.parse(e.data) as { symbol: string; time_msc: number; bid: number; ask: number };
        const base = `${d.symbol}|${d.time_msc}|${d.bid}|${d.ask}`;
        const n = seen.get(base) ?? 0;
        seen.set(base, n + 1);
        stream.ticks.set(`${base}|${n}`, at);
      },
    });
    const req = http.get(url, { agent: false }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`${url}: status ${res.statusCode}`));
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => parser.feed(chunk));
      res.on('error', () => undefined);
      resolve(stream);
    });
    req.on('error', (e) => (stream.seamAt ? undefined : reject(e)));
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(USAGE);
    return;
  }
  const minutes = Number(arg('minutes', '30'));
  const seconds = Number(arg('seconds', '20'));
  const seamMs = Number(arg('seam-ms', '1000'));
  const pollMs = arg('poll-ms', '100');
  const symbols = arg('symbols', 'BTCUSD,ETHUSD'); // crypto trades at weekends too
  const sim = openSimTerminal({ seed: 42 }); // the wall clock: ticks arrive live
  const config = loadConfig({ TRADEAPI_HOST: '127.0.0.1', TRADEAPI_PORT: '0', TRADEAPI_EVENTS_POLL_MS: pollMs, ...(process.env.TRADEAPI_HTTP ? { TRADEAPI_HTTP: process.env.TRADEAPI_HTTP } : {}) });
  const adapter = pickAdapter(config.http).adapter;
  const server = await startServer({ terminal: sim, config, adapter, host: '127.0.0.1', port: 0, logger: createLogger('error') });
  const base = `http://127.0.0.1:${server.port}/events?symbols=${symbols}`;
  try {
    // Shown in Market Watch (as MT5 wants for live ticks): the simulator hides some by default.
    for (const s of symbols.split(',')) await fetch(`http://127.0.0.1:${server.port}/symbols/${s}/select?enable=true`, { method: 'POST' });
    console.log(`== replay seam: ${symbols}, replay from ${minutes} min ago at speed 0, poll ${pollMs} ms, adapter ${adapter.name} ==`);
    const live = await open(base);
    await sleep(2_000);
    const startIso = new Date(Date.now() - minutes * 60_000).toISOString();
    const began = performance.now();
    const replay = await open(`${base}&start=${startIso}&speed=0`);
    await sleep(seconds * 1_000);
    live.close();
    replay.close();
    if (Number.isNaN(replay.seamAt)) throw new Error(`no replay-complete within ${seconds} s: raise --seconds or lower --minutes`);
    const atSeam: number[] = [];
    const after: number[] = [];
    for (const [key, liveAt] of live.ticks) {
      const replayAt = replay.ticks.get(key);
      if (replayAt === undefined || liveAt < replay.seamAt) continue;
      (liveAt < replay.seamAt + seamMs ? atSeam : after).push(replayAt - liveAt);
    }
    const fmt = (what: string, v: number[]): string => {
      const l = latency(v);
      return `${what.padEnd(34)} ${String(v.length).padStart(6)} ticks  extra delay p50 ${l.p50} ms  p99 ${l.p99} ms  max ${l.max} ms`;
    };
    console.log(`history: ${replay.replayed} ticks in ${(replay.seamAt - began).toFixed(0)} ms, then replay-complete`);
    console.log(fmt(`the first ${seamMs} ms after the seam`, atSeam));
    console.log(fmt('after that (steady state)', after));
    const worst = Math.max(...atSeam);
    console.log(`target: the seam adds at most one poll interval (${pollMs} ms): ${atSeam.length === 0 ? 'no ticks at the seam (raise --seconds)' : worst <= Number(pollMs) ? 'met' : 'NOT met'} (worst ${worst.toFixed(1)} ms)`);
  } finally {
    await server.close(1_000);
    await sim.close();
  }
}

if (isMain(import.meta.url)) await main();
