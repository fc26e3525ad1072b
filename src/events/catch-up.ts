// The catch-up of one symbol after a reconnect, shared by GET /events (Last-Event-ID) and GET /ws
// (the subscribe message's `since`): the symbol's ticks after the client's position, read from the
// terminal's history (copy_ticks_from) a chunk at a time, at most `catchupMs` back from the symbol's
// latest tick and `catchupTicks` of them. What the window or the cap leaves out is announced as a
// gap (the client can fetch that span from /ticks/range). The caller filters the ticks against its
// own "last position sent", so the ticks of the client's own millisecond that it already has are
// skipped there.
import { constants } from '../terminal/constants.js';
import { chunkTicks, type FeedTick, type TickCursor } from './tick-feed.js';
import type { Terminal } from '../terminal/terminal.js';
import { isAfter } from './event-id.js';

/** Ticks read from history at a time during a catch-up (~150 KB as events). */
export const CATCHUP_CHUNK_ROWS = 1_024;

export interface CatchUpLimits {
  catchupMs: number;
  catchupTicks: number;
}

export interface CatchUpGap {
  reason: 'catch-up-window' | 'catch-up-limit';
  symbol: string;
  from_msc: number;
  to_msc: number;
}

/** What a catch-up hands its sender; the sender answers false once the client is gone (stop). */
export interface CatchUpSink {
  gap(gap: CatchUpGap): Promise<boolean>;
  /** One chunk of history, in time order (each tick with its seq in its millisecond). */
  ticks(ticks: readonly FeedTick[]): Promise<boolean>;
}

/** Sends `symbol`'s history after `from` up to `latest` (the live feed's position); false: stopped by the sink. */
export async function catchUpSymbol(terminal: Terminal, symbol: string, from: TickCursor, latest: TickCursor | undefined, limits: CatchUpLimits, sink: CatchUpSink): Promise<boolean> {
  if (!latest || !isAfter(latest, from)) return true; // nothing missed
  const all = constants('COPY_TICKS').get('COPY_TICKS_ALL') ?? -1;
  let start = from.time_msc;
  if (latest.time_msc - start > limits.catchupMs) {
    start = latest.time_msc - limits.catchupMs;
    if (!(await sink.gap({ reason: 'catch-up-window', symbol, from_msc: from.time_msc, to_msc: start }))) return false;
  }
  // The ticks of `from`'s millisecond up to its seq come again and are skipped: ask for them on top.
  const want = limits.catchupTicks + (start === from.time_msc ? from.seq + 1 : 0);
  const series = await terminal.copyTicksFrom(symbol, start, want, all, { chunkRows: CATCHUP_CHUNK_ROWS });
  let rows = 0;
  let seq = -1;
  let ms = -1;
  try {
    for (let chunk = await series.next(); chunk; chunk = await series.next()) {
      const batch: FeedTick[] = [];
      for (const tick of chunkTicks(chunk)) {
        rows++;
        seq = tick.time_msc === ms ? seq + 1 : 0;
        ms = tick.time_msc;
        batch.push({ symbol, seq, tick });
      }
      if (!(await sink.ticks(batch))) return false;
    }
  } finally {
    series.close();
  }
  if (rows >= want && ms < latest.time_msc) {
    if (!(await sink.gap({ reason: 'catch-up-limit', symbol, from_msc: ms, to_msc: latest.time_msc }))) return false;
  }
  return true;
}
