// HTTP figures against the real CLI in a child process (so client and server do not share a
// thread): /health at 64 concurrent connections, and /rates/from with 999 M1 bars, 100 requests at
// once. Build first: npm run build:ts && node dist/bench/http.js  (TRADEAPI_HTTP=node|uws to force).
import { burst, loadFor, startTradeapi } from './load.js';

const JSON_ONLY = { accept: 'application/json' };
const ms = (x: number): string => `${x.toFixed(2)} ms`;

async function main(): Promise<void> {
  const rates = '/rates/from?symbol=EURUSD&timeframe=TIMEFRAME_M1&date_from=2024-01-10T00:00:00Z&count=999';
  for (const level of ['INFO', 'ERROR']) {
    const { server, port, adapter } = await startTradeapi(`http-${level}`, [], { TRADEAPI_LOG_LEVEL: level, TRADEAPI_SECRET_KEY: '' }, '/health');
    try {
      console.log(`\n== adapter ${adapter}, log level ${level} ==`);
      await loadFor(port, '/health', JSON_ONLY, 64, 1); // warm-up
      const h = await loadFor(port, '/health', JSON_ONLY, 64, 5);
      console.log(`/health, 64 connections, 5 s: ${h.rps.toFixed(0)} req/s, p50 ${ms(h.p50)}, p99 ${ms(h.p99)}, errors ${h.errors}`);
      for (const accept of ['application/json', 'application/parquet']) {
        await burst(port, rates, { accept }, 100, 2); // warm-up
        const r = await burst(port, rates, { accept }, 100, 10);
        console.log(
          `/rates/from 999 M1 bars, 100 at once x10, ${accept}: p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, 100 requests in ${ms(r.wallP50)} (median round), ${r.bytes} bytes each, errors ${r.errors}`,
        );
      }
    } finally {
      await server.stop();
    }
  }
}

await main();
