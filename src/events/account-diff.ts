// What changed in the account between two polls, as the terminal's own records say: positions and
// pending orders compared by ticket on a digest of what a trader changes (volume, prices, SL, TP,
// type; totals alone would miss an SL/TP or price modification), and the position in the deal
// history (the last deal's time and ticket) that deal events and their resume are measured from.
import type { TradeDeal, TradeOrder, TradePosition } from '../terminal/records.js';

/** A position in the account's deal history: after the deal `ticket` of millisecond `time_msc` (ticket 0: before that millisecond's deals). */
export interface DealCursor {
  readonly time_msc: number;
  readonly ticket: number;
}

/** History order: time, then ticket (tickets grow, and break ties within a millisecond). */
export function dealIsAfter(d: DealCursor, cursor: DealCursor): boolean {
  return d.time_msc > cursor.time_msc || (d.time_msc === cursor.time_msc && d.ticket > cursor.ticket);
}

export function compareDeals(a: DealCursor, b: DealCursor): number {
  return a.time_msc - b.time_msc || a.ticket - b.ticket;
}

/** The fields a trader changes on an open position; price_current, profit and swap move with the market and are no event. */
export function positionDigest(p: TradePosition): string {
  return `${p.type}|${p.volume}|${p.price_open}|${p.sl}|${p.tp}`;
}

/** The fields that change on a pending order: its prices, SL/TP, remaining volume (a partial fill), type (a stop-limit placing its limit) and expiry. */
export function orderDigest(o: TradeOrder): string {
  return `${o.type}|${o.volume_current}|${o.price_open}|${o.price_stoplimit}|${o.sl}|${o.tp}|${o.type_time}|${o.time_expiration}|${o.state}`;
}

export interface TicketDiff<R> {
  readonly opened: R[];
  readonly modified: R[];
  /** The records last seen of the tickets that are gone. */
  readonly removed: R[];
  readonly next: Map<number, R>;
}

/** Compares the records now (`after`) with those last seen, ticket by ticket, in ticket order. */
export function diffByTicket<R extends { ticket: number }>(before: ReadonlyMap<number, R>, after: readonly R[], digest: (r: R) => string): TicketDiff<R> {
  const next = new Map<number, R>();
  const opened: R[] = [];
  const modified: R[] = [];
  for (const r of [...after].sort((a, b) => a.ticket - b.ticket)) {
    next.set(r.ticket, r);
    const old = before.get(r.ticket);
    if (!old) opened.push(r);
    else if (digest(old) !== digest(r)) modified.push(r);
  }
  const removed = [...before.values()].filter((r) => !next.has(r.ticket)).sort((a, b) => a.ticket - b.ticket);
  return { opened, modified, removed, next };
}

/** `deals` after `cursor` in history order (each once, whatever the overlap of the windows read). */
export function dealsAfter(deals: readonly TradeDeal[], cursor: DealCursor): TradeDeal[] {
  return deals.filter((d) => dealIsAfter(d, cursor)).sort(compareDeals);
}
