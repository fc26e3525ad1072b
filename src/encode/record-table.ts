// Records (plain JS objects from the terminal) -> one Arrow table with a typed column per field.
// Records are small (a symbol list, positions, a deal history), so the columns are built in one go.
import { makeData, RecordBatch, Struct, Table, Utf8, type Data, type Schema as ArrowSchema } from 'apache-arrow';

import { TradeRequestColumns, type FieldKind } from '../terminal/records.js';
import { flatData } from './arrow-data.js';
import { arrowSchemaOf, arrowTypeOf, timeUnitOf, type ColumnTarget } from './column-types.js';
import type { Schema } from './types.js';

const utf8 = new TextEncoder();

/** A table of `rows` typed by `schema`; zero rows still carry every column. */
export function recordTable(rows: readonly object[], schema: Schema, target: ColumnTarget): Table {
  const arrowSchema = arrowSchemaOf(schema, target);
  if (rows.length === 0) return new Table(arrowSchema);
  return new Table([recordBatch(arrowSchema, rows, schema, target)]);
}

function recordBatch(arrowSchema: ArrowSchema, rows: readonly object[], schema: Schema, target: ColumnTarget): RecordBatch {
  const children = schema.map(([name, kind]) =>
    columnData(name, kind, rows.map((row) => (row as Record<string, unknown>)[name]), target),
  );
  return new RecordBatch(
    arrowSchema,
    makeData({ type: new Struct(arrowSchema.fields), length: rows.length, nullCount: 0, children }),
  );
}

function missing(name: string, value: unknown): TypeError {
  const got = value === null || value === undefined ? String(value) : `${typeof value} ${String(value).slice(0, 40)}`;
  return new TypeError(`record field "${name}": expected a value of its kind, got ${got}`);
}

function integer(name: string, v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return BigInt(Math.trunc(v));
  if (typeof v === 'boolean') return v ? 1n : 0n;
  throw missing(name, v);
}

function float(name: string, v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  throw missing(name, v);
}

function columnData(name: string, kind: FieldKind, values: readonly unknown[], target: ColumnTarget): Data {
  const n = values.length;
  const type = arrowTypeOf(name, kind, target);
  switch (kind) {
    case 'int64': {
      const data = new BigInt64Array(n);
      const scale = timeUnitOf(name, kind) === 'seconds' && target === 'parquet' ? 1000n : 1n;
      for (let i = 0; i < n; i++) data[i] = integer(name, values[i]) * scale;
      return flatData(type, n, data);
    }
    case 'uint64': {
      const data = new BigUint64Array(n);
      for (let i = 0; i < n; i++) data[i] = BigInt.asUintN(64, integer(name, values[i]));
      return flatData(type, n, data);
    }
    case 'uint32': {
      const data = new Uint32Array(n);
      for (let i = 0; i < n; i++) data[i] = Number(BigInt.asUintN(32, integer(name, values[i])));
      return flatData(type, n, data);
    }
    case 'float64': {
      const data = new Float64Array(n);
      for (let i = 0; i < n; i++) data[i] = float(name, values[i]);
      return flatData(type, n, data);
    }
    case 'bool': {
      const data = new Uint8Array((n + 7) >> 3);
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (typeof v !== 'boolean' && typeof v !== 'number') throw missing(name, v);
        if (v) data[i >> 3]! |= 1 << (i & 7);
      }
      return flatData(type, n, data);
    }
    case 'string': {
      const parts = values.map((v) => {
        if (typeof v !== 'string') throw missing(name, v);
        return utf8.encode(v);
      });
      const valueOffsets = new Int32Array(n + 1);
      let size = 0;
      for (let i = 0; i < n; i++) {
        size += parts[i]!.byteLength;
        valueOffsets[i + 1] = size;
      }
      const data = new Uint8Array(size);
      for (let i = 0; i < n; i++) data.set(parts[i]!, valueOffsets[i]!);
      return makeData({ type: type as Utf8, length: n, nullCount: 0, data, valueOffsets });
    }
    case 'TradeRequest': {
      const objects = values.map((v) => {
        if (typeof v !== 'object' || v === null) throw missing(name, v);
        return v as Record<string, unknown>;
      });
      const children = TradeRequestColumns.map(([field, fieldKind]) =>
        columnData(field, fieldKind, objects.map((o) => o[field]), target),
      );
      return makeData({ type: type as Struct, length: n, nullCount: 0, children });
    }
  }
}
