// Read-only mode (`serve --read-only`): the full variant's route table filtered to its read routes,
// under the fixed prefix /api/v1, every route but /api/v1/health behind X-API-Key.
import t from 'tap';

import { READ_ONLY_ENDPOINTS } from '../helpers/readonly.js';
import { expectProblem, forEachAdapter, READ_ONLY_KEY, serveReadOnly, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const KEY = { headers: { 'x-api-key': READ_ONLY_KEY } };
await forEachAdapter(t, async (t, adapter) => {
  const s = await serveReadOnly(t, adapter, terminal, { API_RATE_LIMIT: '100000' });

  await t.test('every read route under /api/v1 answers with the key', async (t) => {
    for (const [, request] of READ_ONLY_ENDPOINTS) {
      const res = await s.get(`/api/v1${request}`, KEY);
      t.equal(res.status, 200, `GET /api/v1${request}`);
      await res.arrayBuffer();
    }
    const parquet = await s.get('/api/v1/rates/from?symbol=EURUSD&timeframe=1&date_from=2024-01-10T00:00:00Z&count=10', {
      headers: { 'x-api-key': READ_ONLY_KEY, accept: 'application/parquet' },
    });
    t.equal(parquet.headers.get('content-type'), 'application/parquet', 'formats work as in the full variant');
    t.equal(Buffer.from(await parquet.arrayBuffer()).subarray(0, 4).toString(), 'PAR1');
    t.match(await (await s.get('/api/v1/symbols/EURUSD', KEY)).json(), { name: 'EURUSD', digits: 5 });
  });

  await t.test('the key is required everywhere but /api/v1/health', async (t) => {
    const health = await s.get('/api/v1/health');
    t.equal(health.status, 200, 'health needs no key');
    t.match(await health.json(), { status: 'ok' });
    for (const [path, request] of READ_ONLY_ENDPOINTS) {
      if (path === '/health') continue;
      const url = `/api/v1${request}`;
      const instance = url.split('?')[0];
      const missing = await expectProblem(t, await s.get(url), 401, '/errors/unauthorized', instance);
      const wrong = await expectProblem(t, await s.get(url, { headers: { 'x-api-key': `${READ_ONLY_KEY}x` } }), 401, '/errors/unauthorized', instance);
      t.equal(missing.detail, wrong.detail, 'no hint whether the key was missing or wrong');
      await expectProblem(t, await s.get(url, { headers: { 'x-api-key': '' } }), 401, '/errors/unauthorized');
    }
    await expectProblem(t, await s.get('/api/v1/openapi.json'), 401, '/errors/unauthorized', '/api/v1/openapi.json');
    const doc = await s.get('/api/v1/openapi.json', KEY);
    t.equal(doc.status, 200, 'the OpenAPI document with the key');
    await doc.arrayBuffer();
    // The docs page and its files are public and not counted; the page asks for the key itself.
    for (const path of ['/api/v1/docs', '/api/v1/docs/swagger-ui.css', '/api/v1/docs/swagger-initializer.js']) {
      const res = await s.get(path);
      t.equal(res.status, 200, `${path} without a key`);
      t.notOk(res.headers.get('ratelimit-limit'), `${path} is not rate-counted`);
      await res.arrayBuffer();
    }
    const root = await s.get('/', { redirect: 'manual' });
    t.equal(root.status, 302, '/ leads to the docs');
    t.equal(root.headers.get('location'), '/api/v1/docs');
    await root.arrayBuffer();
    // Unknown paths answer 401 too: an anonymous client learns nothing about what exists.
    await expectProblem(t, await s.get('/api/v1/nope'), 401, '/errors/unauthorized', '/api/v1/nope');
    await expectProblem(t, await s.post('/api/v1/order/check'), 401, '/errors/unauthorized');
  });

  await t.test('operational routes do not exist', async (t) => {
    const json = { ...KEY.headers, 'content-type': 'application/json' };
    const body = JSON.stringify({ request: { action: 1, symbol: 'EURUSD', volume: 0.1, type: 0, price: 1.1 } });
    await expectProblem(t, await s.post('/api/v1/order/check', { headers: json, body }), 404, '/errors/not-found', '/api/v1/order/check');
    await expectProblem(t, await s.post('/api/v1/symbols/EURGBP/select?enable=false', KEY), 404, '/errors/not-found', '/api/v1/symbols/EURGBP/select');
    await expectProblem(t, await s.post('/api/v1/market-book/EURUSD/subscribe', KEY), 404, '/errors/not-found');
    await expectProblem(t, await s.post('/api/v1/market-book/EURUSD/unsubscribe', KEY), 404, '/errors/not-found');
    await expectProblem(t, await s.get('/api/v1/market-book/EURUSD/subscribe', KEY), 404, '/errors/not-found');
    // Reading the book needs a subscription, which only the operational routes can make.
    await expectProblem(t, await s.get('/api/v1/market-book/EURUSD', KEY), 404, '/errors/not-found', '/api/v1/market-book/EURUSD');
    // Margin and profit calculation: the spec names them among the full variant's extras.
    await expectProblem(t, await s.get('/api/v1/calc/margin?action=0&symbol=EURUSD&volume=1&price=1.1', KEY), 404, '/errors/not-found', '/api/v1/calc/margin');
    await expectProblem(t, await s.get('/api/v1/calc/profit?action=0&symbol=EURUSD&volume=1&price_open=1.1&price_close=1.2', KEY), 404, '/errors/not-found');
    t.equal(s.server.subscriptions.active, 0, 'nothing was subscribed');
    // A path that exists for GET answers 405 to another method.
    const post = await s.post('/api/v1/symbols/EURUSD', KEY);
    t.equal(post.headers.get('allow'), 'GET, HEAD');
    await expectProblem(t, post, 405, '/errors/method-not-allowed', '/api/v1/symbols/EURUSD');
    const del = await s.get('/api/v1/account', { method: 'DELETE', ...KEY });
    await expectProblem(t, del, 405, '/errors/method-not-allowed');
  });

  await t.test('only /api/v1: no root-level routes', async (t) => {
    await expectProblem(t, await s.get('/version', KEY), 404, '/errors/not-found', '/version');
    await expectProblem(t, await s.get('/health', KEY), 404, '/errors/not-found', '/health');
    await expectProblem(t, await s.get('/api/v2/health', KEY), 404, '/errors/not-found');
    await expectProblem(t, await s.get('/api/v1', KEY), 404, '/errors/not-found');
  });

  await t.test('validation works as in the full variant', async (t) => {
    const body = await expectProblem(
      t,
      await s.get('/api/v1/rates/from?symbol=EURUSD&timeframe=1&date_from=2024-01-10T00:00:00Z&count=0', KEY),
      400,
      '/errors/validation-error',
      '/api/v1/rates/from',
    );
    t.equal(body.title, 'Request Validation Failed');
    t.match(body.detail, /count/);
    await expectProblem(t, await s.get('/api/v1/symbols/NOPE', KEY), 404, '/errors/symbol-not-found', '/api/v1/symbols/NOPE');
  });
});

await forEachAdapter(t, async (t, adapter) => {
  await t.test('the full variant\'s variables have no effect', async (t) => {
    const s = await serveReadOnly(t, adapter, terminal, {
      TRADEAPI_ROUTER_PREFIX: '/custom',
      TRADEAPI_SECRET_KEY: 'full-variant-key',
      TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS: '0',
      TRADEAPI_LOG_LEVEL: 'nonsense',
    });
    t.equal((await s.get('/api/v1/health')).status, 200, 'still /api/v1');
    await expectProblem(t, await s.get('/custom/health', KEY), 404, '/errors/not-found', '/custom/health');
    await expectProblem(t, await s.get('/custom/api/v1/health', KEY), 404, '/errors/not-found');
    await expectProblem(t, await s.get('/api/v1/version', { headers: { 'x-api-key': 'full-variant-key' } }), 401, '/errors/unauthorized');
    const ok = await s.get('/api/v1/version', KEY);
    t.equal(ok.status, 200, 'TRADE_API_KEY is the key');
    await ok.arrayBuffer();
  });
});
