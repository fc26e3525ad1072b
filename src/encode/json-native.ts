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
import type { SeriesChunk, SeriesKind, SeriesLayout } from './series-layout.js';
import type { BodySink } from './types.js';

/** The addon's JSON encoder (binding/napi/json_js.cpp). */
export interface NativeJsonAddon {
  /** Rows [from, to) of a chunk as `,{...}...` (or `[{...}...` when `first`), encoded on the thread pool. */
  jsonRows(kind: SeriesKind, chunk: SeriesChunk, from: number, to: number, first: boolean): Promise<Buffer>;
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

const noop = (): void => undefined;

interface InFlight {
  readonly text: Promise<Uint8Array>;
  done: boolean;
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
        continue;
      }
      const to = Math.min(chunkRows, offset + pieceRows);
      // layout.rowsOf has checked the chunk's columns: the addon takes exactly these arrays.
      const text = addon.jsonRows(layout.kind, chunk, offset, to, first);
      const entry: InFlight = { text, done: false };
      // Also keeps a piece that fails after we stopped (error elsewhere) from being an unhandled
      // rejection; a failure is seen when this piece's turn to be written comes.
      text.then(() => (entry.done = true), noop);
      inFlight.push(entry);
      first = false;
      offset = to;
      // A used-up chunk is referenced by its pieces only (freed once they are encoded).
      if (offset >= chunkRows) chunk = null;
    }
    const head = inFlight.shift();
    if (!head) break;
    await sink.write(await head.text);
  }
  await sink.write(Buffer.from(first ? '[]' : ']', 'latin1'));
}
