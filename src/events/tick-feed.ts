// Live ticks: one poll per symbol and interval, however many clients listen (fan-out happens here,
// not as one terminal call per client). Works the same on the simulator (its wall-clock path makes
// ticks in real time) and behind a bridge: each cycle asks copy_ticks_from for every watched symbol
// from the last millisecond seen. Polling symbol_info_tick instead would miss every tick between
// two polls.
//
// De-duplication: a poll starts AT the last millisecond seen (inclusive), because more ticks may
// have arrived with that same time_msc after the previous poll. The terminal returns the ticks of
// one millisecond in a stable order, so the first `boundaryCount` rows at that millisecond are the
// ones already published and are skipped; the rest are new.
//
// Every tick published carries its `seq`: its index among the symbol's ticks of the same
// millisecond. (time_msc, seq) is a position in the symbol's history that the history itself can
// reproduce, which is what a reconnecting client resumes from (see src/events/session.ts).
import { constants } from '../terminal/constants.js';
import { TerminalError } from '../terminal/errors.js';
import type { Tick } from '../terminal/records.js';
import type { Series, TickChunk } from '../terminal/series.js';
import type { Terminal } from '../terminal/terminal.js';

/** A position in one symbol's tick history: after the tick #seq of millisecond time_msc (seq -1: before that millisecond). */
export interface TickCursor {
  readonly time_msc: number;
  readonly seq: number;
}

export interface FeedTick {
  readonly symbol: string;
  /** Index of this tick among the symbol's ticks of the same millisecond. */
  readonly seq: number;
  readonly tick: Tick;
}

/** Called once per poll cycle with the new ticks of the listener's symbols: time order, ties in the listener's symbol order. */
export type TickListener = (ticks: readonly FeedTick[]) => void;

export interface TickFeedOptions {
  /** Interval between two polls of the same symbol, ms. */
  pollMs: number;
  /** Most ticks asked of the terminal per symbol and poll; a symbol that had more is polled again at once. */
  maxTicksPerPoll?: number;
  /** A failed poll (the terminal is unavailable, say); the symbol is polled again next cycle. */
  onError?: (symbol: string, error: unknown) => void;
}

interface Poller {
  /** Last millisecond seen and how many ticks of it were published (the boundary). */
  lastMsc: number;
  boundaryCount: number;
  /** Clients listening; the poller stops with the last one. */
  readonly listeners: Set<Subscriber>;
  /** The first poll (the baseline: the symbol's latest tick) is done. */
  readonly ready: Promise<void>;
  /**
   * When (wall clock, ms) the latest completed poll of the symbol began: every tick the terminal had
   * by then has been delivered (live bars close a bar without a tick only past it).
   */
  polledAt?: number;
}

interface Subscriber {
  readonly symbols: readonly string[];
  /** The symbol list as one string: subscribers with the same key share a delivery. */
  readonly key: string;
  readonly listener: TickListener;
}

export interface TickSubscription {
  /** Where each symbol's live ticks begin: ticks after these cursors are delivered, nothing at or before. */
  readonly cursors: ReadonlyMap<string, TickCursor>;
  /** Stops delivery; a symbol nobody else listens to is no longer polled. Idempotent. */
  close(): void;
}

const DEFAULT_MAX_TICKS_PER_POLL = 10_000;

export class TickFeed {
  private readonly pollers = new Map<string, Poller>();
  private timer: NodeJS.Timeout | undefined;
  private cycling = false;
  private stopped = false;
  private readonly maxTicks: number;
  private readonly allTicks = constants('COPY_TICKS').get('COPY_TICKS_ALL') ?? -1;

  constructor(
    private readonly terminal: Terminal,
    private readonly options: TickFeedOptions,
  ) {
    this.maxTicks = options.maxTicksPerPoll ?? DEFAULT_MAX_TICKS_PER_POLL;
  }

  /** Symbols polled now (for stats and tests). */
  get activeSymbols(): number {
    return this.pollers.size;
  }

  /**
   * Starts delivering the new ticks of `symbols` to `listener`. Resolves once every symbol has a
   * baseline; rejects (and leaves nothing behind) if one cannot be had, e.g. an unknown symbol.
   */
  /** When (wall clock, ms) the latest complete poll of `symbol` began, its ticks delivered; undefined before one. */
  polledAt(symbol: string): number | undefined {
    return this.pollers.get(symbol)?.polledAt;
  }

  async subscribe(symbols: readonly string[], listener: TickListener): Promise<TickSubscription> {
    if (this.stopped) throw new TerminalError('unavailable', -1, 'the server is shutting down');
    const subscriber: Subscriber = { symbols, key: symbols.join('\u0000'), listener };
    const joined: Poller[] = [];
    let closed = false;
    const close = (): void => {
      if (closed) return;
      closed = true;
      for (const symbol of symbols) {
        const poller = this.pollers.get(symbol);
        if (!poller) continue;
        poller.listeners.delete(subscriber);
        if (poller.listeners.size === 0) this.pollers.delete(symbol);
      }
      if (this.pollers.size === 0) this.stopTimer();
    };
    for (const symbol of symbols) {
      let poller = this.pollers.get(symbol);
      if (!poller) {
        poller = this.startPoller(symbol);
        this.pollers.set(symbol, poller);
      }
      poller.listeners.add(subscriber);
      joined.push(poller);
    }
    try {
      await Promise.all(joined.map((p) => p.ready));
    } catch (e) {
      close();
      throw e;
    }
    // Read after every baseline settled and before control returns to the loop: the next cycle
    // publishes exactly what comes after these.
    const cursors = new Map<string, TickCursor>();
    for (const symbol of symbols) {
      const p = this.pollers.get(symbol) as Poller;
      cursors.set(symbol, { time_msc: p.lastMsc, seq: p.boundaryCount - 1 });
    }
    this.startTimer();
    return { cursors, close };
  }

  /** Stops polling for good (server shutdown). */
  stop(): void {
    this.stopped = true;
    this.pollers.clear();
    this.stopTimer();
  }

  private startPoller(symbol: string): Poller {
    const poller: Poller = { lastMsc: 0, boundaryCount: 0, listeners: new Set(), ready: Promise.resolve() };
    const ready = (async () => {
      // The latest tick is the baseline: it and everything before it is history, not news.
      // (A symbol that never had a tick reports time_msc 0: start from now rather than from 1970.)
      const latest = await this.terminal.symbolInfoTick(symbol);
      poller.lastMsc = latest.time_msc > 0 ? latest.time_msc : Date.now();
      const rows = await this.fetch(symbol, poller.lastMsc, this.maxTicks);
      poller.boundaryCount = 0;
      this.advance(poller, rows, () => undefined);
    })();
    ready.catch(() => {
      if (this.pollers.get(symbol) === poller) this.pollers.delete(symbol);
    });
    return Object.assign(poller, { ready });
  }

  private startTimer(): void {
    if (this.timer || this.cycling || this.stopped) return;
    this.timer = setTimeout(() => void this.cycle(), this.options.pollMs);
  }

  private stopTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One poll of every watched symbol (concurrently), then one delivery per subscriber. */
  private async cycle(): Promise<void> {
    this.timer = undefined;
    this.cycling = true;
    let again = false;
    const fresh = new Map<string, FeedTick[]>();
    /** When each complete poll began: published with its ticks (after the delivery), not before. */
    const polled = new Map<Poller, number>();
    try {
      await Promise.all(
        [...this.pollers.entries()].map(async ([symbol, poller]) => {
          await poller.ready.catch(() => undefined);
          let rows: Tick[];
          // The boundary rows come again: ask for them on top, so that a millisecond with more
          // ticks than one poll takes still makes progress.
          const want = poller.boundaryCount + this.maxTicks;
          const began = Date.now();
          try {
            rows = await this.fetch(symbol, poller.lastMsc, want);
          } catch (e) {
            this.options.onError?.(symbol, e);
            return;
          }
          if (this.pollers.get(symbol) !== poller) return; // nobody listens any more
          if (rows.length >= want) again = true;
          const out: FeedTick[] = [];
          this.advance(poller, rows, (tick, seq) => out.push({ symbol, seq, tick }));
          // Not while the answer was cut at `want`: more of that span is still to come.
          if (rows.length < want) polled.set(poller, began);
          if (out.length > 0) fresh.set(symbol, out);
        }),
      );
      if (fresh.size > 0) this.deliver(fresh);
      for (const [poller, began] of polled) poller.polledAt = began;
    } finally {
      this.cycling = false;
      if (this.pollers.size > 0 && !this.stopped) {
        this.timer = setTimeout(() => void this.cycle(), again ? 0 : this.options.pollMs);
      }
    }
  }

  /**
   * Subscribers with the same symbol list (the usual case: many clients on the same symbols) get
   * the SAME array, built and sorted once: a listener may key a cache on it (the SSE and WebSocket
   * sessions encode a delivery once for all its clients). Listeners must not modify it.
   */
  private deliver(fresh: ReadonlyMap<string, FeedTick[]>): void {
    const groups = new Map<string, { ticks: readonly FeedTick[]; subscribers: Subscriber[] }>();
    const seen = new Set<Subscriber>();
    for (const symbol of fresh.keys()) {
      for (const s of this.pollers.get(symbol)?.listeners ?? []) {
        if (seen.has(s)) continue;
        seen.add(s);
        let group = groups.get(s.key);
        if (!group) {
          const mine: FeedTick[] = [];
          for (const sym of s.symbols) {
            const rows = fresh.get(sym);
            if (rows) for (const row of rows) mine.push(row);
          }
          // Stable: ties keep the subscriber's symbol order, and each symbol's own order.
          mine.sort((a, b) => a.tick.time_msc - b.tick.time_msc);
          groups.set(s.key, (group = { ticks: Object.freeze(mine), subscribers: [] }));
        }
        group.subscribers.push(s);
      }
    }
    for (const { ticks, subscribers } of groups.values()) {
      for (const subscriber of subscribers) {
        try {
          subscriber.listener(ticks);
        } catch {
          // A listener's failure is its own; the others still get theirs.
        }
      }
    }
  }

  /** Skips the boundary rows already published, hands on the rest, moves the boundary. */
  private advance(poller: Poller, rows: readonly Tick[], emit: (tick: Tick, seq: number) => void): void {
    let atBoundary = 0; // rows seen at poller.lastMsc in this poll
    let lastMsc = poller.lastMsc;
    let seq = poller.boundaryCount - 1;
    for (const tick of rows) {
      if (tick.time_msc < poller.lastMsc) continue; // cannot happen with copy_ticks_from; never re-publish
      if (tick.time_msc === poller.lastMsc) {
        atBoundary++;
        if (atBoundary <= poller.boundaryCount) continue;
      }
      seq = tick.time_msc === lastMsc ? seq + 1 : 0;
      lastMsc = tick.time_msc;
      emit(tick, seq);
    }
    poller.lastMsc = lastMsc;
    poller.boundaryCount = seq + 1;
  }

  private async fetch(symbol: string, fromMsc: number, count: number): Promise<Tick[]> {
    const series = await this.terminal.copyTicksFrom(symbol, fromMsc, count, this.allTicks);
    try {
      return await readTicks(series);
    } finally {
      series.close();
    }
  }
}

/** The rows of a tick series as Tick records (the units of symbol_info_tick). */
export async function readTicks(series: Series<TickChunk>): Promise<Tick[]> {
  const rows: Tick[] = [];
  for (let chunk = await series.next(); chunk; chunk = await series.next()) rows.push(...chunkTicks(chunk));
  return rows;
}

/** One chunk's rows as Tick records. */
export function chunkTicks(chunk: TickChunk): Tick[] {
  const rows: Tick[] = [];
  for (let i = 0; i < chunk.rows; i++) {
    rows.push({
      time: Number(chunk.time[i]),
      bid: chunk.bid[i] as number,
      ask: chunk.ask[i] as number,
      last: chunk.last[i] as number,
      volume: Number(chunk.volume[i]),
      time_msc: Number(chunk.time_msc[i]),
      flags: chunk.flags[i] as number,
      volume_real: chunk.volume_real[i] as number,
    });
  }
  return rows;
}
