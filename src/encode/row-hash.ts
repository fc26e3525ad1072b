// The content hash of a tick or bar series (issue 33), computed by the addon (binding/encode/row_hash.h):
// XXH3-128 over the rows packed exactly as the MetaTrader5 Python package's numpy dtype (60 bytes
// a row, little-endian; `time` in seconds as the chunks hold it), so
//
//   xxhash.xxh3_128_hexdigest(mt5.copy_ticks_range(...).tobytes()) == digest()
//
// for the same rows. Independent of any file format and of how the rows are cut into chunks.
// Synchronous, on the calling thread: ~7 GB/s of canonical rows (a 1 M-tick chunk in ~10 ms).
import { addon } from '../terminal/native.js';
import type { RateChunk, TickChunk } from '../terminal/series.js';

export type RowHashKind = 'ticks' | 'rates';

export interface RowHasher {
  /** Hashes rows [0, chunk.rows) (a TickChunk for 'ticks', a RateChunk for 'rates'; arrays may be
   *  views at any offset, at least `rows` long). Throws a TypeError on anything else, hashing nothing. */
  update(chunk: TickChunk | RateChunk): void;
  /** XXH3-128 of every row so far: 32 lowercase hex digits (canonical, big-endian order). More rows may follow. */
  digest(): string;
  /** Rows hashed so far. */
  readonly rows: number;
}

interface RowHashAddon {
  RowHasher?: new (kind: RowHashKind) => RowHasher;
}

/** A new hasher; throws when the loaded addon predates RowHasher (rebuild it: npm run build:native). */
export function createRowHasher(kind: RowHashKind): RowHasher {
  const Hasher = (addon as unknown as RowHashAddon).RowHasher;
  if (typeof Hasher !== 'function') {
    throw new Error('tradeapi: the loaded addon has no RowHasher (built from older sources: npm run build:native, or TRADEAPI_ADDON names an old build)');
  }
  return new Hasher(kind);
}

/** The digest of a whole series' chunks at once (tests, tools). */
export function hashRows(kind: RowHashKind, chunks: Iterable<TickChunk | RateChunk>): { digest: string; rows: number } {
  const h = createRowHasher(kind);
  for (const c of chunks) h.update(c);
  return { digest: h.digest(), rows: h.rows };
}
