// The `id:` of a tick event, and what a reconnecting client sends back as Last-Event-ID.
//
// It names a position in the history of EVERY symbol of the stream, in the order the request
// listed them, so that resuming is exact per symbol whatever order the ticks of different symbols
// reached the gateway in. For one symbol it is `<time_msc>-<seq>`: the tick's time in ms and its
// index among that symbol's ticks of the same millisecond (e.g. 1700000000123-0). Each further
// symbol adds `,<delta>-<seq>` where delta = first time - this symbol's time (ms, may be negative),
// which keeps the id short. seq -1 means "before any tick of that millisecond".
import { validationError } from '../http/problem.js';
import type { TickCursor } from './tick-feed.js';

/** Longest Last-Event-ID taken (a stream of TRADEAPI_EVENTS_MAX_SYMBOLS symbols has far shorter ids). */
export const MAX_EVENT_ID_CHARS = 4096;

export function formatEventId(cursors: readonly TickCursor[]): string {
  const first = cursors[0];
  if (!first) return '';
  let id = `${first.time_msc}-${first.seq}`;
  for (let i = 1; i < cursors.length; i++) {
    const c = cursors[i] as TickCursor;
    id += `,${first.time_msc - c.time_msc}-${c.seq}`;
  }
  return id;
}

const FIRST = /^(\d{1,16})-(-1|\d{1,9})$/;
const NEXT = /^(-?\d{1,16})-(-1|\d{1,9})$/;

/**
 * The cursors of `symbols` in a Last-Event-ID (or a WebSocket subscribe's `since`, named by `what`);
 * a 400 problem when it is not one this stream's ids could have been.
 */
export function parseEventId(raw: string, symbols: readonly string[], what = "header 'Last-Event-ID'"): TickCursor[] {
  const bad = (why: string) =>
    validationError(`${what} ${why}; it must be the id of an event of a stream of the same symbols (${symbols.join(',')}), in the same order`);
  if (raw.length > MAX_EVENT_ID_CHARS) throw bad(`is longer than ${MAX_EVENT_ID_CHARS} characters`);
  const parts = raw.trim().split(',');
  if (parts.length !== symbols.length) throw bad(`names ${parts.length} position(s) for ${symbols.length} symbol(s)`);
  const cursors: TickCursor[] = [];
  let base = 0;
  for (const [i, part] of parts.entries()) {
    const m = (i === 0 ? FIRST : NEXT).exec(part);
    if (!m) throw bad(`has a malformed position ${JSON.stringify(part.slice(0, 40))}`);
    const n = Number(m[1]);
    const time = i === 0 ? n : base - n;
    if (i === 0) base = n;
    if (!Number.isSafeInteger(time) || time < 0) throw bad(`has a position out of range ${JSON.stringify(part.slice(0, 40))}`);
    cursors.push({ time_msc: time, seq: Number(m[2]) });
  }
  return cursors;
}

/** a is after b in a symbol's history. */
export function isAfter(a: TickCursor, b: TickCursor): boolean {
  return a.time_msc > b.time_msc || (a.time_msc === b.time_msc && a.seq > b.seq);
}
