// The route table: every endpoint of the service, plus its docs, in one list.
import type { Route } from '../http/route.js';
import type { Logger } from '../log.js';
import { accountChangeRoutes } from './account-changes.js';
import { calcRoutes } from './calc.js';
import { docsRoutes } from './docs.js';
import { eventRoutes } from './events.js';
import { historyRoutes } from './history.js';
import { marketBookRoutes } from './market-book.js';
import { mcpRoutes } from './mcp.js';
import { metricsRoutes } from './metrics.js';
import { orderCheckRoutes } from './order-check.js';
import { barRoutes } from './bars.js';
import { rateRoutes } from './rates.js';
import { storeRoutes } from './store.js';
import { serverTimeRoutes } from './server-time.js';
import { symbolRoutes } from './symbols.js';
import { systemRoutes } from './system.js';
import { tickRoutes } from './ticks.js';
import { tradingRoutes } from './trading.js';

export const apiRoutes: readonly Route[] = [
  ...systemRoutes,
  ...serverTimeRoutes,
  ...symbolRoutes,
  ...rateRoutes,
  ...tickRoutes,
  ...barRoutes,
  ...storeRoutes,
  ...marketBookRoutes,
  ...calcRoutes,
  ...tradingRoutes,
  ...historyRoutes,
  ...accountChangeRoutes,
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
  /** A local history store is configured (TRADEAPI_STORE): only then are its routes (/store/*) served and documented. */
  store?: boolean | undefined;
  /** Where POST /mcp logs a tool's unexpected failure. */
  logger?: Logger | undefined;
}

export function routeTable(options: RouteTableOptions): Route[] {
  const served = options.store ? apiRoutes : apiRoutes.filter((r) => !storeRoutes.includes(r));
  const api = options.readOnly ? served.filter((r) => r.readOnly) : [...served];
  // POST /mcp: one MCP tool per data route of this variant (src/routes/mcp.ts).
  return [...api, ...docsRoutes(api, options), ...mcpRoutes(api, options)];
}
