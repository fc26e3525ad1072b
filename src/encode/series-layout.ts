// Tick and rate chunks (one typed array per field, numpy dtype order) as Arrow record batches whose
// column buffers are the chunk's own arrays: no copy. The one exception is Parquet's `time` column,
// seconds turned into milliseconds (see column-types.ts).
import {
  Dictionary,
  Field,
  Float64,
  Int32,
  makeData,
  RecordBatch,
  Schema as ArrowSchema,
  Struct,
  Uint16,
  Uint64,
  Utf8,
  vectorFromArray,
  type DataType,
} from 'apache-arrow';

import type { BarChunk, RateChunk, TickChunk } from '../terminal/series.js';
import { TickColumns } from '../terminal/records.js';
import { flatData } from './arrow-data.js';
import { arrowTypeOf, timeUnitOf, type ColumnTarget } from './column-types.js';
import { secondsToMillis } from './int64.js';

export type SeriesKind = 'ticks' | 'rates' | 'bars';
export type SeriesChunk = TickChunk | RateChunk | BarChunk;
type Column = BigInt64Array | BigUint64Array | Float64Array | Uint32Array | Int32Array;

export interface SeriesLayout {
  readonly kind: SeriesKind;
  /**
   * A multi-symbol series (multiLayoutOf): the symbols its chunks' `symbol` column indexes, in the
   * order listed; the `symbol` field comes first. Undefined for one symbol's series.
   */
  readonly symbols?: readonly string[];
  /** Field names in numpy dtype order. */
  readonly names: readonly string[];
  /** int64 time columns holding seconds (converted to ms for Parquet). */
  readonly secondsColumns: readonly string[];
  /** All time columns (seconds and milliseconds), ascending within a series. */
  readonly timeColumns: readonly string[];
  schema(target: ColumnTarget): ArrowSchema;
  /** The chunk's row count, once every column is checked to hold at least that many values. */
  rowsOf(chunk: SeriesChunk): number;
  /** A chunk with no rows (typed arrays of length 0). */
  emptyChunk(): SeriesChunk;
  /** The chunk's rows [from, to) as one record batch over the chunk's arrays. */
  batch(chunk: SeriesChunk, target: ColumnTarget, from?: number, to?: number): RecordBatch;
}

function makeLayout(kind: SeriesKind, columns: readonly (readonly [string, (target: ColumnTarget) => DataType])[]): SeriesLayout {
  const names = columns.map(([name]) => name);
  const schemas = new Map<ColumnTarget, ArrowSchema>();
  const schema = (target: ColumnTarget): ArrowSchema => {
    let s = schemas.get(target);
    if (!s) {
      s = new ArrowSchema(columns.map(([name, type]) => new Field(name, type(target), false)));
      schemas.set(target, s);
    }
    return s;
  };
  const secondsColumns = names.filter((n) => timeUnitOf(n, 'int64') === 'seconds');
  const timeColumns = names.filter((n) => timeUnitOf(n, 'int64') !== null);
  const rowsOf = (chunk: SeriesChunk): number => {
    const rows = chunk.rows;
    if (!Number.isSafeInteger(rows) || rows < 0) throw new TypeError(`${kind} chunk: invalid row count ${String(rows)}`);
    const record = chunk as unknown as Record<string, unknown>;
    for (const [name, type] of columns) {
      const values = record[name];
      const ArrayType = type('arrow').ArrayType as unknown;
      if (!(values instanceof (ArrayType as typeof Float64Array)) || values.length < rows) {
        throw new TypeError(`${kind} chunk: column "${name}" must be a ${(ArrayType as typeof Float64Array).name} of at least ${rows} values`);
      }
    }
    return rows;
  };
  return {
    kind,
    names,
    secondsColumns,
    timeColumns,
    schema,
    rowsOf,
    emptyChunk() {
      const empty: Record<string, unknown> = { rows: 0 };
      for (const field of schema('arrow').fields) empty[field.name] = new (field.type.ArrayType as typeof Float64Array)(0);
      return empty as unknown as SeriesChunk;
    },
    batch(chunk, target, from = 0, to = rowsOf(chunk)) {
      if (!(from >= 0 && from <= to && to <= chunk.rows)) throw new RangeError(`rows ${from}..${to} of a ${chunk.rows}-row chunk`);
      const s = schema(target);
      const rows = to - from;
      const record = chunk as unknown as Record<string, Column>;
      const children = s.fields.map((field) => {
        const values = record[field.name]!;
        let view: Column = from === 0 && to === values.length ? values : values.subarray(from, to);
        if (target === 'parquet' && secondsColumns.includes(field.name)) view = secondsToMillis(view as BigInt64Array);
        return flatData(field.type, rows, view);
      });
      return new RecordBatch(s, makeData({ type: new Struct(s.fields), length: rows, nullCount: 0, children }));
    },
  };
}

/** Ticks: the record's column kinds (TickColumns), so a tick is typed alike as record and series. */
export const TickLayout: SeriesLayout = makeLayout(
  'ticks',
  TickColumns.map(([name, kind]) => [name, (target: ColumnTarget) => arrowTypeOf(name, kind, target)] as const),
);

/** Rates: time int64 seconds, prices float64, tick_volume uint64, spread int32, real_volume uint64. */
const RATE_COLUMNS: readonly (readonly [string, (target: ColumnTarget) => DataType])[] = [
  ['time', (target) => arrowTypeOf('time', 'int64', target)],
  ['open', () => new Float64()],
  ['high', () => new Float64()],
  ['low', () => new Float64()],
  ['close', () => new Float64()],
  ['tick_volume', () => new Uint64()],
  ['spread', () => new Int32()],
  ['real_volume', () => new Uint64()],
];
export const RateLayout: SeriesLayout = makeLayout('rates', RATE_COLUMNS);

/** Custom bars: a rate's columns, then time_close_msc (int64 ms). */
export const BarLayout: SeriesLayout = makeLayout('bars', [...RATE_COLUMNS, ['time_close_msc', (target) => arrowTypeOf('time_close_msc', 'int64', target)]]);

export function layoutOf(kind: SeriesKind): SeriesLayout {
  return kind === 'ticks' ? TickLayout : kind === 'rates' ? RateLayout : BarLayout;
}

/** The symbol column's Arrow type: names in a dictionary, a uint16 index per row. */
const symbolType = (): Dictionary<Utf8, Uint16> => new Dictionary(new Utf8(), new Uint16(), 0, false);

/**
 * A multi-symbol series (issue 36 §2): the chunks of `kind` plus a `symbol` Uint16Array of indices
 * into `symbols`, laid out as a first field `symbol`, Dictionary<Utf8, Uint16> in Arrow (the
 * dictionary written once, before the first batch), then the one-symbol fields.
 */
export function multiLayoutOf(kind: SeriesKind, symbols: readonly string[]): SeriesLayout {
  const base = layoutOf(kind);
  const type = symbolType();
  const dictionary = vectorFromArray([...symbols], new Utf8());
  const schemas = new Map<ColumnTarget, ArrowSchema>();
  const schema = (target: ColumnTarget): ArrowSchema => {
    let s = schemas.get(target);
    if (!s) {
      s = new ArrowSchema([new Field('symbol', type, false), ...base.schema(target).fields]);
      schemas.set(target, s);
    }
    return s;
  };
  const symbolsOf = (chunk: SeriesChunk): Uint16Array => (chunk as unknown as { symbol?: unknown }).symbol as Uint16Array;
  const rowsOf = (chunk: SeriesChunk): number => {
    const rows = base.rowsOf(chunk);
    const ids = symbolsOf(chunk);
    if (!(ids instanceof Uint16Array) || ids.length < rows) throw new TypeError(`${kind} chunk: column "symbol" must be a Uint16Array of at least ${rows} values`);
    return rows;
  };
  return {
    kind,
    symbols: [...symbols],
    names: ['symbol', ...base.names],
    secondsColumns: base.secondsColumns,
    timeColumns: base.timeColumns,
    schema,
    rowsOf,
    emptyChunk: () => ({ ...base.emptyChunk(), symbol: new Uint16Array(0) }) as unknown as SeriesChunk,
    batch(chunk, target, from = 0, to = rowsOf(chunk)) {
      const inner = base.batch(chunk, target, from, to);
      const rows = to - from;
      const ids = symbolsOf(chunk);
      const symbol = makeData({ type, length: rows, nullCount: 0, data: from === 0 && to === ids.length ? ids : ids.subarray(from, to), dictionary });
      const s = schema(target);
      return new RecordBatch(s, makeData({ type: new Struct(s.fields), length: rows, nullCount: 0, children: [symbol, ...inner.data.children] }));
    },
  };
}
