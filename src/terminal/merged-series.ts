// Many symbols' series as one (issue 36 §2): the per-symbol series (from any terminal: simulator,
// bridge or store) merged in time order, ticks by time_msc and bars by time, rows of equal time in
// the order the symbols were listed, each merged chunk carrying a `symbol` Uint16Array (the
// symbol's index in that list). The merge itself is the addon's (SeriesMerger, on the thread pool):
// the JS thread only hands over each symbol's current chunk and refills the one whose rows ran out.
// Custom bars (kind 'bars') are merged as rates, by time; their one extra column, time_close_msc,
// follows the merged order (BarCloses): the merger takes each source's rows in order, so a merged
// row of symbol k is the next untaken row of source k.
//
// Memory stays bounded whatever the number of symbols and the range: each source is read in chunks
// of SOURCE_ROWS_BUDGET / symbols rows (at least MIN_SOURCE_ROWS), so all sources' current chunks
// hold about SOURCE_ROWS_BUDGET rows together (~8 MB of ticks), and their read-ahead four times
// that, which only READ_AHEAD_MAX_SOURCES sources or fewer do.
import { addon, type NativeSeriesMerger } from './native.js';
import { settleChunk, type BarChunk, type RateChunk, type Series, type TickChunk } from './series.js';
import { DEFAULT_CHUNK_ROWS } from './native-terminal.js';

/** A merged chunk: the one-symbol columns plus each row's symbol, an index into the list asked for. */
export type Merged<C> = C & { readonly symbol: Uint16Array };

/** Rows per source chunk at least, however many symbols share a request. */
export const MIN_SOURCE_ROWS = 256;
/**
 * Rows of all sources' current chunks together. Each merge step runs until one source's chunk is
 * used up, then waits for that source's next chunk: larger chunks mean fewer such round trips
 * (measured on 10 symbols: 3 K-row chunks left the merge waiting most of the time).
 */
export const SOURCE_ROWS_BUDGET = 131_072;
/**
 * Rows per merged chunk at least (~1 MB of ticks), whatever a consumer asks for (MCP asks for 1 001):
 * each merge step is a round trip to the thread pool, and ends where the output chunk is full as
 * well as where a window empties. Not more: 64 K-row chunks for Parquet took ~1/3 fewer steps and
 * +164 MB of RSS instead of +60 on ten symbols (bench/multi-symbol.ts), no faster at that load.
 */
export const MIN_OUT_ROWS = 16_384;
/**
 * Merged chunks made ahead of the consumer: two keep the merger busy while one is encoded (merge
 * steps run one after another, so more would only hold memory; four measured no faster).
 */
export const MERGED_AHEAD_CHUNKS = 2;
/** Sources read ahead (when the consumer asks for it) only up to this many: beyond, the floor of MIN_SOURCE_ROWS would let it grow with them. */
export const READ_AHEAD_MAX_SOURCES = 128;

interface Source<C> {
  readonly id: number;
  readonly series: Series<C>;
  chunk: C | null;
  from: number;
}

/** Rows per source chunk for `symbols` sources. */
export function sourceChunkRows(symbols: number): number {
  return Math.max(MIN_SOURCE_ROWS, Math.min(DEFAULT_CHUNK_ROWS, Math.floor(SOURCE_ROWS_BUDGET / Math.max(1, symbols))));
}

/** A source chunk's time_close_msc words ([lo, hi] per row), copied: the chunk is released once merged. */
interface CloseRun {
  readonly words: Uint32Array;
  at: number;
}

/**
 * The time_close_msc column of merged custom bars: each source's values queued as its chunks are
 * handed to the merger, and taken in the order of a merged chunk's `symbol` column. Copied as 32-bit
 * words (a BigInt per row would allocate); what is queued is at most the rows of the sources' current
 * chunks and of the merged chunk being filled.
 */
class BarCloses {
  private readonly queues: CloseRun[][];

  constructor(sources: number) {
    this.queues = Array.from({ length: sources }, () => []);
  }

  /** The source's next chunk, as handed to the merger. */
  push(id: number, chunk: BarChunk): void {
    const c = chunk.time_close_msc;
    this.queues[id]!.push({ words: new Uint32Array(c.buffer, c.byteOffset, chunk.rows * 2).slice(), at: 0 });
  }

  /** The merged rates chunk with its rows' time_close_msc. */
  attach(chunk: Merged<RateChunk>): Merged<BarChunk> {
    const out = new Uint32Array(chunk.rows * 2);
    const ids = chunk.symbol;
    for (let i = 0; i < chunk.rows; i++) {
      const queue = this.queues[ids[i]!]!;
      let run = queue[0]!;
      if (run.at >= run.words.length) {
        queue.shift();
        run = queue[0]!;
      }
      out[2 * i] = run.words[run.at]!;
      out[2 * i + 1] = run.words[run.at + 1]!;
      run.at += 2;
    }
    return Object.assign(chunk, { time_close_msc: new BigInt64Array(out.buffer, 0, chunk.rows) });
  }
}

class MergedSeries<C extends TickChunk | RateChunk> implements Series<Merged<C>> {
  private readonly sources: Source<C>[];
  private merger: NativeSeriesMerger | undefined;
  private outRows = DEFAULT_CHUNK_ROWS;
  private done = false;
  private readingAhead = false;
  /** The next chunks, being merged while the consumer handles the current one (read-ahead), in order. */
  private readonly ahead: Promise<Merged<C> | null>[] = [];
  /** The last merge step asked for: each step starts once the one before it has ended (one merger, one step at a time). */
  private chain: Promise<unknown> = Promise.resolve();
  readonly source?: string;
  /** Custom bars: their time_close_msc, which the merger (of rates) does not carry. */
  private readonly closes: BarCloses | undefined;

  constructor(
    private readonly kind: 'ticks' | 'rates' | 'bars',
    series: readonly Series<C>[],
    private readonly minOutRows: number,
  ) {
    this.sources = series.map((s, id) => ({ id, series: s, chunk: null, from: 0 }));
    if (kind === 'bars') this.closes = new BarCloses(series.length);
    const sources = series.map((s) => s.source).filter((s): s is string => s !== undefined);
    if (sources.length > 0) this.source = sources.join('; ');
    this.setChunkRows(DEFAULT_CHUNK_ROWS);
  }

  setChunkRows(rows: number): void {
    if (this.merger) return; // fixed once merging has begun
    this.outRows = Math.max(this.minOutRows, Math.floor(rows));
    const each = sourceChunkRows(this.sources.length);
    for (const s of this.sources) s.series.setChunkRows?.(each);
  }

  readAhead(enabled: boolean): void {
    this.readingAhead = enabled;
    const ahead = enabled && this.sources.length <= READ_AHEAD_MAX_SOURCES;
    for (const s of this.sources) s.series.readAhead?.(ahead);
  }

  async next(): Promise<Merged<C> | null> {
    if (this.done && this.ahead.length === 0) return null;
    const pending = this.ahead.shift() ?? this.step();
    const chunk = await settleChunk(pending, () => this.close());
    if (chunk === null) return null;
    // As a one-symbol series reads ahead (native-terminal.ts): chunks merged while this one is
    // encoded and sent, so that sources, merger and encoders overlap.
    while (this.readingAhead && !this.done && this.ahead.length < MERGED_AHEAD_CHUNKS) {
      const next = this.step();
      next.catch(() => undefined); // surfaced by the next() that takes it
      this.ahead.push(next);
    }
    return chunk;
  }

  /** The next merged chunk, produced after every step asked for before it. */
  private step(): Promise<Merged<C> | null> {
    const produced = this.chain.then(() => this.produce());
    this.chain = produced.catch(() => undefined);
    return produced;
  }

  private async produce(): Promise<Merged<C> | null> {
    const merger = (this.merger ??= newMerger(this.kind, this.outRows));
    for (;;) {
      if (this.done) return null;
      await this.refill(merger);
      const active = this.sources.filter((s) => s.chunk !== null);
      if (active.length === 0) {
        this.done = true;
        this.closeSources();
        return this.withCloses(merger.flush() as Merged<C> | null);
      }
      const { next, chunk } = await merger.merge(active.flatMap((s) => [s.id, s.from]));
      active.forEach((s, i) => {
        s.from = next[i]!;
      });
      if (chunk) return this.withCloses(chunk as Merged<C>);
    }
  }

  /** Every source whose chunk is used up gets its next one (in parallel); an ended source drops out. */
  private async refill(merger: NativeSeriesMerger): Promise<void> {
    const empty = this.sources.filter((s) => s.chunk === null || s.from >= s.chunk.rows);
    if (empty.length === 0) return;
    // The merger lets go of the used-up chunks before they are released (detached).
    for (const s of empty) merger.setSource(s.id, null);
    await Promise.all(
      empty.map(async (s) => {
        if (s.chunk) s.series.release?.(s.chunk); // merged already: nothing reads it any more
        s.chunk = null;
        for (;;) {
          const next = await s.series.next();
          if (next === null) {
            s.series.close();
            this.sources.splice(this.sources.indexOf(s), 1);
            return;
          }
          if (next.rows > 0) {
            s.chunk = next;
            s.from = 0;
            merger.setSource(s.id, next);
            this.closes?.push(s.id, next as unknown as BarChunk);
            return;
          }
        }
      }),
    );
  }

  private withCloses(chunk: Merged<C> | null): Merged<C> | null {
    if (!chunk || !this.closes) return chunk;
    return this.closes.attach(chunk as unknown as Merged<RateChunk>) as unknown as Merged<C>;
  }

  release(chunk: Merged<C>): void {
    addon.releaseColumns?.(chunk);
  }

  private closeSources(): void {
    for (const s of this.sources) {
      try {
        s.series.close();
      } catch {
        // best effort: the others still close
      }
    }
  }

  close(): void {
    if (this.done && this.sources.length === 0) return;
    this.done = true;
    this.closeSources();
    this.sources.length = 0;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Merged<C>> {
    try {
      for (let chunk = await this.next(); chunk !== null; chunk = await this.next()) yield chunk;
    } finally {
      this.close();
    }
  }
}

function newMerger(kind: 'ticks' | 'rates' | 'bars', outRows: number): NativeSeriesMerger {
  const Merger = addon.SeriesMerger;
  if (!Merger) throw new Error('this build of the addon has no SeriesMerger (rebuild it: multi-symbol series need it)');
  // Bars merge as rates (by time); BarCloses adds time_close_msc.
  return new Merger(kind === 'bars' ? 'rates' : kind, outRows);
}

/**
 * The series of several symbols as one, merged in time order (ties in list order); `series[i]` is
 * the series of the i-th symbol listed, each closed when the merged one is. At most 65 536 symbols.
 */
export interface MergeOptions {
  /** Rows per merged chunk at least, whatever setChunkRows asks (default MIN_OUT_ROWS; tests ask for small chunks). */
  readonly minOutRows?: number;
}

export function mergeSeries(kind: 'ticks', series: readonly Series<TickChunk>[], options?: MergeOptions): Series<Merged<TickChunk>>;
export function mergeSeries(kind: 'rates', series: readonly Series<RateChunk>[], options?: MergeOptions): Series<Merged<RateChunk>>;
export function mergeSeries(kind: 'bars', series: readonly Series<BarChunk>[], options?: MergeOptions): Series<Merged<BarChunk>>;
export function mergeSeries(kind: 'ticks' | 'rates' | 'bars', series: readonly Series<TickChunk | RateChunk>[], options: MergeOptions = {}): Series<Merged<TickChunk | RateChunk>> {
  if (series.length === 0 || series.length > 65_536) throw new RangeError(`mergeSeries: 1 to 65536 series, got ${series.length}`);
  return new MergedSeries(kind, series, Math.max(1, Math.floor(options.minOutRows ?? MIN_OUT_ROWS)));
}
