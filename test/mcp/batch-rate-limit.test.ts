// Issue 33, item 10: in the read-only variant, a JSON-RPC batch to /mcp that the rate limit refuses
// whole (429: more tool calls than the allowance has left) charges nothing: no tool runs, and the
// caller's allowance is what it was before the batch (it used to be spent, so that the next plain
// request was a 429 too). Through real read-only servers on loopback, on each adapter, with the
// count in the process's memory and, where redis-server is installed, in a real Redis
// (API_RATE_LIMIT_REDIS_URL), which must behave alike.
import { Writable } from 'node:stream';

import { pino } from 'pino';
import t, { type Test } from 'tap';

import { RateLimiter } from '../../src/access/rate-limit.js';
import { redisRateStore } from '../../src/access/rate-limit-redis.js';
import type { HttpAdapter } from '../../src/http/adapter.js';
import { createLogger } from '../../src/log.js';
import { startServer } from '../../src/server.js';
import { findTool, redisCommand, startRedis, tempDir } from '../helpers/deploy.js';
import { expectProblem, forEachAdapter, READ_ONLY_KEY, readOnlyConfig, simTerminal, testAdapters, type TestServer } from '../helpers/server.js';
import { postMcp, rpc } from './mcp-client.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const LIMIT = 6;
const key = { 'x-api-key': READ_ONLY_KEY };
const TICK = (): Record<string, unknown> => rpc('tools/call', { name: 'symbol_info_tick', arguments: { symbol: 'EURUSD' } });
const calls = (n: number): Record<string, unknown>[] => Array.from({ length: n }, TICK);

interface Served extends TestServer {
  /** How many tool calls the server has logged so far. */
  toolCalls(): number;
}

/** A read-only server (limit LIMIT) whose log lines the test reads; `env` adds to its variables. */
async function serveLogged(t: Test, adapter: HttpAdapter, env: Record<string, string> = {}): Promise<Served> {
  let logged = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });
  const config = readOnlyConfig({ API_RATE_LIMIT: String(LIMIT), ...env });
  const server = await startServer({ terminal, config, adapter, host: '127.0.0.1', port: 0, logger: pino({ level: 'info' }, sink) });
  t.teardown(() => server.close(1000));
  const base = `http://127.0.0.1:${server.port}`;
  return {
    base,
    server,
    adapter: adapter.name,
    get: (p, i) => fetch(base + p, i),
    post: (p, i) => fetch(base + p, { method: 'POST', ...i }),
    toolCalls: () => (logged.match(/"msg":"tool call"/g) ?? []).length,
  };
}

/** A plain counted request; returns what its RateLimit-Remaining says (or the status when refused). */
async function plain(s: TestServer): Promise<{ status: number; remaining: string | null }> {
  const res = await s.get('/api/v1/version', { headers: key });
  await res.arrayBuffer();
  return { status: res.status, remaining: res.headers.get('ratelimit-remaining') };
}

/** The checks, on a fresh server (a fresh allowance of LIMIT for 127.0.0.1). */
async function refusedBatchChargesNothing(t: Test, s: Served): Promise<void> {
  // More tool calls than the whole allowance: refused whole, nothing run, nothing charged.
  const over = await postMcp(s, '/api/v1', calls(LIMIT + 1), key);
  const p = await expectProblem(t, over, 429, '/errors/rate-limit-exceeded', '/api/v1/mcp');
  t.match(p.detail, new RegExp(`more than ${LIMIT} requests`));
  t.ok(over.headers.get('retry-after'), 'Retry-After');
  t.equal(over.headers.get('ratelimit-remaining'), String(LIMIT), 'the refusal reports the allowance untouched');
  t.equal(s.toolCalls(), 0, 'no tool ran');
  t.same(await plain(s), { status: 200, remaining: String(LIMIT - 1) }, 'the next plain request is served, the first of the window');

  // Part of the allowance spent: a batch one call too big is refused and leaves what was left.
  t.same(await plain(s), { status: 200, remaining: String(LIMIT - 2) });
  const left = LIMIT - 2;
  const tooBig = await postMcp(s, '/api/v1', calls(left + 1), key);
  await expectProblem(t, tooBig, 429, '/errors/rate-limit-exceeded');
  t.equal(tooBig.headers.get('ratelimit-remaining'), String(left), `still ${left} left`);
  t.equal(s.toolCalls(), 0, 'no tool ran');
  // … so that a batch that fits exactly is served whole, and takes the rest.
  const fits = await postMcp(s, '/api/v1', calls(left), key);
  t.equal(fits.status, 200, `a batch of ${left} calls fits the ${left} left`);
  t.equal(((await fits.json()) as unknown[]).length, left, 'each call answered');
  t.equal(s.toolCalls(), left, 'and run');
  t.same(await plain(s), { status: 429, remaining: '0' }, 'then the allowance is spent');
}

await forEachAdapter(t, async (t, adapter) => {
  await t.test('memory count: a batch refused whole charges nothing', async (t) => {
    await refusedBatchChargesNothing(t, await serveLogged(t, adapter));
  });
});

const redisBin = findTool('redis-server');
await t.test('Redis count: a batch refused whole charges nothing', { skip: redisBin === undefined ? 'redis-server is not installed (Debian: apt-get install redis-server)' : false }, async (t) => {
  const redis = await startRedis(t, redisBin as string, tempDir(t, 'mcp-redis'));
  for (const adapter of testAdapters()) {
    await t.test(`adapter ${adapter.name}`, async (t) => {
      await redisCommand(redis.port, 'FLUSHALL');
      const s = await serveLogged(t, adapter, { API_RATE_LIMIT_REDIS_URL: redis.url });
      await refusedBatchChargesNothing(t, s);
      // The count was Redis's, not the fallback's: the key holds the whole window's requests.
      t.match(await redisCommand(redis.port, 'KEYS tradeapi:ratelimit:*'), /tradeapi:ratelimit:/, 'counted in Redis');
    });
  }
});

/** The limiter itself: several points all or none, when two batches race for the same allowance too. */
async function allOrNone(t: Test, limiter: RateLimiter, client: string): Promise<void> {
  t.equal((await limiter.consume(client)).headers['ratelimit-remaining'], String(LIMIT - 1), 'one request');
  const over = await limiter.consume(client, LIMIT);
  t.same([over.allowed, over.headers['ratelimit-remaining']], [false, String(LIMIT - 1)], 'too many points: refused, none taken');
  // Both look before either counts: both fit by the look, only one by the count; the other is given back.
  const [a, b] = await Promise.all([limiter.consume(client, LIMIT - 2), limiter.consume(client, LIMIT - 2)]);
  t.same([a.allowed, b.allowed].sort(), [false, true], 'two racing batches: one taken, one refused');
  const after = await limiter.refund(client, 0);
  t.equal(after.headers['ratelimit-remaining'], '1', 'the refused one left the count as it was');
  t.equal((await limiter.refund(client, 1)).headers['ratelimit-remaining'], '2', 'a refund gives back');
  t.equal((await limiter.refund('nobody', 1)).headers['ratelimit-remaining'], String(LIMIT), 'no window: nothing to give back, nothing credited');
}

await t.test('RateLimiter, memory: several points all or none', async (t) => {
  const limiter = new RateLimiter(LIMIT);
  await allOrNone(t, limiter, 'm');
});

await t.test('RateLimiter, Redis: several points all or none', { skip: redisBin === undefined ? 'redis-server is not installed' : false }, async (t) => {
  const redis = await startRedis(t, redisBin as string, tempDir(t, 'mcp-redis-limiter'));
  const limiter = new RateLimiter(LIMIT, 60_000, await redisRateStore(redis.url, LIMIT, 60_000, createLogger('silent')));
  t.teardown(() => limiter.close());
  await allOrNone(t, limiter, 'r');
  t.match(await redisCommand(redis.port, 'GET tradeapi:ratelimit:r'), /\$1\r\n4\r\n/, 'the count in Redis: 1 + 4 taken, 1 given back');
});
