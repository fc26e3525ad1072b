// The route table: every endpoint of the service, plus its docs, in one list.
import type { Route } from '../http/route.js';
import { calcRoutes } from './calc.js';
import { docsRoutes } from './docs.js';
import { eventRoutes } from './events.js';
import { historyRoutes } from './history.js';
import { marketBookRoutes } from './market-book.js';
import { metricsRoutes } from './metrics.js';
import { orderCheckRoutes } from './order-check.js';
import { rateRoutes } from './rates.js';
import { symbolRoutes } from './symbols.js';
import { systemRoutes } from './system.js';
import { tickRoutes } from './ticks.js';
import { tradingRoutes } from './trading.js';

export const apiRoutes: readonly Route[] = [
  ...systemRoutes,
  ...symbolRoutes,
  ...rateRoutes,
  ...tickRoutes,
  ...marketBookRoutes,
  ...calcRoutes,
  ...tradingRoutes,
  ...historyRoutes,
  ...orderCheckRoutes,
  ...eventRoutes,
  ...metricsRoutes,
];

export interface RouteTableOptions {
  prefix: string;
  version: string;
  authRequired: boolean;
  /**
   * Keep only the routes served read-only: no operational route (select, subscribe, order check),
   * nor GET /market-book/{symbol} (it cannot succeed without subscribe) or /calc/* (the spec names
   * margin and profit calculation among the full variant's extras).
   */
  readOnly: boolean;
  /** Requests per minute per client, documented as 429 + RateLimit-* headers (read-only mode). */
  rateLimit?: number | undefined;
}

export function routeTable(options: RouteTableOptions): Route[] {
  const api = options.readOnly ? apiRoutes.filter((r) => r.readOnly) : [...apiRoutes];
  return [...api, ...docsRoutes(api, options)];
}
