// The client's side of the WebSocket protocol of live events (GET /ws): one JSON text message per
// operation, checked here into a typed message or refused with a validation problem naming what is
// wrong. The server's messages are built in ws-session.ts.
import type { TickCursor } from './tick-feed.js';
import { MAX_EVENT_ID_CHARS, parseEventId } from './event-id.js';
import { ALL_KINDS, EVENT_KINDS, type EventKind } from './event-kinds.js';
import type { DealCursor } from './account-diff.js';
import { splitEventId } from './deal-id.js';
import { parseIsoUtc } from '../http/params.js';
import { preview } from '../http/preview.js';
import type { ReplayAsk } from './replay-plan.js';
import { MAX_SPEED } from './replay.js';
import { ProblemError, validationError } from '../http/problem.js';
import { BAR_PRICES, parseBarPeriod, type BarPeriod, type BarPrice } from '../terminal/bar-period.js';

/** A subscribe's bar members: the period (and its text), the price, and `bar_since` (the last bar time per symbol). */
export interface BarAsk {
  period: BarPeriod;
  text: string;
  price: BarPrice | undefined;
  since: number[] | undefined;
}

export const WS_KINDS: readonly EventKind[] = ALL_KINDS;
export type WsFormat = 'json' | 'arrow';
const FORMATS: readonly WsFormat[] = ['json', 'arrow'];

/** A client's correlation id, echoed in the reply to its message. */
export type MessageId = string | number | undefined;

export type ClientMessage =
  | { op: 'auth'; id: MessageId; key: string }
  | { op: 'ping'; id: MessageId }
  /**
   * format undefined: the connection's tick format stays as it is (JSON to begin with). since: the
   * client's last position per symbol (from the `since` member, an event id), to catch up from.
   */
  | {
      op: 'subscribe';
      id: MessageId;
      symbols: string[];
      kinds: EventKind[];
      format: WsFormat | undefined;
      since: TickCursor[] | undefined;
      /** The deal part of `since` (deal-id.ts): the deals after it are sent first, from history. */
      dealsSince: DealCursor | undefined;
      /** `start` (and `end`, `speed`): a replay; checked into a plan by the session (replay-plan.ts). */
      replay: ReplayAsk | undefined;
      /** With "bar" in kinds: the live bars asked for. */
      bars: BarAsk | undefined;
    }
  /** symbols / kinds undefined: all of them. */
  | { op: 'unsubscribe'; id: MessageId; symbols: string[] | undefined; kinds: EventKind[] };

const MEMBERS: Readonly<Record<ClientMessage['op'], readonly string[]>> = {
  auth: ['op', 'id', 'key'],
  ping: ['op', 'id'],
  subscribe: ['op', 'id', 'symbols', 'kinds', 'format', 'since', 'start', 'end', 'speed', 'period', 'price', 'bar_since'],
  unsubscribe: ['op', 'id', 'symbols', 'kinds'],
};
const SYMBOL_MAX_CHARS = 64;

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The message, or a ProblemError (400) saying why it is not one. `maxSymbols` bounds a subscribe's list. */
export function parseClientMessage(data: Uint8Array, isBinary: boolean, maxSymbols: number): ClientMessage {
  if (isBinary) throw validationError('messages are JSON text frames; a binary frame was received');
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(data));
  } catch (e) {
    throw validationError(`the message is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw validationError(`a message is a JSON object with an "op"; received ${preview(value)}`);
  const m = value as Record<string, unknown>;
  const id = messageId(m.id);
  const op = m.op;
  // Own members only: `in` would take "constructor", "__proto__"… (inherited by every object) for ops.
  if (typeof op !== 'string' || !Object.hasOwn(MEMBERS, op)) {
    throw withId(validationError(`member "op" must be one of ${Object.keys(MEMBERS).join(', ')}; received ${preview(op)}`), id);
  }
  try {
    const allowed = MEMBERS[op as ClientMessage['op']];
    const unknown = Object.keys(m).filter((k) => !allowed.includes(k));
    if (unknown.length > 0) throw validationError(`"${op}" takes only ${allowed.join(', ')}; unknown member ${JSON.stringify(unknown[0])}`);
    switch (op as ClientMessage['op']) {
      case 'auth':
        if (typeof m.key !== 'string') throw validationError('"auth" needs a string member "key"');
        return { op: 'auth', id, key: m.key };
      case 'ping':
        return { op: 'ping', id };
      case 'subscribe': {
        const kinds = kindList(m.kinds) ?? ['tick'];
        const market = kinds.filter((k) => EVENT_KINDS[k].family === 'market');
        // The account kinds are about the account, not a symbol: they need no symbols.
        if (market.length === 0 && m.symbols !== undefined) {
          throw validationError(`member "symbols" applies to the kinds tick, book and bar; kinds ${kinds.join(', ')} are about the account and take none`);
        }
        const symbols = market.length > 0 ? symbolList(m.symbols, maxSymbols) : [];
        if (symbols === undefined) throw validationError(`"subscribe" needs a member "symbols" (an array of symbol names) for kinds ${market.join(', ')}`);
        const format = m.format;
        if (format !== undefined && (typeof format !== 'string' || !(FORMATS as readonly string[]).includes(format))) {
          throw validationError(`member "format" must be one of ${FORMATS.join(', ')}; received ${preview(m.format)}`);
        }
        const replay = replayOf(m);
        const bars = barsOf(m, symbols, kinds);
        if (replay && bars) throw validationError('member "start": a replay sends ticks only; "bar" events are live (ask GET /ticks/bars for the bars before now)');
        const since = sinceOf(m.since, symbols, kinds);
        return { op: 'subscribe', id, symbols, kinds, format: format as WsFormat | undefined, since: since.ticks, dealsSince: since.deal, replay, bars };
      }
      case 'unsubscribe': {
        const symbols = symbolList(m.symbols, Number.MAX_SAFE_INTEGER);
        // Symbols named and no kinds: the kinds of those symbols (the account kinds belong to none).
        const kinds = kindList(m.kinds) ?? WS_KINDS.filter((k) => symbols === undefined || EVENT_KINDS[k].family === 'market');
        return { op: 'unsubscribe', id, symbols, kinds };
      }
    }
  } catch (e) {
    throw withId(e, id);
  }
}

/** A ProblemError that also carries the id of the message it answers. */
export class MessageProblem extends ProblemError {
  constructor(
    e: ProblemError,
    readonly id: MessageId,
  ) {
    super(e.kind, e.detail, e.headers);
  }
}

function withId(e: unknown, id: MessageId): unknown {
  return e instanceof ProblemError && id !== undefined ? new MessageProblem(e, id) : e;
}

function messageId(raw: unknown): MessageId {
  if (raw === undefined) return undefined;
  if ((typeof raw === 'string' && raw.length <= 64) || (typeof raw === 'number' && Number.isFinite(raw))) return raw;
  throw validationError(`member "id" must be a number or a string of at most 64 characters; received ${preview(raw)}`);
}

function symbolList(raw: unknown, max: number): string[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || raw.length === 0) throw validationError(`member "symbols" must be a non-empty array of symbol names; received ${preview(raw)}`);
  if (raw.length > max) throw validationError(`member "symbols" lists ${raw.length} symbols; a connection takes at most ${max} (TRADEAPI_EVENTS_MAX_SYMBOLS)`);
  for (const s of raw) {
    if (typeof s !== 'string' || s === '' || s.length > SYMBOL_MAX_CHARS) {
      throw validationError(`member "symbols" must hold symbol names (1 to ${SYMBOL_MAX_CHARS} characters); received ${preview(s)}`);
    }
  }
  const symbols = raw as string[];
  const twice = symbols.find((s, i) => symbols.indexOf(s) !== i);
  if (twice !== undefined) throw validationError(`member "symbols" lists ${JSON.stringify(twice)} twice`);
  return symbols;
}

/** The `since` member: an event id (event-id.ts) naming a position for each of `symbols`, in order. */
function sinceOf(raw: unknown, symbols: readonly string[], kinds: readonly EventKind[]): { ticks: TickCursor[] | undefined; deal: DealCursor | undefined } {
  if (raw === undefined) return { ticks: undefined, deal: undefined };
  if (typeof raw !== 'string' || raw.trim() === '' || raw.length > MAX_EVENT_ID_CHARS) {
    throw validationError(`member "since" must be an event id (a tick event's "event_id", or one position per symbol as in SSE ids, or a deal event's) of at most ${MAX_EVENT_ID_CHARS} characters; received ${preview(raw)}`);
  }
  const { tickId, deal } = splitEventId(raw, 'member "since"');
  if (deal && !kinds.includes('deal')) throw validationError('member "since" names a deal position: it needs "deal" in member "kinds"');
  if (tickId === '') return { ticks: undefined, deal };
  if (!kinds.includes('tick')) throw validationError('member "since" resumes ticks: it needs "tick" in member "kinds"');
  return { ticks: parseEventId(tickId, symbols, 'member "since"'), deal };
}

/** The bar members: `period` (and `price`, `bar_since`) exactly when "bar" is in kinds. */
function barsOf(m: Record<string, unknown>, symbols: readonly string[], kinds: readonly EventKind[]): BarAsk | undefined {
  if (!kinds.includes('bar')) {
    const stray = (['period', 'price', 'bar_since'] as const).find((k) => m[k] !== undefined);
    if (stray) throw validationError(`member "${stray}" applies to bar events: add "bar" to member "kinds"`);
    return undefined;
  }
  if (typeof m.period !== 'string') throw validationError(`bar events need a member "period", e.g. "5s" (as GET /ticks/bars takes it); received ${preview(m.period)}`);
  const period = parseBarPeriod(m.period);
  if (typeof period === 'string') throw validationError(`member "period": ${period}`);
  const price = m.price;
  if (price !== undefined && (typeof price !== 'string' || !(BAR_PRICES as readonly string[]).includes(price))) {
    throw validationError(`member "price" must be one of ${BAR_PRICES.join(', ')}; received ${preview(price)}`);
  }
  const since = m.bar_since;
  if (since !== undefined && (!Array.isArray(since) || since.length !== symbols.length || !since.every((t) => Number.isSafeInteger(t) && (t as number) >= 0))) {
    throw validationError(`member "bar_since" must hold one bar time (UTC seconds, a bar event's "event_id") per symbol of "symbols", in order; received ${preview(since)}`);
  }
  return { period, text: m.period, price: price as BarPrice | undefined, since: since as number[] | undefined };
}

/** The replay members as given (instants as ms); their sense is checked by replayPlan. */
function replayOf(m: Record<string, unknown>): ReplayAsk | undefined {
  if (m.start === undefined && m.end === undefined && m.speed === undefined) return undefined;
  const instant = (name: 'start' | 'end'): number | undefined => {
    const raw = m[name];
    if (raw === undefined) return undefined;
    const ms = typeof raw === 'string' ? parseIsoUtc(raw) : undefined;
    if (ms === undefined) throw validationError(`member "${name}" must be an ISO 8601 UTC timestamp ending in Z, e.g. 2024-01-10T00:00:00Z; received ${preview(raw)}`);
    return ms;
  };
  const speed = m.speed;
  if (speed !== undefined && (typeof speed !== 'number' || !Number.isFinite(speed) || speed < 0 || speed > MAX_SPEED)) {
    throw validationError(`member "speed" must be a number from 0 to ${MAX_SPEED}; received ${preview(speed)}`);
  }
  return { start: instant('start'), end: instant('end'), speed };
}

function kindList(raw: unknown): EventKind[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || raw.length === 0) throw validationError(`member "kinds" must be a non-empty array of ${WS_KINDS.join(', ')}; received ${preview(raw)}`);
  const kinds = new Set<EventKind>();
  for (const k of raw) {
    if (typeof k !== 'string' || !(WS_KINDS as readonly string[]).includes(k)) {
      throw validationError(`member "kinds" may hold ${WS_KINDS.join(', ')}; received ${preview(k)}`);
    }
    kinds.add(k as EventKind);
  }
  return [...kinds];
}
