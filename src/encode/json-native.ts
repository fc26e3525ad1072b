// JSON for series through the addon's encoder (binding/encode/json_rows.h): each piece of rows is
// turned into text in C++ on the libuv thread pool, several at once, straight from the chunks'
// typed arrays, byte for byte what json-rows.ts writes on the JS thread (test/encode/json-native.test.ts
// compares the two). The JS thread only hands pieces out and writes them to the sink, in order.
//
// At most `parallelism` pieces are encoding or encoded-but-unwritten at any time; chunks are asked
// for only between sink writes (never while one is pending), so the encoder runs ahead of the sink
// by at most that many pieces (~0.5 MB each at the HTTP streams' 4 K rows). On a sink rejection or
// a series error nothing more is written, pieces still encoding are left to finish and dropped,
// and the error propagates (series-encoder.ts closes the series).
import type { Series } from '../terminal/series.js';
import { ChunkReaders, releaserOf } from './chunk-holds.js';
import type { SeriesChunk, SeriesKind, SeriesLayout } from './series-layout.js';
import type { BodySink } from './types.js';

/** The addon's JSON encoder (binding/napi/json_js.cpp). */
export interface NativeJsonAddon {
  /** Rows [from, to) of a chunk as `,{...}...` (or `[{...}...` when `first`), encoded on the thread pool. */
  jsonRows(kind: SeriesKind, chunk: SeriesChunk, from: number, to: number, first: boolean, openers?: readonly string[]): Promise<Buffer>;
  /** The same text written into `out` (at least jsonRowsBound(kind, to - from) bytes); resolves with its length. */
  jsonRowsInto?(kind: SeriesKind, chunk: SeriesChunk, from: number, to: number, first: boolean, out: Uint8Array, openers?: readonly string[]): Promise<number>;
  /** The most bytes the text of `rows` rows takes. */
  jsonRowsBound?(kind: SeriesKind, rows: number, openers?: readonly string[]): number;
}

let loading: Promise<NativeJsonAddon | null> | undefined;

/** The addon's encoder, or null when the addon cannot be loaded or has none (the TS encoder is used then). */
export function loadNativeJson(): Promise<NativeJsonAddon | null> {
  return (loading ??= import('../terminal/native.js').then(
    (m) => {
      const addon = m.addon as unknown as Partial<NativeJsonAddon>;
      return typeof addon.jsonRows === 'function' ? (addon as NativeJsonAddon) : null;
    },
    () => null,
  ));
}

export interface NativeJsonSettings {
  readonly pieceRows: number;
  readonly parallelism: number;
  readonly onRows?: (n: number) => void;
}

/** Pieces written in buffers of their own before the pool is used (see PiecePool). */
const POOL_AFTER_PIECES = 2;

interface InFlight {
  readonly text: Promise<Uint8Array>;
  done: boolean;
  /** The pool buffer the text is written into (reused once the sink has it), if any. */
  readonly buffer?: Uint8Array;
}

/**
 * Buffers the pieces are written into, reused piece after piece, when the sink releases its writes
 * (uWS): a 10 M-tick pull is 1.2 GB of text, and a fresh buffer per piece (an ArrayBuffer V8 must
 * collect) set off ~30 full (mark-compact) collections per pull there, ~1 CPU-second, because the JS
 * heap of that adapter grows too slowly for the young generation's collections to reach them first.
 * node:http keeps a reference to each written chunk until it is flushed: fresh buffers there.
 */
class PiecePool {
  private readonly free: Uint8Array[] = [];

  constructor(private readonly bytes: number) {}

  take(): Uint8Array {
    return this.free.pop() ?? Buffer.allocUnsafeSlow(this.bytes);
  }

  give(buffer: Uint8Array): void {
    this.free.push(buffer);
  }
}

/**
 * What each row of a multi-symbol series opens with, per symbol index: the symbol before the other
 * fields, as the live tick events write it (`{"symbol":"EURUSD","time":...`).
 */
export function symbolOpeners(symbols: readonly string[]): string[] {
  return symbols.map((name) => `{"symbol":${JSON.stringify(name)},"time":`);
}

export async function writeJsonNative(
  addon: NativeJsonAddon,
  layout: SeriesLayout,
  series: Series<SeriesChunk>,
  sink: BodySink,
  s: NativeJsonSettings,
): Promise<void> {
  const parallelism = Math.max(1, Math.floor(s.parallelism));
  const pieceRows = Math.max(1, Math.floor(s.pieceRows));
  const inFlight: InFlight[] = [];
  let chunk: SeriesChunk | null = null;
  let chunkRows = 0;
  let offset = 0;
  let ended = false;
  let first = true;
  const into = sink.releasesWrites === true && addon.jsonRowsInto && addon.jsonRowsBound ? addon.jsonRowsInto.bind(addon) : undefined;
  const openers = layout.symbols ? symbolOpeners(layout.symbols) : undefined;
  const pool = into ? new PiecePool(addon.jsonRowsBound!(layout.kind, pieceRows, openers)) : undefined;
  // The first pieces get buffers of their own, sized to their text: a small answer (most are one
  // piece) does not pay for a pool buffer of a whole piece's bound (~1 MB for 4 K ticks).
  let fresh = POOL_AFTER_PIECES;
  // A chunk is read by this loop until its last piece is cut, and by each piece until the pool
  // thread has turned it into text (never a view of the chunk); then it is released.
  const release = releaserOf(series);
  let readers: ChunkReaders<SeriesChunk> | undefined;

  for (;;) {
    // Fill: hand pieces to the pool until `parallelism` are in flight, unless the oldest one is
    // ready to be written (write it first: first byte early, memory low).
    while (!ended && inFlight.length < parallelism && !inFlight[0]?.done) {
      if (chunk === null || offset >= chunkRows) {
        const next: SeriesChunk | null = await series.next();
        if (next === null) {
          ended = true;
          break;
        }
        chunkRows = layout.rowsOf(next);
        s.onRows?.(chunkRows);
        chunk = next;
        offset = 0;
        readers = release && chunkRows > 0 ? new ChunkReaders(chunk, release) : undefined;
        continue;
      }
      const to = Math.min(chunkRows, offset + pieceRows);
      // layout.rowsOf has checked the chunk's columns: the addon takes exactly these arrays.
      let entry: InFlight;
      if (into && pool && fresh-- <= 0) {
        const buffer = pool.take();
        const text = into(layout.kind, chunk, offset, to, first, buffer, openers).then((n) => buffer.subarray(0, n));
        entry = { text, done: false, buffer };
      } else {
        entry = { text: addon.jsonRows(layout.kind, chunk, offset, to, first, openers), done: false };
      }
      const text = entry.text;
      const read = readers;
      read?.add();
      // Settled either way, the pool thread is done reading the piece's rows.
      const letGo = (): void => read?.drop();
      // Also keeps a piece that fails after we stopped (error elsewhere) from being an unhandled
      // rejection; a failure is seen when this piece's turn to be written comes.
      text.then(() => {
        entry.done = true;
        letGo();
      }, letGo);
      inFlight.push(entry);
      first = false;
      offset = to;
      // A used-up chunk is referenced by its pieces only (freed, released, once they are encoded).
      if (offset >= chunkRows) {
        readers?.drop();
        readers = undefined;
        chunk = null;
      }
    }
    const head = inFlight.shift();
    if (!head) break;
    await sink.write(await head.text);
    // Written and released by the sink: the next piece may use the buffer. (A failed write
    // leaves it out of the pool: the stream ends there.)
    if (head.buffer) pool?.give(head.buffer);
  }
  await sink.write(Buffer.from(first ? '[]' : ']', 'latin1'));
}
