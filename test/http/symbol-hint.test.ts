// Issue 23 item 4, second friction: `eurusd` gave a plain 404. Every route that names a symbol (in
// its path, its query, the body of /order/check, the symbols of /events and of a WebSocket
// subscribe) now says which symbol names match it case-insensitively ("did you mean EURUSD?"),
// still as a 404 /errors/symbol-not-found; a name that matches none says where the names are. The
// names come from a cached list: a burst of 404s costs at most one symbols_get.
import t from 'tap';

import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import type { Terminal } from '../../src/terminal/index.js';
import { expectProblem, forEachAdapter, serve, serveReadOnly, simTerminal, READ_ONLY_KEY } from '../helpers/server.js';
import { WsClient } from '../helpers/ws.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

/** The terminal, counting its symbols_get calls. */
function counting(inner: Terminal): { terminal: Terminal; symbolsGet: () => number } {
  let calls = 0;
  const terminal = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'symbolsGet') {
        return (group?: string) => {
          calls += 1;
          return target.symbolsGet(group);
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { terminal, symbolsGet: () => calls };
}

const json = { 'content-type': 'application/json' };
/** Every HTTP route that names a symbol, asking for `eurusd`. */
const ROUTES: Array<[string, string, RequestInit?]> = [
  ['GET', '/symbols/eurusd'],
  ['GET', '/symbols/eurusd/tick'],
  ['POST', '/symbols/eurusd/select?enable=true'],
  ['GET', '/rates/from?symbol=eurusd&timeframe=TIMEFRAME_H1&date_from=2024-01-09T00:00:00Z&count=10'],
  ['GET', '/rates/from-pos?symbol=eurusd&timeframe=TIMEFRAME_H1&start_pos=0&count=10'],
  ['GET', '/rates/range?symbol=eurusd&timeframe=TIMEFRAME_H1&date_from=2024-01-09T00:00:00Z&date_to=2024-01-10T00:00:00Z'],
  ['GET', '/ticks/from?symbol=eurusd&date_from=2024-01-09T00:00:00Z&count=10'],
  ['GET', '/ticks/range?symbol=eurusd&date_from=2024-01-09T00:00:00Z&date_to=2024-01-09T01:00:00Z'],
  ['GET', '/market-book/eurusd'],
  ['POST', '/market-book/eurusd/subscribe'],
  ['GET', '/calc/margin?action=ORDER_TYPE_BUY&symbol=eurusd&volume=1&price=1.1'],
  ['GET', '/calc/profit?action=ORDER_TYPE_BUY&symbol=eurusd&volume=1&price_open=1.1&price_close=1.2'],
  ['POST', '/order/check', { headers: json, body: JSON.stringify({ request: { action: 1, symbol: 'eurusd', volume: 0.1, type: 0 } }) }],
  ['GET', '/events?symbols=EURUSD,eurusd', { headers: { accept: 'text/event-stream' } }],
];

await forEachAdapter(t, async (t, adapter) => {
  const { terminal: watched, symbolsGet } = counting(terminal);
  const s = await serve(t, adapter, watched);

  await t.test('each route that names a symbol: 404 with the names that match case-insensitively', async (t) => {
    for (const [method, path, init] of ROUTES) {
      const res = await fetch(s.base + path, { method, ...init });
      const p = await expectProblem(t, res, 404, '/errors/symbol-not-found', path.split('?')[0]);
      t.match(p.detail, /"eurusd" is not known to the terminal/, `${method} ${path}: names what was asked`);
      t.match(p.detail, /did you mean EURUSD\?$/, `${method} ${path}: ${p.detail}`);
    }
  });

  await t.test('a name no symbol matches: no guess, but where the names are', async (t) => {
    const p = await expectProblem(t, await s.get('/symbols/NOPE'), 404, '/errors/symbol-not-found');
    t.notMatch(p.detail, /did you mean/);
    t.match(p.detail, /no symbol matches it case-insensitively \(GET …\/symbols lists them\)$/, p.detail);
    // Mixed case and a wrong one alike.
    const q = await expectProblem(t, await s.get('/symbols/UsdJpy'), 404, '/errors/symbol-not-found');
    t.match(q.detail, /did you mean USDJPY\?$/);
  });

  await t.test('cheap: one symbols_get serves a burst of 404s', async (t) => {
    const before = symbolsGet();
    await Promise.all(Array.from({ length: 20 }, async (_, i) => (await s.get(`/symbols/eurusd${i % 2 === 0 ? '' : 'x'}`)).arrayBuffer()));
    t.ok(symbolsGet() - before <= 1, `${symbolsGet() - before} symbols_get calls for 20 404s (the names are cached)`);
    // A symbol that exists costs nothing extra.
    const known = symbolsGet();
    t.equal((await s.get('/symbols/EURUSD')).status, 200);
    t.equal(symbolsGet(), known, 'no names fetched for a found symbol');
  });

  await t.test('a WebSocket subscribe to eurusd: the error event says it too', async (t) => {
    const ws = await WsClient.open(`${s.base.replace('http', 'ws')}/ws`);
    t.teardown(() => ws.close());
    ws.send({ op: 'subscribe', symbols: ['eurusd'] });
    const error = await ws.next('error');
    const problem = error.problem as { status: number; detail: string };
    t.equal(problem.status, 404);
    t.match(problem.detail, /did you mean EURUSD\?$/);
  });
});

t.test('read-only variant: the same hint under /api/v1', async (t) => {
  const s = await serveReadOnly(t, nodeAdapter, terminal);
  const p = await expectProblem(t, await s.get('/api/v1/symbols/eurusd', { headers: { 'x-api-key': READ_ONLY_KEY } }), 404, '/errors/symbol-not-found');
  t.match(p.detail, /did you mean EURUSD\?$/);
});
