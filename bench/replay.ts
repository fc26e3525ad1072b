// A replay at speed 0 to one SSE client: GET /events?start=…&end=… (a pure replay, so the stream
// ends and the run has a last byte), ticks per second from sending the request to the last byte,
// against GET /ticks/range of the same span in JSON in the same run (the ratio is what a loaded
// machine distorts least). Target (issue 36): at least 1 M ticks/s.
//   npm run build:ts && node dist/bench/replay.js [--days 7] [--symbol EURUSD]
// The server runs in this process (node:http, or TRADEAPI_HTTP=uws) on a frozen simulator; the
// client is the benches' lean GET (bench/raw-get.ts), which only counts each event's '{' (a tick
// event's data is one flat object; the closing replay-end marker is the one more).
import { loadConfig } from '../src/config/index.js';
import { pickAdapter } from '../src/http/adapters/index.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/server.js';
import { openSimTerminal } from '../src/terminal/index.js';
import { isMain } from './is-main.js';
import { pull, JsonSink } from './pull.js';

const USAGE = `usage: node dist/bench/replay.js [--days D (7)] [--symbol S (EURUSD)]
  One SSE client replays D days of S's simulated ticks at speed 0 (start=…&end=…), then the same
  span is pulled from /ticks/range as JSON; ticks/s of each and their ratio.`;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const NOW_MS = Date.UTC(2024, 0, 10, 12);

export async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(USAGE);
    return;
  }
  const days = Number(arg('days', '7'));
  const symbol = arg('symbol', 'EURUSD');
  const sim = openSimTerminal({ seed: 42, nowMs: NOW_MS });
  const config = loadConfig({ TRADEAPI_HOST: '127.0.0.1', TRADEAPI_PORT: '0', ...(process.env.TRADEAPI_HTTP ? { TRADEAPI_HTTP: process.env.TRADEAPI_HTTP } : {}) });
  const adapter = pickAdapter(config.http).adapter;
  const server = await startServer({ terminal: sim, config, adapter, host: '127.0.0.1', port: 0, logger: createLogger('error') });
  const base = `http://127.0.0.1:${server.port}`;
  const end = new Date(NOW_MS - 60_000).toISOString();
  const start = new Date(NOW_MS - 60_000 - days * 86_400_000).toISOString();
  try {
    console.log(`== replay at speed 0, one SSE client: ${symbol}, ${start} .. ${end}, adapter ${adapter.name} ==`);
    const replay = await pull(`${base}/events?symbols=${symbol}&start=${start}&end=${end}`, 'json');
    const replayTicks = (replay.sink as JsonSink).braces - 1;
    const range = await pull(`${base}/ticks/range?symbol=${symbol}&date_from=${start}&date_to=${end}`, 'json');
    const rangeTicks = (await range.sink.check()).rows;
    if (replay.status !== 200 || range.status !== 200) throw new Error(`status ${replay.status} / ${range.status}: ${replay.errorText}${range.errorText}`);
    if (replayTicks !== rangeTicks) throw new Error(`the replay sent ${replayTicks} ticks, /ticks/range has ${rangeTicks}`);
    const rate = (n: number, ms: number): number => n / (ms / 1000);
    const replayRate = rate(replayTicks, replay.totalMs);
    const rangeRate = rate(rangeTicks, range.totalMs);
    const row = (what: string, n: number, ms: number, bytes: number): string =>
      `${what.padEnd(22)} ${String(n).padStart(10)} ticks  ${(ms / 1000).toFixed(2).padStart(7)} s  ${(rate(n, ms) / 1e6).toFixed(2).padStart(6)} M ticks/s  ${(bytes / 1e6).toFixed(0).padStart(6)} MB`;
    console.log(row('replay (SSE, speed 0)', replayTicks, replay.totalMs, replay.bytes));
    console.log(row('/ticks/range (JSON)', rangeTicks, range.totalMs, range.bytes));
    console.log(`replay / range: ${(replayRate / rangeRate).toFixed(2)}x; target >= 1 M ticks/s: ${replayRate >= 1e6 ? 'met' : 'NOT met'}`);
  } finally {
    await server.close(1_000);
    await sim.close();
  }
}

if (isMain(import.meta.url)) await main();
