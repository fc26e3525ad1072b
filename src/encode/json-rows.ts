// JSON text for records and for series chunks. The series encoders read the typed arrays directly
// and write exactly what JSON.stringify prints for the same rows as plain objects (int64 values as
// JS numbers, non-finite floats as null), without building those objects or any strings.
import { TradeRequestColumns } from '../terminal/records.js';
import type { RateChunk, TickChunk } from '../terminal/series.js';
import { jsonKey, JsonBytes, MAX_NUMBER_CHARS, type JsonKey } from './json-bytes.js';
import { littleEndian, words64, type Words64 } from './int64.js';
import type { SeriesChunk, SeriesKind } from './series-layout.js';
import type { Schema } from './types.js';

// ---- records --------------------------------------------------------------------------------

function jsonValue(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : String(v);
  return v;
}

/** A plain object with the schema's fields in schema order (a TradeRequest field nested alike). */
export function orderedRecord(row: object, schema: Schema): Record<string, unknown> {
  const source = row as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name, kind] of schema) {
    const v = source[name];
    out[name] = kind === 'TradeRequest' && typeof v === 'object' && v !== null ? orderedRecord(v, TradeRequestColumns) : jsonValue(v);
  }
  return out;
}

/** Records as a JSON array, cut into pieces of roughly `pieceChars` characters. */
export function* recordsJsonPieces(rows: readonly object[], schema: Schema, pieceChars = 1 << 16): Generator<string> {
  if (rows.length === 0) {
    yield '[]';
    return;
  }
  let piece = '[';
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) piece += ',';
    piece += JSON.stringify(orderedRecord(rows[i]!, schema));
    if (piece.length >= pieceChars && i < rows.length - 1) {
      yield piece;
      piece = '';
    }
  }
  yield piece + ']';
}

// ---- series ---------------------------------------------------------------------------------

/**
 * Rows [from, to) of a chunk as UTF-8 JSON: `{...},{...}` with a leading comma, or, for the very
 * first rows of the body (`first`), with the opening bracket instead: `[{...},{...}`.
 */
export type RowsJson = (chunk: SeriesChunk, from: number, to: number, first: boolean) => Uint8Array;

const TWO_32 = 4294967296;
const TWO_21 = 0x200000;

function int64(w: JsonBytes, a: BigInt64Array, words: Words64, i: number): void {
  const hi = words.hi[2 * i + 1]!;
  if (hi >= -TWO_21 && hi < TWO_21) w.int(hi * TWO_32 + words.lo[2 * i]!);
  else w.ascii(String(a[i]!)); // beyond 2^53: the exact integer
}

function uint64(w: JsonBytes, a: BigUint64Array, words: Words64, i: number): void {
  const hi = words.uhi[2 * i + 1]!;
  if (hi < TWO_21) w.int(hi * TWO_32 + words.lo[2 * i]!);
  else w.ascii(String(a[i]!));
}

interface RowKeys {
  readonly open: JsonKey;
  readonly next: JsonKey;
  readonly fields: readonly JsonKey[];
  /** Upper bound on one row's bytes. */
  readonly rowMax: number;
}

function rowKeys(names: readonly string[]): RowKeys {
  const fields = names.slice(1).map((n) => jsonKey(`,"${n}":`));
  const keyChars = `,{"${names[0]!}":`.length + fields.reduce((sum, k) => sum + k.length, 0);
  return {
    open: jsonKey(`[{"${names[0]!}":`),
    next: jsonKey(`,{"${names[0]!}":`),
    fields,
    rowMax: keyChars + names.length * MAX_NUMBER_CHARS + 1,
  };
}

const TICK_NAMES = ['time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'flags', 'volume_real'] as const;
const RATE_NAMES = ['time', 'open', 'high', 'low', 'close', 'tick_volume', 'spread', 'real_volume'] as const;
/** Custom bars: few rows per request, written through strings (portableRowsJson). */
const BAR_NAMES = [...RATE_NAMES, 'time_close_msc'] as const;
const TICK_KEYS = rowKeys(TICK_NAMES);
const RATE_KEYS = rowKeys(RATE_NAMES);

/** Typical bytes per row, to size the buffer (it grows if needed). */
const TICK_ROW_BYTES = 140;
const RATE_ROW_BYTES = 150;

function tickRowsJson(c: TickChunk, from: number, to: number, first: boolean): Uint8Array {
  const { time, bid, ask, last, volume, time_msc, flags, volume_real } = c;
  const tw = words64(time);
  const mw = words64(time_msc);
  const vw = words64(volume);
  const { open, next, rowMax } = TICK_KEYS;
  const [kBid, kAsk, kLast, kVolume, kTimeMsc, kFlags, kVolumeReal] = TICK_KEYS.fields as [JsonKey, JsonKey, JsonKey, JsonKey, JsonKey, JsonKey, JsonKey];
  const w = new JsonBytes((to - from) * TICK_ROW_BYTES);
  for (let i = from; i < to; i++) {
    w.reserve(rowMax);
    w.key(first && i === from ? open : next);
    int64(w, time, tw, i);
    w.key(kBid);
    w.float(bid[i]!);
    w.key(kAsk);
    w.float(ask[i]!);
    w.key(kLast);
    w.float(last[i]!);
    w.key(kVolume);
    uint64(w, volume, vw, i);
    w.key(kTimeMsc);
    int64(w, time_msc, mw, i);
    w.key(kFlags);
    w.int(flags[i]!);
    w.key(kVolumeReal);
    w.float(volume_real[i]!);
    w.byte(0x7d); // }
  }
  return w.finish();
}

function rateRowsJson(c: RateChunk, from: number, to: number, first: boolean): Uint8Array {
  const { time, open, high, low, close, tick_volume, spread, real_volume } = c;
  const tw = words64(time);
  const vw = words64(tick_volume);
  const rw = words64(real_volume);
  const { rowMax } = RATE_KEYS;
  const [kOpen, kHigh, kLow, kClose, kTickVolume, kSpread, kRealVolume] = RATE_KEYS.fields as [JsonKey, JsonKey, JsonKey, JsonKey, JsonKey, JsonKey, JsonKey];
  const w = new JsonBytes((to - from) * RATE_ROW_BYTES);
  for (let i = from; i < to; i++) {
    w.reserve(rowMax);
    w.key(first && i === from ? RATE_KEYS.open : RATE_KEYS.next);
    int64(w, time, tw, i);
    w.key(kOpen);
    w.float(open[i]!);
    w.key(kHigh);
    w.float(high[i]!);
    w.key(kLow);
    w.float(low[i]!);
    w.key(kClose);
    w.float(close[i]!);
    w.key(kTickVolume);
    uint64(w, tick_volume, vw, i);
    w.key(kSpread);
    w.int(spread[i]!);
    w.key(kRealVolume);
    uint64(w, real_volume, rw, i);
    w.byte(0x7d); // }
  }
  return w.finish();
}

/**
 * Any layout, any byte order, through strings: slower, used only on big-endian hosts and for custom
 * bars. `symbols`: a multi-symbol series, each row opening with its `symbol` (the chunk's index column).
 */
function portableRowsJson(names: readonly string[], symbols?: readonly string[]): RowsJson {
  const openers = symbols?.map((name) => `{"symbol":${JSON.stringify(name)},`);
  return (chunk, from, to, first) => {
    const record = chunk as unknown as Record<string, ArrayLike<number | bigint>>;
    const ids = openers ? (chunk as unknown as { symbol: Uint16Array }).symbol : undefined;
    let s = '';
    for (let i = from; i < to; i++) {
      s += (first && i === from ? '[' : ',') + (ids ? openers![ids[i]!]! : '{');
      for (let k = 0; k < names.length; k++) {
        const name = names[k]!;
        const v = record[name]![i]!;
        s += (k === 0 ? '"' : ',"') + name + '":' + (typeof v === 'bigint' ? String(v) : v - v === 0 ? String(v) : 'null');
      }
      s += '}';
    }
    return Buffer.from(s, 'latin1');
  };
}

/** `symbols`: a multi-symbol series (custom bars only; the addon writes the others' JSON). */
export function rowsJsonOf(kind: SeriesKind, symbols?: readonly string[]): RowsJson {
  if (kind === 'bars') return portableRowsJson(BAR_NAMES, symbols);
  if (symbols) throw new Error(`the JSON of a multi-symbol series of ${kind} needs the native JSON encoder (addon not loaded)`);
  if (!littleEndian) return portableRowsJson(kind === 'ticks' ? TICK_NAMES : RATE_NAMES);
  return kind === 'ticks'
    ? (chunk, from, to, first) => tickRowsJson(chunk as TickChunk, from, to, first)
    : (chunk, from, to, first) => rateRowsJson(chunk as RateChunk, from, to, first);
}
