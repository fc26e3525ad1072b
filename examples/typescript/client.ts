// tradeapi from TypeScript, typed from the gateway's own OpenAPI document: openapi-typescript made
// ./schema.d.ts from /openapi.json, openapi-fetch checks every path, parameter and answer against it.
// EURUSD's details, its latest tick and a day of H1 bars; a refused request stops with the problem.
//   TRADEAPI_URL      the gateway, prefix included (default http://127.0.0.1:8000; read-only: …/api/v1)
//   TRADEAPI_API_KEY  sent as X-API-Key when set
import createClient from 'openapi-fetch';

import type { paths } from './schema.js';

const baseUrl = process.env.TRADEAPI_URL ?? 'http://127.0.0.1:8000';
const key = process.env.TRADEAPI_API_KEY;
// JSON answers and JSON problems: the Parquet and Arrow answers are bytes, for other readers.
const api = createClient<paths, 'application/json' | 'application/problem+json'>({ baseUrl, headers: key ? { 'X-API-Key': key } : {} });

/** The body of a 2xx answer, or an error naming the problem (RFC 9457) the gateway answered. */
function ok<T>(answer: { data?: T; error?: { title: string; detail: string; status: number } | undefined; response: Response }): T {
  if (answer.error !== undefined || answer.data === undefined) {
    const p = answer.error;
    throw new Error(`${answer.response.url}: ${p ? `${p.status} ${p.title}: ${p.detail}` : answer.response.status}`);
  }
  return answer.data;
}

const symbol = ok(await api.GET('/symbols/{symbol}', { params: { path: { symbol: 'EURUSD' } } }));
const tick = ok(await api.GET('/symbols/{symbol}/tick', { params: { path: { symbol: symbol.name } } }));
const bars = ok(
  await api.GET('/rates/from', {
    params: { query: { symbol: symbol.name, timeframe: 'TIMEFRAME_H1', date_from: '2024-01-10T00:00:00Z', count: 24 } },
  }),
);

const spread = Math.round((tick.ask - tick.bid) / symbol.point);
console.log(`${symbol.name} (${symbol.description}): ${symbol.digits} digits, point ${symbol.point}`);
console.log(`tick ${new Date(tick.time_msc).toISOString()}: bid ${tick.bid} ask ${tick.ask} (spread ${spread} points)`);
const high = Math.max(...bars.map((b) => b.high));
const low = Math.min(...bars.map((b) => b.low));
const first = bars[0];
console.log(`${bars.length} H1 bars from ${first ? new Date(first.time * 1000).toISOString() : '-'}: high ${high} low ${low}`);
