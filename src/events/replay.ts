// A replay from a start instant, shared by GET /events and GET /ws: the symbols' history (replay-
// history.ts) sent at the pace asked, then, without a hole or a repeat at the seam, live.
//
// The seam. The live feed keeps running while the history is sent; its deliveries are not held
// (a replay at speed 1 could stay behind for days), only the position of each symbol's latest one
// is noted (`live`). Once every symbol's last position sent is at or past the feed's - checked
// synchronously right after a batch went out, so no delivery can slip in between - the stream goes
// live: every later delivery starts right after the feed's position, and the per-symbol "after the
// last position sent" filter the sessions apply drops what history already sent. A history read
// always sees what the feed delivered before it (the feed reads the same history), so a symbol
// whose read came back empty and short while no delivery came in meanwhile is caught up too (its
// feed position may be a baseline with no tick behind it).
//
// Pacing: at `speed` s > 0, a tick stamped t goes out no sooner than (t - t0) / s after the replay
// began, t0 being where it starts (the start instant, or the resumed position); speed 0 sends as
// fast as the client reads. At speed <= 1 a replay from the past never catches up, and stays in
// history (read as it goes) for as long as the client listens.
//
// With `end` there is no live part: the stream ends after the last tick at or before it.
import type { Terminal } from '../terminal/terminal.js';
import { isAfter } from './event-id.js';
import { MergedHistory, type ReplayTick } from './replay-history.js';
import type { TickCursor } from './tick-feed.js';

export interface ReplayPlan {
  /** First instant replayed, ms. */
  readonly startMsc: number;
  /** Last instant replayed, ms (inclusive); undefined: the replay runs into live. */
  readonly endMsc?: number | undefined;
  /** 0: as fast as the client reads; 1: real time; 10: ten times. */
  readonly speed: number;
}

/** The fastest pace taken (a day in under a second); above it, ask for speed 0. */
export const MAX_SPEED = 100_000;

/** History ticks handed to the sender at a time. */
export const REPLAY_BATCH_TICKS = 2_048;

/** The longest single sleep while pacing: a client gone meanwhile is noticed at least this often. */
const PACE_STEP_MS = 1_000;

export interface ReplaySink {
  /** History ticks in time order; false once the client is gone (stop). */
  ticks(batch: readonly ReplayTick[]): Promise<boolean>;
  /** Whether the client is gone (checked while pacing waits). */
  closed(): boolean;
  /**
   * Called synchronously when history has caught up with the feed (never with `end`): the caller
   * goes live before control returns to the event loop.
   */
  live(at: readonly TickCursor[]): void;
}

export type ReplayOutcome = 'live' | 'end' | 'stopped';

/** The position before a replay's first tick: before any tick of the start millisecond. */
export function startCursor(plan: ReplayPlan): TickCursor {
  return { time_msc: plan.startMsc, seq: -1 };
}

/**
 * Runs a replay of `symbols` from `from` (one position per symbol, after which ticks are sent).
 * `live()` gives the feed's latest position per symbol (undefined entries: none yet), or is
 * undefined with `end`.
 */
export async function runReplay(
  terminal: Terminal,
  symbols: readonly string[],
  from: readonly TickCursor[],
  plan: ReplayPlan,
  live: (() => readonly (TickCursor | undefined)[]) | undefined,
  sink: ReplaySink,
): Promise<ReplayOutcome> {
  // The feed's position when each symbol's latest read was made (see the top of this file).
  const liveAtRead: Array<TickCursor | undefined> = symbols.map(() => undefined);
  const history = new MergedHistory(terminal, symbols, from, plan.endMsc, (i) => (liveAtRead[i] = live?.()[i]));
  const at = from.slice();
  const index = new Map(symbols.map((s, i) => [s, i]));
  const caughtUp = (): boolean => {
    if (!live) return false;
    const feed = live();
    return symbols.every((_, i) => {
      const f = feed[i];
      return f === undefined || !isAfter(f, at[i] as TickCursor) || (liveAtRead[i] === f && history.quiet(i, at[i] as TickCursor));
    });
  };
  const t0 = Math.min(...from.map((c) => c.time_msc));
  const began = performance.now();
  let emptyRounds = 0;
  for (;;) {
    if (caughtUp()) {
      sink.live(at);
      return 'live';
    }
    const batch = await history.next(REPLAY_BATCH_TICKS);
    if (sink.closed()) return 'stopped';
    if (batch.length === 0) {
      if (!live) return 'end';
      if (caughtUp()) continue;
      // The feed is ahead of what history showed: read again. Twice nothing: the feed's position
      // names ticks history does not hold (cannot happen with one terminal); go live rather than spin.
      if (++emptyRounds > 2) {
        sink.live(at);
        return 'live';
      }
      history.refresh();
      continue;
    }
    emptyRounds = 0;
    let sent = 0;
    while (sent < batch.length) {
      let due = batch.length;
      if (plan.speed > 0) {
        const now = performance.now();
        due = sent;
        while (due < batch.length && began + ((batch[due] as ReplayTick).time_msc - t0) / plan.speed <= now) due++;
        if (due === sent) {
          const wait = began + ((batch[due] as ReplayTick).time_msc - t0) / plan.speed - now;
          await new Promise((r) => setTimeout(r, Math.min(PACE_STEP_MS, Math.max(1, Math.ceil(wait)))));
          if (sink.closed()) return 'stopped';
          continue;
        }
      }
      const part = sent === 0 && due === batch.length ? batch : batch.slice(sent, due);
      if (!(await sink.ticks(part))) return 'stopped';
      // Each symbol's last tick of the part is where it now stands.
      const moved = new Set<number>();
      for (let k = part.length - 1; k >= 0 && moved.size < symbols.length; k--) {
        const t = part[k] as ReplayTick;
        const i = index.get(t.symbol) as number;
        if (moved.has(i)) continue;
        moved.add(i);
        at[i] = { time_msc: t.time_msc, seq: t.seq };
      }
      sent = due;
      if (caughtUp()) {
        sink.live(at);
        return 'live';
      }
    }
  }
}
