// Routing, problems, auth, prefix, request ids and content negotiation, through a real server.
import t from 'tap';

import { expectProblem, forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

await forEachAdapter(t, async (t, adapter) => {
  await t.test('routing and problems', async (t) => {
    const s = await serve(t, adapter, terminal);
    const health = await s.get('/health');
    t.equal(health.status, 200);
    t.match(await health.json(), { status: 'ok', terminal: { connected: true, version: { terminal_version: Number, build: Number } } });
    t.match(health.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, 'request id returned');

    const echoed = await s.get('/version', { headers: { 'x-request-id': 'abc-123' } });
    t.equal(echoed.headers.get('x-request-id'), 'abc-123', 'a sane incoming request id is kept');

    await expectProblem(t, await s.get('/nope?x=1'), 404, '/errors/not-found', '/nope');
    await expectProblem(t, await s.get('/symbols/'), 404, '/errors/not-found');
    const wrong = await s.post('/version');
    await expectProblem(t, wrong, 405, '/errors/method-not-allowed', '/version');
    t.equal(wrong.headers.get('allow'), 'GET, HEAD');
    const wrongGet = await s.get('/market-book/EURUSD/subscribe');
    t.equal(wrongGet.status, 405);
    t.equal(wrongGet.headers.get('allow'), 'POST');
    await expectProblem(t, wrongGet, 405, '/errors/method-not-allowed');
  });

  await t.test('HEAD answers every GET route with its head and no body', async (t) => {
    const s = await serve(t, adapter, terminal);
    // identity: fetch would decode a coded body and leave its Content-Length (the coded size) apart.
    const identity = { 'accept-encoding': 'identity' };
    const get = await s.get('/symbols/EURUSD', { headers: identity });
    const getBody = await get.arrayBuffer();
    const head = await s.get('/symbols/EURUSD', { method: 'HEAD', headers: identity });
    t.equal(head.status, 200);
    t.equal(head.headers.get('content-type'), get.headers.get('content-type'));
    t.equal(head.headers.get('content-length'), String(getBody.byteLength), 'the length GET would send');
    t.equal((await head.arrayBuffer()).byteLength, 0, 'no body');
    const series = await s.get('/ticks/range?symbol=EURUSD&date_from=2024-01-08T00:00:00Z&date_to=2024-01-09T00:00:00Z&format=parquet', { method: 'HEAD' });
    t.equal(series.status, 200);
    t.equal(series.headers.get('content-type'), 'application/parquet');
    t.equal((await series.arrayBuffer()).byteLength, 0, 'a series HEAD produces nothing');
    const missing = await s.get('/symbols/NOPE', { method: 'HEAD' });
    t.equal(missing.status, 404, 'errors keep their status');
    t.match(missing.headers.get('content-type') ?? '', /^application\/problem\+json/);
    t.equal((await missing.arrayBuffer()).byteLength, 0);
    const postOnly = await s.get('/market-book/EURUSD/subscribe', { method: 'HEAD' });
    t.equal(postOnly.status, 405, 'HEAD is not offered where there is no GET');
    t.equal(postOnly.headers.get('allow'), 'POST');
    // The server still serves normally after those (keep-alive connections were not confused).
    t.equal((await s.get('/version')).status, 200);
  });

  await t.test('content negotiation', async (t) => {
    const s = await serve(t, adapter, terminal);
    const type = async (init: RequestInit, path = '/account') => {
      const res = await s.get(path, init);
      await res.arrayBuffer();
      return [res.status, res.headers.get('content-type')];
    };
    t.same(await type({}), [200, 'application/json'], 'default JSON');
    t.same(await type({ headers: { accept: '*/*' } }), [200, 'application/json']);
    t.same(await type({ headers: { accept: 'application/parquet' } }), [200, 'application/parquet']);
    t.same(await type({ headers: { accept: 'application/json;q=0.5, application/parquet' } }), [200, 'application/parquet'], 'q-values');
    t.same(await type({ headers: { accept: 'application/json;q=0.9, application/parquet;q=0.2' } }), [200, 'application/json']);
    t.same(await type({ headers: { accept: 'application/*;q=0.3, application/json;q=0' } }), [200, 'application/parquet'], 'q=0 excludes');
    t.same(await type({ headers: { accept: 'text/html, */*;q=0.1' } }), [200, 'application/json'], 'wildcard fallback');
    t.same(await type({ headers: { accept: 'application/parquet' } }, '/account?format=json'), [200, 'application/json'], 'format wins over Accept');
    t.same(await type({ headers: { accept: 'text/html' } }, '/account?format=parquet'), [200, 'application/parquet'], 'format wins over an unacceptable Accept');
    await expectProblem(t, await s.get('/account', { headers: { accept: 'text/html' } }), 406, '/errors/not-acceptable', '/account');
    await expectProblem(t, await s.get('/account', { headers: { accept: 'application/vnd.apache.arrow.stream' } }), 406, '/errors/not-acceptable');
    await expectProblem(t, await s.get('/account?format=xml'), 400, '/errors/validation-error', '/account');
    const arrowOnRecord = await expectProblem(t, await s.get('/account?format=arrow'), 400, '/errors/validation-error');
    t.match(arrowOnRecord.detail, /format/);
  });

  await t.test('authentication', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_SECRET_KEY: 's3cret' });
    t.equal((await s.get('/health')).status, 200, '/health needs no key');
    const missing = await expectProblem(t, await s.get('/account'), 401, '/errors/unauthorized', '/account');
    const wrong = await expectProblem(t, await s.get('/account', { headers: { 'x-api-key': 'nope' } }), 401, '/errors/unauthorized');
    t.equal(missing.detail, wrong.detail, 'no hint whether the key was missing or wrong');
    await expectProblem(t, await s.get('/account', { headers: { 'x-api-key': 's3cret-longer' } }), 401, '/errors/unauthorized');
    t.equal((await s.get('/account', { headers: { 'x-api-key': 's3cret' } })).status, 200);
    await expectProblem(t, await s.get('/openapi.json'), 401, '/errors/unauthorized', '/openapi.json');
    // The docs page and its files are public (the page asks for the key itself); the document is not.
    for (const path of ['/docs', '/docs/swagger-ui.css', '/docs/swagger-initializer.js']) {
      const res = await s.get(path);
      t.equal(res.status, 200, `${path} needs no key`);
      await res.arrayBuffer();
    }
    await expectProblem(t, await s.get('/docs/nope.js'), 404, '/errors/not-found', '/docs/nope.js');
    await expectProblem(t, await s.get('/nope'), 401, '/errors/unauthorized', '/nope');
    t.equal((await s.get('/openapi.json', { headers: { 'x-api-key': 's3cret' } })).status, 200);
    await expectProblem(t, await s.post('/market-book/EURUSD/subscribe'), 401, '/errors/unauthorized');
  });

  await t.test('/ redirects to /docs, with or without a key, GET and HEAD', async (t) => {
    for (const env of [{}, { TRADEAPI_SECRET_KEY: 's3cret' }] as Array<Record<string, string>>) {
      const s = await serve(t, adapter, terminal, env);
      for (const method of ['GET', 'HEAD']) {
        const res = await s.get('/', { method, redirect: 'manual' });
        t.equal(res.status, 302, `${method} / (key ${'TRADEAPI_SECRET_KEY' in env ? 'set' : 'unset'})`);
        t.equal(res.headers.get('location'), '/docs');
        await res.arrayBuffer();
      }
      const followed = await s.get('/');
      t.equal(followed.status, 200, 'following it gives the docs page');
      t.match(await followed.text(), /swagger-ui-bundle\.js/);
      const post = await s.post('/');
      t.not(post.status, 302, 'only GET and HEAD are redirected');
      await post.arrayBuffer();
    }
  });

  await t.test('empty secret disables auth', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_SECRET_KEY: '' });
    t.equal((await s.get('/account')).status, 200);
  });

  await t.test('route prefix', async (t) => {
    for (const raw of ['api/v1', '/api/v1', '/api/v1/']) {
      const s = await serve(t, adapter, terminal, { TRADEAPI_ROUTER_PREFIX: raw, TRADEAPI_SECRET_KEY: 'k' });
      t.equal((await s.get('/api/v1/health')).status, 200, `${raw}: health under the prefix`);
      t.equal((await s.get('/api/v1/symbols/total', { headers: { 'x-api-key': 'k' } })).status, 200);
      await expectProblem(t, await s.get('/health'), 401, '/errors/unauthorized', '/health');
      await expectProblem(t, await s.get('/symbols/total', { headers: { 'x-api-key': 'k' } }), 404, '/errors/not-found', '/symbols/total');
      await expectProblem(t, await s.get('/api/v1x/health', { headers: { 'x-api-key': 'k' } }), 404, '/errors/not-found');
      await expectProblem(t, await s.get('/api/v1/rates/from?count=0', { headers: { 'x-api-key': 'k' } }), 400, '/errors/validation-error', '/api/v1/rates/from');
      const doc = (await (await s.get('/api/v1/openapi.json', { headers: { 'x-api-key': 'k' } })).json()) as { paths: Record<string, unknown> };
      t.ok(doc.paths['/api/v1/symbols/{symbol}'], 'openapi paths carry the prefix');
      const docs = await s.get('/api/v1/docs', { headers: { 'x-api-key': 'k' } });
      t.match(await docs.text(), '/api/v1/docs/swagger-ui-bundle.js');
      const init = await (await s.get('/api/v1/docs/swagger-initializer.js')).text();
      t.match(init, '"/api/v1/openapi.json"');
      const root = await s.get('/', { redirect: 'manual' });
      t.equal(root.status, 302, `${raw}: / leads to the docs`);
      t.equal(root.headers.get('location'), '/api/v1/docs');
      await root.arrayBuffer();
    }
  });
});
