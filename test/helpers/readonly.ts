// Facts about the read-only mode that several test files check.
import type { HttpRequest } from '../../src/http/adapter.js';

const DAY = 'date_from=2024-01-09T00:00:00Z&date_to=2024-01-10T00:00:00Z';

/** Every read-only endpoint (path below /api/v1) with a request that succeeds: the spec's Variant B list first. */
export const READ_ONLY_ENDPOINTS: ReadonlyArray<readonly [path: string, request: string]> = [
  ['/health', '/health'],
  ['/version', '/version'],
  ['/server-time', '/server-time'],
  ['/symbols', '/symbols?group=*USD*'],
  ['/symbols/{symbol}', '/symbols/EURUSD'],
  ['/rates/from', '/rates/from?symbol=EURUSD&timeframe=1&date_from=2024-01-10T00:00:00Z&count=10'],
  ['/account', '/account'],
  ['/history/orders', `/history/orders?${DAY}`],
  // … and the other read routes of the full variant.
  ['/last-error', '/last-error'],
  ['/terminal', '/terminal'],
  ['/symbols/total', '/symbols/total'],
  ['/symbols/{symbol}/tick', '/symbols/EURUSD/tick'],
  ['/rates/from-pos', '/rates/from-pos?symbol=EURUSD&timeframe=TIMEFRAME_H1&start_pos=0&count=5'],
  ['/rates/range', '/rates/range?symbol=EURUSD&timeframe=5&date_from=2024-01-09T00:00:00Z&date_to=2024-01-09T00:30:00Z'],
  ['/ticks/from', '/ticks/from?symbol=EURUSD&date_from=2024-01-09T10:00:00Z&count=50'],
  ['/ticks/range', '/ticks/range?symbol=EURUSD&date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T10:00:10Z'],
  ['/ticks/bars', '/ticks/bars?symbol=EURUSD&period=90s&date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T10:10:00Z'],
  ['/positions', '/positions'],
  ['/positions/total', '/positions/total'],
  ['/orders', '/orders'],
  ['/orders/total', '/orders/total'],
  ['/history/orders/total', `/history/orders/total?${DAY}`],
  ['/history/deals', `/history/deals?${DAY}`],
  ['/history/deals/total', `/history/deals/total?${DAY}`],
  ['/account/changes', '/account/changes?date_from=2024-01-09T00:00:00Z&limit=5'],
  // Behind the key and rate-counted like the rest.
  ['/metrics', '/metrics'],
];

/** Read-only endpoints that stream until the client leaves (not in READ_ONLY_ENDPOINTS, whose requests are read whole). */
export const READ_ONLY_STREAMS: readonly string[] = ['/events', '/ws'];

/** Full-variant routes that read-only mode leaves out (method, path below the prefix). */
export const FULL_ONLY_ROUTES: ReadonlyArray<readonly [method: string, path: string]> = [
  ['POST', '/order/check'],
  ['POST', '/symbols/{symbol}/select'],
  ['POST', '/market-book/{symbol}/subscribe'],
  ['POST', '/market-book/{symbol}/unsubscribe'],
  ['GET', '/market-book/{symbol}'],
  ['GET', '/calc/margin'],
  ['GET', '/calc/profit'],
];

/** A request as clientAddress sees it: a socket address and, optionally, an X-Forwarded-For value. */
export function forwardedRequest(remote: string, xff?: string): HttpRequest {
  return {
    method: 'GET',
    path: '/',
    query: '',
    remoteAddress: remote,
    header: (name) => (name === 'x-forwarded-for' ? xff : undefined),
    readBody: () => Promise.resolve(new Uint8Array(0)),
  };
}
