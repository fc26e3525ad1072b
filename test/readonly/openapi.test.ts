// The read-only mode's OpenAPI document lists exactly its routes under /api/v1, the ApiKey scheme
// on all but health, and the rate limit (429, RateLimit-* headers); the docs page points at it.
import t from 'tap';

import { FULL_ONLY_ROUTES, READ_ONLY_ENDPOINTS, READ_ONLY_STREAMS } from '../helpers/readonly.js';
import { forEachAdapter, READ_ONLY_KEY, serveReadOnly, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

interface Response {
  description: string;
  headers?: Record<string, { $ref: string }>;
}
interface Operation {
  security?: Array<Record<string, string[]>>;
  responses: Record<string, Response>;
  'x-operational'?: boolean;
}
interface Doc {
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes?: Record<string, unknown>; headers?: Record<string, unknown> };
}

await forEachAdapter(t, async (t, adapter) => {
  const s = await serveReadOnly(t, adapter, terminal, { API_RATE_LIMIT: '250' });
  const res = await s.get('/api/v1/openapi.json', { headers: { 'x-api-key': READ_ONLY_KEY } });
  t.equal(res.status, 200);
  const doc = (await res.json()) as Doc;

  t.test('only the read-only routes, under /api/v1', async (t) => {
    const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    const expected = [...READ_ONLY_ENDPOINTS.map(([path]) => path), ...READ_ONLY_STREAMS];
    t.same(ops.sort(), expected.map((path) => `GET /api/v1${path}`).sort(), `${expected.length} GET endpoints`);
    for (const [method, path] of FULL_ONLY_ROUTES) t.notOk(doc.paths[`/api/v1${path}`]?.[method.toLowerCase()], `no ${method} ${path}`);
    t.notMatch(JSON.stringify(doc), /x-operational/, 'nothing operational');
    t.notOk(doc.paths['/api/v1/docs'] ?? doc.paths['/api/v1/openapi.json'], 'docs routes are not endpoints');
  });

  t.test('the key: securityScheme and 401 on every route but health', async (t) => {
    t.same(doc.components.securitySchemes, { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } });
    for (const [path, methods] of Object.entries(doc.paths)) {
      const op = methods.get as Operation;
      if (path === '/api/v1/health') {
        t.same(op.security, [], 'health: no key');
        t.notOk(op.responses['401']);
        t.notOk(op.responses['429'], 'health: not rate-limited');
        continue;
      }
      t.same(op.security, [{ ApiKey: [] }], `${path}: key`);
      t.match(op.responses['401'], { description: /\/errors\/unauthorized/ });
    }
  });

  t.test('the rate limit: 429 and RateLimit-* headers', async (t) => {
    t.match(doc.components.headers, { 'RateLimit-Limit': { schema: { type: 'integer' } }, 'RateLimit-Remaining': {}, 'RateLimit-Reset': {}, 'Retry-After': {} });
    t.match(doc.info.description, /250 requests per minute/);
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (path === '/api/v1/health') continue;
      const op = methods.get as Operation;
      t.match(op.responses['429'], { description: /\/errors\/rate-limit-exceeded/ }, `${path}: 429`);
      t.same(Object.keys(op.responses['429']?.headers ?? {}), ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']);
      if (path === '/api/v1/ws') {
        t.same(Object.keys(op.responses['101'] ?? {}), ['description'], `${path}: the handshake's 101 carries no RateLimit-* headers`);
        t.same(Object.keys(op.responses['426']?.headers ?? {}), ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'], `${path}: headers on 426`);
        continue;
      }
      t.same(Object.keys(op.responses['200']?.headers ?? {}), ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'], `${path}: headers on 200`);
    }
  });

  await t.test('the docs page loads the prefixed document', async (t) => {
    const init = await (await s.get('/api/v1/docs/swagger-initializer.js', { headers: { 'x-api-key': READ_ONLY_KEY } })).text();
    t.match(init, /var url = "\/api\/v1\/openapi\.json"/);
  });
});
