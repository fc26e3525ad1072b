// The packed-record form of a series (`format=packed`, application/vnd.tradeapi.packed): every row
// exactly as numpy lays out the MetaTrader5 package's dtype — little-endian, packed, 60 bytes, the
// fields in dtype order — rows back to back, no header, no footer. A Python client views the body
// with `np.frombuffer(body, dtype)` without parsing (clients/python). Completeness is the
// transport's: the body is chunked, and a series that fails midway aborts the connection before
// the final chunk, so a cut body is never mistaken for a whole one.
import { endianness } from 'node:os';

import type { Series } from '../terminal/series.js';
import { releaserOf } from './chunk-holds.js';
import type { SeriesChunk, SeriesKind, SeriesLayout } from './series-layout.js';
import type { BodySink } from './types.js';

/** Bytes per row of both dtypes (ticks and rates); custom bars add time_close_msc (PACKED_BAR_ROW_BYTES). */
export const PACKED_ROW_BYTES = 60;
export const PACKED_BAR_ROW_BYTES = 68;
const ROW_BYTES: Readonly<Record<SeriesKind, number>> = { ticks: PACKED_ROW_BYTES, rates: PACKED_ROW_BYTES, bars: PACKED_BAR_ROW_BYTES };

/** [field, byte offset, byte width] in dtype order (mt5-reference §3.1, §3.2). */
const FIELDS: Readonly<Record<SeriesKind, readonly (readonly [string, number, 4 | 8])[]>> = {
  ticks: [['time', 0, 8], ['bid', 8, 8], ['ask', 16, 8], ['last', 24, 8], ['volume', 32, 8], ['time_msc', 40, 8], ['flags', 48, 4], ['volume_real', 52, 8]],
  rates: [['time', 0, 8], ['open', 8, 8], ['high', 16, 8], ['low', 24, 8], ['close', 32, 8], ['tick_volume', 40, 8], ['spread', 48, 4], ['real_volume', 52, 8]],
  bars: [['time', 0, 8], ['open', 8, 8], ['high', 16, 8], ['low', 24, 8], ['close', 32, 8], ['tick_volume', 40, 8], ['spread', 48, 4], ['real_volume', 52, 8], ['time_close_msc', 60, 8]],
};

/** The numpy dtype the rows follow, as numpy prints its descr (for the response header and docs). */
export const PACKED_DTYPES: Readonly<Record<SeriesKind, string>> = {
  ticks: "[('time','<i8'),('bid','<f8'),('ask','<f8'),('last','<f8'),('volume','<u8'),('time_msc','<i8'),('flags','<u4'),('volume_real','<f8')]",
  rates: "[('time','<i8'),('open','<f8'),('high','<f8'),('low','<f8'),('close','<f8'),('tick_volume','<u8'),('spread','<i4'),('real_volume','<u8')]",
  bars: "[('time','<i8'),('open','<f8'),('high','<f8'),('low','<f8'),('close','<f8'),('tick_volume','<u8'),('spread','<i4'),('real_volume','<u8'),('time_close_msc','<i8')]",
};

/**
 * A multi-symbol series' packed rows: the one-symbol record, then the row's symbol as a uint32 index
 * into the list the Tradeapi-Symbols header gives (64 bytes a row, custom bars 72; 4-byte aligned).
 */
export const PACKED_MULTI_ROW_BYTES = 64;
export const PACKED_MULTI_BAR_ROW_BYTES = 72;
export const PACKED_MULTI_DTYPES: Readonly<Record<SeriesKind, string>> = {
  ticks: `${PACKED_DTYPES.ticks.slice(0, -1)},('symbol','<u4')]`,
  rates: `${PACKED_DTYPES.rates.slice(0, -1)},('symbol','<u4')]`,
  bars: `${PACKED_DTYPES.bars.slice(0, -1)},('symbol','<u4')]`,
};

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * Rows [from, to) of a chunk as packed records. Every field is copied as 32-bit words (a row is 60
 * bytes, so 8-byte fields are only 4-byte aligned in odd rows); typed arrays are host order, which
 * must be little-endian, as numpy's '<' says.
 */
export function packRows(kind: SeriesKind, chunk: SeriesChunk, from: number, to: number, symbol?: Uint16Array): Uint8Array {
  if (!LITTLE_ENDIAN) throw new Error('packed rows need a little-endian host');
  const n = Math.max(0, to - from);
  const baseWords = ROW_BYTES[kind] / 4;
  const rowWords = symbol ? baseWords + 1 : baseWords;
  const out = Buffer.allocUnsafe(n * rowWords * 4);
  const words = new Uint32Array(out.buffer, out.byteOffset, n * rowWords);
  if (symbol) for (let i = 0, d = baseWords; i < n; i++, d += rowWords) words[d] = symbol[from + i]!;
  const record = chunk as unknown as Record<string, ArrayBufferView>;
  for (const [name, offset, width] of FIELDS[kind]) {
    const column = record[name]!;
    const src = new Uint32Array(column.buffer, column.byteOffset + from * width, (n * width) / 4);
    let d = offset / 4;
    if (width === 8) {
      for (let i = 0, s = 0; i < n; i++, s += 2, d += rowWords) {
        words[d] = src[s]!;
        words[d + 1] = src[s + 1]!;
      }
    } else {
      for (let i = 0; i < n; i++, d += rowWords) words[d] = src[i]!;
    }
  }
  return out;
}

/** The addon's packer (binding/napi/json_js.cpp): the same bytes as packRows, made on the libuv thread pool. */
export interface NativePackedAddon {
  packedRows(kind: SeriesKind, chunk: SeriesChunk, from: number, to: number): Promise<Buffer>;
}

let loading: Promise<NativePackedAddon | null> | undefined;

/** The addon's packer, or null when the addon cannot be loaded or has none (packRows is used then). */
export function loadNativePacked(): Promise<NativePackedAddon | null> {
  return (loading ??= import('../terminal/native.js').then(
    (m) => {
      const addon = m.addon as unknown as Partial<NativePackedAddon>;
      return typeof addon.packedRows === 'function' ? (addon as NativePackedAddon) : null;
    },
    () => null,
  ));
}

/**
 * A series as packed rows, one write per chunk (each awaited: memory stays about two chunks). The
 * rows are packed by the addon on the thread pool when it has the packer (never on the event loop:
 * 10 M rows are 600 MB), else by packRows; the next chunk is asked for while a packed one is written.
 */
export async function writePacked(layout: SeriesLayout, series: Series<SeriesChunk>, sink: BodySink, onRows?: (n: number) => void, native?: NativePackedAddon | null): Promise<void> {
  const packer = native === undefined ? await loadNativePacked() : native;
  const release = releaserOf(series);
  let next = series.next();
  for (let chunk = await next; chunk !== null; chunk = await next) {
    const rows = layout.rowsOf(chunk);
    onRows?.(rows);
    if (rows === 0) {
      next = series.next();
      continue;
    }
    // A multi-symbol series is packed here (the addon packs the 60-byte record only), at most one
    // chunk at a time; custom bars too (the addon knows ticks and rates).
    const symbol = layout.symbols ? (chunk as unknown as { symbol: Uint16Array }).symbol : undefined;
    const packed = packer && layout.kind !== 'bars' && !symbol ? await packer.packedRows(layout.kind, chunk, 0, rows) : packRows(layout.kind, chunk, 0, rows, symbol);
    // The rows are copied into `packed`: the chunk is read no more, whatever the sink keeps.
    release?.(chunk);
    next = series.next();
    try {
      await sink.write(packed);
    } catch (e) {
      next.catch(() => undefined); // the chunk asked for ahead is not wanted any more
      throw e;
    }
  }
}
