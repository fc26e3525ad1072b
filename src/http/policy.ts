// What the request pipeline asks of access policy, as interfaces: who may ask (an API key), from
// which site (Host and Origin), from which browser origin (CORS), how often (a rate limit), and
// whether its JSON answers are compressed (TRADEAPI_COMPRESS). The
// access room (src/access/) implements them and the wiring (src/server.ts) hands them to the
// dispatcher, so that the pipeline applies a policy without depending on how it is decided.
import type { HttpRequest } from './adapter.js';
import type { CodingChoice } from './content-coding.js';

/** True when the presented X-API-Key is the configured one (compared in constant time). */
export type KeyCheck = (presented: string | undefined) => boolean;

/** The Host and Origin rules against cross-site reads; throws a ProblemError (421/403) to refuse. */
export interface SiteCheck {
  check(req: HttpRequest, upgrade: boolean): void;
}

/** CORS for browsers on other origins (read-only variant). */
export interface CrossOrigin {
  /** Nothing to add to any response: no origin is allowed. */
  readonly disabled: boolean;
  isPreflight(req: HttpRequest): boolean;
  /** Headers for every response to req; varyOrigin when the answer depends on Origin. */
  responseHeaders(req: HttpRequest): { headers: Record<string, string>; varyOrigin: boolean };
  preflightHeaders(req: HttpRequest): Record<string, string>;
}

export interface RateDecision {
  readonly allowed: boolean;
  /** RateLimit-* headers (lower-case names), plus Retry-After when refused. */
  readonly headers: Readonly<Record<string, string>>;
  /** Seconds until the client's window restarts. */
  readonly resetSeconds: number;
}

/** Requests per client and window. */
export interface RequestLimiter {
  readonly limit: number;
  /**
   * Counts `points` requests (default 1) of the client's allowance. More than one are taken all or
   * none: refused, the count is left as it was, so that a request refused whole costs nothing.
   */
  consume(client: string, points?: number): Promise<RateDecision>;
  /**
   * Gives back `points` that consume took in the current window (a request refused whole after the
   * pipeline counted it); nothing when that window has passed. The decision reports the count after.
   */
  refund(client: string, points: number): Promise<RateDecision>;
}

/**
 * How a JSON answer to `req` may be coded (TRADEAPI_COMPRESS; src/access/compression.ts):
 * 'compress' as its Accept-Encoding asks, 'prefer-identity' identity unless the client refuses it
 * (a near client), 'identity' always.
 */
export type CompressionPolicy = (req: HttpRequest) => CodingChoice;
