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

/** Bytes per row of both dtypes (ticks and rates). */
export const PACKED_ROW_BYTES = 60;
const ROW_WORDS = PACKED_ROW_BYTES / 4;

/** [field, byte offset, byte width] in dtype order (mt5-reference §3.1, §3.2). */
const FIELDS: Readonly<Record<SeriesKind, readonly (readonly [string, number, 4 | 8])[]>> = {
  ticks: [['time', 0, 8], ['bid', 8, 8], ['ask', 16, 8], ['last', 24, 8], ['volume', 32, 8], ['time_msc', 40, 8], ['flags', 48, 4], ['volume_real', 52, 8]],
  rates: [['time', 0, 8], ['open', 8, 8], ['high', 16, 8], ['low', 24, 8], ['close', 32, 8], ['tick_volume', 40, 8], ['spread', 48, 4], ['real_volume', 52, 8]],
};

/** The numpy dtype the rows follow, as numpy prints its descr (for the response header and docs). */
export const PACKED_DTYPES: Readonly<Record<SeriesKind, string>> = {
  ticks: "[('time','<i8'),('bid','<f8'),('ask','<f8'),('last','<f8'),('volume','<u8'),('time_msc','<i8'),('flags','<u4'),('volume_real','<f8')]",
  rates: "[('time','<i8'),('open','<f8'),('high','<f8'),('low','<f8'),('close','<f8'),('tick_volume','<u8'),('spread','<i4'),('real_volume','<u8')]",
};

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * Rows [from, to) of a chunk as packed records. Every field is copied as 32-bit words (a row is 60
 * bytes, so 8-byte fields are only 4-byte aligned in odd rows); typed arrays are host order, which
 * must be little-endian, as numpy's '<' says.
 */
export function packRows(kind: SeriesKind, chunk: SeriesChunk, from: number, to: number): Uint8Array {
  if (!LITTLE_ENDIAN) throw new Error('packed rows need a little-endian host');
  const n = Math.max(0, to - from);
  const out = Buffer.allocUnsafe(n * PACKED_ROW_BYTES);
  const words = new Uint32Array(out.buffer, out.byteOffset, n * ROW_WORDS);
  const record = chunk as unknown as Record<string, ArrayBufferView>;
  for (const [name, offset, width] of FIELDS[kind]) {
    const column = record[name]!;
    const src = new Uint32Array(column.buffer, column.byteOffset + from * width, (n * width) / 4);
    let d = offset / 4;
    if (width === 8) {
      for (let i = 0, s = 0; i < n; i++, s += 2, d += ROW_WORDS) {
        words[d] = src[s]!;
        words[d + 1] = src[s + 1]!;
      }
    } else {
      for (let i = 0; i < n; i++, d += ROW_WORDS) words[d] = src[i]!;
    }
  }
  return out;
}

/** A series as packed rows, one write per chunk (each awaited: memory stays about one chunk). */
export async function writePacked(layout: SeriesLayout, series: Series<SeriesChunk>, sink: BodySink, onRows?: (n: number) => void): Promise<void> {
  const release = releaserOf(series);
  for (let chunk = await series.next(); chunk !== null; chunk = await series.next()) {
    const rows = layout.rowsOf(chunk);
    onRows?.(rows);
    if (rows === 0) continue;
    const packed = packRows(layout.kind, chunk, 0, rows);
    // The rows are copied into `packed`: the chunk is read no more, whatever the sink keeps.
    release?.(chunk);
    await sink.write(packed);
  }
}
