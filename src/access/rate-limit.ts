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

  /**
   * Counts `points` requests (default 1). One is counted as rate-limiter-flexible counts, refusals
   * included (past the limit that changes nothing a client sees). More than one (the further tool
   * calls of an MCP batch) are taken all or none: a look first, so that a batch that cannot fit is
   * refused without touching the count (a request of the same client meanwhile is not refused for
   * points never spent); one that fits by the look but not by the count (another request came
   * between) is given back at once.
   */
  async consume(client: string, points = 1): Promise<RateDecision> {
    let res: RateLimiterRes;
    let allowed = true;
    try {
      res = await this.onStore((limiter) => (points === 1 ? limiter.consume(client) : takeAll(limiter, client, points)));
    } catch (e) {
      // The stores reject with the counter state when over the limit; anything else is a fault.
      if (!(e instanceof RateLimiterRes)) throw e;
      res = e;
      allowed = false;
    }
    return this.decision(res, allowed);
  }

  /**
   * Gives back `points` taken in the client's current window (a request refused whole after the
   * pipeline counted it). Nothing when there is no window or it holds fewer: the window they were
   * taken from has passed, and the next one is never credited. Reports the count after.
   */
  async refund(client: string, points: number): Promise<RateDecision> {
    const res = await this.onStore(async (limiter) => {
      const seen = await limiter.get(client);
      if (seen === null || seen.consumedPoints < points) return seen;
      return limiter.reward(client, points);
    });
    return this.decision(res ?? new RateLimiterRes(this.limit, this.windowMs, 0, true), true);
  }

  private decision(res: RateLimiterRes, allowed: boolean): RateDecision {
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
   * Runs `op` on the shared count when there is one and it answers. When it does not, the
   * decision falls back to this process's own count (fail open, but still limited: each instance
   * then allows `limit` per window on its own), so that an outage of the counter store does not
   * become an outage of the API; docs/deployment.md says why. A refusal (a RateLimiterRes
   * rejection) is an answer, not an outage.
   */
  private async onStore<T>(op: (limiter: RateLimiterAbstract) => Promise<T>): Promise<T> {
    if (this.shared) {
      try {
        const res = await op(this.shared.limiter);
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
    return op(this.local);
  }

  /** Releases the shared store's connection (the server's close calls this). */
  async close(): Promise<void> {
    await this.shared?.close();
  }
}

/**
 * Takes `points` from `limiter` for `client`, all or none: rejects with the counter state (a
 * RateLimiterRes, as consume does) and the count as it was when they do not fit.
 */
async function takeAll(limiter: RateLimiterAbstract, client: string, points: number): Promise<RateLimiterRes> {
  const seen = await limiter.get(client);
  if (seen !== null && seen.remainingPoints < points) throw seen;
  try {
    return await limiter.consume(client, points);
  } catch (e) {
    if (!(e instanceof RateLimiterRes)) throw e;
    throw await limiter.reward(client, points);
  }
}
