// Series chunks as they leave the addon: one typed array per field, each a view over an external
// buffer owned by C++ (no copy). 64-bit integer columns are BigInt64Array / BigUint64Array so that
// Arrow can wrap them as they are.

export interface TickChunk {
  readonly rows: number;
  readonly time: BigInt64Array;
  readonly bid: Float64Array;
  readonly ask: Float64Array;
  readonly last: Float64Array;
  readonly volume: BigUint64Array;
  readonly time_msc: BigInt64Array;
  readonly flags: Uint32Array;
  readonly volume_real: Float64Array;
}

export interface RateChunk {
  readonly rows: number;
  readonly time: BigInt64Array;
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly tick_volume: BigUint64Array;
  readonly spread: Int32Array;
  readonly real_volume: BigUint64Array;
}

/** Custom bars (GET /ticks/bars): a rate's columns, then the UTC time of each bar's last tick, ms. */
export interface BarChunk extends RateChunk {
  readonly time_close_msc: BigInt64Array;
}

/** Field names and order of the numpy dtypes (mt5-reference section 3). */
export const TickFields = ['time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'flags', 'volume_real'] as const;
export const RateFields = ['time', 'open', 'high', 'low', 'close', 'tick_volume', 'spread', 'real_volume'] as const;
export const BarFields = [...RateFields, 'time_close_msc'] as const;

/**
 * An open series: chunks come in ascending time, each at most `chunkRows` rows, produced on the
 * terminal's worker only when asked for, so a consumer that stops asking stops production.
 * Always `close()` (or finish iterating) so the terminal can free the cursor.
 */
export interface Series<C> extends AsyncIterable<C> {
  next(): Promise<C | null>;
  close(): void;
  /**
   * Produce the next chunks while the consumer handles the current one (a bounded few ahead:
   * READ_AHEAD_CHUNKS in native-terminal.ts).
   * Worth it when handling a chunk costs the main thread little (Arrow, native Parquet): production
   * and sending then overlap on two cores. Off by default: a consumer that keeps the main thread
   * busy (JSON) gains little and leaves the GC no idle time (measured: +460 MB peak RSS on 10 M ticks).
   */
  readAhead?(enabled: boolean): void;
  /** Rows per chunk from the next one produced on (the terminal's own limits still apply). */
  setChunkRows?(rows: number): void;
  /**
   * The consumer will not read `chunk` again (nor anything made of it that shares its buffers: views,
   * slices handed to native encoders, body parts still queued by a transport), so its buffers may be
   * recycled now: the addon's series detach them (every view then reads as length 0) and give the
   * storage back to their pool at once. Without it a chunk's memory waits for the GC, and V8, counting
   * it as external memory, sets off full (mark-compact) collections when the JS heap grows little
   * (uWS: ~11 per 10 M-tick Parquet pull). Optional and best effort: chunks not released are freed
   * by the GC as before. A wrapper forwards it only when it hands chunks on unchanged (or as views)
   * and keeps no reference to them; one that keeps chunks leaves it out.
   */
  release?(chunk: C): void;
  /**
   * Where the rows come from, when a local store took part (src/store/store-terminal.ts), e.g.
   * "store=2024-01-08T00:00:00.000Z/2024-01-08T23:59:59.999Z, terminal=…": the Tradeapi-Source header.
   */
  readonly source?: string;
}

/**
 * A series' next chunk from `pending`: the series is closed when it ends (null) or fails (the
 * error rethrown), so that the cursor is freed whoever the consumer is.
 */
export async function settleChunk<C>(pending: Promise<C | null>, close: () => void): Promise<C | null> {
  let chunk: C | null;
  try {
    chunk = await pending;
  } catch (e) {
    close();
    throw e;
  }
  if (chunk === null) close();
  return chunk;
}
