// The encoders: a result from the terminal -> a body in the negotiated format (see types.ts).
//
//   encodeRecords  a table of records   JSON: bare array of row objects; Parquet/Arrow: typed columns
//   encodeObject   one key/value result JSON: bare object;               Parquet/Arrow: a one-row table
//   encodeSeries   ticks or rates       streamed chunk by chunk (series-encoder.ts)
//
// Column typing for Parquet and Arrow is in column-types.ts (times become UTC timestamps; JSON
// keeps MT5's integers).
import { tableToIPC } from 'apache-arrow';

import type { ColumnTarget } from './column-types.js';
import { orderedRecord, recordsJsonPieces } from './json-rows.js';
import { DEFAULT_COMPRESSION, loadParquetWasm, tableToParquet, type ParquetCompression } from './parquet-wasm.js';
import { recordTable } from './record-table.js';
import { MediaTypes, type BodySink, type Encoded, type Format, type Schema } from './types.js';

export { encodeSeries, DEFAULT_ROW_GROUP_ROWS, MAX_ROW_GROUP_ROWS, type ParquetEngine, type SeriesEncodeOptions } from './series-encoder.js';
export { loadNativeJson } from './json-native.js';
export type { ParquetCompression } from './parquet-wasm.js';
export { MediaTypes, type BodySink, type Encoded, type Format, type Schema } from './types.js';

export interface TableEncodeOptions {
  /** Parquet page compression (default 'zstd'). */
  compression?: ParquetCompression;
}

/**
 * A table of records. Binary formats are built when this is called (so a record that does not
 * match its schema throws here, before any byte is sent) except the Parquet bytes themselves,
 * produced in writeTo once the wasm module is loaded.
 */
export function encodeRecords(format: Format, rows: readonly object[], schema: Schema, options: TableEncodeOptions = {}): Encoded {
  const contentType = MediaTypes[format];
  if (format === 'json') {
    return {
      contentType,
      async writeTo(sink: BodySink): Promise<void> {
        for (const piece of recordsJsonPieces(rows, schema)) await sink.write(Buffer.from(piece, 'utf8'));
      },
    };
  }
  if (format === 'packed') throw new TypeError('the packed form is for tick and bar series only');
  const target: ColumnTarget = format;
  const table = recordTable(rows, schema, target);
  if (format === 'arrow') {
    const bytes = tableToIPC(table, 'stream');
    return { contentType, writeTo: (sink) => sink.write(bytes) };
  }
  const compression = options.compression ?? DEFAULT_COMPRESSION;
  return {
    contentType,
    async writeTo(sink: BodySink): Promise<void> {
      const pw = await loadParquetWasm();
      await sink.write(tableToParquet(pw, table, compression));
    },
  };
}

/** One key/value result (account info, an order check): a JSON object, or a one-row table. */
export function encodeObject(format: Format, obj: object, schema: Schema, options: TableEncodeOptions = {}): Encoded {
  if (format === 'json') {
    return {
      contentType: MediaTypes.json,
      async writeTo(sink: BodySink): Promise<void> {
        await sink.write(Buffer.from(JSON.stringify(orderedRecord(obj, schema)), 'utf8'));
      },
    };
  }
  return encodeRecords(format, [obj], schema, options);
}
