// Custom bars folded from tick chunks, with the terminal's own bar rules (binding/sim/history.h
// BarAgg, series_cursors.cpp RateSeriesCursor), so that a period equal to an MT5 timeframe gives
// exactly its rates:
//
//   prices       open/high/low/close of the chosen price (bid, ask, mid = (bid + ask) / 2, or last:
//                trade ticks only, TICK_FLAG_LAST; a bar without a trade is no bar)
//   tick_volume  every tick of the bar (what COPY_TICKS_ALL returns)
//   spread       the least ask - bid of the bar's ticks, in points (not confirmed for MT5)
//   real_volume  the sum of `volume` over the ticks flagged TICK_FLAG_VOLUME (0 without trades)
//
// Time bars are cut on the server's wall clock: a tick's server time is its UTC time plus the
// zone's offset then (the transition table of config/server-zone.ts zoneTransitions). When clocks
// go back, both passes of the repeated hour fall into the same bars (stamped with the earlier UTC
// instant): bars that overlap a repeated hour stay open until the clock has left it. A skipped hour
// has no ticks, hence no bars. Tick and volume bars restart at each server-time day start.
//
// Memory: the bars still open (one, a repeated hour's worth across a change) and one output chunk.
import type { BarChunk, TickChunk } from './series.js';
import { timeBarOpen, timeBarSeconds, type BarPeriod, type BarPrice } from './bar-period.js';

const TICK_FLAG_LAST = 8;
const TICK_FLAG_VOLUME = 16;
const DAY_MS = 86_400_000;
const TWO_32 = 4_294_967_296;

interface OpenBar {
  /** Server ms: the bar's open (time bars) or its day's start (tick and volume bars). */
  start: number;
  /** Server ms from which the bar can take no more ticks (time bars); +Infinity otherwise. */
  due: number;
  /** Server ms of the bar's end (time bars) or of its day's end. */
  end: number;
  /** UTC seconds: the bar's `time`. */
  stamp: number;
  priced: boolean;
  open: number;
  high: number;
  low: number;
  close: number;
  ticks: number;
  spread: number;
  realVolume: number;
  /** Traded volume so far (volume bars), from volume_real. */
  traded: number;
  closeMsc: number;
}

export interface BarBuilderOptions {
  period: BarPeriod;
  price: BarPrice;
  /** The symbol's digits: spreads are counted in points of 10^-digits. */
  digits: number;
  /** [from UTC second, server minus UTC in seconds], ascending; empty when server time is UTC. */
  transitions: ReadonlyArray<readonly [number, number]>;
  /** The UTC second of a server second (the earlier instant in a repeated hour). */
  toUtcSeconds: (serverSeconds: number) => number;
  /** Bars whose `time` (UTC seconds) lies in [fromS, toS] are kept. */
  fromS: number;
  toS: number;
  /** Rows per output chunk at most. */
  chunkRows: number;
}

/** Folds ascending tick chunks into bars; take() hands out full chunks, finish() the rest. */
export class BarBuilder {
  private readonly p: BarPeriod;
  private readonly byTime: boolean;
  private readonly lengthMs: number;
  private readonly price: BarPrice;
  private readonly scale: number;
  private readonly bounds: ReadonlyArray<readonly [number, number]>;
  /** Repeated server hours [from, to), ms: where clocks went back. */
  private readonly repeats: Array<readonly [number, number]> = [];
  private at = 0;
  private offsetMs = 0;
  private nextChangeMs = Infinity;
  private readonly bars: OpenBar[] = [];
  private current: OpenBar | undefined;
  private readonly ready: BarChunk[] = [];
  private out!: { rows: number; cols: BarChunk };
  private chunkRows: number;

  constructor(private readonly o: BarBuilderOptions) {
    this.p = o.period;
    this.chunkRows = o.chunkRows;
    this.byTime = o.period.kind === 'time' || o.period.kind === 'week';
    this.lengthMs = timeBarSeconds(o.period) * 1000;
    this.price = o.price;
    this.scale = 10 ** o.digits;
    this.bounds = o.transitions;
    for (let k = 1; k < this.bounds.length; k++) {
      const [u, after] = this.bounds[k]!;
      const before = this.bounds[k - 1]![1];
      if (after < before) this.repeats.push([(u + after) * 1000, (u + before) * 1000]);
    }
    this.offsetMs = (this.bounds[0]?.[1] ?? 0) * 1000;
    this.nextChangeMs = this.bounds.length > 1 ? this.bounds[1]![0] * 1000 : Infinity;
    this.fresh();
  }

  /** Folds one chunk of ticks (ascending, after the previous chunk's). */
  push(c: TickChunk): undefined {
    const rows = c.rows;
    const tm = new Uint32Array(c.time_msc.buffer, c.time_msc.byteOffset, rows * 2);
    const vol = new Uint32Array(c.volume.buffer, c.volume.byteOffset, rows * 2);
    const { bid, ask, last, flags, volume_real: volumeReal } = c;
    const scale = this.scale;
    const price = this.price;
    const byLast = price === 'last';
    let bar = this.current;
    for (let i = 0; i < rows; i++) {
      const msc = tm[2 * i]! + tm[2 * i + 1]! * TWO_32; // ms since 1970: positive, well inside 2^53
      if (msc >= this.nextChangeMs) this.advanceZone(msc);
      const s = msc + this.offsetMs;
      if (this.byTime) {
        if (bar === undefined || s >= bar.end || s < bar.start) bar = this.timeBarFor(s);
      } else if (bar === undefined || s >= bar.end) {
        // A new tick or volume bar; the one before, if any, ended with its day.
        if (bar) this.emit(bar);
        const start = Math.floor(s / DAY_MS) * DAY_MS;
        bar = this.newBar(start, start + DAY_MS, Infinity, Math.floor(msc / 1000));
      }
      const b = bid[i]!;
      const a = ask[i]!;
      const f = flags[i]!;
      bar.ticks++;
      const spread = Math.round(a * scale) - Math.round(b * scale);
      if (spread < bar.spread) bar.spread = spread;
      let traded = 0;
      if (f & TICK_FLAG_VOLUME) {
        bar.realVolume += vol[2 * i]! + vol[2 * i + 1]! * TWO_32;
        traded = volumeReal[i]!;
      }
      bar.closeMsc = msc;
      if (!byLast || f & TICK_FLAG_LAST) {
        const v = price === 'bid' ? b : price === 'ask' ? a : byLast ? last[i]! : (b + a) / 2;
        if (!bar.priced) {
          bar.priced = true;
          bar.open = v;
          bar.high = v;
          bar.low = v;
        } else if (v > bar.high) bar.high = v;
        else if (v < bar.low) bar.low = v;
        bar.close = v;
      }
      if (this.byTime) continue;
      bar.traded += traded;
      if (this.p.kind === 'ticks' ? bar.ticks >= this.p.count : this.p.kind === 'volume' && bar.traded >= this.p.size) {
        this.emit(bar);
        bar = undefined;
      }
    }
    this.current = bar;
    return undefined;
  }

  /** Rows per output chunk from the next chunk begun on. */
  setChunkRows(rows: number): void {
    this.chunkRows = rows;
  }

  /** A chunk of bars, once `minRows` (at least 1) are folded and not taken. */
  take(minRows: number): BarChunk | undefined {
    const ready = this.ready.shift();
    if (ready) return ready;
    if (this.out.rows === 0 || this.out.rows < minRows) return undefined;
    // A part of the columns: copied out, and the columns filled again from the top.
    const chunk = this.cut(true);
    this.out.rows = 0;
    return chunk;
  }

  /**
   * The bars still open once the ticks have run out: a bar is complete when the terminal's time
   * `nowServerMs` has reached its end; one still forming is kept only when asked.
   */
  finish(nowServerMs: number, forming: boolean): void {
    const open = this.byTime ? this.bars.splice(0) : this.current ? [this.current] : [];
    this.current = undefined;
    for (const bar of open) if (forming || nowServerMs >= bar.end) this.emit(bar);
  }

  /**
   * A live fold's clock (events/live-bars.ts): the bars that can take no more ticks by server ms
   * `nowServerMs` go out (time bars past their due, a tick or volume bar past its day), the rest
   * stay open. History requests never call it: there the next tick or finish() closes bars.
   */
  closeDue(nowServerMs: number): void {
    if (this.byTime) {
      while (this.bars.length > 0 && this.bars[0]!.due <= nowServerMs) {
        const bar = this.bars.shift()!;
        if (bar === this.current) this.current = undefined;
        this.emit(bar);
      }
    } else if (this.current && nowServerMs >= this.current.end) {
      this.emit(this.current);
      this.current = undefined;
    }
  }

  private advanceZone(msc: number): void {
    while (this.at + 1 < this.bounds.length && msc >= this.bounds[this.at + 1]![0] * 1000) this.at++;
    this.offsetMs = this.bounds[this.at]![1] * 1000;
    this.nextChangeMs = this.at + 1 < this.bounds.length ? this.bounds[this.at + 1]![0] * 1000 : Infinity;
  }

  /** The open time bar that takes a tick at server ms `s`: found, or opened; bars done by then go out. */
  private timeBarFor(s: number): OpenBar {
    // Bars that can take no more ticks go out, oldest first.
    while (this.bars.length > 0 && this.bars[0]!.due <= s) this.emit(this.bars.shift()!);
    const start = timeBarOpen(this.p, Math.floor(s / 1000)) * 1000;
    let k = this.bars.length;
    while (k > 0 && this.bars[k - 1]!.start > start) k--;
    if (k > 0 && this.bars[k - 1]!.start === start) return this.bars[k - 1]!;
    const end = start + this.lengthMs;
    let due = end;
    for (const [from, to] of this.repeats) if (from < end && to > start && to > due) due = to;
    const bar = this.newBar(start, end, due, this.o.toUtcSeconds(start / 1000));
    this.bars.splice(k, 0, bar);
    return bar;
  }

  private newBar(start: number, end: number, due: number, stamp: number): OpenBar {
    return {
      start, end, due, stamp, priced: false, open: 0, high: 0, low: 0, close: 0,
      ticks: 0, spread: Number.MAX_SAFE_INTEGER, realVolume: 0, traded: 0, closeMsc: 0,
    };
  }

  private emit(bar: OpenBar): void {
    if (!bar.priced || bar.stamp < this.o.fromS || bar.stamp > this.o.toS) return;
    const { cols } = this.out;
    const n = this.out.rows++;
    cols.time[n] = BigInt(bar.stamp);
    cols.open[n] = bar.open;
    cols.high[n] = bar.high;
    cols.low[n] = bar.low;
    cols.close[n] = bar.close;
    cols.tick_volume[n] = BigInt(bar.ticks);
    cols.spread[n] = Math.min(bar.spread, 2_147_483_647);
    cols.real_volume[n] = BigInt(bar.realVolume);
    cols.time_close_msc[n] = BigInt(bar.closeMsc);
    if (this.out.rows === cols.rows) {
      this.ready.push(this.cut());
      this.fresh();
    }
  }

  private fresh(): void {
    const n = Math.max(1, Math.min(this.chunkRows, 1 << 20));
    this.out = {
      rows: 0,
      cols: {
        rows: n, time: new BigInt64Array(n), open: new Float64Array(n), high: new Float64Array(n), low: new Float64Array(n),
        close: new Float64Array(n), tick_volume: new BigUint64Array(n), spread: new Int32Array(n), real_volume: new BigUint64Array(n),
        time_close_msc: new BigInt64Array(n),
      },
    };
  }

  /** The rows folded in the current columns: the columns themselves when full, else views (or copies). */
  private cut(copy = false): BarChunk {
    const { rows, cols: c } = this.out;
    if (rows === c.rows) return c;
    const part = <T extends BigInt64Array | BigUint64Array | Float64Array | Int32Array>(a: T): T => (copy ? a.slice(0, rows) : a.subarray(0, rows)) as T;
    return {
      rows, time: part(c.time), open: part(c.open), high: part(c.high), low: part(c.low), close: part(c.close),
      tick_volume: part(c.tick_volume), spread: part(c.spread), real_volume: part(c.real_volume), time_close_msc: part(c.time_close_msc),
    };
  }
}
