// RFC 7807 problem details: the one shape of every error body.

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
}

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** The error kinds the service answers with: status, type URI and title, in one place. */
export const ProblemTypes = {
  validation: { status: 400, type: '/errors/validation-error', title: 'Request Validation Failed' },
  // The protocol-level kinds below are answered by the HTTP adapters, before any route is known.
  badRequest: { status: 400, type: '/errors/bad-request', title: 'Bad Request' },
  unauthorized: { status: 401, type: '/errors/unauthorized', title: 'Unauthorized' },
  notFound: { status: 404, type: '/errors/not-found', title: 'Not Found' },
  symbolNotFound: { status: 404, type: '/errors/symbol-not-found', title: 'Symbol Not Found' },
  notSubscribedHere: { status: 404, type: '/errors/subscription-not-found', title: 'Subscription Not Found' },
  // Cross-site protection (site-guard.ts). 421: the Host names an authority this server does not
  // serve (RFC 9110 §15.5.20), which is what a rebound name is; 403: the page's origin is refused.
  originNotAllowed: { status: 403, type: '/errors/origin-not-allowed', title: 'Origin Not Allowed' },
  misdirectedRequest: { status: 421, type: '/errors/misdirected-request', title: 'Misdirected Request' },
  methodNotAllowed: { status: 405, type: '/errors/method-not-allowed', title: 'Method Not Allowed' },
  notAcceptable: { status: 406, type: '/errors/not-acceptable', title: 'Not Acceptable' },
  requestTimeout: { status: 408, type: '/errors/request-timeout', title: 'Request Timeout' },
  notSubscribed: { status: 409, type: '/errors/not-subscribed', title: 'Not Subscribed' },
  symbolInUse: { status: 409, type: '/errors/symbol-in-use', title: 'Symbol In Use' },
  symbolNotSelected: { status: 409, type: '/errors/symbol-not-selected', title: 'Symbol Not Selected' },
  payloadTooLarge: { status: 413, type: '/errors/payload-too-large', title: 'Payload Too Large' },
  uriTooLong: { status: 414, type: '/errors/uri-too-long', title: 'URI Too Long' },
  unsupportedMediaType: { status: 415, type: '/errors/unsupported-media-type', title: 'Unsupported Media Type' },
  subscriptionLimit: { status: 429, type: '/errors/subscription-limit', title: 'Subscription Limit Reached' },
  rateLimited: { status: 429, type: '/errors/rate-limit-exceeded', title: 'Rate Limit Exceeded' },
  upgradeRequired: { status: 426, type: '/errors/upgrade-required', title: 'Upgrade Required' },
  headersTooLarge: { status: 431, type: '/errors/headers-too-large', title: 'Request Header Fields Too Large' },
  internal: { status: 500, type: '/errors/internal', title: 'Internal Server Error' },
  terminalError: { status: 502, type: '/errors/terminal-error', title: 'Terminal Error' },
  terminalUnavailable: { status: 503, type: '/errors/terminal-unavailable', title: 'Terminal Unavailable' },
  // The local history store (TRADEAPI_STORE): a partition that is not what its manifest recorded,
  // which the terminal cannot stand in for; too many store reads at once.
  storeDamaged: { status: 503, type: '/errors/store-damaged', title: 'Store Damaged' },
  storeBusy: { status: 503, type: '/errors/store-busy', title: 'Store Busy' },
  tooManyStreams: { status: 503, type: '/errors/too-many-streams', title: 'Too Many Streams' },
  tooManyEventClients: { status: 503, type: '/errors/too-many-event-clients', title: 'Too Many Event Clients' },
  connectionLimit: { status: 503, type: '/errors/connection-limit', title: 'Connection Limit Reached' },
} as const;

export type ProblemKind = keyof typeof ProblemTypes;

/** Thrown anywhere below the dispatcher; turned into a problem response with the request path. */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  constructor(
    readonly kind: ProblemKind,
    readonly detail: string,
    /** Extra response headers, e.g. Allow or Retry-After. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
  }
}

export function problem(kind: ProblemKind, detail: string, instance: string): Problem {
  const { status, type, title } = ProblemTypes[kind];
  return { type, title, status, detail, instance };
}

/** Shorthand for the most common one. */
export function validationError(detail: string): ProblemError {
  return new ProblemError('validation', detail);
}

/** Quotes a received value for a detail message, shortened so that a huge input stays a short line. */
export function received(value: string): string {
  const shown = value.length > 64 ? `${value.slice(0, 64)}…` : value;
  return JSON.stringify(shown);
}
