// The read-only mode's rate-limit count in Redis (API_RATE_LIMIT_REDIS_URL), shared by every
// instance pointed at the same Redis: rate-limiter-flexible's RateLimiterRedis (one atomic Lua
// INCR+EXPIRE per request) over an ioredis client.
//
// The client is set up to fail fast rather than to wait: no offline queue (a command while
// disconnected fails at once instead of queuing until Redis is back), a command timeout (a Redis
// that accepts connections but does not answer cannot hold requests), and reconnection forever in
// the background. A failed count is answered from the process's own memory (rate-limit.ts); the
// outage and the recovery are each logged once, not once per request.
import { RateLimiterRedis } from 'rate-limiter-flexible';

import { redisLabel } from '../config/index.js';
import type { Logger } from '../log.js';
import type { SharedRateStore } from './rate-limit.js';

/** The key prefix of the counters: one key per client address, expiring with its window. */
export const REDIS_KEY_PREFIX = 'tradeapi:ratelimit';
/** A count that takes longer than this is given up (and answered from memory). */
export const REDIS_COMMAND_TIMEOUT_MS = 500;
const CONNECT_TIMEOUT_MS = 2_000;
const MAX_RECONNECT_DELAY_MS = 2_000;

export async function redisRateStore(url: string, limit: number, windowMs: number, logger: Logger): Promise<SharedRateStore> {
  // Redis expires keys in whole seconds (rate-limiter-flexible floors the duration: below 1 s the
  // counter would never expire).
  if (windowMs < 1000 || windowMs % 1000 !== 0) throw new RangeError(`the Redis rate-limit window must be whole seconds; got ${windowMs} ms`);
  const label = redisLabel(url);
  // Loaded only when configured: most deployments never need the client (~0.25 s of start-up).
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    enableOfflineQueue: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: (times: number) => Math.min(times * 100, MAX_RECONNECT_DELAY_MS),
  });
  let down = false;
  const fail = (error: unknown): void => {
    if (down) return;
    down = true;
    // ioredis' messages name the host and port at most, never the password.
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn({ redis: label }, `rate limit: Redis ${label} is not answering (${reason}); each instance counts on its own until it is back`);
  };
  const recover = (): void => {
    if (!down) return;
    down = false;
    logger.info({ redis: label }, `rate limit: Redis ${label} answers again; the count is shared again`);
  };
  // Without a listener, ioredis prints every reconnection error to stderr itself.
  client.on('error', fail);
  client.on('ready', recover);
  // Start-up waits for the first connection (at most the connect timeout), so that the first
  // requests are already counted together; unreachable, the instance starts anyway (logged).
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, CONNECT_TIMEOUT_MS);
    client.once('ready', done);
    client.once('error', done);
    function done(): void {
      clearTimeout(timer);
      client.off('ready', done);
      client.off('error', done);
      resolve();
    }
  });
  const limiter = new RateLimiterRedis({
    storeClient: client,
    points: limit,
    duration: windowMs / 1000,
    keyPrefix: REDIS_KEY_PREFIX,
    rejectIfRedisNotReady: true,
  });
  return {
    limiter,
    label,
    failed: fail,
    succeeded: recover,
    async close() {
      client.removeAllListeners('error');
      client.on('error', () => {}); // a late socket error while closing is of no interest
      client.disconnect();
    },
  };
}
