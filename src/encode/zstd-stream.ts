// zstd as a streaming compressor for HTTP answers (Content-Encoding: zstd): the addon's ZstdStream
// (binding/napi/zstd_stream_js.h) behind node's Transform interface, the shape http/content-coding.ts
// takes from node's zlib. Each write is compressed on the libuv thread pool, one at a time, in order;
// the stream's backpressure is node's own. Node 20's zlib has no zstd, so without the addon's
// (an addon file built before it, named by TRADEAPI_ADDON) zstd is simply not offered.
import { Transform, type TransformCallback } from 'node:stream';

import { addon } from '../terminal/native.js';

/** The addon's compressor (absent in addons built before it). */
export interface NativeZstdStream {
  /** The compressed bytes this input produced (with `end`, the frame's last ones too). */
  compress(input: Uint8Array, end: boolean): Promise<Buffer>;
  /** Frees the compressor (at once, or when the call in flight has settled). */
  close(): void;
}
type NativeZstdCtor = new (level: number) => NativeZstdStream;

/**
 * The level answers are compressed at. 1 is zstd's fastest positive level: on JSON tick text it is
 * both faster and smaller than gzip 1 and br 1 (content-coding.ts has the figures); negative levels
 * trade too much size for speed the encoder cannot use.
 */
export const ZSTD_LEVEL = 1;

const EMPTY = new Uint8Array(0);

export class ZstdCompressStream extends Transform {
  private readonly z: NativeZstdStream;

  constructor(ctor: NativeZstdCtor, level: number) {
    super();
    this.z = new ctor(level);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.z.compress(chunk, false).then((out) => {
      if (out.byteLength > 0) this.push(out);
      done();
    }, done);
  }

  override _flush(done: TransformCallback): void {
    this.z.compress(EMPTY, true).then((out) => {
      this.push(out);
      this.z.close();
      done();
    }, done);
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.z.close();
    done(error);
  }
}

/** A factory of zstd compressors at `level`, or null where the addon has none. */
export function nativeZstdFactory(level = ZSTD_LEVEL, from: unknown = addon): (() => ZstdCompressStream) | null {
  const ctor = (from as { ZstdStream?: unknown }).ZstdStream;
  if (typeof ctor !== 'function') return null;
  return () => new ZstdCompressStream(ctor as NativeZstdCtor, level);
}
