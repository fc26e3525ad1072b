// The response examples in /openapi.json are the simulator's own answers (src/routes/examples.ts):
// present on every route that has an example request, valid against the route's response schema,
// and equal to what a server over a simulator with the same frozen clock answers the same request.
import { TypeCompiler } from '@sinclair/typebox/compiler';
import t from 'tap';

import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import { routeTable } from '../../src/routes/index.js';
import { EXAMPLE_NOW_MS, EXAMPLE_REQUESTS, NAMED_EXAMPLE_REQUESTS, exampleKey } from '../../src/routes/examples.js';
import { openSimTerminal } from '../../src/terminal/index.js';
import { serve } from '../helpers/server.js';

interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> }> }>>;
}

// The same simulator the examples come from (a frozen clock, the default seed).
const terminal = openSimTerminal({ nowMs: EXAMPLE_NOW_MS, accountAnchor: Date.UTC(2024, 0, 10) / 1000 });
t.teardown(() => terminal.close());

const s = await serve(t, nodeAdapter, terminal, { TRADEAPI_ROUTER_PREFIX: '/v2' });
const doc = (await (await s.get('/v2/openapi.json')).json()) as Doc;
const routes = routeTable({ prefix: '/v2', version: '0', authRequired: false, readOnly: false });

const media = (method: string, path: string) => doc.paths[`/v2${path}`]?.[method.toLowerCase()]?.responses['200']?.content?.['application/json'];
// The main example: `example`, or the `default` of `examples` where a route has named ones too.
const example = (method: string, path: string): unknown => {
  const m = media(method, path);
  return m?.examples ? m.examples.default?.value : m?.example;
};

t.test('every route with an example request has its example, valid against its schema', async (t) => {
  const keys = Object.keys(EXAMPLE_REQUESTS);
  t.ok(keys.length >= 25, `${keys.length} example requests`);
  for (const key of keys) {
    const [method, path] = key.split(' ') as [string, string];
    const route = routes.find((r) => exampleKey(r) === key);
    if (!route) {
      t.fail(`${key}: no such route`);
      continue;
    }
    const value = example(method, path);
    t.ok(value !== undefined, `${key}: example present`);
    if (Array.isArray(value)) t.ok(value.length >= 1 && value.length <= 3, `${key}: 1 to 3 rows (${value.length})`);
    if (route.response.schema) {
      const check = TypeCompiler.Compile(route.response.schema);
      t.ok(check.Check(value), `${key}: the example matches the response schema`, { errors: [...check.Errors(value)].slice(0, 3) });
    }
  }
  for (const kind of ['series', 'records'] as const) {
    const some = routes.filter((r) => r.response.kind === kind && !r.hidden && example(r.method, r.path) !== undefined);
    t.ok(some.length >= 4, `${kind} routes have examples (${some.length})`);
  }
});

t.test('realistic: not zeros and "string" but market data', async (t) => {
  const tick = example('GET', '/symbols/{symbol}/tick') as { bid: number; ask: number; time_msc: number };
  t.ok(tick.bid > 0.5 && tick.bid < 2 && tick.ask > tick.bid, `EURUSD bid ${tick.bid} < ask ${tick.ask}`);
  t.ok(Math.abs(tick.time_msc - EXAMPLE_NOW_MS) < 86_400_000, 'a tick near the examples clock');
  const bars = example('GET', '/rates/from') as Array<{ open: number; high: number; low: number; close: number; time: number }>;
  t.equal(bars.length, 3);
  for (const b of bars) t.ok(b.low <= Math.min(b.open, b.close) && b.high >= Math.max(b.open, b.close), 'a bar whose OHLC agree');
  t.equal((bars[1]?.time ?? 0) - (bars[0]?.time ?? 0), 3600, 'H1 bars an hour apart');
  const symbol = example('GET', '/symbols/{symbol}') as { name: string; digits: number };
  t.match(symbol, { name: 'EURUSD', digits: 5 });
  t.match(example('POST', '/order/check'), { retcode: 0, request: { symbol: 'USDJPY' } });
});

t.test('the named examples (multi-symbol range routes) are what the server answers to their requests', async (t) => {
  for (const [key, extras] of Object.entries(NAMED_EXAMPLE_REQUESTS)) {
    const [method, path] = key.split(' ') as [string, string];
    for (const extra of extras) {
      const res = await s.get(`/v2${path}?${extra.query ?? ''}`);
      t.equal(res.status, 200, `${key} ${extra.name}: 200`);
      const body = ((await res.json()) as unknown[]).slice(0, 3);
      t.same(media(method, path)?.examples?.[extra.name]?.value, body, `${key} ${extra.name}: the example is the server's answer`);
      t.match(body[0], { symbol: String }, `${key} ${extra.name}: rows with their symbol`);
    }
  }
});

t.test('each GET example is what the server answers to that request', async (t) => {
  for (const [key, request] of Object.entries(EXAMPLE_REQUESTS)) {
    const [method, path] = key.split(' ') as [string, string];
    // last_error() reports the latest call of the terminal, whichever it was.
    if (method !== 'GET' || path === '/last-error') continue;
    const url = `/v2${path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(request.params?.[name] ?? ''))}${request.query ? `?${request.query}` : ''}`;
    const res = await s.get(url);
    t.equal(res.status, 200, `${url}: 200`);
    const body = (await res.json()) as unknown;
    const expected = Array.isArray(body) ? body.slice(0, 3) : body;
    t.same(example(method, path), expected, `${key}: the example is the server's answer`);
  }
});
