// Open positions and active pending orders.
import { Type } from '@sinclair/typebox';

import { defineRoute, type Route } from '../http/route.js';
import { Param } from '../http/params.js';
import { recordSchema } from '../http/record-schema.js';
import { TradeOrderColumns, TradePositionColumns } from '../terminal/records.js';
import type { TradeFilter } from '../terminal/terminal.js';
import { countRoute } from './shared.js';

const filter = (what: string) => ({
  symbol: Type.Optional(Param.symbol(`Only ${what} of this symbol (wins over ticket)`)),
  group: Type.Optional(Param.group()),
  ticket: Type.Optional(Param.ticket(`Only the ${what.replace(/s$/, '')} with this ticket`)),
});

function toFilter(q: { symbol?: string; group?: string; ticket?: number }): TradeFilter {
  const f: TradeFilter = {};
  if (q.symbol !== undefined) f.symbol = q.symbol;
  if (q.group !== undefined) f.group = q.group;
  if (q.ticket !== undefined) f.ticket = q.ticket;
  return f;
}

export const tradingRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/positions',
    mt5: 'positions_get',
    summary: 'Open positions',
    tags: ['trading'],
    operational: false,
    query: filter('positions'),
    response: { kind: 'records', description: 'positions_get(...)', schema: Type.Array(recordSchema('TradePosition', TradePositionColumns)) },
    async handler({ terminal, query }) {
      return { kind: 'records', rows: await terminal.positionsGet(toFilter(query)), columns: TradePositionColumns };
    },
  }),
  countRoute({
    path: '/positions/total',
    summary: 'Number of open positions',
    tag: 'trading',
    call: 'positions_total()',
    counts: 'Count',
    count: (terminal) => terminal.positionsTotal(),
  }),
  defineRoute({
    method: 'GET',
    path: '/orders',
    mt5: 'orders_get',
    summary: 'Active pending orders',
    tags: ['trading'],
    operational: false,
    query: filter('orders'),
    response: { kind: 'records', description: 'orders_get(...)', schema: Type.Array(recordSchema('TradeOrder', TradeOrderColumns)) },
    async handler({ terminal, query }) {
      return { kind: 'records', rows: await terminal.ordersGet(toFilter(query)), columns: TradeOrderColumns };
    },
  }),
  countRoute({
    path: '/orders/total',
    summary: 'Number of active pending orders',
    tag: 'trading',
    call: 'orders_total()',
    counts: 'Count',
    count: (terminal) => terminal.ordersTotal(),
  }),
];
