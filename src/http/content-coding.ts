// Content codings for JSON answers (issue 24): Accept-Encoding negotiated with q-values (RFC 9110
// §12.5.3), the body compressed as it streams, on the libuv thread pool (node's zlib works there,
// off the event loop), with backpressure: the encoder's next write waits while the compressor is
// as far ahead as it may be. Whether a client gets a compressed answer at all is the deployment's
// policy too (TRADEAPI_COMPRESS, src/access/compression.ts): see chooseCoding.
//
// Levels (issue 34), measured on 46 MB of simulated EURUSD tick JSON, one core of the 2-core EPYC
// development machine, node 20's zlib (the share of the identity bytes after the rate):
//   gzip 1: 350-480 MB/s, 9.4 %   gzip 2: 340 MB/s, 9.0 %   gzip 3: 290 MB/s, 8.9 %
//   br 1:   590 MB/s, 7.9 %       br 2:   250 MB/s, 7.4 %   br 3:   200 MB/s, 7.2 %   br 4: 140 MB/s, 7.2 %
// Level 1 of either is the only one that keeps up with the JSON encoder (~350-430 MB/s of text on
// one core): br 2 and above would make the compressor, not the rows, bound a big pull for 0.5
// points of the bytes. br 1 is both smaller and faster than gzip 1, and zstd 1 (the addon's) is
// smaller still (7.3 %) at less CPU on both ends (10 M ticks through curl: server + client CPU
// 1.62x identity's, br 1.72x, gzip 2.37x; bench/compress.ts), so the preference is zstd, br, gzip
// when a client accepts several with the same q.
//
// gzip of a streamed answer is compressed in parallel (ParallelGzipSink): body pieces are deflated
// independently on the thread pool and joined into one gzip member, as pigz does. Not concatenated
// gzip members, though RFC 1952 §2.2 allows them and node's zlib, undici (fetch) and urllib3
// (requests) read them: curl 7.88 --compressed stops after the first member ("(23) Failed reading
// the chunked-encoded stream", measured here), and Chromium's decoder silently drops everything
// after it (net/filter/gzip_source_stream.cc, STATE_IGNORING_EXTRA_BYTES: "matches the behavior of
// other browsers"), a truncated body without an error. br cannot be joined like that: it streams.
// zstd (level 1): the addon's streaming compressor (encode/zstd-stream.ts), on the thread pool like
// zlib; where the addon has none, zstd is not offered.
import os from 'node:os';
import zlib from 'node:zlib';

import type { BodySink } from '../encode/types.js';
import { nativeZstdFactory } from '../encode/zstd-stream.js';

export type ContentCoding = 'zstd' | 'br' | 'gzip' | 'identity';

/**
 * What the deployment's policy allows for one answer (TRADEAPI_COMPRESS; http/policy.ts):
 * 'compress' as the client asks; 'prefer-identity' identity unless the client refuses it;
 * 'identity' always.
 */
export type CodingChoice = 'compress' | 'prefer-identity' | 'identity';

/** Bodies below this size go out as they are: compressing them saves less than it costs. */
export const MIN_COMPRESS_BYTES = 1024;

/** The server's preference among codings a client accepts with the same q (fastest, smallest first). */
const PREFERENCE: readonly ContentCoding[] = ['zstd', 'br', 'gzip'];

/** A streaming compressor: node's zlib streams, or the addon's zstd in the same shape. */
type Compressor = NodeJS.ReadWriteStream & { destroy(error?: Error): void };

let zstdFactory: (() => Compressor) | null = nativeZstdFactory();

/** Replaces the zstd compressor (null: zstd not offered). For tests; the addon's is the default. */
export function setZstdCompressor(factory: (() => Compressor) | null): void {
  zstdFactory = factory;
}

export function supportedCodings(): readonly ContentCoding[] {
  return zstdFactory ? PREFERENCE : PREFERENCE.filter((c) => c !== 'zstd');
}

/** An Accept-Encoding value as coding -> q (x-gzip counted as gzip; a coding named twice keeps its highest q). */
function acceptedCodings(header: string): Map<string, number> {
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [nameRaw, ...params] = part.split(';');
    const name = (nameRaw ?? '').trim().toLowerCase();
    if (name === '') continue;
    let weight = 1;
    for (const p of params) {
      const [k, v] = p.split('=').map((s) => s.trim().toLowerCase());
      if (k === 'q') {
        const n = Number(v);
        weight = Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0;
      }
    }
    // x-gzip is gzip (RFC 9110 §8.4.1.3).
    const key = name === 'x-gzip' ? 'gzip' : name;
    q.set(key, Math.max(q.get(key) ?? 0, weight));
  }
  return q;
}

/**
 * The coding to answer with, from an Accept-Encoding header value: the acceptable coding (q > 0)
 * with the highest q, ties broken by the server's preference; `*` stands for every coding not
 * named; identity unless it was refused (`identity;q=0` or `*;q=0` without naming it) and nothing
 * else is acceptable, in which case identity is still sent (RFC 9110 allows it; a 406 would help
 * no one). No header, or an empty one: identity.
 */
export function negotiateCoding(header: string | undefined, available: readonly ContentCoding[] = supportedCodings()): ContentCoding {
  if (header === undefined || header.trim() === '') return 'identity';
  const q = acceptedCodings(header);
  const star = q.get('*');
  const weightOf = (c: ContentCoding): number => q.get(c) ?? star ?? 0;
  let best: ContentCoding = 'identity';
  let bestQ = 0;
  for (const c of available) {
    const w = weightOf(c);
    if (w > bestQ) {
      best = c;
      bestQ = w;
    }
  }
  // identity is always acceptable unless refused; named (or covered by *) with a higher q than
  // the best coding, it wins; left unnamed, it does not outrank a coding the client asked for.
  const identityQ = q.get('identity') ?? star;
  if (bestQ === 0 || (identityQ !== undefined && identityQ > bestQ)) return 'identity';
  return best;
}

/** True when the header refuses identity: `identity;q=0`, or `*;q=0` without naming identity. */
export function identityRefused(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return false;
  const q = acceptedCodings(header);
  return (q.get('identity') ?? q.get('*')) === 0;
}

/**
 * The coding of one answer under the deployment's policy: 'compress' negotiates as the client asks;
 * 'prefer-identity' (a near client under TRADEAPI_COMPRESS=auto) answers identity unless the
 * client refuses it, and then negotiates; 'identity' (TRADEAPI_COMPRESS=never) answers identity.
 */
export function chooseCoding(header: string | undefined, choice: CodingChoice, available: readonly ContentCoding[] = supportedCodings()): ContentCoding {
  if (choice === 'identity') return 'identity';
  if (choice === 'prefer-identity' && !identityRefused(header)) return 'identity';
  return negotiateCoding(header, available);
}

/** zlib's output buffer per thread-pool step of a streaming compressor (node's default is 16 KiB). */
const STREAM_CHUNK_BYTES = 64 * 1024;

function compressor(coding: Exclude<ContentCoding, 'identity'>, sizeHint?: number): Compressor {
  switch (coding) {
    case 'gzip':
      return zlib.createGzip({ level: 1, chunkSize: STREAM_CHUNK_BYTES });
    case 'br':
      return zlib.createBrotliCompress({
        chunkSize: STREAM_CHUNK_BYTES,
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: 1,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          ...(sizeHint !== undefined ? { [zlib.constants.BROTLI_PARAM_SIZE_HINT]: sizeHint } : {}),
        },
      });
    case 'zstd':
      if (!zstdFactory) throw new Error('zstd is not available');
      return zstdFactory();
  }
}

/** A compressing sink: what a streamed answer is written to instead of the response. */
export interface CodingSink extends BodySink {
  /** Flushes the compressor and waits until its last bytes are with the inner sink. */
  close(): Promise<void>;
  /** Stops compressing (the response failed). */
  destroy(): void;
}

/**
 * A streamed answer's compressing sink for `coding`: gzip in parallel on the thread pool
 * (ParallelGzipSink, `parallelism` pieces at once) where node has zlib.crc32 (20.15 on), one
 * streaming compressor otherwise and for br and zstd.
 */
export function codingSink(inner: BodySink, coding: Exclude<ContentCoding, 'identity'>, parallelism = defaultParallelism()): CodingSink {
  return coding === 'gzip' && typeof zlib.crc32 === 'function' ? new ParallelGzipSink(inner, parallelism) : new CompressingSink(inner, coding);
}

/** One piece per core at once. */
export function defaultParallelism(): number {
  return Math.max(1, os.availableParallelism());
}

/** Compressed bytes handed to the inner sink and not yet taken, past which the compressor is paused. */
const MAX_UNSENT_BYTES = 1 << 20;

/**
 * Compresses what is written to it into `inner` with one streaming compressor, with backpressure
 * both ways: write() resolves once the compressor has consumed the chunk (the caller may then
 * reuse its buffer); the compressor's output goes to the inner sink in order, and while more than
 * MAX_UNSENT_BYTES of it wait there, the compressor is paused (and so, once its buffers are full,
 * the writer). close() flushes the rest; call it before the inner sink is finished.
 */
export class CompressingSink implements CodingSink {
  private readonly z: Compressor;
  private sending: Promise<void> = Promise.resolve();
  private unsent = 0;
  private failure: Error | undefined;
  private readonly ended: Promise<void>;

  constructor(
    private readonly inner: BodySink,
    coding: Exclude<ContentCoding, 'identity'>,
  ) {
    this.z = compressor(coding);
    this.ended = new Promise<void>((resolve, reject) => {
      this.z.on('end', resolve);
      this.z.on('error', (e: Error) => {
        this.failure ??= e;
        reject(e);
      });
    });
    this.ended.catch(() => undefined);
    this.z.on('data', (out: Buffer) => {
      // Pausing on every piece (until the socket took it) held the compressor to one round trip
      // through the event loop per 16 KiB of output: ~3x the compression time on a fast link.
      this.unsent += out.byteLength;
      if (this.unsent > MAX_UNSENT_BYTES) this.z.pause();
      this.sending = this.sending.then(async () => {
        if (this.failure) return;
        try {
          await this.inner.write(out);
        } catch (e) {
          this.failure ??= e instanceof Error ? e : new Error(String(e));
          this.z.destroy(this.failure);
          return;
        }
        this.unsent -= out.byteLength;
        if (this.unsent <= MAX_UNSENT_BYTES && this.z.isPaused()) this.z.resume();
      });
    });
  }

  write(chunk: Uint8Array): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      this.z.write(chunk, (err?: Error | null) => (err ? reject(this.failure ?? err) : this.failure ? reject(this.failure) : resolve()));
    });
  }

  async close(): Promise<void> {
    if (this.failure) throw this.failure;
    this.z.end();
    await this.ended;
    await this.sending;
    if (this.failure) throw this.failure;
  }

  destroy(): void {
    this.failure ??= new Error('compression stopped');
    this.z.destroy();
  }
}

/** The gzip member's head (RFC 1952 §2.3): deflate, no name, no time, XFL 4 (fastest), OS unknown. */
const GZIP_HEAD = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 0xff]);
/** An empty final deflate block with fixed codes (BFINAL 1, BTYPE 01, end of block): what pigz ends with. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);
/**
 * The text deflated as one piece: writes are gathered up to it, a bigger one is cut into pieces of
 * it. Each piece costs a deflate set-up on the thread pool (~0.15-0.4 ms of CPU: a zlib handle and
 * its stream in JS, measured alone): at the encoder's ~0.5 MB pieces an estimated 0.4-1 CPU-s per 1.2 GB.
 */
export const GZIP_PIECE_BYTES = 2 << 20;
/** zlib's output buffer per piece: a piece's deflate fits in one thread-pool step (~10x smaller than its text). */
const GZIP_PIECE_OUT_BYTES = 256 * 1024;

/** Raw deflate of one piece, ended by a sync flush (byte-aligned, not final): pieces concatenate. */
function deflatePiece(piece: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zlib.deflateRaw(piece, { level: 1, finishFlush: zlib.constants.Z_SYNC_FLUSH, chunkSize: GZIP_PIECE_OUT_BYTES }, (err, out) => (err ? reject(err) : resolve(out)));
  });
}

/**
 * gzip compressed in parallel: the body is cut into pieces of `pieceBytes` (writes gathered, big
 * ones cut), each deflated on its own on the libuv thread pool, at most `parallelism` + 1 pieces
 * held at once (deflating, or deflated and waiting for the inner sink), and the pieces go to the
 * inner sink in order as one gzip member: the head, the pieces' raw deflate (each ended by a sync
 * flush, so they join), an empty final block, then the CRC-32 and length of the whole body (the
 * CRC computed here, piece by piece, with zlib.crc32: ~3 GB/s, ~0.35 CPU-s per 1.2 GB that one
 * gzip stream gets nearly free, fused with its copy of the input). A piece starts without the
 * previous one's last 32 KiB as its dictionary: measured on tick JSON, 9.42 % of the identity
 * bytes against 9.41 % in one stream.
 *
 * write() resolves once the chunk is gathered or handed to a deflate and at most `parallelism` + 1
 * pieces are held. Chunks are kept, not copied, until they are deflated (a piece gathered from
 * several writes is copied once): like node's streams, this sink does not release its writes
 * (BodySink.releasesWrites), and every chunk must be a buffer of its own, as the encoders make
 * them for such a sink.
 */
export class ParallelGzipSink implements CodingSink {
  private crc = 0;
  private length = 0;
  private gathered: Uint8Array[] = [];
  private gatheredBytes = 0;
  private held = 0;
  private headSent = false;
  private closed = false;
  private sending: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private waiting: Array<() => void> = [];
  private readonly limit: number;

  constructor(
    private readonly inner: BodySink,
    parallelism: number,
    private readonly pieceBytes = GZIP_PIECE_BYTES,
  ) {
    this.limit = Math.max(1, Math.floor(parallelism));
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.closed) throw new Error('write after close');
    let at = 0;
    // Fill the piece being gathered; then whole pieces straight from the caller's buffer (no copy);
    // what is left is gathered with the next writes.
    if (this.gatheredBytes > 0) {
      at = Math.min(chunk.byteLength, this.pieceBytes - this.gatheredBytes);
      this.gathered.push(at === chunk.byteLength ? chunk : chunk.subarray(0, at));
      this.gatheredBytes += at;
      if (this.gatheredBytes >= this.pieceBytes) this.flushGathered();
    }
    for (; chunk.byteLength - at >= this.pieceBytes; at += this.pieceBytes) this.deflate(chunk.subarray(at, at + this.pieceBytes));
    if (at < chunk.byteLength) {
      this.gathered.push(at === 0 ? chunk : chunk.subarray(at));
      this.gatheredBytes += chunk.byteLength - at;
    }
    while (this.held > this.limit && this.failure === undefined) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    if (this.failure) throw this.failure;
    this.closed = true;
    this.flushGathered();
    await this.sending;
    if (this.failure) throw this.failure;
    const tail = Buffer.alloc(8);
    tail.writeUInt32LE(this.crc >>> 0, 0);
    tail.writeUInt32LE(this.length % 2 ** 32, 4); // ISIZE: the length modulo 2^32
    await this.inner.write(Buffer.concat(this.headSent ? [FINAL_BLOCK, tail] : [GZIP_HEAD, FINAL_BLOCK, tail]));
  }

  destroy(): void {
    this.failure ??= new Error('compression stopped');
    this.wake();
  }

  private flushGathered(): void {
    if (this.gatheredBytes === 0) return;
    // One copy, where a piece is made of several writes.
    const piece = this.gathered.length === 1 ? this.gathered[0]! : Buffer.concat(this.gathered, this.gatheredBytes);
    this.gathered = [];
    this.gatheredBytes = 0;
    this.deflate(piece);
  }

  private deflate(piece: Uint8Array): void {
    this.crc = zlib.crc32(piece, this.crc);
    this.length += piece.byteLength;
    const deflated = deflatePiece(piece);
    deflated.catch(() => undefined); // reported in order, below
    this.held++;
    this.sending = this.sending.then(async () => {
      try {
        if (this.failure) return;
        const out = await deflated;
        if (this.failure) return;
        const first = !this.headSent;
        this.headSent = true;
        await this.inner.write(first ? Buffer.concat([GZIP_HEAD, out]) : out);
      } catch (e) {
        this.failure ??= e instanceof Error ? e : new Error(String(e));
      } finally {
        this.held--;
        this.wake();
      }
    });
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}

/** Compresses a whole body on the thread pool (small answers collected before they are sent). */
export function compressWhole(coding: Exclude<ContentCoding, 'identity'>, body: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    const z = compressor(coding, body.byteLength);
    z.on('data', (b: Buffer) => parts.push(b));
    z.on('end', () => resolve(Buffer.concat(parts)));
    z.on('error', reject);
    z.end(body);
  });
}
