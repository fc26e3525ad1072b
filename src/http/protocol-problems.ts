// Problems the HTTP adapters answer themselves, below the dispatcher: the request never became one
// the service could route (malformed, too slow, too long, over the connection cap, CONNECT). They
// carry the same RFC 7807 body as every other error; `instance` is empty because no request path
// was accepted. No CORS headers, X-Request-Id or rate-limit count apply: those need a parsed request.
import { problem, PROBLEM_MEDIA_TYPE, type ProblemKind } from './problem.js';

/**
 * Longest request target (path and query) we accept: 414 beyond it. A separate, smaller limit
 * than the request head's, so that an over-long URL gets its own status instead of being counted
 * among the headers (node and uWS both cap the whole head, request line included, at 16 KiB: past
 * that see MAX_HEAD_BYTES). 8 KiB is what nginx and Apache allow for a request line by default.
 */
export const MAX_URL_BYTES = 8 * 1024;

/** Request line plus headers: node:http's default --max-http-header-size, set on both adapters. */
export const MAX_HEAD_BYTES = 16 * 1024;

/** Largest accepted request body (POST /order/check). */
export const MAX_BODY_BYTES = 64 * 1024;

export interface ProtocolAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

export function protocolAnswer(kind: ProblemKind, detail: string, headers: Readonly<Record<string, string>> = {}): ProtocolAnswer {
  const p = problem(kind, detail, '');
  return {
    status: p.status,
    headers: { 'content-type': PROBLEM_MEDIA_TYPE, 'cache-control': 'no-store', ...headers },
    body: Buffer.from(JSON.stringify(p)),
  };
}

export function uriTooLong(bytes: number): ProtocolAnswer {
  return protocolAnswer('uriTooLong', `the request target is ${bytes} bytes long; at most ${MAX_URL_BYTES} are accepted`);
}

/** CONNECT: we are no proxy. Allow lists the methods the service has. */
export function connectNotAllowed(methods: readonly string[]): ProtocolAnswer {
  const allow = methods.join(', ');
  return protocolAnswer('methodNotAllowed', `CONNECT is not allowed: this service is not a proxy; allowed: ${allow}`, { allow });
}
