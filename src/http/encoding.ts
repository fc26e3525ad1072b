// The bridge from a handler's Reply to bytes on the wire, through the shared encoders.
import { encodeObject, encodeRecords, encodeSeries } from '../encode/index.js';
import type { BodySink, Encoded, Format } from '../encode/types.js';
import type { HttpResponse } from './adapter.js';
import type { Reply } from './route.js';

type DataReply = Exclude<Reply, { kind: 'json' } | { kind: 'bytes' }>;

export async function encodeReply(format: Format, reply: DataReply): Promise<Encoded> {
  switch (reply.kind) {
    case 'object':
      return encodeObject(format, reply.value, reply.columns);
    case 'records':
      return encodeRecords(format, reply.rows, reply.columns);
    case 'series':
      // Arrow and native Parquet leave the main thread nearly idle per chunk: overlap production.
      reply.series.readAhead?.(format !== 'json');
      return reply.which === 'ticks'
        ? encodeSeries(format, 'ticks', reply.series, { compression: reply.compression })
        : encodeSeries(format, 'rates', reply.series, { compression: reply.compression });
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
 * anything can still be answered with a problem response.
 */
export class StreamingSink implements BodySink {
  started = false;

  constructor(
    private readonly res: HttpResponse,
    private readonly status: number,
    private readonly headers: Readonly<Record<string, string>>,
  ) {}

  write(chunk: Uint8Array): Promise<void> {
    if (!this.started) {
      this.started = true;
      this.res.writeHead(this.status, this.headers);
    }
    return this.res.write(chunk);
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
