// Open positions and active pending orders.
import { Type } from '@sinclair/typebox';

import { defineRoute, type Route } from '../http/route.js';
import { Param } from '../http/params.js';
import { recordSchema } from '../http/record-schema.js';
import { TradeOrderColumns, TradePositionColumns } from '../terminal/records.js';
import type { TradeFilter } from '../terminal/terminal.js';
import { scalar } from './shared.js';

const total = scalar('total', 'int64', 'Count');
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
    summary: 'Open positions',
    tags: ['trading'],
    operational: false,
    query: filter('positions'),
    response: { kind: 'records', description: 'positions_get(...)', schema: Type.Array(recordSchema('TradePosition', TradePositionColumns)) },
    async handler({ terminal, query }) {
      return { kind: 'records', rows: await terminal.positionsGet(toFilter(query)), columns: TradePositionColumns };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/positions/total',
    summary: 'Number of open positions',
    tags: ['trading'],
    operational: false,
    response: { kind: 'object', description: 'positions_total()', schema: total.schema },
    async handler({ terminal }) {
      return { kind: 'object', value: { total: await terminal.positionsTotal() }, columns: total.columns };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/orders',
    summary: 'Active pending orders',
    tags: ['trading'],
    operational: false,
    query: filter('orders'),
    response: { kind: 'records', description: 'orders_get(...)', schema: Type.Array(recordSchema('TradeOrder', TradeOrderColumns)) },
    async handler({ terminal, query }) {
      return { kind: 'records', rows: await terminal.ordersGet(toFilter(query)), columns: TradeOrderColumns };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/orders/total',
    summary: 'Number of active pending orders',
    tags: ['trading'],
    operational: false,
    response: { kind: 'object', description: 'orders_total()', schema: total.schema },
    async handler({ terminal }) {
      return { kind: 'object', value: { total: await terminal.ordersTotal() }, columns: total.columns };
    },
  }),
];
