// CORS for the read-only mode (API_CORS_ORIGINS). An allowed origin gets its Access-Control-*
// headers on every response, errors included, so that a browser client can read a 401, 404 or 429;
// any other origin gets none, and the browser keeps the response from the page. Credentials
// (cookies, HTTP auth) are never allowed: the API key travels in X-API-Key, which is named in
// Access-Control-Allow-Headers instead.
import type { HttpRequest } from '../http/adapter.js';
import type { CrossOrigin } from '../http/policy.js';
import { RATE_LIMIT_HEADERS } from './rate-limit.js';

/** How long a browser may cache a preflight answer, in seconds. */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * Request headers a cross-origin caller may send beyond the CORS-safelisted ones: the key, and what
 * an MCP client in a browser sends to POST /mcp (a JSON body, the protocol version, a Bearer key).
 */
export const ALLOWED_REQUEST_HEADERS = ['X-API-Key', 'Accept', 'X-Request-Id', 'Content-Type', 'Authorization', 'Mcp-Protocol-Version'] as const;

/** Response headers a cross-origin page may read beyond the CORS-safelisted ones. */
export const EXPOSED_HEADERS = [...RATE_LIMIT_HEADERS, 'Retry-After', 'X-Request-Id'] as const;

export class CorsPolicy implements CrossOrigin {
  private readonly any: boolean;
  private readonly origins: ReadonlySet<string>;
  private readonly allowMethods: string;

  constructor(origins: '*' | readonly string[], methods: readonly string[]) {
    this.any = origins === '*';
    this.origins = new Set(origins === '*' ? [] : origins);
    this.allowMethods = methods.join(', ');
  }

  /** True when no origin is allowed at all (then there is nothing to add). */
  get disabled(): boolean {
    return !this.any && this.origins.size === 0;
  }

  /** A preflight: OPTIONS asking for a method; answered before key, rate limit and routing. */
  isPreflight(req: HttpRequest): boolean {
    return req.method === 'OPTIONS' && req.header('access-control-request-method') !== undefined;
  }

  /**
   * Headers for an actual (non-preflight) response. With a list, the answer depends on Origin, so
   * `Vary: Origin` is returned whatever the origin (the dispatcher merges it with its own Vary).
   */
  responseHeaders(req: HttpRequest): { headers: Record<string, string>; varyOrigin: boolean } {
    const allow = this.allowOrigin(req.header('origin'));
    const headers: Record<string, string> = {};
    if (allow !== undefined) {
      headers['access-control-allow-origin'] = allow;
      headers['access-control-expose-headers'] = EXPOSED_HEADERS.join(', ');
    }
    return { headers, varyOrigin: !this.any };
  }

  /** Headers of the 204 answer to a preflight; no CORS headers for an origin not allowed. */
  preflightHeaders(req: HttpRequest): Record<string, string> {
    const allow = this.allowOrigin(req.header('origin'));
    const headers: Record<string, string> = {};
    if (!this.any) headers.vary = 'Origin';
    if (allow === undefined) return headers;
    headers['access-control-allow-origin'] = allow;
    headers['access-control-allow-methods'] = this.allowMethods;
    headers['access-control-allow-headers'] = ALLOWED_REQUEST_HEADERS.join(', ');
    headers['access-control-max-age'] = String(PREFLIGHT_MAX_AGE_SECONDS);
    return headers;
  }

  /** The Access-Control-Allow-Origin value for this Origin, or undefined when it is not allowed. */
  private allowOrigin(origin: string | undefined): string | undefined {
    if (this.any) return '*'; // never together with Access-Control-Allow-Credentials
    if (origin === undefined) return undefined;
    return this.origins.has(origin) ? origin : undefined;
  }
}
