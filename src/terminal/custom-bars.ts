// Custom bars as a series: the ticks each requested bar is built from, read from the terminal (or
// the store in front of it) chunk by chunk and folded by BarBuilder, so that memory stays bounded
// whatever the range. Boundaries never depend on the request: the ticks are read from the start of
// the first bar that may hold date_from (a time bar's open, a tick or volume bar's server day) to
// the end of the last one that may hold date_to, plus the longest clock change, and the bars whose
// time lies outside [date_from, date_to] are left out.
import { zoneTransitions, type ServerZone } from '../config/server-zone.js';
import { BarBuilder } from './bar-builder.js';
import { timeBarOpen, timeBarSeconds, type BarPeriod, type BarPrice } from './bar-period.js';
import { constants } from './constants.js';
import { addon } from './native.js';
import type { BarChunk, Series, TickChunk } from './series.js';
import type { SeriesOptions, Terminal } from './terminal.js';

const DAY_MS = 86_400_000;
/** Ticks folded per step; bars per output chunk. */
const TICK_CHUNK_ROWS = 65_536;
/** Bars folded go out after this long without output, however few. */
const FLUSH_AFTER_MS = 200;
/** A day either side covers any zone's change around the range. */
const ZONE_MARGIN_S = 2 * 86_400;
/** Read past the last bar's end by the longest clock change, so that a repeated hour is read whole. */
const CHANGE_SLACK_MS = 3 * 3_600_000;

export interface CustomBarsRequest {
  symbol: string;
  period: BarPeriod;
  price: BarPrice;
  /** The symbol's digits (spreads in points). */
  digits: number;
  /** Bars with time in [fromMs, toMs] (UTC ms; compared in whole seconds as copy_rates_range does). */
  fromMs: number;
  toMs: number;
  /** Keep the bar still forming at the terminal's current time. */
  forming: boolean;
  /** The time of the symbol's last tick, UTC ms (symbol_info().time), or 0 before any. */
  lastTickMs: number;
}

/** Where the bars are folded: the addon's BarFolder on the thread pool, or BarBuilder on the JS thread. */
export type BarEngine = 'auto' | 'native' | 'js';

/** What the series needs of a folder (the addon's NativeBarFolder, or BarBuilder). */
interface Folder {
  push(chunk: TickChunk): Promise<void> | undefined;
  take(minRows: number): BarChunk | undefined;
  finish(nowServerMs: number, forming: boolean): void;
}

/** Whether the loaded addon folds bars natively (a prebuild from before BarFolder does not). */
export const nativeBarFolding = (): boolean => typeof addon.BarFolder === 'function';

/** `zone` is the broker's (TRADEAPI_SERVER_TZ) when the terminal's times were converted to UTC; none: they are server time. */
export async function openCustomBars(
  terminal: Terminal,
  req: CustomBarsRequest,
  zone: ServerZone | undefined,
  opts: SeriesOptions & {
    engine?: BarEngine;
    /**
     * Ticks read per chunk (default TICK_CHUNK_ROWS): a merge of many symbols' bars reads each
     * symbol's ticks in smaller chunks (merged-series.ts sourceChunkRows), so that all of them
     * together, read ahead, hold about what one symbol's would.
     */
    tickChunkRows?: number;
  } = {},
): Promise<Series<BarChunk>> {
  const toServerMs = (ms: number): number => (zone ? zone.toServerMs(ms) : ms);
  const toUtcMs = (ms: number): number => (zone ? zone.toUtcMs(ms) : ms);
  const fromS = Math.floor(req.fromMs / 1000);
  const toS = Math.floor(req.toMs / 1000);
  // First and last server-time spans that may hold a requested bar.
  const firstServer = toServerMs(fromS * 1000);
  const lastServer = toServerMs(toS * 1000);
  let readFrom: number;
  let readTo: number;
  if (req.period.kind === 'time' || req.period.kind === 'week') {
    readFrom = timeBarOpen(req.period, Math.floor(firstServer / 1000)) * 1000;
    readTo = timeBarOpen(req.period, Math.floor(lastServer / 1000)) * 1000 + timeBarSeconds(req.period) * 1000;
  } else {
    readFrom = Math.floor(firstServer / DAY_MS) * DAY_MS;
    readTo = Math.floor(lastServer / DAY_MS) * DAY_MS + DAY_MS;
  }
  // Server spans to UTC; a change in the span: a day's margin before, the longest change after.
  const fromUtc = toUtcMs(readFrom) - (zone ? CHANGE_SLACK_MS : 0);
  const toUtc = toUtcMs(readTo) + (zone ? CHANGE_SLACK_MS : 0) - 1;
  const transitions = zone ? zoneTransitions(zone, Math.floor(fromUtc / 1000) - ZONE_MARGIN_S, Math.ceil(toUtc / 1000) + ZONE_MARGIN_S) : [];
  const engine = opts.engine ?? 'auto';
  const Native = engine === 'js' ? undefined : addon.BarFolder;
  if (engine === 'native' && !Native) throw new Error('the addon has no BarFolder (rebuild it: npm run build:native)');
  const p = req.period;
  const folder: Folder = Native
    ? new Native({
      kind: p.kind,
      seconds: p.kind === 'time' ? p.seconds : 0,
      count: p.kind === 'ticks' ? p.count : 0,
      size: p.kind === 'volume' ? p.size : 0,
      price: req.price,
      digits: req.digits,
      transitions: transitions.flat(),
      fromS,
      toS,
    })
    : new BarBuilder({
      period: p,
      price: req.price,
      digits: req.digits,
      transitions,
      toUtcSeconds: (s) => (zone ? zone.toUtcSeconds(s) : s),
      fromS,
      toS,
      chunkRows: opts.chunkRows ?? TICK_CHUNK_ROWS,
    });
  // The symbol's last tick past the end of every bar asked for: all are complete, no need to ask
  // the terminal's time (symbols_get, heavy over a bridge with thousands of symbols).
  const settled = toServerMs(req.lastTickMs) >= readTo;
  const nowServerMs = toServerMs(settled ? req.lastTickMs : Math.max(req.lastTickMs, await timeCurrentMs(terminal)));
  const all = constants('COPY_TICKS').get('COPY_TICKS_ALL') ?? -1;
  const ticks = await terminal.copyTicksRange(req.symbol, fromUtc, toUtc, all, { chunkRows: opts.tickChunkRows ?? TICK_CHUNK_ROWS });
  return new CustomBarSeries(ticks, folder, nowServerMs, req.forming);
}

/** How long a terminal's TimeCurrent is reused: an older one only keeps a just-finished bar out a little longer. */
const TIME_CURRENT_TTL_MS = 60_000;
const timeCurrent = new WeakMap<Terminal, { readAtMs: number; value: Promise<number> }>();

/**
 * The terminal's current time as MQL5's TimeCurrent() has it: the last quote of any symbol (the
 * largest symbol_info().time), UTC ms, read at most once a minute. A symbol whose session has
 * closed keeps its last bar; that bar is not forming once the terminal's clock has passed its end.
 */
async function timeCurrentMs(terminal: Terminal): Promise<number> {
  const now = Date.now();
  let entry = timeCurrent.get(terminal);
  if (!entry || now - entry.readAtMs > TIME_CURRENT_TTL_MS) {
    const value = terminal.symbolsGet().then(
      (all) => all.reduce((most, s) => Math.max(most, s.time * 1000), 0),
      () => 0,
    );
    entry = { readAtMs: now, value };
    timeCurrent.set(terminal, entry);
  }
  return entry.value;
}

class CustomBarSeries implements Series<BarChunk> {
  private finished = false;
  private closed = false;

  constructor(
    private readonly ticks: Series<TickChunk>,
    private readonly folder: Folder,
    private readonly nowServerMs: number,
    private readonly forming: boolean,
  ) {}

  private chunkRows = TICK_CHUNK_ROWS;
  private lastOutMs = performance.now();

  get source(): string | undefined {
    return this.ticks.source;
  }

  async next(): Promise<BarChunk | null> {
    for (;;) {
      if (this.closed) return null;
      // Bars go out a chunk at a time, or whatever is folded once a while has passed without any
      // going out (a day's bars over years of ticks would otherwise wait for the last tick).
      const due = this.finished || performance.now() - this.lastOutMs >= FLUSH_AFTER_MS;
      const ready = this.folder.take(due ? 1 : this.chunkRows);
      if (ready) {
        this.lastOutMs = performance.now();
        return ready;
      }
      if (this.finished) return null;
      const chunk = await this.ticks.next();
      if (chunk === null) {
        this.folder.finish(this.nowServerMs, this.forming);
        this.finished = true;
        continue;
      }
      await this.folder.push(chunk);
      // Folded: the ticks are read no more.
      this.ticks.release?.(chunk);
    }
  }

  close(): void {
    this.closed = true;
    this.ticks.close();
  }

  /** Bars per chunk (the native folder's chunks may hold up to a chunk of ticks' bars more). */
  setChunkRows(rows: number): void {
    this.chunkRows = rows;
    if (this.folder instanceof BarBuilder) this.folder.setChunkRows(rows);
  }

  /** Ticks are produced ahead while the bars are folded (the fold itself keeps no chunk). */
  readAhead(enabled: boolean): void {
    this.ticks.readAhead?.(enabled);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<BarChunk> {
    try {
      for (let chunk = await this.next(); chunk !== null; chunk = await this.next()) yield chunk;
    } finally {
      this.close();
    }
  }
}
