// Response examples for the OpenAPI document, taken from the simulator rather than written by
// hand, so that they cannot drift from what the service answers: each example request below is
// parsed by the route's own parameter parser, answered by the route's own handler from a
// simulated terminal with a frozen clock, and encoded by the JSON encoder the server uses. Long
// lists are cut to their first MAX_ROWS rows.
import { collect, encodeReply } from '../http/encoding.js';
import { ParameterParser } from '../http/params.js';
import type { NamedExample } from '../http/openapi.js';
import type { Route, Services } from '../http/route.js';
import { openSimTerminal } from '../terminal/index.js';

/** The examples' clock: Wednesday 2024-01-10 12:00 UTC (markets open, a year of history behind). */
export const EXAMPLE_NOW_MS = Date.UTC(2024, 0, 10, 12);
const MAX_ROWS = 3;

interface ExampleRequest {
  /** The query string as a client writes it. */
  readonly query?: string;
  readonly params?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

const day = 'date_from=2024-01-09T00:00:00Z&date_to=2024-01-10T00:00:00Z';

/** One request per documented route, by `METHOD path` (below the prefix). */
export const EXAMPLE_REQUESTS: Readonly<Record<string, ExampleRequest>> = {
  'GET /health': {},
  'GET /version': {},
  'GET /last-error': {},
  'GET /account': {},
  'GET /terminal': {},
  'GET /symbols': { query: 'group=EURUSD,USDJPY' },
  'GET /symbols/total': {},
  'GET /symbols/{symbol}': { params: { symbol: 'EURUSD' } },
  'GET /symbols/{symbol}/tick': { params: { symbol: 'EURUSD' } },
  // Changes only the examples' own simulator.
  'POST /symbols/{symbol}/select': { params: { symbol: 'EURUSD' }, query: 'enable=true' },
  'GET /rates/from': { query: 'symbol=EURUSD&timeframe=TIMEFRAME_H1&date_from=2024-01-10T00:00:00Z&count=3' },
  'GET /rates/from-pos': { query: 'symbol=EURUSD&timeframe=TIMEFRAME_M1&start_pos=0&count=3' },
  'GET /rates/range': { query: 'symbol=EURUSD&timeframe=TIMEFRAME_H1&date_from=2024-01-09T09:00:00Z&date_to=2024-01-09T11:00:00Z' },
  'GET /ticks/from': { query: 'symbol=EURUSD&date_from=2024-01-10T09:00:00Z&count=3&flags=COPY_TICKS_ALL' },
  'GET /ticks/range': { query: 'symbol=EURUSD&date_from=2024-01-10T09:00:00Z&date_to=2024-01-10T09:00:10Z&flags=COPY_TICKS_ALL' },
  'GET /ticks/bars': { query: 'symbol=EURUSD&period=90s&date_from=2024-01-10T09:00:00Z&date_to=2024-01-10T09:03:00Z' },
  'GET /positions': {},
  'GET /positions/total': {},
  'GET /orders': {},
  'GET /orders/total': {},
  'GET /history/orders': { query: day },
  'GET /history/orders/total': { query: day },
  'GET /history/deals': { query: day },
  'GET /history/deals/total': { query: day },
  'GET /calc/margin': { query: 'action=ORDER_TYPE_BUY&symbol=EURUSD&volume=0.1&price=1.0991' },
  'GET /calc/profit': { query: 'action=ORDER_TYPE_BUY&symbol=EURUSD&volume=0.1&price_open=1.0991&price_close=1.1001' },
  'POST /order/check': { body: { request: { action: 1, symbol: 'USDJPY', volume: 1.0, type: 0, price: 150.0, type_filling: 1 } } },
};

/** More examples of some routes, shown beside the main one by name: the multi-symbol forms of the range and custom-bars routes. */
export const NAMED_EXAMPLE_REQUESTS: Readonly<Record<string, readonly (ExampleRequest & { readonly name: string; readonly summary: string })[]>> = {
  'GET /ticks/range': [
    { name: 'symbols', summary: 'Several symbols in one answer, merged by time_msc (symbols=EURUSD,USDJPY)', query: 'symbols=EURUSD,USDJPY&date_from=2024-01-10T09:00:00Z&date_to=2024-01-10T09:00:10Z' },
  ],
  'GET /ticks/bars': [
    { name: 'symbols', summary: 'Several symbols\' custom bars in one answer, merged by time (symbols=EURUSD,USDJPY)', query: 'symbols=EURUSD,USDJPY&period=90s&date_from=2024-01-10T09:00:00Z&date_to=2024-01-10T09:03:00Z' },
  ],
  'GET /rates/range': [
    { name: 'group', summary: 'The Market Watch symbols of a group filter, merged by time (group=EURUSD,USDJPY)', query: 'group=EURUSD,USDJPY&timeframe=TIMEFRAME_H1&date_from=2024-01-09T09:00:00Z&date_to=2024-01-09T11:00:00Z' },
  ],
};

export interface ResponseExamples {
  /** The main example of each route that has one, by exampleKey. */
  readonly main: Map<string, unknown>;
  /** The named ones (NAMED_EXAMPLE_REQUESTS), by exampleKey. */
  readonly named: Map<string, NamedExample[]>;
}

export const exampleKey = (route: Pick<Route, 'method' | 'path'>): string => `${route.method} ${route.path}`;

/**
 * The JSON answer of every route that has an example request, keyed by exampleKey. `services`
 * supplies everything but the terminal, which is a fresh frozen-clock simulator, closed after.
 */
export async function responseExamples(routes: readonly Route[], services: Omit<Services, 'terminal'>): Promise<ResponseExamples> {
  const terminal = openSimTerminal({ nowMs: EXAMPLE_NOW_MS, accountAnchor: Date.UTC(2024, 0, 10) / 1000 });
  const main = new Map<string, unknown>();
  const named = new Map<string, NamedExample[]>();
  // The answer to one example request, cut to MAX_ROWS rows; undefined for a reply without JSON.
  const answer = async (route: Route, request: ExampleRequest): Promise<unknown> => {
    const search = new URLSearchParams(request.query ?? '');
    const query = new ParameterParser('query', route.query).parse((name) => search.getAll(name));
    const params = new ParameterParser('path', route.params).parse((name) => (request.params?.[name] === undefined ? [] : [request.params[name]]));
    const reply = await route.handler({ ...services, terminal, query, params, body: request.body, header: () => undefined });
    let value: unknown;
    if (reply.kind === 'json') value = reply.value;
    else if (reply.kind === 'bytes' || reply.kind === 'events' || reply.kind === 'websocket' || reply.kind === 'web') return undefined;
    else {
      try {
        value = JSON.parse(Buffer.from(await collect(await encodeReply('json', reply))).toString('utf8'));
      } finally {
        if (reply.kind === 'series') reply.series.close();
      }
    }
    return Array.isArray(value) ? value.slice(0, MAX_ROWS) : value;
  };
  try {
    for (const route of routes) {
      const key = exampleKey(route);
      const request = EXAMPLE_REQUESTS[key];
      if (!request) continue;
      const value = await answer(route, request);
      if (value === undefined) continue;
      main.set(key, value);
      const more: NamedExample[] = [];
      for (const extra of NAMED_EXAMPLE_REQUESTS[key] ?? []) more.push({ name: extra.name, summary: extra.summary, value: await answer(route, extra) });
      if (more.length > 0) named.set(key, more);
    }
  } finally {
    await terminal.close();
  }
  return { main, named };
}
