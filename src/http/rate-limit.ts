// Per-client request rate limit of the read-only mode (API_RATE_LIMIT requests per minute). The
// counting is rate-limiter-flexible's in-memory fixed window: a client's window opens with its first
// request and holds `limit` requests; the counter restarts when the window has passed.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export const RATE_LIMIT_WINDOW_MS = 60_000;

/** The response headers that report the limit (IETF draft "RateLimit header fields"). */
export const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const;

export interface RateDecision {
  readonly allowed: boolean;
  /** RateLimit-* headers (lower-case names), plus Retry-After when refused. */
  readonly headers: Readonly<Record<string, string>>;
  /** Seconds until the client's window restarts. */
  readonly resetSeconds: number;
}

export class RateLimiter {
  private readonly limiter: RateLimiterMemory;

  /** `limit` requests per `windowMs` per client key (the window is an option for tests only). */
  constructor(
    readonly limit: number,
    readonly windowMs: number = RATE_LIMIT_WINDOW_MS,
  ) {
    this.limiter = new RateLimiterMemory({ points: limit, duration: windowMs / 1000 });
  }

  async consume(client: string): Promise<RateDecision> {
    let res: RateLimiterRes;
    let allowed = true;
    try {
      res = await this.limiter.consume(client);
    } catch (e) {
      // The memory store rejects with the counter state when over the limit, never with an Error.
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
}
