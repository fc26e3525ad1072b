// A stored partition read back as series chunks, in time order, clipped to a range: the Parquet
// file is decoded by parquet-wasm into Arrow record batches (64 K rows each) and each batch's
// columns are handed on as the typed arrays a TickChunk holds (time back in seconds). Days of ticks
// are decoded on a thread of their own (decode-worker.ts) so that the caller can decode the next
// day while it sends the current one; M1 months (small) on the calling thread.
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

import { tableFromIPC, type RecordBatch } from 'apache-arrow';

import type { RateChunk, TickChunk } from '../terminal/series.js';
import { decodedTickColumns, lowerBound, msToSeconds, type DecodeReply, type DecodeRequest } from './decode-protocol.js';

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

function column<T>(batch: RecordBatch, name: string): T {
  const child = batch.getChild(name);
  if (!child || child.data.length !== 1) throw new Error(`stored partition lacks column ${name}`);
  const data = child.data[0]!;
  if (data.nullCount > 0) throw new Error(`stored partition has nulls in ${name}`);
  return data.values as T;
}

/** A stored file decoded whole (parquet-wasm) into Arrow record batches, or undefined when absent. */
async function decode(file: string): Promise<RecordBatch[] | undefined> {
  const bytes = await bytesOf(file);
  if (!bytes) return undefined;
  const pw = await loadParquetWasm();
  return tableFromIPC(pw.readParquet(bytes, { batchSize: BATCH_ROWS }).intoIPCStream()).batches;
}

/** The M1 bars of a stored month file, whole, as chunks of at most 64 K rows (time back in seconds); undefined when absent. */
export async function decodeRates(file: string): Promise<RateChunk[] | undefined> {
  const batches = await decode(file);
  if (!batches) return undefined;
  return batches.filter((b) => b.numRows > 0).map((batch) => {
    const n = batch.numRows;
    const ms = column<BigInt64Array>(batch, 'time');
    const seconds = msToSeconds(ms.subarray(0, n));
    return {
      rows: n,
      time: seconds,
      open: column<Float64Array>(batch, 'open').subarray(0, n),
      high: column<Float64Array>(batch, 'high').subarray(0, n),
      low: column<Float64Array>(batch, 'low').subarray(0, n),
      close: column<Float64Array>(batch, 'close').subarray(0, n),
      tick_volume: column<BigUint64Array>(batch, 'tick_volume').subarray(0, n),
      spread: column<Int32Array>(batch, 'spread').subarray(0, n),
      real_volume: column<BigUint64Array>(batch, 'real_volume').subarray(0, n),
    };
  });
}

/** The rows of decoded bar chunks with fromS <= time <= toS (UTC seconds), as views. */
export function* clipRates(chunks: readonly RateChunk[], fromS: number, toS: number): Generator<RateChunk> {
  const from = BigInt(fromS);
  const to = BigInt(toS);
  for (const c of chunks) {
    if (c.rows === 0 || (c.time[c.rows - 1] as bigint) < from) continue;
    if ((c.time[0] as bigint) > to) return;
    const lo = lowerBound(c.time, from);
    const hi = lowerBound(c.time, to + 1n);
    if (hi > lo) {
      yield {
        rows: hi - lo, time: c.time.subarray(lo, hi), open: c.open.subarray(lo, hi), high: c.high.subarray(lo, hi), low: c.low.subarray(lo, hi),
        close: c.close.subarray(lo, hi), tick_volume: c.tick_volume.subarray(lo, hi), spread: c.spread.subarray(lo, hi), real_volume: c.real_volume.subarray(lo, hi),
      };
    }
    if (hi < c.rows) return;
  }
}

/** The ticks of a stored day file with fromMs <= time_msc <= toMs, decoded on the main thread. */
async function decodeDayHere(file: string, fromMs: number, toMs: number): Promise<TickChunk[]> {
  const batches = await decode(file);
  return batches ? decodedTickColumns(batches, fromMs, toMs).batches : [];
}

/**
 * The decoding thread (decode-worker.ts), started on first use and not keeping the process alive.
 * Should it fail to start or die, decoding falls back to the main thread.
 */
class DecodeThread {
  private worker: Worker | undefined;
  private broken = false;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (c: TickChunk[]) => void; reject: (e: Error) => void }>();

  private start(): Worker | undefined {
    if (this.worker || this.broken) return this.worker;
    try {
      // Beside this module: decode-worker.js when built, decode-worker.ts when run from source (tests).
      const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
      const w = new Worker(new URL(`./decode-worker${ext}`, import.meta.url));
      w.on('message', (m: DecodeReply) => {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (this.pending.size === 0) w.unref(); // idle: it does not keep the process alive
        if (m.error !== undefined) p.reject(new Error(m.error));
        else p.resolve(m.batches ?? []);
      });
      const fail = (e: Error): void => {
        this.broken = true;
        this.worker = undefined;
        for (const p of this.pending.values()) p.reject(e);
        this.pending.clear();
      };
      w.on('error', fail);
      w.on('exit', (code) => fail(new Error(`the store's decoding thread exited (${code})`)));
      w.unref(); // after the listeners (adding a 'message' listener refs it again); ref'd while a decode is pending
      this.worker = w;
    } catch {
      this.broken = true;
    }
    return this.worker;
  }

  decode(file: string, fromMs: number, toMs: number): Promise<TickChunk[]> {
    const w = this.start();
    if (!w) return decodeDayHere(file, fromMs, toMs);
    const id = this.nextId++;
    const request: DecodeRequest = { id, file, fromMs, toMs };
    return new Promise<TickChunk[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.ref();
      w.postMessage(request);
    }).catch(() => decodeDayHere(file, fromMs, toMs)); // the thread failed: here, the same answer
  }
}

/**
 * Decoding threads, each request to the one with the fewest pending: two where the machine has
 * four cores or more; one on fewer (measured on 2 cores: a second one gained nothing, the encoder
 * and the sender need the other core).
 */
class DecodePool {
  private readonly threads: DecodeThread[];
  private readonly load: number[];

  constructor(size: number) {
    this.threads = Array.from({ length: size }, () => new DecodeThread());
    this.load = this.threads.map(() => 0);
  }

  decode(file: string, fromMs: number, toMs: number): Promise<TickChunk[]> {
    let k = 0;
    for (let i = 1; i < this.threads.length; i++) if (this.load[i]! < this.load[k]!) k = i;
    this.load[k]!++;
    return this.threads[k]!.decode(file, fromMs, toMs).finally(() => this.load[k]!--);
  }
}

const thread = new DecodePool(availableParallelism() >= 4 ? 2 : 1);

/**
 * The ticks of a stored day file with fromMs <= time_msc <= toMs, decoded off the main thread:
 * start it early (before the day is needed) and hand the promise to readTicks.
 */
export function decodeDay(file: string, fromMs: number, toMs: number): Promise<TickChunk[]> {
  return thread.decode(file, fromMs, toMs);
}

/**
 * The ticks of a stored day file with fromMs <= time_msc <= toMs, in chunks of at most `chunkRows`
 * (`decoded`: the decode started earlier by decodeDay). Each chunk's arrays are exactly `rows` long.
 */
export async function* readTicks(file: string, fromMs: number, toMs: number, chunkRows: () => number, decoded?: Promise<TickChunk[]>): AsyncGenerator<TickChunk> {
  for (const c of await (decoded ?? decodeDay(file, fromMs, toMs))) {
    for (let a = 0; a < c.rows; ) {
      const b = Math.min(c.rows, a + Math.max(1, chunkRows()));
      yield a === 0 && b === c.rows ? c : {
        rows: b - a, time: c.time.subarray(a, b), bid: c.bid.subarray(a, b), ask: c.ask.subarray(a, b), last: c.last.subarray(a, b),
        volume: c.volume.subarray(a, b), time_msc: c.time_msc.subarray(a, b), flags: c.flags.subarray(a, b), volume_real: c.volume_real.subarray(a, b),
      };
      a = b;
    }
  }
}
