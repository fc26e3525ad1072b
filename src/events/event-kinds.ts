// The registry of event kinds: one entry per kind that GET /events and /ws carry, with what it
// is, the JSON schema of its `data` and where it is served. It plays the route table's role for
// events: the `kinds` validation of both adapters, the OpenAPI document's event schemas and the
// docs' list are all read from here, so a kind exists everywhere or nowhere.
import { Type, TypeGuard, type TSchema } from '@sinclair/typebox';

import { recordSchema } from '../http/record-schema.js';
import { validationError, received } from '../http/problem.js';
import { BookInfoColumns, TickColumns, TradeDealColumns, TradeOrderColumns, TradePositionColumns } from '../terminal/records.js';

/** Kinds about a symbol's market (need `symbols`). */
export type MarketKind = 'tick' | 'book' | 'bar';
/** Kinds about the account (its trades and money; no symbols). */
export type AccountKind = 'deal' | 'order' | 'position' | 'account';
export type EventKind = MarketKind | AccountKind;

export interface EventKindSpec {
  readonly kind: EventKind;
  /** market: about the listed symbols; account: about the terminal's account. */
  readonly family: 'market' | 'account';
  /** One line on what an event of this kind says (docs, OpenAPI). */
  readonly summary: string;
  /** The schema of the event's `data`. */
  readonly data: TSchema;
  /** Served by the read-only variant too. */
  readonly readOnly: boolean;
}

export const ORDER_CHANGES = ['opened', 'modified', 'filled', 'cancelled'] as const;
export const POSITION_CHANGES = ['opened', 'modified', 'closed'] as const;
export type OrderChange = (typeof ORDER_CHANGES)[number];
export type PositionChange = (typeof POSITION_CHANGES)[number];

const literals = (names: readonly string[]): TSchema => Type.Union(names.map((n) => Type.Literal(n)));

/** What an `account` event carries: the account's money, as account_info gives it. */
export const ACCOUNT_FIGURES = ['balance', 'credit', 'profit', 'equity', 'margin', 'margin_free', 'margin_level'] as const;
export type AccountFigureName = (typeof ACCOUNT_FIGURES)[number];
export type AccountFigures = Record<AccountFigureName, number> & { time_msc: number };

const accountSchema = Type.Object(
  {
    ...Object.fromEntries(ACCOUNT_FIGURES.map((f) => [f, Type.Number()])),
    time_msc: Type.Integer({ description: 'When the gateway read these figures, ms since the epoch (UTC)' }),
  },
  { title: 'AccountFigures', additionalProperties: false },
);
const orderSchema = recordSchema('TradeOrder', TradeOrderColumns);
const positionSchema = recordSchema('TradePosition', TradePositionColumns);

export const EVENT_KINDS: Readonly<Record<EventKind, EventKindSpec>> = {
  tick: {
    kind: 'tick',
    family: 'market',
    summary: 'every new tick of a listed symbol, with its `symbol` and the fields and units of /symbols/{symbol}/tick',
    data: Type.Composite([Type.Object({ symbol: Type.String() }), recordSchema('Tick', TickColumns)], { title: 'TickEvent' }),
    readOnly: true,
  },
  book: {
    kind: 'book',
    family: 'market',
    summary: "a listed symbol's market depth whenever it changes (needs a market-depth subscription; not in read-only mode)",
    data: Type.Object({ symbol: Type.String(), time_msc: Type.Integer(), book: Type.Array(recordSchema('BookInfo', BookInfoColumns)) }, { title: 'BookEvent' }),
    readOnly: false,
  },
  bar: {
    kind: 'bar',
    family: 'market',
    summary: 'every closed bar of a listed symbol in the custom period asked for (`period`, as GET /ticks/bars takes it), with the values GET /ticks/bars returns for it',
    data: Type.Object(
      {
        symbol: Type.String(),
        period: Type.String({ description: 'The period asked for, as given' }),
        time: Type.Integer({ description: 'Open time, seconds since the epoch (UTC)' }),
        open: Type.Number(),
        high: Type.Number(),
        low: Type.Number(),
        close: Type.Number(),
        tick_volume: Type.Integer(),
        spread: Type.Integer({ description: "The bar's least spread, points" }),
        real_volume: Type.Integer(),
        time_close_msc: Type.Integer({ description: "Time of the bar's last tick, milliseconds since the epoch" }),
      },
      { title: 'BarEvent' },
    ),
    readOnly: true,
  },
  deal: {
    kind: 'deal',
    family: 'account',
    summary: 'every new deal of the account, as /history/deals records it; resumable exactly (the event id names the last deal)',
    data: recordSchema('TradeDeal', TradeDealColumns),
    readOnly: true,
  },
  order: {
    kind: 'order',
    family: 'account',
    summary: `a pending order opened, modified, filled or cancelled (\`change\`), with the order after the change (from the history when it left the book)`,
    data: Type.Object({ change: literals(ORDER_CHANGES), order: orderSchema }, { title: 'OrderEvent', additionalProperties: false }),
    readOnly: true,
  },
  position: {
    kind: 'position',
    family: 'account',
    summary: 'a position opened, modified (SL/TP, volume, price) or closed (`change`), with the position after the change (for closed: as last seen)',
    data: Type.Object({ change: literals(POSITION_CHANGES), position: positionSchema }, { title: 'PositionEvent', additionalProperties: false }),
    readOnly: true,
  },
  account: {
    kind: 'account',
    family: 'account',
    summary: 'balance, credit, profit, equity, margin, margin_free, margin_level, at most every TRADEAPI_EVENTS_ACCOUNT_MS while they change',
    data: accountSchema,
    readOnly: true,
  },
};

/** The `snapshot` event that opens (and re-opens, on a resume) the state kinds: the full current state of one kind. */
export const SNAPSHOT_SCHEMA = Type.Union(
  [
    Type.Object({ kind: Type.Literal('order'), orders: Type.Array(orderSchema) }, { additionalProperties: false }),
    Type.Object({ kind: Type.Literal('position'), positions: Type.Array(positionSchema) }, { additionalProperties: false }),
    Type.Object({ kind: Type.Literal('account'), account: accountSchema }, { additionalProperties: false }),
  ],
  { title: 'SnapshotEvent' },
);

export const ALL_KINDS = Object.keys(EVENT_KINDS) as EventKind[];
export const ACCOUNT_KINDS = ALL_KINDS.filter((k) => EVENT_KINDS[k].family === 'account') as AccountKind[];

export function isAccountKind(kind: EventKind): kind is AccountKind {
  return EVENT_KINDS[kind].family === 'account';
}

/**
 * The kinds a request names, validated against the registry: a 400 problem naming the unknown one
 * (and those allowed), or one the read-only variant does not serve. `what` names the parameter.
 */
export function parseKinds(names: readonly string[], what: string, readOnly: boolean): Set<EventKind> {
  const kinds = new Set<EventKind>();
  const allowed = ALL_KINDS.filter((k) => !readOnly || EVENT_KINDS[k].readOnly);
  for (const name of names) {
    if (!(ALL_KINDS as readonly string[]).includes(name)) throw validationError(`${what} has ${received(name)}; allowed: ${allowed.join(', ')}`);
    const kind = name as EventKind;
    if (readOnly && !EVENT_KINDS[kind].readOnly) {
      throw validationError(`${what}: ${kind} events need a market-depth subscription, which read-only mode does not offer; allowed: ${allowed.join(', ')}`);
    }
    kinds.add(kind);
  }
  return kinds;
}

/** The `seq` an SSE event's data ends with (sse.ts); a WebSocket message carries it beside `data`. */
export const SEQ_SCHEMA = Type.Integer({ minimum: 1, description: "The event's number within its connection: 1, 2, 3… in the order written (events dropped for a slow client take none)" });

/** An event's `data` as an SSE stream writes it: the kind's data with `seq` as its last member. */
export function withSeq(schema: TSchema): TSchema {
  if (TypeGuard.IsUnion(schema)) return Type.Union(schema.anyOf.map(withSeq), { title: schema.title });
  if (TypeGuard.IsObject(schema)) {
    const { properties, required: _required, type: _type, ...options } = schema;
    void _required;
    void _type;
    return Type.Object({ ...properties, seq: SEQ_SCHEMA }, options);
  }
  return schema;
}

/** Every kind's data schema, and the snapshot's, as an SSE stream writes them (with `seq`): OpenAPI's `x-event-kinds`. */
export function eventSchemas(): Record<string, TSchema> {
  const out: Record<string, TSchema> = {};
  for (const k of ALL_KINDS) out[k] = withSeq(EVENT_KINDS[k].data);
  out.snapshot = withSeq(SNAPSHOT_SCHEMA);
  return out;
}
