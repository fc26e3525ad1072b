// A series (ticks or rates, in chunks) streamed to a sink as JSON, Arrow IPC or Parquet.
//
// One rule for every format: a chunk is asked for only after everything produced from the previous
// one has been accepted by the sink (each write awaited), so memory stays bounded by about one
// chunk whatever the series' length. Nothing is written before the first chunk has arrived, so a
// series that fails at once can still be answered with an error response. If the sink rejects
// (client gone) or the series throws, production stops, the series is closed, and writeTo rejects
// with that error: the HTTP layer must then abort the connection rather than end the body.
//
// Parquet has two writers (see ParquetEngine): the addon's native one by default (parquet-native.ts:
// row groups encoded in parallel on the libuv pool, ~10x parquet-wasm), and parquet-wasm (snappy,
// or when the addon is not loaded, or on request).
import type { BarChunk, RateChunk, Series, TickChunk } from '../terminal/series.js';
import { releaserOf } from './chunk-holds.js';
import { IpcStreamParts } from './ipc-stream-parts.js';
import { loadNativeJson, writeJsonNative } from './json-native.js';
import { rowsJsonOf } from './json-rows.js';
import {
  DEFAULT_COMPRESSION,
  loadParquetWasm,
  seriesWriterProperties,
  toWasmBatches,
  type ParquetCompression,
  type WasmRecordBatch,
} from './parquet-wasm.js';
import { defaultParallelism, loadNativeParquet, writeParquetNative, type NativeParquetCodec } from './parquet-native.js';
import { writePacked } from './packed-rows.js';
import { layoutOf, multiLayoutOf, type SeriesChunk, type SeriesKind, type SeriesLayout } from './series-layout.js';
import { MediaTypes, type BodySink, type Encoded, type Format } from './types.js';

/**
 * Which Parquet writer encodes a series: 'native' is the addon's (parallel, on the thread pool;
 * codecs zstd, lz4, none), 'wasm' parquet-wasm's (single-threaded, on the JS thread; also snappy).
 * 'auto' (default): native when the addon loads and has the codec, else wasm.
 */
export type ParquetEngine = 'auto' | 'native' | 'wasm';

export interface SeriesEncodeOptions {
  /** Parquet page compression (default 'zstd'). */
  compression?: ParquetCompression;
  /** Parquet: compression level (native writer only; default: zstd 1, lz4 1). */
  compressionLevel?: number;
  /** Parquet writer (default 'auto'). */
  parquetEngine?: ParquetEngine;
  /** Parquet and JSON, native writers: row groups or pieces encoding or awaiting their write at most (default: cores, <= 8). */
  parallelism?: number;
  /** Called with each chunk's row count as the chunk is taken from the series for encoding. */
  onRows?: (n: number) => void;
  /**
   * Parquet: rows per row group at most (default 131072). Larger chunks are split; smaller ones
   * are gathered up to this size by the writer.
   */
  rowGroupRows?: number;
  /**
   * Parquet, native writer only: the footer's key-value metadata, asked for once after the last row
   * group was written and before the footer (so it may hold a hash of the rows just streamed; see
   * parquet-native.ts). parquet-wasm fixes its key-value metadata before the first row group, so
   * with the wasm writer (engine 'wasm', or snappy, or no addon) the series is refused before
   * anything is written.
   */
  footerMetadata?: () => Readonly<Record<string, string>>;
  /** JSON: rows per piece handed to the sink (default 16384, ~2 MB of tick text). */
  jsonPieceRows?: number;
  /**
   * JSON writer: 'native' the addon's (json-native.ts: pieces encoded in C++ on the thread pool,
   * `parallelism` at once, the same bytes), 'js' json-rows.ts on the JS thread. 'auto' (default):
   * native when the addon loads, else js.
   */
  jsonEngine?: 'auto' | 'native' | 'js';
  /**
   * A multi-symbol series (src/terminal/merged-series.ts): the symbols its chunks' `symbol` column
   * indexes, in the order listed. Every format then carries a `symbol` field (series-layout.ts).
   */
  symbols?: readonly string[];
}

/** Rows per Parquet row group by default. Measured on 10 M ticks (zstd): 128 K, 256 K and 512 K rows
 *  per group all encode in ~3.1 s to the same size, with wasm memory peaking at 27, 47 and 92 MiB,
 *  and the first byte after ~0.1, 0.17 and 0.3 s; 128 K also keeps each synchronous wasm step short
 *  (~40 ms on the event loop) and matches DuckDB's own row-group size. */
export const DEFAULT_ROW_GROUP_ROWS = 131_072;
/** Hard ceiling on rows per row group. */
export const MAX_ROW_GROUP_ROWS = 1_048_576;

/** JSON: rows per piece written to the sink (~2 MB of text for ticks). */
const JSON_PIECE_ROWS = 16_384;

const noop = (): void => undefined;

type AnySeries = Series<TickChunk> | Series<RateChunk> | Series<BarChunk>;

export function encodeSeries(format: Format, kind: 'ticks', series: Series<TickChunk>, options?: SeriesEncodeOptions): Encoded;
export function encodeSeries(format: Format, kind: 'rates', series: Series<RateChunk>, options?: SeriesEncodeOptions): Encoded;
export function encodeSeries(format: Format, kind: 'bars', series: Series<BarChunk>, options?: SeriesEncodeOptions): Encoded;
export function encodeSeries(format: Format, kind: SeriesKind, series: AnySeries, options?: SeriesEncodeOptions): Encoded;
export function encodeSeries(format: Format, kind: SeriesKind, series: AnySeries, options: SeriesEncodeOptions = {}): Encoded {
  const layout = options.symbols ? multiLayoutOf(kind, options.symbols) : layoutOf(kind);
  const source = series as Series<SeriesChunk>;
  let started = false;
  return {
    contentType: MediaTypes[format],
    async writeTo(sink: BodySink): Promise<void> {
      if (started) throw new Error('encodeSeries: writeTo may be called once (a series is read once)');
      started = true;
      try {
        switch (format) {
          case 'json':
            return await writeJson(layout, source, sink, options);
          case 'arrow':
            return await writeArrow(layout, source, sink, options);
          case 'parquet':
            return await writeParquetSeries(layout, source, sink, options);
          case 'packed':
            return await writePacked(layout, source, sink, options.onRows);
        }
      } finally {
        try {
          source.close();
        } catch {
          // Closing is best effort; the error that got us here (if any) is the one to report.
        }
      }
    },
  };
}

async function writeJson(layout: SeriesLayout, series: Series<SeriesChunk>, sink: BodySink, options: SeriesEncodeOptions): Promise<void> {
  const pieceRows = Math.max(1, Math.floor(options.jsonPieceRows ?? JSON_PIECE_ROWS));
  // The addon's writers know ticks and rates; custom bars (a few per thousand ticks) are written here.
  const engine = layout.kind === 'bars' ? 'js' : options.jsonEngine ?? 'auto';
  const addon = engine === 'js' ? null : await loadNativeJson();
  if (addon) {
    return writeJsonNative(addon, layout, series, sink, {
      pieceRows,
      parallelism: options.parallelism ?? defaultParallelism(),
      ...(options.onRows ? { onRows: options.onRows } : {}),
    });
  }
  if (engine === 'native') throw new Error('the native JSON encoder is not available (addon not loaded)');
  const rowsJson = rowsJsonOf(layout.kind, layout.symbols);
  const release = releaserOf(series);
  let first = true;
  for (let chunk = await series.next(); chunk !== null; chunk = await series.next()) {
    const rows = layout.rowsOf(chunk);
    options.onRows?.(rows);
    for (let from = 0; from < rows; from += pieceRows) {
      const to = Math.min(rows, from + pieceRows);
      const bytes = rowsJson(chunk, from, to, first);
      first = false;
      await sink.write(bytes);
    }
    // Every piece is text of its own: the chunk is read no more.
    release?.(chunk);
  }
  await sink.write(Buffer.from(first ? '[]' : ']', 'latin1'));
}

async function writeArrow(layout: SeriesLayout, series: Series<SeriesChunk>, sink: BodySink, options: SeriesEncodeOptions): Promise<void> {
  const ipc = new IpcStreamParts(layout.schema('arrow'));
  // The batch's body parts are views of the chunk's own arrays (no copy): the chunk may be released
  // only once the sink no longer reads what was written. uWS has copied or sent it when write()
  // resolves; node's streams keep a reference to each written part until its write callback, which
  // afterWritten waits for. Released at once, 600 MB of chunks per 10 M ticks no longer count as
  // V8 external memory (on node:http they set off mark-compacts: ~0.1 CPU-s per such pull).
  const release = releaserOf(series);
  const afterWritten = sink.releasesWrites === true ? undefined : sink.afterWritten?.bind(sink);
  const releaseOnce = release && (sink.releasesWrites === true || afterWritten) ? release : undefined;
  const headers = new BatchHeaders(layout);
  let first = true;
  for (let chunk = await series.next(); chunk !== null; chunk = await series.next()) {
    const rows = layout.rowsOf(chunk);
    options.onRows?.(rows);
    if (rows === 0) continue;
    let parts = headers.parts(chunk, rows);
    if (!parts) {
      ipc.write(layout.batch(chunk, 'arrow'));
      parts = ipc.take();
      // The stream's first take() also carries the schema message: learnt from the next batch.
      if (!first) headers.learn(chunk, rows, parts);
    }
    first = false;
    for (const part of parts) await sink.write(part);
    if (releaseOnce) {
      const taken = chunk;
      if (afterWritten) afterWritten(() => releaseOnce(taken));
      else releaseOnce(taken);
    }
  }
  ipc.finish();
  for (const part of ipc.take()) await sink.write(part);
}

/**
 * Arrow record batch messages by row count. A batch of a series has no nulls and fixed-width
 * columns, so its message (continuation, length, flatbuffer metadata) depends on its row count
 * only, and its body is the chunk's columns themselves. apache-arrow writes a row count's first
 * batch; when what it wrote is exactly [message, column 1, ..., column n] (views of the chunk,
 * no padding), the message is kept and the next batches of that row count are [message, columns]
 * without it: the same bytes, without ~0.1 ms of JS per batch and the JIT work on apache-arrow's
 * writer during a pull (issue 24). Any other shape (small columns joined, padding) is not kept and
 * that row count keeps going through apache-arrow.
 */
class BatchHeaders {
  private readonly byRows = new Map<number, Uint8Array | null>();
  private readonly names: readonly string[];

  constructor(layout: SeriesLayout) {
    this.names = layout.schema('arrow').fields.map((f) => f.name);
  }

  parts(chunk: SeriesChunk, rows: number): Uint8Array[] | undefined {
    const header = this.byRows.get(rows);
    if (!header) return undefined;
    const parts = [header];
    for (const view of this.columns(chunk, rows)) parts.push(view);
    return parts;
  }

  learn(chunk: SeriesChunk, rows: number, parts: readonly Uint8Array[]): void {
    if (this.byRows.has(rows)) return;
    const columns = this.columns(chunk, rows);
    const header = parts[0];
    const view = header && header.byteLength >= 8 ? new DataView(header.buffer, header.byteOffset, header.byteLength) : undefined;
    const fits =
      header !== undefined &&
      view !== undefined &&
      parts.length === columns.length + 1 &&
      view.getInt32(0, true) === -1 &&
      view.getInt32(4, true) + 8 === header.byteLength &&
      columns.every((c, i) => {
        const p = parts[i + 1]!;
        return p.buffer === c.buffer && p.byteOffset === c.byteOffset && p.byteLength === c.byteLength;
      });
    this.byRows.set(rows, fits ? header.slice() : null);
  }

  private columns(chunk: SeriesChunk, rows: number): Uint8Array[] {
    const record = chunk as unknown as Record<string, ArrayBufferView & { BYTES_PER_ELEMENT: number }>;
    return this.names.map((name) => {
      const values = record[name]!;
      return new Uint8Array(values.buffer, values.byteOffset, rows * values.BYTES_PER_ELEMENT);
    });
  }
}

const NATIVE_CODECS: Readonly<Record<ParquetCompression, NativeParquetCodec | null>> = {
  zstd: 'zstd',
  lz4: 'lz4',
  none: 'none',
  snappy: null,
};

/** Rows per row group for a request's options (default 128 K, at most MAX_ROW_GROUP_ROWS). */
function rowGroupRowsOf(options: SeriesEncodeOptions): number {
  return Math.min(MAX_ROW_GROUP_ROWS, Math.max(1, Math.floor(options.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS)));
}

async function writeParquetSeries(layout: SeriesLayout, series: Series<SeriesChunk>, sink: BodySink, options: SeriesEncodeOptions): Promise<void> {
  const engine = layout.kind === 'bars' ? 'wasm' : options.parquetEngine ?? 'auto';
  const compression = options.compression ?? DEFAULT_COMPRESSION;
  if (engine !== 'wasm') {
    const codec = NATIVE_CODECS[compression];
    const addon = codec ? await loadNativeParquet() : null;
    if (codec && addon) {
      return writeParquetNative(addon, layout, series, sink, {
        codec,
        ...(options.compressionLevel !== undefined ? { level: options.compressionLevel } : {}),
        rowGroupRows: rowGroupRowsOf(options),
        parallelism: options.parallelism ?? defaultParallelism(),
        ...(options.onRows ? { onRows: options.onRows } : {}),
        ...(options.footerMetadata ? { footerMetadata: options.footerMetadata } : {}),
      });
    }
    if (engine === 'native') {
      throw new Error(codec ? 'the native Parquet writer is not available (addon not loaded)' : `the native Parquet writer has no ${compression} codec`);
    }
  }
  // Custom bars' `symbol` goes through parquet-wasm as a dictionary column (arrow-rs writes it dictionary-encoded).
  if (layout.symbols && layout.kind !== 'bars') throw new Error(`the Parquet of a multi-symbol series needs the native writer (${compression === 'snappy' ? 'no snappy there: zstd, lz4 or none' : 'addon not loaded'})`);
  if (options.footerMetadata) {
    throw new Error(
      `footerMetadata needs the native Parquet writer (${engine === 'wasm' ? "parquetEngine 'wasm' was asked for" : `not used here: ${compression === 'snappy' ? 'snappy' : 'the addon has no native writer'}`}); parquet-wasm fixes its key-value metadata before the first row group`,
    );
  }
  return writeParquet(layout, series, sink, options);
}

/**
 * Parquet through parquet-wasm's streaming writer: a ReadableStream of wasm record batches, pulled
 * by the writer one at a time (each pull takes the next slice of at most rowGroupRows rows, and the
 * next chunk from the series only when the current one is used up); the writer emits each row group
 * as soon as it is complete, and we hand those bytes to the sink before reading more.
 */
async function writeParquet(layout: SeriesLayout, series: Series<SeriesChunk>, sink: BodySink, options: SeriesEncodeOptions): Promise<void> {
  const rowGroupRows = rowGroupRowsOf(options);
  const pw = await loadParquetWasm();
  const release = releaserOf(series);

  // Take the first chunk before anything is set up: a series that fails at once fails cleanly.
  let chunk: SeriesChunk | null = await series.next();
  let chunkRows = chunk ? layout.rowsOf(chunk) : 0;
  if (chunk) options.onRows?.(chunkRows);
  let offset = 0;
  let batchesSent = 0;
  let finished = false;

  let failure: { error: unknown } | undefined;
  let rejectFailed!: (error: unknown) => void;
  const failed = new Promise<never>((_, reject) => {
    rejectFailed = reject;
  });
  failed.catch(() => undefined);
  const fail = (error: unknown): void => {
    if (!failure) {
      failure = { error };
      rejectFailed(error);
    }
  };

  // The sink write in progress, if any (settles either way).
  let sinkWrite: Promise<void> | undefined;

  let inputController: ReadableStreamDefaultController<WasmRecordBatch> | undefined;
  const closeInput = (): void => {
    if (finished) return;
    finished = true;
    try {
      inputController?.close();
    } catch {
      // Already closed or errored.
    }
  };

  // The next wasm batch for the writer, or null at the end of the series.
  const nextBatches = async (): Promise<WasmRecordBatch[] | null> => {
    while (chunk && offset >= chunkRows) {
      chunk = await series.next();
      if (failure || finished) return null;
      offset = 0;
      chunkRows = chunk ? layout.rowsOf(chunk) : 0;
      if (chunk) options.onRows?.(chunkRows);
    }
    if (!chunk) {
      // The writer needs one batch to learn the schema: an empty series is one zero-row batch.
      if (batchesSent > 0) return null;
      batchesSent++;
      return toWasmBatches(pw, layout.batch(layout.emptyChunk(), 'parquet'));
    }
    const to = Math.min(chunkRows, offset + rowGroupRows);
    const batch = layout.batch(chunk, 'parquet', offset, to);
    offset = to;
    batchesSent++;
    const batches = toWasmBatches(pw, batch);
    // The rows are in wasm memory now (copied through an IPC buffer): a used-up chunk is read no more.
    if (offset >= chunkRows) release?.(chunk);
    return batches;
  };

  const input = new ReadableStream<WasmRecordBatch>(
    {
      start(controller) {
        inputController = controller;
      },
      async pull(controller) {
        try {
          // The writer asks for its next batch as soon as it has handed over a row group, before
          // we have written that to the sink: let the hand-over reach the read loop (a macrotask
          // turn drains it), then wait until the sink has taken it. Only then produce more.
          await new Promise<void>((resolve) => setImmediate(resolve));
          while (sinkWrite && !failure && !finished) await sinkWrite;
          const batches = failure || finished ? null : await nextBatches();
          if (finished || failure) return;
          if (batches === null) {
            closeInput();
            return;
          }
          for (const b of batches) controller.enqueue(b);
        } catch (error) {
          fail(error);
          // Ending the input lets the wasm writer task finish and free its memory; its last bytes
          // are never written to the sink since the failure is checked before every write.
          closeInput();
        }
      },
    },
    { highWaterMark: 0 },
  );

  // Resolves once the writer has taken the first batch (it needs it for the schema).
  const started = pw.transformParquetStream(
    input,
    seriesWriterProperties(pw, {
      compression: options.compression ?? DEFAULT_COMPRESSION,
      rowGroupRows,
      deltaColumns: layout.timeColumns,
      ...(layout.symbols ? { dictionaryColumns: ['symbol'] } : {}),
    }),
  ) as Promise<ReadableStream<Uint8Array>>;
  started.catch(noop);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    reader = (await Promise.race([started, failed])).getReader();
    for (;;) {
      const read = reader.read();
      read.catch(noop);
      const next = await Promise.race([read, failed]);
      if (failure) throw failure.error;
      if (next.done) break;
      const write = sink.write(next.value);
      sinkWrite = write.then(noop, noop);
      try {
        await write;
      } finally {
        sinkWrite = undefined;
      }
    }
    if (failure) throw (failure as { error: unknown }).error;
  } catch (error) {
    fail(error);
    throw failure ? failure.error : error;
  } finally {
    closeInput();
    if (reader) {
      // Cancelling the output makes the writer's remaining writes fail, so its task ends (and
      // frees its wasm memory) instead of waiting for a reader forever.
      await reader.cancel().catch(noop);
      reader.releaseLock();
    } else {
      started.then((output) => output.cancel(), noop).catch(noop);
    }
  }
}
