// One series over parts opened in turn: stored partitions read from their files and ranges asked
// of the terminal, in time order, as the serving decorator (store-terminal.ts) hands them on. A
// part is opened only when the one before it is exhausted (so a terminal cursor is not held while
// stored days are sent), and an optional row limit (copy_ticks_from's `count`) cuts the last
// chunk and stops there.
import type { Series } from '../terminal/series.js';

/** What a part must offer: the next chunk (null at its end) and close. */
export interface Part<C> {
  next(): Promise<C | null>;
  close(): void;
  setChunkRows?(rows: number): void;
  readAhead?(enabled: boolean): void;
  /** As Series.release: only a part that hands on chunks it does not keep has it. */
  release?(chunk: C): void;
}

export interface OpenContext {
  /** Rows still wanted (Infinity without a limit). */
  readonly remaining: number;
  /** The consumer's rows per chunk, as it stands now. */
  chunkRows(): number;
}

export type Opener<C> = (ctx: OpenContext) => Promise<Part<C>> | Part<C>;

export const DEFAULT_CHUNK_ROWS = 65_536;

/**
 * A part over an async generator (a stored file). No release: stored chunks are decoded into
 * buffers of the reader's (some cached and served again, store-terminal.ts M1Months), never the
 * terminal's, so there is nothing to give back early and nothing that may be detached.
 */
export function generatorPart<C>(gen: AsyncGenerator<C>): Part<C> {
  return {
    next: async () => {
      const r = await gen.next();
      return r.done ? null : r.value;
    },
    close: () => void gen.return(undefined),
  };
}

export const emptyPart = <C>(): Part<C> => ({ next: () => Promise.resolve(null), close: () => undefined });

export interface MixedOptions<C> {
  /** The first part, opened already (so that a failing terminal fails the request before any byte). */
  first?: Part<C>;
  /** At most this many rows in all. */
  limit?: number;
  /** The first `rows` rows of a chunk (needed with `limit`). */
  slice?: (chunk: C, rows: number) => C;
}

export class MixedSeries<C extends { rows: number }> implements Series<C> {
  private index = 0;
  private current: Part<C> | undefined;
  private chunkRows = DEFAULT_CHUNK_ROWS;
  private ahead = false;
  private closed = false;
  private remaining: number;
  /** The part each chunk handed on came from (and can release it), while the consumer holds the chunk. */
  private readonly origin = new WeakMap<object, Part<C>>();

  constructor(readonly source: string, private readonly openers: readonly Opener<C>[], private readonly options: MixedOptions<C> = {}) {
    this.remaining = options.limit ?? Infinity;
    if (options.first) {
      this.current = options.first;
      this.index = 1;
    }
  }

  private async open(): Promise<Part<C> | undefined> {
    const opener = this.openers[this.index++];
    if (!opener || this.remaining <= 0) return undefined;
    const part = await opener({ remaining: this.remaining, chunkRows: () => this.chunkRows });
    part.setChunkRows?.(this.chunkRows);
    part.readAhead?.(this.ahead);
    return part;
  }

  async next(): Promise<C | null> {
    for (;;) {
      if (this.closed || this.remaining <= 0) return null;
      if (!this.current) {
        const part = await this.open();
        if (this.closed) {
          part?.close(); // closed while it was being opened
          return null;
        }
        this.current = part;
      }
      if (!this.current) return null;
      const chunk = await this.current.next();
      if (chunk === null) {
        this.current.close();
        this.current = undefined;
        continue;
      }
      if (chunk.rows === 0) continue;
      if (chunk.rows > this.remaining) {
        const cut = this.options.slice;
        if (!cut) throw new Error('a limited mixed series needs a slice function');
        const out = cut(chunk, this.remaining);
        // The cut shares the chunk's buffers (views) and the chunk itself goes nowhere else.
        if (this.current.release) this.origin.set(out, this.current);
        this.remaining = 0;
        this.close();
        return out;
      }
      this.remaining -= chunk.rows;
      if (this.current.release) this.origin.set(chunk, this.current);
      return chunk;
    }
  }

  close(): void {
    this.closed = true;
    this.current?.close();
    this.current = undefined;
  }

  readAhead(enabled: boolean): void {
    this.ahead = enabled;
    this.current?.readAhead?.(enabled);
  }

  setChunkRows(rows: number): void {
    this.chunkRows = rows;
    this.current?.setChunkRows?.(rows);
  }

  /**
   * Forwarded to the part the chunk came from (it may be closed by now: a terminal series' chunks
   * outlive its cursor); nothing for chunks of parts without release (stored days). Parts pass
   * chunks on (or cut views of them) and keep none; neither does this series.
   */
  release(chunk: C): void {
    const part = this.origin.get(chunk);
    if (!part) return;
    this.origin.delete(chunk);
    part.release?.(chunk);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<C> {
    try {
      for (let c = await this.next(); c !== null; c = await this.next()) yield c;
    } finally {
      this.close();
    }
  }
}
