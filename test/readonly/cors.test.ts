// API_CORS_ORIGINS: listed origins echoed with Vary: Origin, '*' as '*', others get no CORS headers;
// preflights answered 204 without key or rate limit; error responses carry the headers too.
import t from 'tap';

import { EXPOSED_HEADERS } from '../../src/access/cors.js';
import { expectProblem, forEachAdapter, READ_ONLY_KEY, serveReadOnly, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const APP = 'https://app.example.com';
const LOCAL = 'http://localhost:3000';
const OTHER = 'https://evil.example.net';
const KEY = { 'x-api-key': READ_ONLY_KEY };

const preflight = (origin: string, method = 'GET') => ({
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'x-api-key,x-request-id' },
});
const varyOf = (res: Response) => (res.headers.get('vary') ?? '').split(',').map((s) => s.trim());

await forEachAdapter(t, async (t, adapter) => {
  // Listed with a trailing slash and upper case on purpose: stored as browsers send Origin.
  const s = await serveReadOnly(t, adapter, terminal, { API_CORS_ORIGINS: ` https://App.Example.com/ ,${LOCAL}`, API_RATE_LIMIT: '1000' });

  await t.test('an allowed origin is echoed, with Vary: Origin and the exposed headers', async (t) => {
    for (const origin of [APP, LOCAL]) {
      const res = await s.get('/api/v1/account', { headers: { ...KEY, origin } });
      t.equal(res.status, 200);
      t.equal(res.headers.get('access-control-allow-origin'), origin, `${origin} echoed`);
      t.same(varyOf(res), ['Accept', 'Accept-Encoding', 'Origin'], 'Vary: Accept, Accept-Encoding, Origin');
      const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(', ');
      for (const h of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'X-Request-Id']) t.ok(exposed.includes(h), `${h} exposed`);
      t.same(exposed, [...EXPOSED_HEADERS]);
      t.equal(res.headers.get('access-control-allow-credentials'), null, 'never credentials');
      await res.arrayBuffer();
    }
    const health = await s.get('/api/v1/health', { headers: { origin: APP } });
    t.equal(health.headers.get('access-control-allow-origin'), APP, 'on health too');
    t.same(varyOf(health), ['Origin']);
    await health.arrayBuffer();
  });

  await t.test('other origins get no CORS headers (the response itself is unchanged)', async (t) => {
    for (const origin of [OTHER, 'https://app.example.com:8443', 'http://app.example.com', 'null']) {
      const res = await s.get('/api/v1/account', { headers: { ...KEY, origin } });
      t.equal(res.status, 200);
      t.equal(res.headers.get('access-control-allow-origin'), null, `${origin}: no Allow-Origin`);
      t.equal(res.headers.get('access-control-expose-headers'), null);
      t.ok(varyOf(res).includes('Origin'), 'Vary: Origin still, for caches');
      await res.arrayBuffer();
    }
    const none = await s.get('/api/v1/account', { headers: KEY });
    t.equal(none.headers.get('access-control-allow-origin'), null, 'no Origin, no CORS');
    await none.arrayBuffer();
  });

  await t.test('preflight: 204 with methods and headers, no key needed', async (t) => {
    for (const path of ['/api/v1/account', '/api/v1/rates/from', '/api/v1/nope']) {
      const res = await s.get(path, preflight(APP));
      t.equal(res.status, 204, `${path}: 204`);
      t.equal(res.headers.get('access-control-allow-origin'), APP);
      t.equal(res.headers.get('access-control-allow-methods'), 'GET, POST', 'the read-only routes\' methods: GET, and POST for /mcp');
      const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(', ');
      t.ok(allowed.includes('x-api-key'), 'X-API-Key allowed');
      t.ok(allowed.includes('x-request-id'));
      t.ok(allowed.includes('content-type') && allowed.includes('mcp-protocol-version'), 'what an MCP client sends');
      t.equal(res.headers.get('access-control-max-age'), '600');
      t.equal(res.headers.get('access-control-allow-credentials'), null);
      t.ok(varyOf(res).includes('Origin'));
      t.equal(res.headers.get('content-length'), null, 'no Content-Length on 204');
      t.equal((await res.arrayBuffer()).byteLength, 0, 'no body');
    }
    const denied = await s.get('/api/v1/account', preflight(OTHER));
    t.equal(denied.status, 204);
    t.equal(denied.headers.get('access-control-allow-origin'), null, 'not allowed: no CORS headers, the browser stops there');
    t.equal(denied.headers.get('access-control-allow-methods'), null);
    await denied.arrayBuffer();
  });

  await t.test('error responses carry CORS headers: 401, 404, 405, 400', async (t) => {
    const check = async (res: Response, status: number, type: string) => {
      t.equal(res.headers.get('access-control-allow-origin'), APP, `${status}: Allow-Origin`);
      t.match(res.headers.get('access-control-expose-headers'), /RateLimit-Remaining/);
      t.ok(varyOf(res).includes('Origin'));
      await expectProblem(t, res, status, type);
    };
    await check(await s.get('/api/v1/account', { headers: { origin: APP } }), 401, '/errors/unauthorized');
    await check(await s.get('/api/v1/nope', { headers: { ...KEY, origin: APP } }), 404, '/errors/not-found');
    await check(await s.post('/api/v1/account', { headers: { ...KEY, origin: APP } }), 405, '/errors/method-not-allowed');
    await check(await s.get('/api/v1/rates/from?count=0', { headers: { ...KEY, origin: APP } }), 400, '/errors/validation-error');
    const denied = await s.get('/api/v1/account', { headers: { origin: OTHER } });
    t.equal(denied.headers.get('access-control-allow-origin'), null, 'but not for an origin not allowed');
    await expectProblem(t, denied, 401, '/errors/unauthorized');
  });

  await t.test('429 carries CORS headers and exposes Retry-After', async (t) => {
    const limited = await serveReadOnly(t, adapter, terminal, { API_CORS_ORIGINS: APP, API_RATE_LIMIT: '1' });
    const ok = await limited.get('/api/v1/version', { headers: { ...KEY, origin: APP } });
    t.equal(ok.status, 200);
    await ok.arrayBuffer();
    const res = await limited.get('/api/v1/version', { headers: { ...KEY, origin: APP } });
    t.equal(res.headers.get('access-control-allow-origin'), APP);
    t.match(res.headers.get('access-control-expose-headers'), /Retry-After/);
    t.ok(res.headers.get('retry-after'));
    await expectProblem(t, res, 429, '/errors/rate-limit-exceeded');
  });

  await t.test("'*': any origin, as '*', never with credentials", async (t) => {
    const any = await serveReadOnly(t, adapter, terminal, { API_CORS_ORIGINS: '*' });
    const res = await any.get('/api/v1/account', { headers: { ...KEY, origin: OTHER } });
    t.equal(res.headers.get('access-control-allow-origin'), '*');
    t.equal(res.headers.get('access-control-allow-credentials'), null);
    t.same(varyOf(res), ['Accept', 'Accept-Encoding'], 'no Vary: Origin needed');
    await res.arrayBuffer();
    const pre = await any.get('/api/v1/account', preflight(OTHER));
    t.equal(pre.status, 204);
    t.equal(pre.headers.get('access-control-allow-origin'), '*');
    t.match(pre.headers.get('access-control-allow-headers'), /X-API-Key/);
    await pre.arrayBuffer();
    const unauthorized = await any.get('/api/v1/account', { headers: { origin: OTHER } });
    t.equal(unauthorized.headers.get('access-control-allow-origin'), '*', 'errors too');
    await expectProblem(t, unauthorized, 401, '/errors/unauthorized');
  });

  await t.test('API_CORS_ORIGINS unset: no cross-origin access at all', async (t) => {
    const closed = await serveReadOnly(t, adapter, terminal);
    const res = await closed.get('/api/v1/account', { headers: { ...KEY, origin: APP } });
    t.equal(res.status, 200);
    t.equal(res.headers.get('access-control-allow-origin'), null);
    t.same(varyOf(res), ['Accept', 'Accept-Encoding']);
    await res.arrayBuffer();
    const pre = await closed.get('/api/v1/account', preflight(APP));
    t.equal(pre.headers.get('access-control-allow-origin'), null, 'a preflight gets nothing to go on');
    await pre.arrayBuffer();
  });
});
