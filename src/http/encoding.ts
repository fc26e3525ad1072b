// The bridge from a handler's Reply to bytes on the wire, through the shared encoders.
import { encodeObject, encodeRecords, encodeSeries, loadNativeJson } from '../encode/index.js';
import type { BodySink, Encoded, Format } from '../encode/types.js';
import type { HttpResponse } from './adapter.js';
import type { Reply } from './route.js';
import { ARROW_STREAM_CHUNK_ROWS, SendTimeoutError, STREAM_CHUNK_ROWS, STREAM_JSON_PIECE_ROWS, STREAM_ROW_GROUP_ROWS } from './streams.js';

type DataReply = Exclude<Reply, { kind: 'json' } | { kind: 'bytes' } | { kind: 'events' } | { kind: 'websocket' } | { kind: 'web' }>;

/**
 * `busy` (series only): more streams run than there are cores. A stream then neither reads ahead
 * (the terminal produces its next chunk while this one is sent) nor encodes several Parquet row
 * groups at once: both pay for one big pull on an idle machine, but when many streams run they
 * overlap one another anyway, and each would only hold one more chunk in memory.
 */
export async function encodeReply(format: Format, reply: DataReply, busy = false): Promise<Encoded> {
  switch (reply.kind) {
    case 'object':
      return encodeObject(format, reply.value, reply.columns);
    case 'records':
      return encodeRecords(format, reply.rows, reply.columns);
    case 'series': {
      // Arrow, native Parquet and native JSON leave the main thread nearly idle per chunk: overlap production.
      reply.series.readAhead?.(!busy && (format !== 'json' || (await loadNativeJson()) !== null));
      // Small chunks and row groups bound what a stream holds while its peer is not reading (streams.ts).
      reply.series.setChunkRows?.(format === 'arrow' && !busy ? ARROW_STREAM_CHUNK_ROWS : STREAM_CHUNK_ROWS);
      const options = {
        compression: reply.compression,
        rowGroupRows: STREAM_ROW_GROUP_ROWS,
        jsonPieceRows: STREAM_JSON_PIECE_ROWS,
        ...(busy ? { parallelism: 1 } : {}),
        ...(reply.symbols ? { symbols: reply.symbols } : {}),
      };
      switch (reply.which) {
        case 'ticks': return encodeSeries(format, 'ticks', reply.series, options);
        case 'rates': return encodeSeries(format, 'rates', reply.series, options);
        case 'bars': return encodeSeries(format, 'bars', reply.series, options);
      }
    }
  }
}

/** Collects a small body whole, so it goes out with a Content-Length in one write. */
export async function collect(encoded: Encoded): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  await encoded.writeTo({
    write(chunk) {
      // The encoder may reuse its buffer after write() resolves: keep a copy.
      parts.push(chunk.slice());
      size += chunk.byteLength;
      return Promise.resolve();
    },
  });
  return Buffer.concat(parts, size);
}

/**
 * A sink that sends the head lazily, with the first chunk: an encoder that fails before producing
 * anything can still be answered with a problem response. A write the peer has not taken within
 * `sendTimeoutMs` aborts the response (SendTimeoutError): a client that stopped reading must not
 * hold a stream, its memory and its slot for ever.
 */
export class StreamingSink implements BodySink {
  started = false;

  get releasesWrites(): boolean {
    return this.res.releasesWrites === true;
  }

  readonly afterWritten?: (fn: () => void) => void;

  constructor(
    private readonly res: HttpResponse,
    private readonly status: number,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly sendTimeoutMs: number,
  ) {
    if (res.afterWritten) this.afterWritten = res.afterWritten.bind(res);
  }

  write(chunk: Uint8Array): Promise<void> {
    if (!this.started) {
      this.started = true;
      this.res.writeHead(this.status, this.headers);
    }
    const written = this.res.write(chunk);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.res.abort();
        reject(new SendTimeoutError(this.sendTimeoutMs));
      }, this.sendTimeoutMs);
    });
    written.catch(() => undefined); // the abort above rejects it too; the timeout is the error to report
    return Promise.race([written, timedOut]).finally(() => clearTimeout(timer));
  }

  /** Finishes the body (sends the head first if nothing was written, e.g. an empty series). */
  finish(): void {
    if (!this.started) {
      this.started = true;
      this.res.writeHead(this.status, this.headers);
    }
    this.res.end();
  }
}
