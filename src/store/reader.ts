// A stored partition read back as series chunks, in time order, clipped to a range: the Parquet
// file is decoded by parquet-wasm into Arrow record batches (64 K rows each) and each batch's
// columns are handed on as the typed arrays a TickChunk holds (time back in seconds). Memory: one
// partition (one UTC day of ticks) decoded at a time.
import { readFile } from 'node:fs/promises';

import { tableFromIPC, type RecordBatch } from 'apache-arrow';

import type { TickChunk } from '../terminal/series.js';

const BATCH_ROWS = 65_536;

type ParquetWasm = typeof import('parquet-wasm');
let loading: Promise<ParquetWasm> | undefined;
const loadParquetWasm = (): Promise<ParquetWasm> => (loading ??= import('parquet-wasm'));

/** The file's bytes, or undefined when it is not there (a partition emptied by a refresh). */
async function bytesOf(file: string): Promise<Uint8Array | undefined> {
  try {
    return await readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** First index in `times` (ascending) whose value is >= v. */
function lowerBound(times: BigInt64Array, v: bigint): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] as bigint) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function column<T>(batch: RecordBatch, name: string): T {
  const child = batch.getChild(name);
  if (!child || child.data.length !== 1) throw new Error(`stored ticks lack column ${name}`);
  const data = child.data[0]!;
  if (data.nullCount > 0) throw new Error(`stored ticks have nulls in ${name}`);
  return data.values as T;
}

/**
 * The ticks of a stored day file with fromMs <= time_msc <= toMs, in chunks of at most `chunkRows`.
 * Each chunk's arrays are exactly `rows` long.
 */
export async function* readTicks(file: string, fromMs: number, toMs: number, chunkRows: () => number): AsyncGenerator<TickChunk> {
  const bytes = await bytesOf(file);
  if (!bytes) return;
  const pw = await loadParquetWasm();
  const table = tableFromIPC(pw.readParquet(bytes, { batchSize: BATCH_ROWS }).intoIPCStream());
  const from = BigInt(fromMs);
  const to = BigInt(toMs);
  for (const batch of table.batches) {
    const msc = column<BigInt64Array>(batch, 'time_msc').subarray(0, batch.numRows);
    if (msc.length === 0 || (msc[msc.length - 1] as bigint) < from) continue;
    if ((msc[0] as bigint) > to) return;
    const lo = lowerBound(msc, from);
    const hi = lowerBound(msc, to + 1n);
    const time = column<BigInt64Array>(batch, 'time');
    const bid = column<Float64Array>(batch, 'bid');
    const ask = column<Float64Array>(batch, 'ask');
    const last = column<Float64Array>(batch, 'last');
    const volume = column<BigUint64Array>(batch, 'volume');
    const flags = column<Uint32Array>(batch, 'flags');
    const volumeReal = column<Float64Array>(batch, 'volume_real');
    for (let a = lo; a < hi; ) {
      const b = Math.min(hi, a + Math.max(1, chunkRows()));
      const seconds = new BigInt64Array(b - a);
      for (let i = a; i < b; i++) seconds[i - a] = (time[i] as bigint) / 1000n;
      yield {
        rows: b - a,
        time: seconds,
        bid: bid.subarray(a, b),
        ask: ask.subarray(a, b),
        last: last.subarray(a, b),
        volume: volume.subarray(a, b),
        time_msc: msc.subarray(a, b),
        flags: flags.subarray(a, b),
        volume_real: volumeReal.subarray(a, b),
      };
      a = b;
    }
    if (hi < msc.length) return;
  }
}
