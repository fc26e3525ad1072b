// Two runs of rows (the store's and the terminal's for one partition) compared row by row, once
// their proofs differ: where they first differ, and whether the store's rows are all among the
// terminal's (the store was short: a partial download at sync) or not (the broker revised them).
//
// Rows are compared bit for bit, every field, as the proof hashes them (a price that is -0 in one
// and 0 in the other differs, as its hash does): each column is read as 32-bit words.
import type { RateChunk, TickChunk } from '../terminal/series.js';

type Chunk = TickChunk | RateChunk;

const TICK_COLUMNS = ['time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'flags', 'volume_real'] as const;
const RATE_COLUMNS = ['time', 'open', 'high', 'low', 'close', 'tick_volume', 'spread', 'real_volume'] as const;

/** One chunk's columns as 32-bit words (w words a row each), and its time in ms. */
interface Words {
  readonly rows: number;
  readonly columns: readonly { words: Int32Array; w: number }[];
  readonly ms: (i: number) => number;
}

function wordsOf(c: Chunk): Words {
  const names = 'time_msc' in c ? TICK_COLUMNS : RATE_COLUMNS;
  const columns = names.map((name) => {
    const a = (c as unknown as Record<string, ArrayBufferView & { length: number; BYTES_PER_ELEMENT: number }>)[name]!;
    const w = a.BYTES_PER_ELEMENT / 4;
    return { words: new Int32Array(a.buffer, a.byteOffset, c.rows * w), w };
  });
  const ms = 'time_msc' in c ? (i: number) => Number(c.time_msc[i]) : (i: number) => Number(c.time[i]) * 1000;
  return { rows: c.rows, columns, ms };
}

/** A read position over a run of chunks. */
class Cursor {
  private readonly chunks: Words[];
  private k = 0;
  private i = 0;
  index = 0;

  constructor(chunks: readonly Chunk[]) {
    this.chunks = chunks.filter((c) => c.rows > 0).map(wordsOf);
  }

  get done(): boolean {
    return this.k >= this.chunks.length;
  }

  ms(): number {
    return this.chunks[this.k]!.ms(this.i);
  }

  advance(): void {
    this.index++;
    if (++this.i >= this.chunks[this.k]!.rows) {
      this.k++;
      this.i = 0;
    }
  }

  equals(other: Cursor): boolean {
    const a = this.chunks[this.k]!;
    const b = other.chunks[other.k]!;
    for (let c = 0; c < a.columns.length; c++) {
      const x = a.columns[c]!;
      const y = b.columns[c]!;
      const w = x.w;
      if (w !== y.w) return false;
      const p = this.i * w;
      const q = other.i * w;
      for (let j = 0; j < w; j++) if (x.words[p + j] !== y.words[q + j]) return false;
    }
    return true;
  }
}

export type DiffKind = 'store-short' | 'terminal-short' | 'revised';

export interface Diff {
  kind: DiffKind;
  /** The index of the first row that differs (or the first row one side lacks). */
  index: number;
  /** The earliest time_msc at that index on either side (undefined: no row-level difference found). */
  first_diff_msc: number | undefined;
}

/** Whether every row of `sub` is among `all`'s, in order (a subsequence): greedy, stopping once all's time passes sub's. */
function isSubsequence(sub: readonly Chunk[], all: readonly Chunk[]): boolean {
  const s = new Cursor(sub);
  const a = new Cursor(all);
  while (!s.done) {
    if (a.done) return false;
    if (a.equals(s)) {
      s.advance();
      a.advance();
    } else if (a.ms() <= s.ms()) {
      a.advance();
    } else {
      return false; // all's rows are past this one's time: it is not among them
    }
  }
  return true;
}

/**
 * How the store's rows differ from the terminal's: where first (index and time), and why: the
 * store's rows all among the terminal's and fewer ('store-short': a partial download at sync), the
 * terminal's all among the store's and fewer ('terminal-short'), or neither ('revised').
 */
export function diffRows(store: readonly Chunk[], terminal: readonly Chunk[], storeRows: number, terminalRows: number): Diff {
  const s = new Cursor(store);
  const t = new Cursor(terminal);
  while (!s.done && !t.done && s.equals(t)) {
    s.advance();
    t.advance();
  }
  const times = [s.done ? undefined : s.ms(), t.done ? undefined : t.ms()].filter((v): v is number => v !== undefined);
  const first = times.length > 0 ? Math.min(...times) : undefined;
  const index = s.index;
  let kind: DiffKind = 'revised';
  if (storeRows < terminalRows && isSubsequence(store, terminal)) kind = 'store-short';
  else if (terminalRows < storeRows && isSubsequence(terminal, store)) kind = 'terminal-short';
  return { kind, index, first_diff_msc: first };
}
