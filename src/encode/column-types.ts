// How a record field (name, storage kind) becomes a typed Arrow column, for Arrow IPC and Parquet.
//
// Time columns: an int64 field named `time` or `time_*` holds seconds since the epoch (UTC), one
// ending in `_msc` milliseconds. They become Timestamp columns with time zone UTC:
//   - Arrow IPC: seconds as Timestamp(SECOND, 'UTC') over the very same int64 values,
//     milliseconds as Timestamp(MILLISECOND, 'UTC').
//   - Parquet: both as Timestamp(MILLISECOND, 'UTC') (seconds are multiplied by 1000). Parquet has
//     no second unit: the Rust writer would store Timestamp(SECOND) as a bare INT64 that only
//     Arrow-aware readers (via the embedded Arrow schema) see as a time; DuckDB, hyparquet, Spark
//     would read plain integers. Milliseconds are a TIMESTAMP(MILLIS, UTC) logical type for every
//     reader, which is also what pyarrow does with second timestamps.
// JSON keeps MT5's integers as they are.
import {
  Bool,
  DataType,
  Field,
  Float64,
  Int64,
  Schema as ArrowSchema,
  Struct,
  TimestampMillisecond,
  TimestampSecond,
  Uint32,
  Uint64,
  Utf8,
} from 'apache-arrow';

import { TradeRequestColumns, type FieldKind } from '../terminal/records.js';
import type { Schema } from './types.js';

/** Which binary format a column is typed for (they differ only in the unit of second timestamps). */
export type ColumnTarget = 'arrow' | 'parquet';

export type TimeUnitOfField = 'seconds' | 'milliseconds';

/** Whether an int64 field is an MT5 time, and in which unit. */
export function timeUnitOf(name: string, kind: FieldKind): TimeUnitOfField | null {
  if (kind !== 'int64') return null;
  if (name.endsWith('_msc')) return 'milliseconds';
  if (name === 'time' || name.startsWith('time_')) return 'seconds';
  return null;
}

export const TIME_ZONE = 'UTC';

export function arrowTypeOf(name: string, kind: FieldKind, target: ColumnTarget): DataType {
  switch (timeUnitOf(name, kind)) {
    case 'seconds':
      return target === 'arrow' ? new TimestampSecond(TIME_ZONE) : new TimestampMillisecond(TIME_ZONE);
    case 'milliseconds':
      return new TimestampMillisecond(TIME_ZONE);
    case null:
      break;
  }
  switch (kind) {
    case 'int64':
      return new Int64();
    case 'uint64':
      return new Uint64();
    case 'uint32':
      return new Uint32();
    case 'float64':
      return new Float64();
    case 'bool':
      return new Bool();
    case 'string':
      return new Utf8();
    case 'TradeRequest':
      return new Struct(arrowFieldsOf(TradeRequestColumns, target));
  }
}

/** Columns are never null: MT5's named tuples always carry every field. */
export function arrowFieldsOf(schema: Schema, target: ColumnTarget): Field[] {
  return schema.map(([name, kind]) => new Field(name, arrowTypeOf(name, kind, target), false));
}

export function arrowSchemaOf(schema: Schema, target: ColumnTarget): ArrowSchema {
  return new ArrowSchema(arrowFieldsOf(schema, target));
}
