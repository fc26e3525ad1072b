// Maps whatever a request threw onto a problem kind. Terminal refusals never become a 500.
import { TerminalError } from '../terminal/errors.js';
import { BodyTooLargeError } from './adapter.js';
import { ProblemError } from './problem.js';
import { MAX_BODY_BYTES } from './protocol-problems.js';
import type { Route } from './route.js';
import { NoSubscriptionError, SubscriptionLimitError } from '../terminal/subscriptions.js';

/** Seconds a client should wait before retrying when the terminal is unavailable. */
export const RETRY_AFTER_SECONDS = 5;
/** Seconds before retrying a request the store was too busy to read for. */
export const STORE_RETRY_AFTER_SECONDS = 1;

function mentionsSymbol(route: Route | undefined): boolean {
  if (!route) return false;
  return 'symbol' in route.params.properties || 'symbol' in route.query.properties || route.path === '/order/check';
}

/** A ProblemError for a known failure, or undefined for a bug (answered as a bare 500). */
export function toProblem(e: unknown, route: Route | undefined, symbol?: string): ProblemError | undefined {
  if (e instanceof ProblemError) return e;
  if (e instanceof TerminalError) {
    switch (e.kind) {
      case 'not_found':
        if (!mentionsSymbol(route)) return new ProblemError('notFound', e.message);
        return new ProblemError(
          'symbolNotFound',
          symbol === undefined ? e.message : `symbol ${JSON.stringify(symbol)} is not known to the terminal (${e.message})`,
        );
      case 'invalid_params':
        return new ProblemError('validation', `the terminal rejected the parameters: ${e.message} (code ${e.code})`);
      case 'not_selected':
        // The terminal's generic (-1) refusal for a symbol outside Market Watch: the caller's own
        // condition with a known remedy, so a 409 naming it rather than a 502.
        return new ProblemError(
          'symbolNotSelected',
          symbol === undefined
            ? `the symbol is not in Market Watch (${e.message}); show it with POST …/symbols/{symbol}/select?enable=true first`
            : `symbol ${JSON.stringify(symbol)} is not in Market Watch (${e.message}); ` +
                `show it with POST …/symbols/${encodeURIComponent(symbol)}/select?enable=true first`,
        );
      case 'not_subscribed':
        return new ProblemError('notSubscribed', `${e.message}; subscribe with POST …/market-book/{symbol}/subscribe first`);
      case 'unavailable':
      case 'timeout':
        return new ProblemError('terminalUnavailable', `the terminal is not available (${e.kind}): ${e.message}`, {
          'retry-after': String(RETRY_AFTER_SECONDS),
        });
      case 'call_failed':
        return new ProblemError('terminalError', `the terminal call failed: ${e.message} (code ${e.code})`);
      case 'store_damaged':
        return new ProblemError('storeDamaged', e.message);
      case 'store_busy':
        return new ProblemError('storeBusy', e.message, { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) });
    }
  }
  if (e instanceof SubscriptionLimitError) return new ProblemError('subscriptionLimit', e.message);
  if (e instanceof NoSubscriptionError) return new ProblemError('notSubscribedHere', e.message);
  if (e instanceof BodyTooLargeError) return new ProblemError('payloadTooLarge', `the request body exceeds ${MAX_BODY_BYTES} bytes`);
  return undefined;
}
