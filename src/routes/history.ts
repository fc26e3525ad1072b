// Account history: orders and deals, by date range or by ticket/position.
import { Type } from '@sinclair/typebox';

import { defineRoute, type Route } from '../http/route.js';
import { Param } from '../http/params.js';
import { ProblemError, validationError } from '../http/problem.js';
import { recordSchema } from '../http/record-schema.js';
import { TradeDealColumns, TradeOrderColumns } from '../terminal/records.js';
import type { HistoryFilter } from '../terminal/terminal.js';
import { orderedRange, scalar, toSeconds } from './shared.js';

const total = scalar('total', 'int64', 'Count in the range');

const selectors = {
  date_from: Type.Optional(Param.date('Start of the range (inclusive)')),
  date_to: Type.Optional(Param.date('End of the range (inclusive)')),
  ticket: Type.Optional(Param.ticket('Only this ticket')),
  position: Type.Optional(Param.ticket('Only entries of this position id')),
  group: Type.Optional(Param.group()),
  symbol: Type.Optional(Param.symbol('Only this symbol')),
};

interface Selectors {
  date_from?: number;
  date_to?: number;
  ticket?: number;
  position?: number;
  group?: string;
  symbol?: string;
}

/** Like history_*_get: a date range (both ends), or a ticket, or a position must select something. */
function toFilter(q: Selectors): HistoryFilter {
  const hasFrom = q.date_from !== undefined;
  if (hasFrom !== (q.date_to !== undefined)) throw validationError("query parameters 'date_from' and 'date_to' go together; give both or neither");
  if (!hasFrom && q.ticket === undefined && q.position === undefined) {
    throw validationError("give 'date_from' and 'date_to', or 'ticket', or 'position'");
  }
  const f: HistoryFilter = {};
  if (q.date_from !== undefined && q.date_to !== undefined) {
    orderedRange(q.date_from, q.date_to);
    f.date_from = toSeconds(q.date_from);
    f.date_to = toSeconds(q.date_to);
  }
  if (q.ticket !== undefined) f.ticket = q.ticket;
  if (q.position !== undefined) f.position = q.position;
  if (q.group !== undefined) f.group = q.group;
  if (q.symbol !== undefined) f.symbol = q.symbol;
  return f;
}

/**
 * As history_*_get(ticket=) / (position=) do (they fail with -4, 'Terminal: Not found'): a ticket or
 * position that selects nothing, with no date range, is a 404 — unlike a date range with nothing in
 * it, an empty list. (The Terminal interface answers both with an empty list.)
 */
function found<T>(rows: T[], filter: HistoryFilter, what: string): T[] {
  if (rows.length > 0 || filter.date_from !== undefined || (filter.ticket === undefined && filter.position === undefined)) return rows;
  const by = filter.ticket !== undefined ? `ticket ${filter.ticket}` : `position ${filter.position}`;
  throw new ProblemError('notFound', `no ${what} with ${by} in the account's history (history_${what.replace(' ', '_')}_get fails with -4 'Terminal: Not found')`);
}

const range = { date_from: Param.date('Start of the range (inclusive)'), date_to: Param.date('End of the range (inclusive)') };
const selectorHelp =
  'Select by date_from and date_to (both), or by ticket, or by position; group and symbol narrow further. ' +
  'A ticket or position (without dates) that selects nothing is a 404, as history_*_get fails with -4; a range with nothing in it is an empty list.';

export const historyRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/history/orders',
    mt5: 'history_orders_get',
    summary: 'Historical orders',
    description: selectorHelp,
    tags: ['history'],
    operational: false,
    query: selectors,
    errors: ['notFound'],
    response: { kind: 'records', description: 'history_orders_get(...)', schema: Type.Array(recordSchema('TradeOrder', TradeOrderColumns)) },
    async handler({ terminal, query }) {
      const filter = toFilter(query);
      return { kind: 'records', rows: found(await terminal.historyOrdersGet(filter), filter, 'orders'), columns: TradeOrderColumns };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/history/orders/total',
    mt5: 'history_orders_total',
    summary: 'Number of historical orders in a range',
    tags: ['history'],
    operational: false,
    query: range,
    response: { kind: 'object', description: 'history_orders_total(date_from, date_to)', schema: total.schema },
    async handler({ terminal, query }) {
      orderedRange(query.date_from, query.date_to);
      const n = await terminal.historyOrdersTotal(toSeconds(query.date_from), toSeconds(query.date_to));
      return { kind: 'object', value: { total: n }, columns: total.columns };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/history/deals',
    mt5: 'history_deals_get',
    summary: 'Historical deals',
    description: selectorHelp,
    tags: ['history'],
    operational: false,
    query: selectors,
    errors: ['notFound'],
    response: { kind: 'records', description: 'history_deals_get(...)', schema: Type.Array(recordSchema('TradeDeal', TradeDealColumns)) },
    async handler({ terminal, query }) {
      const filter = toFilter(query);
      return { kind: 'records', rows: found(await terminal.historyDealsGet(filter), filter, 'deals'), columns: TradeDealColumns };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/history/deals/total',
    mt5: 'history_deals_total',
    summary: 'Number of historical deals in a range',
    tags: ['history'],
    operational: false,
    query: range,
    response: { kind: 'object', description: 'history_deals_total(date_from, date_to)', schema: total.schema },
    async handler({ terminal, query }) {
      orderedRange(query.date_from, query.date_to);
      const n = await terminal.historyDealsTotal(toSeconds(query.date_from), toSeconds(query.date_to));
      return { kind: 'object', value: { total: n }, columns: total.columns };
    },
  }),
];
