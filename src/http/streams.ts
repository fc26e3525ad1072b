// Series streams: how many may run at once, and how much one may hold while its peer is not
// reading. Every series response (ticks, rates) takes a slot from the StreamGate for its whole
// life; past the cap the request gets 503 with Retry-After instead of a stream.
//
// Memory per stream while the peer reads nothing is bounded by construction: chunks of
// STREAM_CHUNK_ROWS rows (~1 MB of ticks or bars; Arrow on a server that is not busy:
// ARROW_STREAM_CHUNK_ROWS, ~4 MB) come from the terminal only when the encoder asks
// for the next one, at most READ_AHEAD_CHUNKS (4) more are read ahead (Arrow, Parquet, JSON), Parquet row groups of
// STREAM_ROW_GROUP_ROWS rows (~1 MB raw, ~70 KB encoded) are encoding at most `parallelism` at a
// time (one when more streams than cores run), JSON pieces likewise (json-native.ts), and the
// adapter holds at most the one write it is waiting on (bench/stalled.ts measures it).
import os from 'node:os';

/**
 * Rows per chunk asked of the terminal for an HTTP stream: ~1 MB of ticks (60 bytes a row) or bars.
 * Measured on 10 M ticks against 64 K-row chunks: as fast or faster (Parquet 1.28 s vs 1.51 s,
 * Arrow 1.78 s vs 1.63 s, one noisy run each), and a quarter of the memory held per stalled stream.
 */
export const STREAM_CHUNK_ROWS = 16_384;
/**
 * Rows per chunk of an Arrow stream while no more streams run than there are cores (~4 MB of
 * ticks, a record batch each). Arrow does nothing per row in JS, so the cost per chunk decides:
 * the terminal's hand-off, the simulator's two-thread split and ~10 writes. Measured on 10 M ticks
 * over node:http with curl (issue 24): 16 K rows 0.50 s, 32 K 0.37–0.44 s, 64 K 0.34–0.37 s, 96 K
 * and 128 K 0.55–0.60 s (a chunk outgrows the 2 MB L2 cache and its pool buffers). Busy servers
 * stay at STREAM_CHUNK_ROWS: four chunks read ahead per stream times many streams is memory.
 */
export const ARROW_STREAM_CHUNK_ROWS = 65_536;
/**
 * Parquet row group rows for an HTTP stream: one chunk, so that a stream waiting for its next chunk
 * holds no raw rows at all. Files ~3 % larger than with 128 K-row groups (10 M ticks: 40.4 vs
 * 39.3 MB), and DuckDB, pyarrow and polars read them as fast.
 */
export const STREAM_ROW_GROUP_ROWS = 16_384;
/** JSON is written in pieces of this many rows (~0.5 MB of text for ticks). */
export const STREAM_JSON_PIECE_ROWS = 4_096;

// The defaults of the cap and of the send timeout live with the rest of the configuration.
export { DEFAULT_SEND_TIMEOUT_MS, defaultMaxStreams } from '../config/index.js';

/** Seconds a client refused at the cap is told to wait (Retry-After). */
export const STREAM_RETRY_AFTER_S = 5;

/** A counting semaphore without a queue: a stream either starts now or is refused. */
export class StreamGate {
  private active = 0;

  constructor(readonly limit: number) {}

  get inUse(): number {
    return this.active;
  }

  /** More streams run than there are cores: a stream starting now should hold no more than it must. */
  get busy(): boolean {
    return this.active > os.availableParallelism();
  }

  /** A release function (idempotent), or undefined when every slot is taken. */
  tryAcquire(): (() => void) | undefined {
    if (this.active >= this.limit) return undefined;
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
    };
  }
}

/** The peer took nothing for the send timeout: the stream was aborted. */
export class SendTimeoutError extends Error {
  override readonly name = 'SendTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`the client read nothing for ${timeoutMs / 1000} s; the stream was closed`);
  }
}
