// The encoders' contract with the HTTP layer. An encoder turns a result (records, one key/value
// object, or a series of column chunks) into bytes written to a BodySink as they are produced, so
// that a large series never sits whole in memory. Formats: JSON, Parquet, Arrow IPC stream.
import type { FieldSpec } from '../terminal/records.js';

export type Format = 'json' | 'parquet' | 'arrow' | 'packed';

export const MediaTypes: Readonly<Record<Format, string>> = {
  json: 'application/json',
  parquet: 'application/parquet',
  arrow: 'application/vnd.apache.arrow.stream',
  /** Series only: rows packed as the MetaTrader5 package's numpy dtype (packed-rows.ts). */
  packed: 'application/vnd.tradeapi.packed',
};

/** Where encoded bytes go. write() resolves once the transport can take more (backpressure) and
 *  rejects if the client went away; the encoder must then stop producing. */
export interface BodySink {
  write(chunk: Uint8Array): Promise<void>;
  /**
   * True when write() resolving means the sink no longer reads the chunk's bytes (sent, or copied
   * by the transport), so the caller may write new bytes into the same buffer. Absent or false: the
   * bytes may still be read later (node's streams keep a reference until flushed), so every chunk
   * must be a buffer of its own.
   */
  readonly releasesWrites?: boolean;
  /**
   * Where writes are not released when they resolve (node's streams): runs `fn` once the transport
   * has taken every chunk written so far (handed to the kernel), after which none of them is read
   * again. It may never run (the connection failed first): only a chunk's early release hangs on it.
   */
  afterWritten?(fn: () => void): void;
}

/** A ready-to-send body: its media type and a function that writes all of it to a sink. */
export interface Encoded {
  readonly contentType: string;
  writeTo(sink: BodySink): Promise<void>;
}

/** A table schema: column names and kinds in order (records.ts <Record>Columns, or a series' fields). */
export type Schema = readonly FieldSpec[];
