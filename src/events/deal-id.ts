// The deal part of an event id: `deal:<time_msc>-<ticket>`, the account's last deal sent (its time
// in ms and its ticket). A stream that carries deal events gives it to every event with an id
// (after the ticks' part, `;`-separated, when it carries ticks too), so Last-Event-ID (or a
// WebSocket subscribe's `since`) names where the client is in the deal history: a reconnect, even
// to a restarted gateway, gets exactly the deals after it, from the terminal's history.
import { validationError } from '../http/problem.js';
import type { DealCursor } from './account-diff.js';

const PREFIX = 'deal:';
const DEAL = /^deal:(\d{1,16})-(\d{1,19})$/;

export function formatDealId(c: DealCursor): string {
  return `${PREFIX}${c.time_msc}-${c.ticket}`;
}

/** A tick id and a deal id as one event id (either may be empty). */
export function joinEventId(tickId: string, dealId: string | undefined): string {
  if (!dealId) return tickId;
  return tickId === '' ? dealId : `${tickId};${dealId}`;
}

/** An event id split into its ticks' part ('' when none) and its deal part; a 400 problem for a malformed one. */
export function splitEventId(raw: string, what: string): { tickId: string; deal: DealCursor | undefined } {
  let tickId = '';
  let deal: DealCursor | undefined;
  for (const part of raw.trim().split(';')) {
    if (part.startsWith(PREFIX)) {
      const m = DEAL.exec(part);
      if (!m || deal) throw validationError(`${what} has a malformed deal position ${JSON.stringify(part.slice(0, 60))}; it must be the id of an event of this stream (deal:<time_msc>-<ticket>)`);
      const time = Number(m[1]);
      const ticket = Number(m[2]);
      if (!Number.isSafeInteger(time) || !Number.isSafeInteger(ticket)) throw validationError(`${what} has a deal position out of range ${JSON.stringify(part.slice(0, 60))}`);
      deal = { time_msc: time, ticket };
    } else {
      if (tickId !== '') throw validationError(`${what} names the ticks' positions twice; it must be the id of an event of this stream`);
      tickId = part;
    }
  }
  return { tickId, deal };
}
