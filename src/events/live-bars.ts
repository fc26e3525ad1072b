// Live bars of a custom period (GET /events?kinds=bar&period=…): one `bar` event per closed bar,
// with the values GET /ticks/bars gives the same bar later, by construction: the same fold
// (terminal/bar-builder.ts, the route's JS engine) over the same ticks.
//
// Where the ticks come from: the hub's tick feed (one poll per symbol however many clients), which
// this stream joins as one more listener. The bar still forming when the stream starts began
// before it: each symbol is first folded from history, from that bar's start (a time bar's open,
// a tick or volume bar's server day, as the route reads them) up to where the feed stands, then
// from the feed. As in a replay (replay.ts), live ticks are never held for that seam: while
// history is read only the feed's position is noted, and history is read again up to it until
// nothing is left; then the fold takes the feed's deliveries, each tick after the last folded.
//
// When a bar closes: on the first tick at or after its end (the fold's own rule), or, without such
// a tick, once a poll of its symbol that began past its end on the terminal's clock has been
// delivered (the feed's polledAt: about one poll interval after the end, later when polls lag). The
// terminal's clock is the wall clock plus the offset its latest tick shows (a tick is never stamped
// after the terminal's now, so the estimate lags: a bar is never closed early on that account).
//
// Positions, per symbol: a time bar's `time` (its open, UTC seconds); a tick or volume bar's closing
// time in ms times 1000 plus its index among the bars closing in that millisecond (several such
// bars may open in one second, so their open time names none; the index is reproducible, since
// these bars restart at each server day start and a fold always begins there). A stream resumed
// from a position (the event id, session.ts) folds from that bar's start and sends the bars after
// it: those it missed, built from history, then live ones, none twice. A fresh stream sends the
// bars that close after it started; its position before its first bar is the last bar closed
// before it started.
import { zoneTransitions, type ServerZone } from '../config/server-zone.js';
import { BarBuilder } from '../terminal/bar-builder.js';
import { closesOnContent, timeBarOpen, type BarPeriod, type BarPrice } from '../terminal/bar-period.js';
import { constants } from '../terminal/constants.js';
import type { Tick } from '../terminal/records.js';
import type { BarChunk, TickChunk } from '../terminal/series.js';
import type { Terminal } from '../terminal/terminal.js';
import { isAfter } from './event-id.js';
import { chunkTicks, type FeedTick, type TickCursor, type TickFeed, type TickSubscription } from './tick-feed.js';

const DAY_MS = 86_400_000;
/** Clock changes looked up ahead of the stream's start (a stream longer than this keeps the last offset). */
const ZONE_SPAN_S = 400 * 86_400;
/** Bars a fold hands out per chunk (a live fold closes a few at a time). */
const CHUNK_ROWS = 256;
/** Ticks read from history per chunk while catching up. */
const HISTORY_CHUNK_ROWS = 16_384;

export interface LiveBarSymbol {
  readonly symbol: string;
  readonly price: BarPrice;
  /** The symbol's digits: spreads in points. */
  readonly digits: number;
}

export interface LiveBarsRequest {
  readonly period: BarPeriod;
  /** The period as the client wrote it (each event names it). */
  readonly periodText: string;
  readonly symbols: readonly LiveBarSymbol[];
  /** From an event id: the position of the last bar the client has, per symbol (see the top; undefined: that symbol starts fresh). */
  readonly resumeFrom?: ReadonlyArray<number | undefined> | undefined;
  /** The feed's poll interval: a bar without a closing tick closes this long after its end. */
  readonly pollMs: number;
  /** A resume reaches at most this far back from the feed's position; a gap names the rest. */
  readonly catchupMs: number;
  /** The broker's zone (TRADEAPI_SERVER_TZ) when the terminal's times are UTC; none: server time. */
  readonly zone: ServerZone | undefined;
}

/** A closed bar, ready to send: its symbol's index in the request, its time, its position (the top) and its event data. */
export interface LiveBar {
  readonly index: number;
  readonly time: number;
  readonly position: number;
  readonly json: string;
}

/** The UTC ms a position points at: a time bar's open, a tick or volume bar's close. */
export function positionMs(period: BarPeriod, position: number): number {
  return closesOnContent(period) ? Math.floor(position / 1000) : position * 1000;
}

/** What a resume could not reach back to (`TRADEAPI_EVENTS_CATCHUP_MS`): that span's bars are in GET /ticks/bars. */
export interface BarGap {
  readonly reason: 'catch-up-window';
  readonly symbol: string;
  readonly period: string;
  readonly from_msc: number;
  readonly to_msc: number;
}

/** A number as JSON writes it. */
const num = (x: number): string | number => (Number.isFinite(x) ? x : 'null');

/** Feed ticks as one tick chunk (the fold's input). */
function toChunk(ticks: readonly Tick[]): TickChunk {
  const n = ticks.length;
  const c = {
    rows: n, time: new BigInt64Array(n), bid: new Float64Array(n), ask: new Float64Array(n), last: new Float64Array(n),
    volume: new BigUint64Array(n), time_msc: new BigInt64Array(n), flags: new Uint32Array(n), volume_real: new Float64Array(n),
  };
  ticks.forEach((k, i) => {
    c.time[i] = BigInt(k.time);
    c.bid[i] = k.bid;
    c.ask[i] = k.ask;
    c.last[i] = k.last;
    c.volume[i] = BigInt(k.volume);
    c.time_msc[i] = BigInt(k.time_msc);
    c.flags[i] = k.flags;
    c.volume_real[i] = k.volume_real;
  });
  return c;
}

/** One symbol's fold and where it stands. */
class SymbolFold {
  readonly builder: BarBuilder;
  /** The last tick folded. */
  position: TickCursor;
  live = false;
  /** Bars closed from here on are sent (a fresh stream: once the fold has passed the feed's start). */
  armed: boolean;
  /** The position of the last bar closed (a later one is sent, an earlier one is a repeat). */
  lastClosed: number;
  /** The position of the last bar handed to the stream, or of the last closed before it started (the id's). */
  lastTime: number;
  /** Tick and volume bars: the last closing millisecond, and how many bars closed in it before. */
  private closeMs = -1;
  private sameMs = 0;
  private readonly byContent: boolean;
  private readonly symbolJson: string;

  constructor(
    readonly index: number,
    readonly spec: LiveBarSymbol,
    private readonly req: LiveBarsRequest,
    seedFromMs: number,
    resume: number | undefined,
  ) {
    const zone = req.zone;
    const fromS = Math.floor(seedFromMs / 1000) - 2 * 86_400;
    this.builder = new BarBuilder({
      period: req.period,
      price: spec.price,
      digits: spec.digits,
      transitions: zone ? zoneTransitions(zone, fromS, fromS + ZONE_SPAN_S) : [],
      toUtcSeconds: (s) => (zone ? zone.toUtcSeconds(s) : s),
      fromS: Number.MIN_SAFE_INTEGER,
      toS: Number.MAX_SAFE_INTEGER,
      chunkRows: CHUNK_ROWS,
    });
    this.position = { time_msc: seedFromMs - 1, seq: Number.MAX_SAFE_INTEGER };
    this.armed = resume !== undefined;
    this.byContent = closesOnContent(req.period);
    this.lastTime = resume ?? (this.byContent ? seedFromMs * 1000 : Math.floor(seedFromMs / 1000) - 1);
    this.lastClosed = this.lastTime;
    this.symbolJson = JSON.stringify(spec.symbol);
  }

  /** Folds the ticks after the position (each with its seq in its millisecond); the bars to send go to `out`. */
  fold(ticks: readonly FeedTick[], out: LiveBar[]): void {
    const fresh: Tick[] = [];
    for (const t of ticks) {
      const at = { time_msc: t.tick.time_msc, seq: t.seq };
      if (!isAfter(at, this.position)) continue;
      this.position = at;
      fresh.push(t.tick);
    }
    if (fresh.length > 0) this.builder.push(toChunk(fresh));
    this.drain(out);
  }

  /** The bars the fold has closed: sent when armed and after the last sent; otherwise only noted. */
  drain(out: LiveBar[]): void {
    for (let c = this.builder.take(1); c; c = this.builder.take(1)) {
      for (let i = 0; i < c.rows; i++) {
        const time = Number(c.time[i]);
        let position = time;
        if (this.byContent) {
          const close = Number(c.time_close_msc[i]);
          this.sameMs = close === this.closeMs ? this.sameMs + 1 : 0;
          this.closeMs = close;
          position = close * 1000 + Math.min(this.sameMs, 999);
        }
        if (position <= this.lastClosed) continue;
        this.lastClosed = position;
        if (this.armed) out.push({ index: this.index, time, position, json: this.json(c, i) });
        else this.lastTime = position;
      }
    }
  }

  /** The event data: the symbol and period, then the fields of a /ticks/bars row in their order. */
  private json(c: BarChunk, i: number): string {
    return `{"symbol":${this.symbolJson},"period":${JSON.stringify(this.req.periodText)},"time":${Number(c.time[i])},"open":${num(c.open[i]!)},"high":${num(c.high[i]!)},"low":${num(c.low[i]!)},"close":${num(c.close[i]!)},"tick_volume":${Number(c.tick_volume[i])},"spread":${c.spread[i]},"real_volume":${Number(c.real_volume[i])},"time_close_msc":${Number(c.time_close_msc[i])}}`;
  }
}

export class LiveBars {
  private readonly folds: SymbolFold[] = [];
  /** Where the feed stands per symbol (noted while a symbol's history is read). */
  private feedAt: TickCursor[] = [];
  private readonly index = new Map<string, number>();
  private sub: TickSubscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Terminal clock minus wall clock, ms, as the latest ticks show it (a lower bound). */
  private clockOffsetMs = -Infinity;
  /** Bars closed before a sink was attached (the stream's start), sent first. */
  private held: LiveBar[] = [];
  /** The hub's tick feed (its polls say how far the terminal's ticks have come). */
  private feed: TickFeed | undefined;
  private sink: ((bars: readonly LiveBar[]) => void) | undefined;
  /** Spans a resume could not reach. */
  readonly gaps: BarGap[] = [];

  private constructor(
    private readonly terminal: Terminal,
    private readonly req: LiveBarsRequest,
  ) {
    req.symbols.forEach((s, i) => this.index.set(s.symbol, i));
  }

  /**
   * Joins the feed and folds each symbol from history up to it. Rejects (leaving nothing behind)
   * when a symbol's live position or history cannot be had: before the stream starts.
   */
  static async open(feed: TickFeed, terminal: Terminal, req: LiveBarsRequest): Promise<LiveBars> {
    const bars = new LiveBars(terminal, req);
    bars.feed = feed;
    try {
      const sub = await feed.subscribe(req.symbols.map((s) => s.symbol), (ticks) => bars.onTicks(ticks));
      bars.sub = sub;
      bars.feedAt = req.symbols.map((s) => sub.cursors.get(s.symbol) as TickCursor);
      for (const [i, spec] of req.symbols.entries()) {
        const start = sub.cursors.get(spec.symbol) as TickCursor;
        bars.noteClock(start.time_msc);
        // A bar time past the symbol's latest tick names bars that do not exist (an id from another
        // terminal, or made up): start fresh, as a tick position past live does.
        const asked = req.resumeFrom?.[i];
        const resume = asked !== undefined && positionMs(req.period, asked) <= start.time_msc ? asked : undefined;
        let fromMs = resume === undefined ? start.time_msc : positionMs(req.period, resume);
        if (resume !== undefined && start.time_msc - fromMs > req.catchupMs) {
          const to = start.time_msc - req.catchupMs;
          bars.gaps.push({ reason: 'catch-up-window', symbol: spec.symbol, period: req.periodText, from_msc: fromMs, to_msc: to });
          fromMs = to;
        }
        const fold = new SymbolFold(i, spec, req, bars.barStartUtcMs(fromMs), resume);
        bars.folds.push(fold);
        await bars.catchUp(fold, start);
      }
    } catch (e) {
      bars.close();
      throw e;
    }
    bars.timer = setInterval(() => bars.onClock(), req.pollMs);
    bars.timer.unref();
    return bars;
  }

  /** The position of the last bar handed to the stream (or closed before it started) per symbol, in request order. */
  positions(): number[] {
    return this.folds.map((f) => f.lastTime);
  }

  /** Where closed bars go from now on (those closed meanwhile first). */
  attach(sink: (bars: readonly LiveBar[]) => void): void {
    this.sink = sink;
    const held = this.held;
    this.held = [];
    this.send(held);
  }

  close(): void {
    this.sub?.close();
    this.sub = undefined;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.sink = undefined;
  }

  /** The UTC ms where the bar holding UTC ms `ms` starts (a tick or volume bar: its server day). */
  private barStartUtcMs(ms: number): number {
    const zone = this.req.zone;
    const server = zone ? zone.toServerMs(ms) : ms;
    const p = this.req.period;
    const start = p.kind === 'time' || p.kind === 'week' ? timeBarOpen(p, Math.floor(server / 1000)) * 1000 : Math.floor(server / DAY_MS) * DAY_MS;
    return zone ? zone.toUtcMs(start) : start;
  }

  /** History from the fold's position up to the feed's, again until the feed has not moved meanwhile; then live. */
  private async catchUp(fold: SymbolFold, start: TickCursor): Promise<void> {
    const all = constants('COPY_TICKS').get('COPY_TICKS_ALL') ?? -1;
    const out: LiveBar[] = [];
    for (;;) {
      const target = this.feedAt[fold.index] as TickCursor;
      if (!isAfter(target, fold.position)) break;
      const series = await this.terminal.copyTicksRange(fold.spec.symbol, Math.max(0, fold.position.time_msc), target.time_msc, all, { chunkRows: HISTORY_CHUNK_ROWS });
      try {
        let ms = -1;
        let seq = -1;
        for (let chunk = await series.next(); chunk; chunk = await series.next()) {
          const before: FeedTick[] = [];
          const after: FeedTick[] = [];
          for (const tick of chunkTicks(chunk)) {
            seq = tick.time_msc === ms ? seq + 1 : 0;
            ms = tick.time_msc;
            const at = { time_msc: ms, seq };
            if (isAfter(at, target)) break;
            (fold.armed || !isAfter(at, start) ? before : after).push({ symbol: fold.spec.symbol, seq, tick });
          }
          // A fresh stream sends the bars that close on ticks after its start, not those closed before.
          fold.fold(before, out);
          if (after.length > 0) {
            fold.armed = true;
            fold.fold(after, out);
          }
        }
      } finally {
        series.close();
      }
      // History may hold fewer ticks than the feed published (never more): go on from the feed's position.
      if (isAfter(target, fold.position)) fold.position = target;
    }
    fold.armed = true;
    fold.live = true;
    this.send(out);
  }

  private onTicks(ticks: readonly FeedTick[]): void {
    const out: LiveBar[] = [];
    const bySymbol = new Map<number, FeedTick[]>();
    for (const t of ticks) {
      const i = this.index.get(t.symbol);
      if (i === undefined) continue;
      this.noteClock(t.tick.time_msc);
      const fold = this.folds[i];
      if (!fold || !fold.live) {
        // Still read from history (or not begun): only where the feed stands matters.
        this.feedAt[i] = { time_msc: t.tick.time_msc, seq: t.seq };
        continue;
      }
      let mine = bySymbol.get(i);
      if (!mine) bySymbol.set(i, (mine = []));
      mine.push(t);
    }
    for (const [i, mine] of bySymbol) this.folds[i]?.fold(mine, out);
    this.send(out);
  }

  /**
   * Bars that saw no closing tick close once a poll of their symbol that began past their end (on
   * the terminal's clock) has been delivered: every tick before the end has then come. Not on the
   * wall clock alone: on a loaded machine a poll can come several intervals late, and its ticks
   * would fall into a bar already sent.
   */
  private onClock(): void {
    if (!Number.isFinite(this.clockOffsetMs) || !this.feed) return;
    const zone = this.req.zone;
    const out: LiveBar[] = [];
    for (const fold of this.folds) {
      if (!fold.live) continue;
      const polledAt = this.feed.polledAt(fold.spec.symbol);
      if (polledAt === undefined) continue;
      const nowUtc = polledAt + this.clockOffsetMs;
      fold.builder.closeDue(zone ? zone.toServerMs(nowUtc) : nowUtc);
      fold.drain(out);
    }
    this.send(out);
  }

  private noteClock(tickMs: number): void {
    const offset = tickMs - Date.now();
    if (offset > this.clockOffsetMs) this.clockOffsetMs = offset;
  }

  /** In time order (ties in the request's symbol order), to the sink or held for it. */
  private send(bars: LiveBar[]): void {
    if (bars.length === 0) return;
    bars.sort((a, b) => a.time - b.time || a.index - b.index);
    if (!this.sink) {
      this.held.push(...bars);
      return;
    }
    for (const bar of bars) (this.folds[bar.index] as SymbolFold).lastTime = bar.position;
    this.sink(bars);
  }
}
