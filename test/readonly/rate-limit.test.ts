// API_RATE_LIMIT: requests per minute per client, RateLimit-* headers on every counted response,
// 429 with Retry-After beyond the limit, /api/v1/health and CORS preflights exempt. The window is
// shortened through startServer's test-only option so that recovery can be watched.
import t from 'tap';

import { clientAddress } from '../../src/access/client-address.js';
import { RateLimiter } from '../../src/access/rate-limit.js';
import { forwardedRequest } from '../helpers/readonly.js';
import { expectProblem, forEachAdapter, READ_ONLY_KEY, serveReadOnly, simTerminal, type TestServer } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const KEY = { 'x-api-key': READ_ONLY_KEY };
const WINDOW_MS = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The answer with its body already read (so that the next request is not held up), to check later. */
async function buffered(answer: Promise<Response>): Promise<Response> {
  const res = await answer;
  return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers });
}

const limits = (res: Response) => ({
  limit: res.headers.get('ratelimit-limit'),
  remaining: res.headers.get('ratelimit-remaining'),
  reset: res.headers.get('ratelimit-reset'),
});

t.test('clientAddress: the socket address, or X-Forwarded-For only when trusted', async (t) => {
  const req = forwardedRequest;
  t.equal(clientAddress(req('10.0.0.9', '1.1.1.1'), 0), '10.0.0.9', 'not trusted: header ignored');
  t.equal(clientAddress(req('10.0.0.9'), 1), '10.0.0.9', 'trusted but absent');
  t.equal(clientAddress(req('10.0.0.9', '  '), 1), '10.0.0.9', 'trusted but empty');
  t.equal(clientAddress(req('10.0.0.9', '203.0.113.7'), 1), '203.0.113.7');
  t.equal(clientAddress(req('10.0.0.9', 'spoofed, 203.0.113.7'), 1), '203.0.113.7', 'one proxy: the entry it appended, not what the client sent');
  t.equal(clientAddress(req('10.0.0.9', 'spoofed, 203.0.113.7, 10.0.0.2'), 2), '203.0.113.7', 'two proxies');
  t.equal(clientAddress(req('10.0.0.9', '203.0.113.7'), 3), '203.0.113.7', 'fewer entries than proxies: the left-most');
});

t.test('RateLimiter counts per key and restarts after the window', async (t) => {
  const limiter = new RateLimiter(2, 300);
  t.match(await limiter.consume('a'), { allowed: true, headers: { 'ratelimit-limit': '2', 'ratelimit-remaining': '1', 'ratelimit-reset': '1' } });
  t.match(await limiter.consume('a'), { allowed: true, headers: { 'ratelimit-remaining': '0' } });
  const refused = await limiter.consume('a');
  t.match(refused, { allowed: false, headers: { 'ratelimit-remaining': '0', 'retry-after': '1' } });
  t.match(await limiter.consume('b'), { allowed: true }, 'another client has its own count');
  await sleep(350);
  t.match(await limiter.consume('a'), { allowed: true, headers: { 'ratelimit-remaining': '1' } }, 'recovered');
  const minute = await new RateLimiter(100).consume('x');
  t.equal(minute.headers['ratelimit-reset'], '60', 'the default window is one minute');
});

await forEachAdapter(t, async (t, adapter) => {
  await t.test('limit reached, 429, recovered after the window', async (t) => {
    // The limit is checked inside one window: the requests from the first counted one to the last
    // refused one must all be answered within WINDOW_MS. On a machine too busy for that, the
    // attempt proves nothing and is made again on a fresh server (a fresh count), at most 3 times.
    let s!: TestServer;
    let answers: Response[] = [];
    for (let attempt = 1; ; attempt++) {
      s = await serveReadOnly(t, adapter, terminal, { API_RATE_LIMIT: '3' }, { rateLimitWindowMs: WINDOW_MS });
      const started = performance.now();
      answers = [];
      for (let i = 0; i < 3; i++) answers.push(await buffered(s.get('/api/v1/version', { headers: KEY })));
      answers.push(await buffered(s.get('/api/v1/account', { headers: KEY })));
      answers.push(await buffered(s.get('/api/v1/account')));
      answers.push(await buffered(s.get('/api/v1/nope', { headers: KEY })));
      answers.push(await buffered(s.get('/api/v1/health')));
      const took = performance.now() - started;
      if (took < WINDOW_MS) break;
      if (attempt === 3) return t.fail(`three attempts each took longer than the ${WINDOW_MS} ms window (the last ${took.toFixed(0)} ms)`);
      t.comment(`attempt ${attempt} took ${took.toFixed(0)} ms, longer than the ${WINDOW_MS} ms window: again`);
    }
    const [v1, v2, v3, refused, noKey, nope, health] = answers as [Response, Response, Response, Response, Response, Response, Response];
    const seen: string[] = [];
    for (const [i, res] of [v1, v2, v3].entries()) {
      t.equal(res.status, 200, `request ${i + 1} of 3`);
      const l = limits(res);
      t.equal(l.limit, '3', 'RateLimit-Limit');
      t.equal(l.reset, '1', 'RateLimit-Reset: seconds to the window end');
      t.equal(res.headers.get('retry-after'), null, 'no Retry-After under the limit');
      seen.push(l.remaining ?? '');
    }
    t.same(seen, ['2', '1', '0'], 'RateLimit-Remaining counts down');

    const body = await expectProblem(t, refused, 429, '/errors/rate-limit-exceeded', '/api/v1/account');
    t.equal(body.title, 'Rate Limit Exceeded');
    t.match(body.detail, /more than 3 requests/);
    t.equal(refused.headers.get('retry-after'), '1', 'Retry-After');
    t.match(limits(refused), { limit: '3', remaining: '0', reset: '1' });
    // Refused before auth: key guessing is limited too.
    await expectProblem(t, noKey, 429, '/errors/rate-limit-exceeded');
    await expectProblem(t, nope, 429, '/errors/rate-limit-exceeded');

    t.equal(health.status, 200, '/api/v1/health is exempt');
    t.equal(health.headers.get('ratelimit-limit'), null, 'and not counted');

    await sleep(WINDOW_MS + 100);
    const again = await s.get('/api/v1/version', { headers: KEY });
    t.equal(again.status, 200, 'recovered after the window');
    t.match(limits(again), { limit: '3', remaining: '2' });
    await again.arrayBuffer();
  });

  await t.test('every counted response carries the headers: 401, 404, 405, 400', async (t) => {
    const s = await serveReadOnly(t, adapter, terminal, { API_RATE_LIMIT: '10' });
    const responses = [
      await s.get('/api/v1/account'),
      await s.get('/api/v1/nope', { headers: KEY }),
      await s.post('/api/v1/account', { headers: KEY }),
      await s.get('/api/v1/rates/from?count=0', { headers: KEY }),
      await s.get('/api/v1/openapi.json', { headers: KEY }),
    ];
    const statuses = [401, 404, 405, 400, 200];
    for (const [i, res] of responses.entries()) {
      t.equal(res.status, statuses[i]);
      t.match(limits(res), { limit: '10', remaining: String(9 - i) }, `${res.status}: counted, headers present`);
      t.ok(Number(res.headers.get('ratelimit-reset')) > 50, 'reset within the one-minute window');
      await res.arrayBuffer();
    }
  });

  await t.test('clients are counted apart; X-Forwarded-For only with API_TRUST_PROXY', async (t) => {
    const trusted = await serveReadOnly(t, adapter, terminal, { API_RATE_LIMIT: '1', API_TRUST_PROXY: '1' });
    const as = (ip: string) => trusted.get('/api/v1/version', { headers: { ...KEY, 'x-forwarded-for': ip } });
    t.equal((await as('203.0.113.1')).status, 200);
    t.equal((await as('203.0.113.2')).status, 200, 'another client');
    t.equal((await as('203.0.113.1')).status, 429, 'the first one again');
    t.equal((await as('forged, 203.0.113.2')).status, 429, 'a forged left-most entry changes nothing');

    const direct = await serveReadOnly(t, adapter, terminal, { API_RATE_LIMIT: '1' });
    const res = await direct.get('/api/v1/version', { headers: { ...KEY, 'x-forwarded-for': '203.0.113.1' } });
    t.equal(res.status, 200);
    await res.arrayBuffer();
    const other = await direct.get('/api/v1/version', { headers: { ...KEY, 'x-forwarded-for': '203.0.113.2' } });
    t.equal(other.status, 429, 'without API_TRUST_PROXY the header is ignored: same socket address, same count');
    await other.arrayBuffer();
  });

  await t.test('CORS preflights are not counted', async (t) => {
    const s = await serveReadOnly(t, adapter, terminal, { API_RATE_LIMIT: '2', API_CORS_ORIGINS: 'https://app.example.com' });
    for (let i = 0; i < 5; i++) {
      const pre = await s.get('/api/v1/version', {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
      });
      t.equal(pre.status, 204);
      t.equal(pre.headers.get('ratelimit-limit'), null);
    }
    const res = await s.get('/api/v1/version', { headers: KEY });
    t.match(limits(res), { remaining: '1' }, 'only the real request counted');
    await res.arrayBuffer();
  });
});
