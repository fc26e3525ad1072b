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
import { writeFileSync } from 'node:fs';

import { isMain } from './is-main.js';
import { burst, loadFor, round, sequential, startTradeapi, type Latency, type Tradeapi } from './load.js';

const KEY = 'bench-read-only-key';
const ORIGIN = 'https://app.example.com';

/** The spec's targets, in milliseconds. */
export const TARGETS = { healthMs: 500, marketDataMs: 2000 } as const;

function startServer(readOnly: boolean, logLevel: string): Promise<Tradeapi> {
  const env = readOnly
    ? { API_LOG_LEVEL: logLevel, TRADE_API_KEY: KEY, API_RATE_LIMIT: '1000000000', API_CORS_ORIGINS: ORIGIN }
    : { TRADEAPI_LOG_LEVEL: logLevel, TRADEAPI_SECRET_KEY: KEY, TRADEAPI_ROUTER_PREFIX: '/api/v1' };
  return startTradeapi(`readonly-${readOnly}-${logLevel}`, readOnly ? ['--read-only'] : [], env, '/api/v1/health');
}

const headersFor = (accept: string): Record<string, string> => ({ accept, 'x-api-key': KEY, origin: ORIGIN });
const JSON_HEADERS = headersFor('application/json');

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
    await loadFor(port, '/api/v1/health', JSON_HEADERS, 64, 1); // warm-up
    const healthAlone = await sequential(port, '/api/v1/health', JSON_HEADERS, 200);
    const under64 = await loadFor(port, '/api/v1/health', JSON_HEADERS, 64, 5);
    const health100 = await burst(port, '/api/v1/health', JSON_HEADERS, 100, 10);
    const healthErrors = healthAlone.errors + under64.errors + health100.errors;
    const healthOk = under64.p99 < TARGETS.healthMs && health100.p99 < TARGETS.healthMs && healthErrors === 0;
    console.log(
      `/health: alone p50 ${ms(healthAlone.p50)} p99 ${ms(healthAlone.p99)}; 64 connections x 5 s ${under64.rps} req/s p50 ${ms(under64.p50)} p99 ${ms(under64.p99)}; ` +
        `100 at once p50 ${ms(health100.p50)} p99 ${ms(health100.p99)}; errors ${healthErrors}; target < ${TARGETS.healthMs} ms: ${healthOk ? 'met' : 'MISSED'}`,
    );

    const queries: QueryFigures[] = [];
    for (const q of QUERIES) {
      await burst(port, q.path, headersFor(q.accept), 100, 2); // warm-up
      const alone = await sequential(port, q.path, headersFor(q.accept), 50);
      const at100 = await burst(port, q.path, headersFor(q.accept), 100, 10);
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
      guards: { path: '/api/v1/version', readOnly: await loadFor(port, '/api/v1/version', JSON_HEADERS, 64, 5), full: { p50: NaN, p99: NaN, max: NaN, rps: NaN } },
    };
  } finally {
    await server.server.stop();
  }
  // The same /version load against the full variant (same key and prefix, no limiter, no CORS).
  const full = await startServer(false, logLevel);
  try {
    await loadFor(full.port, '/api/v1/version', JSON_HEADERS, 64, 1); // warm-up
    figures.guards.full = await loadFor(full.port, '/api/v1/version', JSON_HEADERS, 64, 5);
  } finally {
    await full.server.stop();
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
