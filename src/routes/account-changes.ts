// GET /account/changes (issue 37 §3): the account's changes since a deal event id or an instant,
// bounded, in one request: the deals after it in history order (at most `limit`, with `more` and the
// id to go on from), and the positions, pending orders and money as they are now. What a client
// without a stream (an agent through MCP, a cron job) polls with the last id it got: the tool is
// generated from this route as every other is (mcp-tools.ts), and the ids are those of deal events
// on GET /events and /ws, so a poller and a stream resume from each other's positions.
import { Type } from '@sinclair/typebox';

import type { DealCursor } from '../events/account-diff.js';
import { dealsBetween } from '../events/account-feed.js';
import { formatDealId, splitEventId } from '../events/deal-id.js';
import { ACCOUNT_FIGURES } from '../events/event-kinds.js';
import { validationError } from '../http/problem.js';
import { Param } from '../http/params.js';
import { recordSchema } from '../http/record-schema.js';
import { defineRoute, type Route } from '../http/route.js';
import { TradeDealColumns, TradeOrderColumns, TradePositionColumns, type TradeDeal } from '../terminal/records.js';

/** Deals in one answer at most (what an MCP tool returns inline). */
export const MAX_CHANGES = 1000;
const DAY_MS = 86_400_000;

const ChangesSchema = Type.Object(
  {
    deals: Type.Array(recordSchema('TradeDeal', TradeDealColumns), { description: 'The deals after the position asked for, in history order (time, then ticket), as /history/deals records them' }),
    more: Type.Boolean({ description: 'More deals follow: ask again with since=last_event_id' }),
    last_event_id: Type.Union([Type.String(), Type.Null()], {
      description: "Where the next request goes on from (since=): the last deal's id as deal events carry it (deal:<time_msc>-<ticket>); the position asked for when no deal came after it",
    }),
    positions: Type.Array(recordSchema('TradePosition', TradePositionColumns), { description: 'The open positions now (positions_get())' }),
    orders: Type.Array(recordSchema('TradeOrder', TradeOrderColumns), { description: 'The pending orders now (orders_get())' }),
    account: Type.Object(Object.fromEntries(ACCOUNT_FIGURES.map((f) => [f, Type.Number()])), {
      description: "The account's money now (account_info()'s figures that account events carry; the answer's Date header says when)",
      title: 'AccountMoney',
    }),
  },
  { title: 'AccountChanges' },
);

/** The deals after `from`, in history order, at most `limit` (and whether more follow). */
async function dealsAfter(terminal: Parameters<Route['handler']>[0]['terminal'], from: DealCursor, limit: number): Promise<{ deals: TradeDeal[]; more: boolean }> {
  // Up to a day ahead of this clock: a terminal's server clock may run ahead of UTC (the quirk
  // history_deals_get has), and a deal stamped in it is still a deal of now.
  const to: DealCursor = { time_msc: Date.now() + DAY_MS, ticket: Number.MAX_SAFE_INTEGER };
  const deals: TradeDeal[] = [];
  for await (const batch of dealsBetween(terminal, from, to)) {
    deals.push(...batch);
    if (deals.length > limit) break;
  }
  return { deals: deals.slice(0, limit), more: deals.length > limit };
}

export const accountChangeRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/account/changes',
    summary: "The account's changes since a deal event id or an instant: the deals after it, and positions, orders and money now",
    description:
      `Give \`since\` (a deal event's id, \`deal:<time_msc>-<ticket>\`, as GET /events and /ws send it, or the \`last_event_id\` of a previous answer) or \`date_from\` (the deals from that instant on), not both. ` +
      `The answer holds at most \`limit\` deals (default 100, at most ${MAX_CHANGES}) in history order; \`more\` says whether others follow, and \`last_event_id\` is where to go on from. ` +
      'Positions, pending orders and the account figures are the state now (a stream of account events sends the same as its snapshots). ' +
      'A poller and a stream resume from each other\'s ids: no deal is missed or repeated between them.',
    tags: ['account'],
    operational: false,
    mcpTool: true,
    query: {
      since: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "A deal event's id (deal:<time_msc>-<ticket>): the deals after it", examples: ['deal:1704880000123-40321001'] })),
      date_from: Type.Optional(Param.date('Or: the deals from this instant on')),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CHANGES, description: `Deals in the answer at most, 1 to ${MAX_CHANGES} (default 100)` })),
    },
    response: { kind: 'json', description: 'The deals after the position asked for, and the state now', schema: ChangesSchema },
    async handler({ terminal, query }) {
      if ((query.since === undefined) === (query.date_from === undefined)) {
        throw validationError("give one of query parameters 'since' (a deal event's id) and 'date_from' (an instant)");
      }
      let from: DealCursor;
      if (query.since !== undefined) {
        const { tickId, deal } = splitEventId(query.since, "query parameter 'since'");
        if (!deal || tickId !== '') throw validationError("query parameter 'since' must be a deal event's id, deal:<time_msc>-<ticket>");
        from = deal;
      } else {
        // Ticket 0: before every deal of that millisecond.
        from = { time_msc: query.date_from as number, ticket: 0 };
      }
      const limit = query.limit ?? 100;
      const [{ deals, more }, positions, orders, info] = await Promise.all([dealsAfter(terminal, from, limit), terminal.positionsGet(), terminal.ordersGet(), terminal.accountInfo()]);
      const last = deals.at(-1);
      const lastEventId = last ? formatDealId(last) : query.since !== undefined ? formatDealId(from) : null;
      const account = Object.fromEntries(ACCOUNT_FIGURES.map((f) => [f, info[f]]));
      return { kind: 'json', status: 200, value: { deals, more, last_event_id: lastEventId, positions, orders, account } };
    },
  }),
];
