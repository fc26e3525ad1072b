// Per-client request rate limit of the read-only mode (API_RATE_LIMIT requests per minute). The
// counting is rate-limiter-flexible's fixed window: a client's window opens with its first request
// and holds `limit` requests; the counter restarts when the window has passed. The count lives in
// this process's memory, or, with API_RATE_LIMIT_REDIS_URL, in a Redis that several instances
// share (rate-limit-redis.ts), so that together they allow `limit`, not `limit` each.
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

import type { RateDecision, RequestLimiter } from '../http/policy.js';

export const RATE_LIMIT_WINDOW_MS = 60_000;

/** The response headers that report the limit (IETF draft "RateLimit header fields"). */
export const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const;

export type { RateDecision };

/**
 * A count kept outside the process (Redis). When it cannot answer (down, unreachable, too slow),
 * the limiter counts in its own memory instead (see consume) and tells the store, which logs the
 * outage once and the recovery once.
 */
export interface SharedRateStore {
  readonly limiter: RateLimiterAbstract;
  /** Where the count is kept, for logs (never credentials). */
  readonly label: string;
  failed(error: unknown): void;
  succeeded(): void;
  close(): Promise<void>;
}

export class RateLimiter implements RequestLimiter {
  private readonly local: RateLimiterMemory;

  /** `limit` requests per `windowMs` per client key (the window is an option for tests only). */
  constructor(
    readonly limit: number,
    readonly windowMs: number = RATE_LIMIT_WINDOW_MS,
    private readonly shared?: SharedRateStore,
  ) {
    this.local = new RateLimiterMemory({ points: limit, duration: windowMs / 1000 });
  }

  async consume(client: string): Promise<RateDecision> {
    let res: RateLimiterRes;
    let allowed = true;
    try {
      res = await this.count(client);
    } catch (e) {
      // The stores reject with the counter state when over the limit; anything else is a fault.
      if (!(e instanceof RateLimiterRes)) throw e;
      res = e;
      allowed = false;
    }
    const resetSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    const headers: Record<string, string> = {
      'ratelimit-limit': String(this.limit),
      'ratelimit-remaining': String(res.remainingPoints),
      'ratelimit-reset': String(resetSeconds),
    };
    if (!allowed) headers['retry-after'] = String(resetSeconds);
    return { allowed, headers, resetSeconds };
  }

  /**
   * The shared count when there is one and it answers. When it does not, the decision falls back
   * to this process's own count (fail open, but still limited: each instance then allows `limit`
   * per window on its own), so that an outage of the counter store does not become an outage of
   * the API; docs/deployment.md says why.
   */
  private async count(client: string): Promise<RateLimiterRes> {
    if (this.shared) {
      try {
        const res = await this.shared.limiter.consume(client);
        this.shared.succeeded();
        return res;
      } catch (e) {
        if (e instanceof RateLimiterRes) {
          this.shared.succeeded();
          throw e;
        }
        this.shared.failed(e);
      }
    }
    return this.local.consume(client);
  }

  /** Releases the shared store's connection (the server's close calls this). */
  async close(): Promise<void> {
    await this.shared?.close();
  }
}
