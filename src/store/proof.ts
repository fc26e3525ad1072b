// What a stored partition proves about itself, and the check of a file against its manifest entry.
//
// The proof of a partition: its row count, the time_msc of its first and last row (bars: their
// open time in ms), and the XXH3-128 of its rows packed as the MetaTrader5 package packs them (60
// bytes a tick or a bar, little-endian, times in true UTC: the store's own), so that
//
//   xxhash.xxh3_128_hexdigest(mt5.copy_ticks_range(...).tobytes())
//
// of the same rows (at UTC) gives the same digest: independent of the Parquet encoding, and checked
// against the terminal's rows by `tradeapi verify`. The manifest records it with the file's size;
// the file's Parquet footer (key-value metadata) carries it too, with the symbol, dataset and
// partition it belongs to, so that a file copied over another partition's is told apart before a
// row of it is served, by its footer alone (the hash itself is recomputed only by verify: hashing
// every served row would cost more than reading it).
import { createRowHasher, type RowHasher } from '../encode/row-hash.js';
import type { RateChunk, TickChunk } from '../terminal/series.js';
import type { Dataset } from './layout.js';
import { isProven, type PartitionEntry } from './manifest.js';

/** The footer keys (Parquet key-value metadata) of a stored partition. */
export const FOOTER = {
  format: 'tradeapi.store',
  symbol: 'tradeapi.symbol',
  dataset: 'tradeapi.dataset',
  partition: 'tradeapi.partition',
  rows: 'tradeapi.rows',
  first: 'tradeapi.first_msc',
  last: 'tradeapi.last_msc',
  hash: 'tradeapi.xxh3_128',
} as const;

export interface Proof {
  rows: number;
  first_msc: number;
  last_msc: number;
  xxh3_128: string;
}

/** Builds the proof of rows as they stream past (the chunks as the store holds them: UTC, time in seconds). */
export class ProofBuilder {
  private readonly hasher: RowHasher;
  private first: number | undefined;
  private last: number | undefined;

  constructor(readonly dataset: Dataset) {
    this.hasher = createRowHasher(dataset === 'ticks' ? 'ticks' : 'rates');
  }

  update(chunk: TickChunk | RateChunk): void {
    if (chunk.rows === 0) return;
    this.hasher.update(chunk);
    const ms = (i: number): number => ('time_msc' in chunk ? Number(chunk.time_msc[i]) : Number(chunk.time[i]) * 1000);
    this.first ??= ms(0);
    this.last = ms(chunk.rows - 1);
  }

  get rows(): number {
    return this.hasher.rows;
  }

  /** The proof of every row given so far (rows > 0). */
  proof(): Proof {
    return { rows: this.hasher.rows, first_msc: this.first ?? 0, last_msc: this.last ?? 0, xxh3_128: this.hasher.digest() };
  }
}

/** The footer metadata of a partition file. */
export function footerOf(symbol: string, dataset: Dataset, key: string, proof: Proof): Record<string, string> {
  return {
    [FOOTER.format]: '2',
    [FOOTER.symbol]: symbol,
    [FOOTER.dataset]: dataset,
    [FOOTER.partition]: key,
    [FOOTER.rows]: String(proof.rows),
    [FOOTER.first]: String(proof.first_msc),
    [FOOTER.last]: String(proof.last_msc),
    [FOOTER.hash]: proof.xxh3_128,
  };
}

/** The entry's proof fields, from a proof and the file's size. */
export function proofFields(proof: Proof, bytes: number): Pick<PartitionEntry, 'bytes' | 'first_msc' | 'last_msc' | 'xxh3_128'> {
  return { bytes, first_msc: proof.first_msc, last_msc: proof.last_msc, xxh3_128: proof.xxh3_128 };
}

/**
 * Why a file's footer does not match its manifest entry, or undefined when it does (or when the
 * entry is unproven: a format-1 store's, checked by nothing but the file's placement and kind).
 */
export function footerMismatch(footer: Readonly<Record<string, string>>, numRows: number, symbol: string, dataset: Dataset, key: string, entry: PartitionEntry): string | undefined {
  if (!isProven(entry)) return undefined;
  const want = footerOf(symbol, dataset, key, { rows: entry.rows, first_msc: entry.first_msc!, last_msc: entry.last_msc!, xxh3_128: entry.xxh3_128! });
  if (footer[FOOTER.format] === undefined) return 'its footer carries no proof (not a file this store wrote)';
  for (const [k, v] of Object.entries(want)) {
    if (footer[k] !== v) return `its footer says ${k}=${JSON.stringify(footer[k] ?? null)} where the manifest says ${JSON.stringify(v)}`;
  }
  if (numRows !== entry.rows) return `it holds ${numRows} rows where the manifest says ${entry.rows}`;
  return undefined;
}
