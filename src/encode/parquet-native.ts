// Parquet for series through the addon's native writer (binding/parquet): row groups are encoded
// in C++ on the libuv thread pool, several at once, straight from the chunks' typed arrays (no
// Arrow, no wasm, no copy on the JS thread), and written to the sink strictly in order.
//
//   "PAR1"  written once the first row group is encoded (so a series that fails at once writes
//           nothing, and the first byte goes out ~one row group after the first chunk)
//   groups  each awaited in call order and written with await (backpressure)
//   footer  writer.finish(), after the last group: FileMetaData from the groups' metadata, with
//           the caller's key-value metadata (footerMetadata(), asked for once every chunk has been
//           taken from the series and every group written, so it may describe the rows just sent)
//
// At most `parallelism` row groups are encoding or encoded-but-unwritten at any time; chunks are
// asked for only between sink writes (never while one is pending), so the encoder runs ahead of
// the sink by at most that many row groups. On a sink rejection or a series error nothing more is
// written (no footer: the body is not a valid file), groups still encoding are left to finish and
// dropped, and the error propagates (series-encoder.ts closes the series).
//
// Schema (same as the parquet-wasm path): time and time_msc TIMESTAMP(MILLIS, UTC) (`time` holds
// seconds * 1000: Parquet has no second unit), both DELTA_BINARY_PACKED; prices DOUBLE; volume,
// tick_volume, real_volume INT64 as INTEGER(64, unsigned); flags INT32 as INTEGER(32, unsigned);
// spread INT32. No ARROW:schema key: Arrow readers derive the same types from the logical types.
import os from 'node:os';

import type { Series } from '../terminal/series.js';
import { ChunkReaders, releaserOf } from './chunk-holds.js';
import type { SeriesChunk, SeriesLayout } from './series-layout.js';
import type { BodySink } from './types.js';

/** Codecs of the native writer ('lz4' is LZ4_RAW). */
export type NativeParquetCodec = 'zstd' | 'lz4' | 'none';

export interface NativeParquetWriterOptions {
  codec?: NativeParquetCodec;
  /** zstd: 1..22 (or negative fast levels); lz4: acceleration >= 1. */
  level?: number;
  /** Values per data page at most (default 131072). */
  pageRows?: number;
  /** Column chunk min/max statistics (default true). */
  statistics?: boolean;
  /**
   * BYTE_STREAM_SPLIT for the DOUBLE columns (default false). Measured on simulated EURUSD ticks with
   * zstd 1: 10.8 bytes/row against 4.0 for PLAIN (repeated prices are long matches for zstd in
   * PLAIN, which the split breaks up), and slower: off.
   */
  byteStreamSplit?: boolean;
  /**
   * RLE_DICTIONARY for the other non-time columns whose row group holds few distinct values
   * (default true; binding/parquet/dictionary.h): prices, flags, volumes. Smaller than PLAIN + zstd
   * and ~40 % less CPU, since zstd then reads ~10 bits per price instead of 64.
   */
  dictionary?: boolean;
  /**
   * PageHeader.crc on every page, data and dictionary pages (default true): the CRC-32 of the page's
   * bytes after its header, which the addon's reader checks (ERR_PARQUET_CORRUPT on a mismatch) and
   * pyarrow can (page_checksum_verification). ~1 % of a zstd encode's CPU.
   */
  pageCrc?: boolean;
  createdBy?: string;
  /** A multi-symbol series: a first column `symbol` (STRING, dictionary-encoded) fed by the chunks' `symbol` indices into these names. */
  symbols?: readonly string[];
}

/** One slice of a chunk: rows [from, to). */
export type ChunkSlice = readonly [chunk: SeriesChunk, from: number, to: number];

/** The addon's ParquetWriter (binding/napi/parquet_js.cpp). */
export interface NativeParquetWriter {
  /** Encodes one row group on the thread pool; its bytes must be written in call order. */
  encodeRowGroup(slices: readonly ChunkSlice[]): Promise<Buffer>;
  /**
   * The footer; throws while a row group is pending or if one failed. `metadata` becomes the
   * footer's key_value_metadata, keys in property order (at most 64 pairs, each key and value at
   * most 4096 bytes of UTF-8: a RangeError beyond, a TypeError for a value that is not a string).
   */
  finish(metadata?: Readonly<Record<string, string>>): Buffer;
  readonly pending: number;
  readonly rowGroups: number;
  readonly codec: NativeParquetCodec;
  readonly level: number;
}

export interface NativeParquetAddon {
  ParquetWriter: new (kind: 'ticks' | 'rates', options?: NativeParquetWriterOptions) => NativeParquetWriter;
}

export const PARQUET_MAGIC: Uint8Array = Buffer.from('PAR1', 'latin1');

/**
 * Default zstd level of the native writer. Measured on simulated EURUSD ticks, 128 K-row groups, one
 * pool thread (Xeon, 2 vCPU; bytes/row of the Parquet output, all columns):
 *   zstd -3: 15.8 M rows/s, 4.39 B/row   zstd 1: 15.2 M rows/s, 3.96 B/row   zstd 3: 13.5 M rows/s, 3.93 B/row
 *   lz4:     24.8 M rows/s, 8.04 B/row   none:   31.6 M rows/s, 46.8 B/row
 * Level 1 is as fast as the negative levels and within 1 % of level 3's size; with two threads it
 * encodes ~25 M rows/s, so the terminal, not the encoder, bounds a big pull.
 */
export const NATIVE_DEFAULT_ZSTD_LEVEL = 1;

let loading: Promise<NativeParquetAddon | null> | undefined;

/** The addon's writer, or null when the addon cannot be loaded (the wasm writer is used then). */
export function loadNativeParquet(): Promise<NativeParquetAddon | null> {
  return (loading ??= import('../terminal/native.js').then(
    (m) => {
      const addon = m.addon as unknown as Partial<NativeParquetAddon>;
      return typeof addon.ParquetWriter === 'function' ? (addon as NativeParquetAddon) : null;
    },
    () => null,
  ));
}

/** Row groups in flight by default: one per core, at most the libuv pool's threads (and 8). */
export function defaultParallelism(): number {
  const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  return Math.max(1, Math.min(os.availableParallelism(), pool, 8));
}

export interface NativeSeriesSettings {
  readonly codec: NativeParquetCodec;
  readonly level?: number;
  readonly rowGroupRows: number;
  readonly parallelism: number;
  readonly onRows?: (n: number) => void;
  /**
   * The footer's key-value metadata (FileMetaData.key_value_metadata), asked for once, after the
   * series has ended and every row group was written to the sink, right before the footer is
   * encoded: so it may carry a hash of the rows just streamed. Not called when the series or the
   * sink fails; when it throws, no footer is written and writeParquetNative rejects with its error.
   */
  readonly footerMetadata?: () => Readonly<Record<string, string>>;
}

interface InFlight {
  readonly bytes: Promise<Buffer>;
  done: boolean;
}

export async function writeParquetNative(
  addon: NativeParquetAddon,
  layout: SeriesLayout,
  series: Series<SeriesChunk>,
  sink: BodySink,
  s: NativeSeriesSettings,
): Promise<void> {
  const kind = layout.kind;
  if (kind === 'bars') throw new Error('the native Parquet writer knows ticks and rates only (custom bars go through parquet-wasm)');
  const writer = new addon.ParquetWriter(kind, {
    codec: s.codec,
    ...(s.level !== undefined ? { level: s.level } : s.codec === 'zstd' ? { level: NATIVE_DEFAULT_ZSTD_LEVEL } : {}),
    createdBy: 'tradeapi (native Parquet writer)',
    ...(layout.symbols ? { symbols: layout.symbols } : {}),
  });
  const parallelism = Math.max(1, Math.floor(s.parallelism));
  const inFlight: InFlight[] = [];
  let slices: ChunkSlice[] = [];
  let sliceRows = 0;
  let chunk: SeriesChunk | null = null;
  let chunkRows = 0;
  let offset = 0;
  let ended = false;
  let wroteMagic = false;
  // A chunk is read by this loop until its last slice is cut, and by every row group holding a
  // slice of it until that group is encoded (groups span chunks, chunks span groups); then it is
  // released. The groups' bytes are the writer's own, never views of a chunk.
  const release = releaserOf(series);
  let readers: ChunkReaders<SeriesChunk> | undefined;
  let groupReaders: ChunkReaders<SeriesChunk>[] = [];

  const submit = (): void => {
    const bytes = writer.encodeRowGroup(slices);
    const entry: InFlight = { bytes, done: false };
    const read = groupReaders;
    groupReaders = [];
    // Settled either way, the pool thread is done reading the group's slices.
    const letGo = (): void => {
      for (const r of read) r.drop();
    };
    // The rejection handler also keeps a group that fails after we stopped (error elsewhere) from
    // being an unhandled rejection; a failure is seen when this group's turn to be written comes.
    bytes.then(() => {
      entry.done = true;
      letGo();
    }, letGo);
    inFlight.push(entry);
    slices = [];
    sliceRows = 0;
  };

  for (;;) {
    // Fill: hand row groups to the pool until `parallelism` are in flight, unless the oldest one
    // is ready to be written (write it first: first byte early, memory low).
    while (!ended && inFlight.length < parallelism && !inFlight[0]?.done) {
      if (chunk === null || offset >= chunkRows) {
        const next: SeriesChunk | null = await series.next();
        if (next === null) {
          ended = true;
          if (sliceRows > 0) submit();
          break;
        }
        chunkRows = layout.rowsOf(next);
        s.onRows?.(chunkRows);
        chunk = next;
        offset = 0;
        readers = release && chunkRows > 0 ? new ChunkReaders(chunk, release) : undefined;
        continue;
      }
      const take = Math.min(chunkRows - offset, s.rowGroupRows - sliceRows);
      slices.push([chunk, offset, offset + take]);
      if (readers) {
        readers.add();
        groupReaders.push(readers);
      }
      offset += take;
      sliceRows += take;
      // A used-up chunk is referenced by its slices only, so it is freed (released) once its group
      // is encoded rather than held while the sink waits (a stalled peer would pin it).
      if (offset >= chunkRows) {
        readers?.drop();
        readers = undefined;
        chunk = null;
      }
      if (sliceRows === s.rowGroupRows) submit();
    }
    const head = inFlight.shift();
    if (!head) break;
    const bytes = await head.bytes;
    if (!wroteMagic) {
      wroteMagic = true;
      await sink.write(PARQUET_MAGIC);
    }
    await sink.write(bytes);
  }
  if (!wroteMagic) await sink.write(PARQUET_MAGIC);
  await sink.write(writer.finish(s.footerMetadata?.()));
}
