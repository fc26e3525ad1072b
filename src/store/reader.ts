// A stored partition read back as series chunks, in time order, clipped to a range.
//
// Native (the addon's ParquetReader, src/encode/parquet-native-reader.ts): the file's row groups
// whose time_msc statistics meet the range are decoded on the libuv thread pool, straight into the
// typed arrays a TickChunk / RateChunk holds (time back in seconds), and the edge row groups are
// clipped as views. Decoding on the pool lets the caller decode the next day while it sends the
// current one (store-terminal.ts starts the next days' decodes ahead, a bounded few).
//
// parquet-wasm, when the addon is not there or refuses the file (written by another writer: see
// parquet_reader.h for what it reads): decoded into Arrow record batches (64 K rows each) whose
// columns are handed on the same way; days of ticks on a thread of their own (decode-worker.ts),
// M1 months (small) on the calling thread.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

import { tableFromIPC, type RecordBatch } from 'apache-arrow';

import { loadNativeParquetReader, type NativeDecodedArrayName, type NativeDecodedColumn, type NativeParquetReader, type NativeParquetReaderAddon } from '../encode/parquet-native-reader.js';
import type { RateChunk, TickChunk } from '../terminal/series.js';
import { decodedTickColumns, lowerBound, msToSeconds, type DecodeReply, type DecodeRequest } from './decode-protocol.js';
import { isProven } from './manifest.js';
import { PartitionDamageError, readPartitionBytes, type StoredPartition } from './partition.js';
import { footerMismatch } from './proof.js';
import { DEFAULT_READ_SLOTS, ReadSlots } from './read-slots.js';

const BATCH_ROWS = 65_536;

type ParquetWasm = typeof import('parquet-wasm');
let loading: Promise<ParquetWasm> | undefined;
const loadParquetWasm = (): Promise<ParquetWasm> => (loading ??= import('parquet-wasm'));

function column<T>(batch: RecordBatch, name: string): T {
  const child = batch.getChild(name);
  if (!child || child.data.length !== 1) throw new Error(`stored partition lacks column ${name}`);
  const data = child.data[0]!;
  if (data.nullCount > 0) throw new Error(`stored partition has nulls in ${name}`);
  return data.values as T;
}

/** A stored file's bytes decoded whole (parquet-wasm) into Arrow record batches. */
async function decode(bytes: Uint8Array): Promise<RecordBatch[]> {
  const pw = await loadParquetWasm();
  return tableFromIPC(pw.readParquet(bytes, { batchSize: BATCH_ROWS }).intoIPCStream()).batches;
}

/**
 * Which decoder reads stored files: 'auto' the native one when the addon has it and the file is
 * one it reads, else parquet-wasm; 'native' or 'wasm' only that one (tests compare the two).
 */
export type StoreDecoder = 'auto' | 'native' | 'wasm';

/** The typed array of each column of a stored file, as the terminal's chunks hold them. */
const TICK_ARRAYS: Readonly<Record<keyof Omit<TickChunk, 'rows'>, NativeDecodedArrayName>> = {
  time: 'BigInt64Array', bid: 'Float64Array', ask: 'Float64Array', last: 'Float64Array',
  volume: 'BigUint64Array', time_msc: 'BigInt64Array', flags: 'Uint32Array', volume_real: 'Float64Array',
};
const RATE_ARRAYS: Readonly<Record<keyof Omit<RateChunk, 'rows'>, NativeDecodedArrayName>> = {
  time: 'BigInt64Array', open: 'Float64Array', high: 'Float64Array', low: 'Float64Array',
  close: 'Float64Array', tick_volume: 'BigUint64Array', spread: 'Int32Array', real_volume: 'BigUint64Array',
};
const MS_TO_SECONDS = ['time'] as const;

/**
 * The file opened by the native reader when it has every column as `arrays` says; undefined when
 * not (parquet-wasm then). A proven partition (this store wrote it, with its proof in the footer)
 * must open natively and its footer must match the manifest: anything else is damage.
 */
function nativeReader(pq: NativeParquetReaderAddon, bytes: Uint8Array, arrays: Readonly<Record<string, NativeDecodedArrayName>>, strict: boolean, part?: StoredPartition): NativeParquetReader | undefined {
  const proven = part !== undefined && isProven(part.entry);
  let reader: NativeParquetReader;
  try {
    reader = new pq.ParquetReader(bytes);
  } catch (e) {
    if (proven) throw new PartitionDamageError(part, `not a Parquet file the store wrote (${(e as Error).message})`);
    if (strict) throw e;
    return undefined; // unsupported (another writer's file) or damaged: parquet-wasm reads it or says why
  }
  if (proven) {
    const why = footerMismatch(reader.metadata, reader.numRows, part.symbol, part.dataset, part.key, part.entry);
    if (why !== undefined) throw new PartitionDamageError(part, why);
  }
  const have = new Map(reader.columns.map((c) => [c.name, c.array]));
  for (const [name, array] of Object.entries(arrays)) {
    if (have.get(name) !== array) {
      if (proven) throw new PartitionDamageError(part, `column ${name} is not a ${array} column`);
      if (strict) throw new Error(`stored partition: column ${name} is not a ${array} column`);
      return undefined;
    }
  }
  return reader;
}

/** A decode of a proven partition that failed (a page CRC, a cut page): damage, not a reason to try parquet-wasm. */
function decodeFailure(e: unknown, part: StoredPartition | undefined): unknown {
  return part !== undefined && isProven(part.entry) && !(e instanceof PartitionDamageError) ? new PartitionDamageError(part, `it does not decode (${(e as Error).message})`) : e;
}

/** Checks a decoded column's type and length (the addon's answer is trusted no further than this). */
function typed<T extends NativeDecodedColumn>(columns: Record<string, NativeDecodedColumn>, name: string, type: new (n: number) => T, rows: number): T {
  const c = columns[name];
  if (!(c instanceof type) || c.length !== rows) throw new Error(`stored partition: column ${name} decoded as something else`);
  return c;
}

/** The rows [lo, hi) of a tick chunk, as views. */
function tickRows(c: TickChunk, lo: number, hi: number): TickChunk {
  return lo === 0 && hi === c.rows ? c : {
    rows: hi - lo, time: c.time.subarray(lo, hi), bid: c.bid.subarray(lo, hi), ask: c.ask.subarray(lo, hi), last: c.last.subarray(lo, hi),
    volume: c.volume.subarray(lo, hi), time_msc: c.time_msc.subarray(lo, hi), flags: c.flags.subarray(lo, hi), volume_real: c.volume_real.subarray(lo, hi),
  };
}

/**
 * The ticks of a stored day file with fromMs <= time_msc <= toMs, decoded natively: the row groups
 * whose statistics meet the range, all at once on the pool (a day is bounded; the caller keeps a
 * bounded few days in flight), the edge ones clipped. Undefined when the native reader refuses the
 * file (and not `strict`).
 */
async function decodeDayNative(pq: NativeParquetReaderAddon, bytes: Uint8Array, fromMs: number, toMs: number, strict: boolean, part?: StoredPartition): Promise<TickChunk[] | undefined> {
  const reader = nativeReader(pq, bytes, TICK_ARRAYS, strict, part);
  if (!reader) return undefined;
  const wanted: number[] = [];
  reader.rowGroups.forEach((g, i) => {
    // No statistics: decoded, and clipped like the others.
    if (g.rows > 0 && !(g.maxTimeMsc !== undefined && g.maxTimeMsc < fromMs) && !(g.minTimeMsc !== undefined && g.minTimeMsc > toMs)) wanted.push(i);
  });
  let groups: Record<string, NativeDecodedColumn>[];
  try {
    groups = await Promise.all(wanted.map((i) => reader.decodeRowGroup(i, { msToSeconds: MS_TO_SECONDS })));
  } catch (e) {
    if (strict || (part !== undefined && isProven(part.entry))) throw decodeFailure(e, part);
    return undefined; // e.g. a data page V2 (or damage): parquet-wasm decides, nothing was handed on yet
  }
  const from = BigInt(fromMs);
  const to = BigInt(toMs);
  const out: TickChunk[] = [];
  for (let k = 0; k < groups.length; k++) {
    const g = groups[k]!;
    const rows = reader.rowGroups[wanted[k]!]!.rows;
    const c: TickChunk = {
      rows,
      time: typed(g, 'time', BigInt64Array, rows), bid: typed(g, 'bid', Float64Array, rows), ask: typed(g, 'ask', Float64Array, rows),
      last: typed(g, 'last', Float64Array, rows), volume: typed(g, 'volume', BigUint64Array, rows), time_msc: typed(g, 'time_msc', BigInt64Array, rows),
      flags: typed(g, 'flags', Uint32Array, rows), volume_real: typed(g, 'volume_real', Float64Array, rows),
    };
    // The same clipping as the wasm path's (decodedTickColumns): rows in time order across groups.
    if ((c.time_msc[rows - 1] as bigint) < from) continue;
    if ((c.time_msc[0] as bigint) > to) break;
    const lo = lowerBound(c.time_msc, from);
    const hi = lowerBound(c.time_msc, to + 1n);
    if (hi > lo) out.push(tickRows(c, lo, hi));
    if (hi < rows) break;
  }
  return out;
}

/** A stored month of M1 bars decoded natively, whole; undefined when the native reader refuses it (and not `strict`). */
async function decodeRatesNative(pq: NativeParquetReaderAddon, bytes: Uint8Array, strict: boolean, part?: StoredPartition): Promise<RateChunk[] | undefined> {
  const reader = nativeReader(pq, bytes, RATE_ARRAYS, strict, part);
  if (!reader) return undefined;
  const wanted = reader.rowGroups.flatMap((g, i) => (g.rows > 0 ? [i] : []));
  let groups: Record<string, NativeDecodedColumn>[];
  try {
    groups = await Promise.all(wanted.map((i) => reader.decodeRowGroup(i, { msToSeconds: MS_TO_SECONDS })));
  } catch (e) {
    if (strict || (part !== undefined && isProven(part.entry))) throw decodeFailure(e, part);
    return undefined;
  }
  return groups.map((g, k) => {
    const rows = reader.rowGroups[wanted[k]!]!.rows;
    return {
      rows,
      time: typed(g, 'time', BigInt64Array, rows), open: typed(g, 'open', Float64Array, rows), high: typed(g, 'high', Float64Array, rows),
      low: typed(g, 'low', Float64Array, rows), close: typed(g, 'close', Float64Array, rows), tick_volume: typed(g, 'tick_volume', BigUint64Array, rows),
      spread: typed(g, 'spread', Int32Array, rows), real_volume: typed(g, 'real_volume', BigUint64Array, rows),
    };
  });
}

/** The addon's reader for `decoder` ('native' without it: an error); null: parquet-wasm. */
async function nativeFor(decoder: StoreDecoder): Promise<NativeParquetReaderAddon | null> {
  if (decoder === 'wasm') return null;
  const pq = await loadNativeParquetReader();
  if (!pq && decoder === 'native') throw new Error('the native Parquet reader is not available (addon not loaded, or built before it)');
  return pq;
}

/** The store's reads at once, and their deadline (read-slots.ts): one set per process, shared by every store. */
export const storeReads = new ReadSlots(DEFAULT_READ_SLOTS);

/**
 * The M1 bars of a stored month, whole, as chunks (one per row group natively, of at most 64 K
 * rows by parquet-wasm), time back in seconds; undefined when it has no file (and no rows).
 * PartitionDamageError when the file is not what the manifest recorded.
 */
export async function decodeRates(part: StoredPartition, decoder: StoreDecoder = 'auto', slots: ReadSlots = storeReads): Promise<RateChunk[] | undefined> {
  const bytes = await readPartitionBytes(part, slots);
  if (!bytes) return undefined;
  const pq = await nativeFor(decoder);
  if (pq) {
    const chunks = await decodeRatesNative(pq, bytes, decoder === 'native', part);
    if (chunks) return chunks;
  } else if (isProven(part.entry)) {
    throw new PartitionDamageError(part, 'the native Parquet reader is not available to check its proof');
  }
  const batches = await decode(bytes);
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

/** The ticks of a stored day file's bytes with fromMs <= time_msc <= toMs, decoded on the main thread. */
async function decodeDayHere(bytes: Uint8Array, fromMs: number, toMs: number): Promise<TickChunk[]> {
  return decodedTickColumns(await decode(bytes), fromMs, toMs).batches;
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

  decode(bytes: Uint8Array, fromMs: number, toMs: number): Promise<TickChunk[]> {
    const w = this.start();
    if (!w) return decodeDayHere(bytes, fromMs, toMs);
    const id = this.nextId++;
    // A copy goes to the thread (transferred there), so that the fallback below still has the bytes.
    const copy = new Uint8Array(bytes);
    const request: DecodeRequest = { id, bytes: copy, fromMs, toMs };
    return new Promise<TickChunk[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.ref();
      w.postMessage(request, [copy.buffer]);
    }).catch(() => decodeDayHere(bytes, fromMs, toMs)); // the thread failed: here, the same answer
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

  decode(bytes: Uint8Array, fromMs: number, toMs: number): Promise<TickChunk[]> {
    let k = 0;
    for (let i = 1; i < this.threads.length; i++) if (this.load[i]! < this.load[k]!) k = i;
    this.load[k]!++;
    return this.threads[k]!.decode(bytes, fromMs, toMs).finally(() => this.load[k]!--);
  }
}

const thread = new DecodePool(availableParallelism() >= 4 ? 2 : 1);

/**
 * The ticks of a stored day with fromMs <= time_msc <= toMs, decoded off the main thread (on the
 * thread pool natively, else on the decoding thread): start it early (before the day is needed)
 * and hand the promise to readTicks. PartitionDamageError when the file is not what the manifest
 * recorded (checked before any of its rows is handed on).
 */
export async function decodeDay(part: StoredPartition, fromMs: number, toMs: number, decoder: StoreDecoder = 'auto', slots: ReadSlots = storeReads): Promise<TickChunk[]> {
  const bytes = await readPartitionBytes(part, slots);
  if (!bytes) return [];
  const pq = await nativeFor(decoder);
  if (pq) {
    const chunks = await decodeDayNative(pq, bytes, fromMs, toMs, decoder === 'native', part);
    if (chunks) return chunks;
  } else if (isProven(part.entry)) {
    throw new PartitionDamageError(part, 'the native Parquet reader is not available to check its proof');
  }
  return thread.decode(bytes, fromMs, toMs);
}

/**
 * The ticks of a decoded stored day (decodeDay's promise, started earlier), in chunks of at most
 * `chunkRows`. Each chunk's arrays are exactly `rows` long.
 */
export async function* readTicks(decoded: Promise<TickChunk[]>, chunkRows: () => number): AsyncGenerator<TickChunk> {
  for (const c of await decoded) {
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
