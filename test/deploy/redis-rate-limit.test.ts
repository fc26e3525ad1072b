// Scale-out b: read-only instances sharing one rate limit through Debian's real redis-server
// (API_RATE_LIMIT_REDIS_URL, rate-limiter-flexible's Redis store over ioredis). In process: the
// Redis store gives the same decisions and RateLimit-* headers as the memory store, two limiters
// on one Redis refuse the (limit+1)-th request between them, and with Redis stopped each counts on
// its own (the documented fail-open choice), logged once, shared again once Redis is back. As
// child processes: two `serve --read-only` instances behind nginx (deploy/nginx/
// tradeapi-readonly.conf) refuse the (limit+1)-th request across them, and keep answering when
// Redis is stopped.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';

import t, { type Test } from 'tap';

import { ConfigError, loadConfig, redisLabel } from '../../src/config/index.js';
import { RateLimiter, type RateDecision } from '../../src/access/rate-limit.js';
import { REDIS_COMMAND_TIMEOUT_MS, REDIS_KEY_PREFIX, redisRateStore } from '../../src/access/rate-limit-redis.js';
import { createLogger } from '../../src/log.js';
import { root } from '../helpers/cli.js';
import { findTool, freePort, get, redisCommand, selfSignedCertificate, startGateway, startNginx, startRedis, tempDir } from '../helpers/deploy.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const KEY = 'read-only-key-shared-by-instances';

t.test('API_RATE_LIMIT_REDIS_URL: parsed, checked, never shown with its password', async (t) => {
  const ro = (env: Record<string, string>) => {
    const settings = loadConfig({ TRADE_API_KEY: 'k', ...env }, { readOnly: true }).readOnly;
    if (settings === undefined) throw new Error('not read-only');
    return settings;
  };
  t.equal(ro({}).rateLimitRedisUrl, undefined, 'unset: memory');
  t.equal(ro({ API_RATE_LIMIT_REDIS_URL: ' ' }).rateLimitRedisUrl, undefined, 'blank: memory');
  t.equal(ro({ API_RATE_LIMIT_REDIS_URL: 'redis://:pw@10.0.0.5:6380/2' }).rateLimitRedisUrl, 'redis://:pw@10.0.0.5:6380/2');
  t.equal(ro({ API_RATE_LIMIT_REDIS_URL: 'rediss://cache.internal' }).rateLimitRedisUrl, 'rediss://cache.internal', 'TLS');
  for (const bad of ['http://user:s3cret@host:6379', 'redis://user:s3cret@host/abc', 'localhost:6379', 'user:s3cret@host']) {
    const e = (() => {
      try {
        ro({ API_RATE_LIMIT_REDIS_URL: bad });
        return undefined;
      } catch (err) {
        return err;
      }
    })();
    t.ok(e instanceof ConfigError, `${bad.replace('s3cret', '…')}: refused`);
    t.match((e as Error).message, /API_RATE_LIMIT_REDIS_URL/);
    t.notMatch((e as Error).message, /s3cret/, 'the message does not show the password');
  }
  t.equal(redisLabel('redis://user:s3cret@host:6379/1'), 'redis://***@host:6379/1');
  t.equal(redisLabel('redis://host:6379?password=s3cret'), 'redis://host:6379?***');
  t.equal(redisLabel('redis://host:6379'), 'redis://host:6379');
  // The full variant has no rate limit: the variable is not read there.
  t.equal(loadConfig({ API_RATE_LIMIT_REDIS_URL: 'nonsense' }).readOnly, undefined);
});

t.test('no Redis at the URL at start-up: the instance starts and counts on its own', async (t) => {
  const { logger, lines } = capturingLogger();
  const port = await freePort(); // nothing listens there
  const started = Date.now();
  const limiter = new RateLimiter(1, 60_000, await redisRateStore(`redis://:s3cret@127.0.0.1:${port}`, 1, 60_000, logger));
  t.teardown(() => limiter.close());
  t.ok(Date.now() - started < 2500, 'start-up is not held up past the connect timeout');
  t.same([(await limiter.consume('x')).allowed, (await limiter.consume('x')).allowed], [true, false], 'limited by the local count');
  const warnings = lines().filter((l) => l.level === 40);
  t.equal(warnings.length, 1, 'one warning');
  t.match(warnings[0]?.msg, new RegExp(`Redis redis://\\*\\*\\*@127\\.0\\.0\\.1:${port} is not answering \\(.*ECONNREFUSED`));
  t.notMatch(JSON.stringify(lines()), /s3cret/, 'the password is in no log line');
});

const redisBin = findTool('redis-server');
if (redisBin === undefined) {
  t.test('with a real Redis', { skip: 'redis-server is not installed (Debian: apt-get install redis-server; .ci/run installs it as root)' }, () => {});
} else {
  // In a subtest: the scratch directory and servers live as long as it does.
  t.test('with a real Redis', (t) => withRedis(t, redisBin));
}

/** A logger whose lines the test reads. */
function capturingLogger(): { logger: ReturnType<typeof createLogger>; lines: () => Array<{ level: number; msg: string }> } {
  const out: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      cb();
    },
  });
  return { logger: createLogger('info', sink), lines: () => out.map((l) => JSON.parse(l) as { level: number; msg: string }) };
}

const view = (d: RateDecision) => ({ allowed: d.allowed, ...d.headers });

async function withRedis(t: Test, bin: string): Promise<void> {
  const dir = tempDir(t, 'redis');
  let redis = await startRedis(t, bin, dir);

  t.test('the Redis store decides and reports exactly as the memory store', async (t) => {
    const { logger } = capturingLogger();
    const shared = new RateLimiter(2, 1000, await redisRateStore(redis.url, 2, 1000, logger));
    t.teardown(() => shared.close());
    const memory = new RateLimiter(2, 1000);
    const seq = ['a', 'a', 'a', 'b', 'a'];
    for (const [i, client] of seq.entries()) {
      t.same(view(await shared.consume(client)), view(await memory.consume(client)), `request ${i + 1} (${client})`);
    }
    t.match(view(await shared.consume('a')), { allowed: false, 'ratelimit-remaining': '0', 'retry-after': '1' });
    await sleep(1100);
    t.same(view(await shared.consume('a')), view(await memory.consume('a')), 'both recovered after the window');
    t.match(await redisCommand(redis.port, `EXISTS ${REDIS_KEY_PREFIX}:a`), /:1/, 'the count is in Redis, under its prefix');
    await t.rejects(redisRateStore(redis.url, 2, 1500, logger), RangeError, 'Redis expires in whole seconds');
  });

  t.test('two limiters on one Redis refuse the (limit+1)-th request between them; Redis down: each counts alone', async (t) => {
    const one = capturingLogger();
    const two = capturingLogger();
    const a = new RateLimiter(3, 60_000, await redisRateStore(redis.url, 3, 60_000, one.logger));
    const b = new RateLimiter(3, 60_000, await redisRateStore(redis.url, 3, 60_000, two.logger));
    t.teardown(async () => {
      await a.close();
      await b.close();
    });
    await sleep(200); // both connected
    const seen = [await a.consume('c'), await b.consume('c'), await a.consume('c'), await b.consume('c')];
    t.same(seen.map((d) => d.allowed), [true, true, true, false], '3 allowed together, the 4th refused');
    t.same(seen.map((d) => d.headers['ratelimit-remaining']), ['2', '1', '0', '0'], 'one count');
    t.ok(Number(seen[3]!.headers['retry-after']) > 55, 'Retry-After: the rest of the shared window');
    t.equal((await a.consume('c')).allowed, false, 'refused on the other one as well');

    await redis.stop();
    const during = [await a.consume('c'), await a.consume('c'), await a.consume('c'), await a.consume('c')];
    t.same(during.map((d) => d.allowed), [true, true, true, false], 'Redis down: the instance allows the limit from its own count, no more');
    t.same(during.map((d) => d.headers['ratelimit-limit']), ['3', '3', '3', '3'], 'headers as usual');
    t.equal((await b.consume('c')).allowed, true, 'and the other one from its own');
    await sleep(300);
    const warnings = one.lines().filter((l) => l.level === 40);
    t.equal(warnings.length, 1, 'the outage is logged once, not per request');
    t.match(warnings[0]?.msg, /rate limit: Redis redis:\/\/127\.0\.0\.1:\d+ is not answering .*each instance counts on its own/);

    redis = await redis.restart();
    for (let i = 0; i < 50 && !one.lines().some((l) => /answers again/.test(l.msg)); i++) await sleep(100);
    t.ok(one.lines().some((l) => l.level === 30 && /Redis .* answers again; the count is shared again/.test(l.msg)), 'the recovery is logged');
    for (let i = 0; i < 50 && !two.lines().some((l) => /answers again/.test(l.msg)); i++) await sleep(100);
    // A fresh Redis (no persistence): the shared count starts again, and is shared.
    const after = [await a.consume('d'), await b.consume('d'), await a.consume('d'), await b.consume('d')];
    t.same(after.map((d) => d.allowed), [true, true, true, false], 'shared again');
  });

  t.test('a Redis that stops answering (SIGSTOP) costs at most the command timeout', async (t) => {
    const { logger, lines } = capturingLogger();
    const limiter = new RateLimiter(2, 60_000, await redisRateStore(redis.url, 2, 60_000, logger));
    t.teardown(() => limiter.close());
    t.equal((await limiter.consume('e')).headers['ratelimit-remaining'], '1', 'counted in Redis');
    process.kill(redis.process.pid, 'SIGSTOP');
    try {
      const started = Date.now();
      const hung = await limiter.consume('e');
      const took = Date.now() - started;
      t.equal(hung.allowed, true, 'answered from the local count');
      t.equal(hung.headers['ratelimit-remaining'], '1', "the local count's own");
      t.ok(took >= REDIS_COMMAND_TIMEOUT_MS - 50 && took < REDIS_COMMAND_TIMEOUT_MS + 1000, `after the command timeout (${took} ms)`);
      t.match(lines().find((l) => l.level === 40)?.msg, /not answering \(Command timed out\)/);
    } finally {
      process.kill(redis.process.pid, 'SIGCONT');
    }
    await sleep(100);
    const back = await limiter.consume('e');
    t.equal(back.headers['ratelimit-remaining'], '0', 'the shared count again, where it was');
    t.ok(lines().some((l) => /answers again/.test(l.msg)), 'the recovery is logged');
  });

  const nginx = findTool('nginx');
  const openssl = findTool('openssl');
  if (nginx === undefined || openssl === undefined) {
    t.test('read-only instances behind nginx', { skip: 'nginx or openssl is not installed (Debian: apt-get install nginx openssl)' }, () => {});
    return;
  }

  t.test('two read-only instances behind nginx share the limit; Redis stopped: they keep answering', async (t) => {
    await redisCommand(redis.port, 'FLUSHALL');
    const logs = path.join(dir, 'instances');
    const env = { TRADE_API_KEY: KEY, API_RATE_LIMIT: '3', API_RATE_LIMIT_REDIS_URL: redis.url, API_TRUST_PROXY: '1' };
    const instances = [await startGateway(t, 'readonly-a', logs, env, true), await startGateway(t, 'readonly-b', logs, env, true)];
    for (const i of instances) t.match(readFileSync(i.process.logFile, 'utf8'), /"rateLimitStore":"redis:\/\/127\.0\.0\.1:\d+"/, 'the start-up line names the store');

    const ngx = path.join(dir, 'nginx');
    mkdirSync(path.join(ngx, 'tradeapi'), { recursive: true });
    const cert = selfSignedCertificate(ngx);
    const src = path.join(root, 'deploy', 'nginx');
    for (const file of ['tradeapi-proxy.conf', 'tradeapi-upgrade.conf']) cpSync(path.join(src, file), path.join(ngx, 'tradeapi', file));
    const port = await freePort();
    let conf = readFileSync(path.join(src, 'tradeapi-readonly.conf'), 'utf8');
    const swaps: Array<[RegExp, string]> = [
      [/server 127\.0\.0\.1:8101;/, `server 127.0.0.1:${instances[0]!.port};`],
      [/server 127\.0\.0\.1:8102;/, `server 127.0.0.1:${instances[1]!.port};`],
      [/^ {4}listen 8443 ssl;$/m, `    listen 127.0.0.1:${port} ssl;`],
      [/^ {4}listen \[::\]:8443 ssl;\n/m, ''],
      [/\/etc\/nginx\/tradeapi\/tls\/tradeapi\.crt/, cert.cert],
      [/\/etc\/nginx\/tradeapi\/tls\/tradeapi\.key/, cert.key],
    ];
    for (const [from, to] of swaps) {
      t.equal((conf.match(new RegExp(from.source, `${from.flags}g`)) ?? []).length, 1, `tradeapi-readonly.conf has ${from.source} once`);
      conf = conf.replace(from, to);
    }
    writeFileSync(path.join(ngx, 'tradeapi', 'tradeapi-readonly.conf'), conf);
    await startNginx(t, nginx, ngx, '  include tradeapi/tradeapi-upgrade.conf;\n  include tradeapi/tradeapi-readonly.conf;', port);

    const via = (id: string) => get(`https://127.0.0.1:${port}/api/v1/version`, { 'x-api-key': KEY, 'x-request-id': id }, cert.pem);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await via(`lb-${i}-${process.pid}`));
    t.same(answers.map((r) => r.status), [200, 200, 200, 429], 'through the load balancer: 3 allowed, the 4th refused');
    t.same(answers.map((r) => r.headers['ratelimit-remaining']), ['2', '1', '0', '0']);
    t.match(JSON.parse(answers[3]!.body.toString('utf8')), { status: 429, type: '/errors/rate-limit-exceeded' });
    t.ok(Number(answers[3]!.headers['retry-after']) > 50, 'Retry-After');
    await sleep(500);
    const served = instances.map((i) => [0, 1, 2, 3].filter((n) => readFileSync(i.process.logFile, 'utf8').includes(`lb-${n}-${process.pid}`)).length);
    t.ok(served[0]! > 0 && served[1]! > 0, `both instances answered (${served.join(' + ')})`);

    // Straight to each instance, as another client (trusted X-Forwarded-For): the same shared count.
    const as = (i: number) => get(`http://127.0.0.1:${instances[i]!.port}/api/v1/version`, { 'x-api-key': KEY, 'x-forwarded-for': '203.0.113.9' });
    const direct = [await as(0), await as(1), await as(0), await as(1)];
    t.same(direct.map((r) => r.status), [200, 200, 200, 429], 'alternating between the instances: the (limit+1)-th refused');

    await redis.stop();
    const down = [await as(0), await as(1)];
    t.same(down.map((r) => r.status), [200, 200], 'Redis stopped: the instances keep answering (each with its own count)');
    t.equal(down[0]!.headers['ratelimit-limit'], '3', 'still limited and reported');
    await sleep(500);
    for (const i of instances) t.match(readFileSync(i.process.logFile, 'utf8'), /is not answering.*each instance counts on its own/, 'the outage is in its log');
    for (const i of instances) t.notMatch(readFileSync(i.process.logFile, 'utf8'), /"level":50/, 'no error lines');
  });
}
