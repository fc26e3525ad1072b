// Who still reads a chunk of a series an encoder works through: the encoder's own loop while it
// cuts pieces or row groups from the chunk, and each piece or group while the thread pool encodes
// it. When the last of them lets go, the chunk is released (Series.release): its buffers go back to
// the addon's pool at once, instead of counting as V8 external memory until a full GC frees them.
//
// The count lives in a small object per chunk, reachable only from the loop's locals and the
// pieces' promise handlers, never in a table that outlives the chunk: measured, keeping the chunks
// as keys of a Map held for the whole stream (even with release a no-op) kept node:http from
// freeing them in scavenges, 70-250 mark-compacts per 10 M-tick pull instead of 2.
import type { Series } from '../terminal/series.js';

/** The series' release, called best effort: a throw is swallowed (a chunk not released is freed by the GC, as without release). */
export function releaserOf<C>(series: Series<C>): ((chunk: C) => void) | undefined {
  if (!series.release) return undefined;
  return (chunk) => {
    try {
      series.release?.(chunk);
    } catch {
      // Called from promise handlers too, where a throw would be an unhandled rejection.
    }
  };
}

/** The readers of one chunk: one (its taker) at first; the last drop() releases it. */
export class ChunkReaders<C> {
  private readers = 1;

  constructor(
    private readonly chunk: C,
    private readonly release: ((chunk: C) => void) | undefined,
  ) {}

  /** One more reader. */
  add(): void {
    this.readers++;
  }

  /** One reader less. A chunk still read when the encoder stops (an error) is left to the GC. */
  drop(): void {
    if (--this.readers === 0) this.release?.(this.chunk);
  }
}
