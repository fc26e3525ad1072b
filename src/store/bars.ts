// Bars of every timeframe built from the store's M1 bars with the terminal's own rules
// (binding/sim/timeframe.cpp, history.h BarAgg::merge, series_cursors.cpp):
//
//   boundaries   in the broker's server wall-clock time (TRADEAPI_SERVER_TZ): minute and hour frames
//                at multiples of their length (all divide a day), D1 at server midnight, W1 at
//                Sunday 00:00, MN1 on the 1st; a bar's `time` is its open, converted to UTC as the
//                gateway converts the terminal's own bars (ServerZone.columnToUtc)
//   open/close   the first M1 bar's open, the last one's close; high/low the extremes
//   tick_volume  the sum; real_volume the sum; spread the minimum (the terminal keeps the least
//                spread of the bar's ticks, and the least of the minutes' least is the bar's)
//   no M1 bar    no bar (weekends, nights): bars are never made up
//
// A bar is built from the store only when the store holds every minute of it (its M1 months
// complete, or fetched through its last minute); any other bar is the terminal's.
// Symbols charted by Last (chart_mode 1) are not built here: their M1 bars exist only for minutes
// with a trade, so a longer bar's tick_volume and spread (which count every tick) cannot be had
// from them; the serving decorator asks the terminal for those.
import type { ServerZone } from '../config/server-zone.js';
import type { RateChunk } from '../terminal/series.js';
import type { Manifest, PartitionEntry } from './manifest.js';
import { nextMonthStart } from './layout.js';

const DAY_S = 86_400;
export const TIMEFRAME_M1 = 1;

export class Timeframe {
  private constructor(private readonly kind: 'fixed' | 'week' | 'month', private readonly seconds: number) {}

  /** The timeframe of a TIMEFRAME_* value, or undefined for any other number. */
  static of(constant: number): Timeframe | undefined {
    const n = constant & 0x3fff;
    switch (constant - n) {
      case 0x0000:
        return [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30].includes(n) ? new Timeframe('fixed', n * 60) : undefined;
      case 0x4000:
        return [1, 2, 3, 4, 6, 8, 12, 24].includes(n) ? new Timeframe('fixed', n * 3600) : undefined;
      case 0x8000:
        return n === 1 ? new Timeframe('week', 7 * DAY_S) : undefined;
      case 0xc000:
        return n === 1 ? new Timeframe('month', 28 * DAY_S) : undefined;
      default:
        return undefined;
    }
  }

  /** Open (server seconds) of the bar holding server second `t`. */
  openOf(t: number): number {
    if (this.kind === 'fixed') return Math.floor(t / this.seconds) * this.seconds;
    const day = Math.floor(t / DAY_S);
    if (this.kind === 'week') return (day - (((day + 4) % 7) + 7) % 7) * DAY_S; // 1970-01-01 was a Thursday
    const d = new Date(day * DAY_S * 1000);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
  }

  nextOpen(open: number): number {
    if (this.kind === 'month') return nextMonthStart(open * 1000) / 1000;
    return open + this.seconds;
  }

  prevOpen(open: number): number {
    if (this.kind === 'month') {
      const d = new Date(open * 1000);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1) / 1000;
    }
    return open - this.seconds;
  }
}

/** Server time of a UTC instant and back, in seconds (identity without a zone). */
export interface Clock {
  toServerS(utcS: number): number;
  toUtcS(serverS: number): number;
  toServerMs(utcMs: number): number;
  /** Converts server open times to UTC in place, exactly as the gateway converts the terminal's bars. */
  columnToUtc(column: BigInt64Array): void;
}

export function clockOf(zone: ServerZone | undefined): Clock {
  if (!zone) return { toServerS: (s) => s, toUtcS: (s) => s, toServerMs: (ms) => ms, columnToUtc: () => undefined };
  return {
    toServerS: (s) => zone.toServerSeconds(s),
    toUtcS: (s) => zone.toUtcSeconds(s),
    toServerMs: (ms) => zone.toServerMs(ms),
    columnToUtc: (c) => zone.columnToUtc(c, 1000),
  };
}

/** An inclusive interval, ms. */
export interface Interval {
  fromMs: number;
  toMs: number;
}

/** The UTC spans whose every M1 bar the store holds (complete months, partial ones through `through`), merged. */
export function barCoverage(manifest: Manifest | undefined, symbol: string, skip?: (key: string, entry: PartitionEntry) => boolean): Interval[] {
  const months = manifest?.symbols[symbol]?.bars_m1 ?? {};
  const out: Interval[] = [];
  for (const key of Object.keys(months).sort()) {
    const e = months[key]!;
    if (e.unavailable || skip?.(key, e)) continue;
    const start = Date.parse(`${key}-01T00:00:00Z`);
    if (Number.isNaN(start)) continue;
    const end = e.complete ? nextMonthStart(start) - 1 : e.through !== undefined ? Date.parse(e.through) : NaN;
    if (!(end >= start)) continue;
    const prev = out[out.length - 1];
    if (prev && prev.toMs + 1 === start) prev.toMs = end;
    else out.push({ fromMs: start, toMs: end });
  }
  return out;
}

/** A run of bars answered by one source: the opens (server seconds) of its first and last bar. */
export interface BarSegment {
  source: 'store' | 'terminal';
  first: number;
  last: number;
}

/** The opens (server seconds) of the first and last bars wholly inside a covered span, or undefined. */
export function storedBars(cover: Interval, tf: Timeframe, clock: Clock): { first: number; last: number } | undefined {
  const sa = clock.toServerMs(cover.fromMs);
  const sb = clock.toServerMs(cover.toMs);
  const a = Math.ceil(sa / 1000);
  let first = tf.openOf(a);
  if (first < a) first = tf.nextOpen(first);
  let last = tf.openOf(Math.floor(sb / 1000));
  if (tf.nextOpen(last) * 1000 - 1 > sb) last = tf.prevOpen(last);
  return first <= last ? { first, last } : undefined;
}

/** Bars with open in [fromS, toS] (server seconds): from the store where it holds them whole, else the terminal. */
export function barSegments(cover: readonly Interval[], tf: Timeframe, clock: Clock, fromS: number, toS: number): BarSegment[] {
  const out: BarSegment[] = [];
  // Bounds on bar opens: the first open at or after fromS, the last at or before toS.
  let at = tf.openOf(fromS);
  if (at < fromS) at = tf.nextOpen(at);
  toS = tf.openOf(toS);
  if (at > toS) return out;
  for (const c of cover) {
    const s = storedBars(c, tf, clock);
    if (!s) continue;
    const first = Math.max(s.first, at);
    const last = Math.min(s.last, toS);
    if (first > last) continue;
    if (first > at) out.push({ source: 'terminal', first: at, last: tf.prevOpen(first) });
    out.push({ source: 'store', first, last });
    at = tf.nextOpen(last);
  }
  if (at <= toS) out.push({ source: 'terminal', first: at, last: toS });
  return out;
}

/** Builds bars of `tf` from M1 chunks (UTC, ascending), in chunks of at most `chunkRows()` rows. */
export async function* aggregateBars(m1: AsyncIterable<RateChunk>, tf: Timeframe, clock: Clock, chunkRows: () => number): AsyncGenerator<RateChunk> {
  let cap = 0;
  let n = 0;
  let time = new BigInt64Array(0);
  let open = new Float64Array(0);
  let high = new Float64Array(0);
  let low = new Float64Array(0);
  let close = new Float64Array(0);
  let tickVolume = new BigUint64Array(0);
  let spread = new Int32Array(0);
  let realVolume = new BigUint64Array(0);
  const fresh = (): void => {
    cap = Math.max(1, chunkRows());
    n = 0;
    time = new BigInt64Array(cap);
    open = new Float64Array(cap);
    high = new Float64Array(cap);
    low = new Float64Array(cap);
    close = new Float64Array(cap);
    tickVolume = new BigUint64Array(cap);
    spread = new Int32Array(cap);
    realVolume = new BigUint64Array(cap);
  };
  const take = (): RateChunk => {
    const t = time.subarray(0, n);
    clock.columnToUtc(t);
    return {
      rows: n, time: t, open: open.subarray(0, n), high: high.subarray(0, n), low: low.subarray(0, n), close: close.subarray(0, n),
      tick_volume: tickVolume.subarray(0, n), spread: spread.subarray(0, n), real_volume: realVolume.subarray(0, n),
    };
  };
  fresh();
  let current = NaN; // server open of the bar being built (row n - 1)
  let nextOpen = NaN;
  for await (const c of m1) {
    for (let i = 0; i < c.rows; i++) {
      const s = clock.toServerS(Number(c.time[i]));
      if (s >= nextOpen || Number.isNaN(current)) {
        if (n === cap) {
          yield take();
          fresh();
        }
        current = tf.openOf(s);
        nextOpen = tf.nextOpen(current);
        time[n] = BigInt(current);
        open[n] = c.open[i]!;
        high[n] = c.high[i]!;
        low[n] = c.low[i]!;
        close[n] = c.close[i]!;
        tickVolume[n] = c.tick_volume[i]!;
        spread[n] = c.spread[i]!;
        realVolume[n] = c.real_volume[i]!;
        n++;
        continue;
      }
      const j = n - 1;
      if (c.high[i]! > high[j]!) high[j] = c.high[i]!;
      if (c.low[i]! < low[j]!) low[j] = c.low[i]!;
      close[j] = c.close[i]!;
      tickVolume[j] = tickVolume[j]! + c.tick_volume[i]!;
      if (c.spread[i]! < spread[j]!) spread[j] = c.spread[i]!;
      realVolume[j] = realVolume[j]! + c.real_volume[i]!;
    }
  }
  if (n > 0) yield take();
}
