// One timed GET over loopback and the checks that the answer holds the rows asked for.
//
// The timed part does as little as it can, and keeps little, so that the client is not what is
// measured: JSON bodies are only scanned for '{' (memchr speed) and their edges kept; Arrow streams
// are followed message by message (row counts from the record-batch headers, bodies skipped, only
// the first and the latest batch kept); Parquet bodies (small) are kept whole and decoded after the
// clock stops; floor bodies are only counted. Tick rows are flat objects of numbers, so every '{'
// of a JSON answer opens a row, except the envelope of mt5api's ({"data": [...], "count": N, ...}).
import http from 'node:http';

import { Message, MessageHeader, RecordBatchReader } from 'apache-arrow';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

export type BodyKind = 'json' | 'parquet' | 'arrow' | 'opaque';

/** What a body was found to hold. */
export interface BodyCheck {
  readonly rows: number;
  /** time_msc of the first and last row, ms since the epoch (NaN where it could not be read). */
  readonly firstTimeMsc: number;
  readonly lastTimeMsc: number;
}

/** Takes the body as it arrives; `check()` runs after the clock stops. */
export interface BodySink {
  write(chunk: Buffer): void;
  check(): Promise<BodyCheck>;
}

export interface PullResult {
  readonly status: number;
  readonly contentType: string;
  /** From sending the request to the response headers, ms. */
  readonly headersMs: number;
  /** From sending the request to the first body byte (time to first byte), ms. */
  readonly ttfbMs: number;
  /** From sending the request to the last body byte, ms. */
  readonly totalMs: number;
  readonly bytes: number;
  /** The sink that took the body (for a non-200 answer: the first 4 KiB of it, as text). */
  readonly sink: BodySink;
  readonly errorText: string;
}

const NO_CHECK: BodyCheck = { rows: Number.NaN, firstTimeMsc: Number.NaN, lastTimeMsc: Number.NaN };

/** A time value as ms since the epoch: numbers/bigints (ms, µs or ns by magnitude), Dates, ISO strings (UTC). */
export function toEpochMs(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'bigint') value = Number(value);
  if (typeof value === 'number') {
    if (Math.abs(value) > 1e17) return Math.floor(value / 1e6);
    if (Math.abs(value) > 1e14) return Math.floor(value / 1e3);
    return value;
  }
  if (typeof value === 'string') return Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  return Number.NaN;
}

// ---------------------------------------------------------------------------------------------
// Sinks

/** Counts bytes only (the floor). */
export class OpaqueSink implements BodySink {
  write(): void {}
  check(): Promise<BodyCheck> {
    return Promise.resolve(NO_CHECK);
  }
}

function countByte(buf: Buffer, byte: number): number {
  let n = 0;
  let i = buf.indexOf(byte);
  while (i !== -1) {
    n++;
    i = buf.indexOf(byte, i + 1);
  }
  return n;
}

function rowObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const EDGE = 64 * 1024;

/**
 * JSON rows counted by their '{', first and last rows parsed from the kept edges (the first and the
 * last 64 KiB). `envelope`: the rows sit in one object's array (mt5api).
 */
export class JsonSink implements BodySink {
  braces = 0;
  private head: Buffer = Buffer.alloc(0);
  /** The latest chunks, just enough of them to hold the last 64 KiB. */
  private tail: Buffer[] = [];
  private tailBytes = 0;

  constructor(private readonly envelope: boolean) {}

  write(chunk: Buffer): void {
    this.braces += countByte(chunk, 0x7b);
    if (this.head.length < EDGE) this.head = Buffer.concat([this.head, chunk.subarray(0, EDGE - this.head.length)]);
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0]!.length >= EDGE) this.tailBytes -= this.tail.shift()!.length;
  }

  check(): Promise<BodyCheck> {
    const rows = this.braces - (this.envelope ? 1 : 0);
    const head = this.head.toString('latin1');
    const tail = Buffer.concat(this.tail).subarray(-EDGE).toString('latin1');
    const firstOpen = this.envelope ? head.indexOf('{', head.indexOf('[')) : head.indexOf('{');
    const first = firstOpen >= 0 ? rowObject(head.slice(firstOpen, head.indexOf('}', firstOpen) + 1)) : undefined;
    const lastClose = tail.lastIndexOf('}]');
    const lastOpen = lastClose >= 0 ? tail.lastIndexOf('{', lastClose) : -1;
    const last = lastOpen >= 0 ? rowObject(tail.slice(lastOpen, lastClose + 1)) : undefined;
    if (this.envelope && lastClose >= 0) {
      const count = /"count"\s*:\s*(\d+)/.exec(tail.slice(lastClose));
      if (count && Number(count[1]) !== rows) return Promise.reject(new Error(`envelope says count ${count[1]} but ${rows} rows were counted`));
    }
    return Promise.resolve({ rows: Math.max(0, rows), firstTimeMsc: toEpochMs(first?.time_msc), lastTimeMsc: toEpochMs(last?.time_msc) });
  }
}

function exactArrayBuffer(buf: Buffer): ArrayBuffer {
  const copy = new Uint8Array(buf.length);
  copy.set(buf);
  return copy.buffer;
}

/** Keeps the whole body; rows from the Parquet footer, first and last time_msc from those rows. */
export class ParquetSink implements BodySink {
  private readonly chunks: Buffer[] = [];

  write(chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  async check(): Promise<BodyCheck> {
    const file = exactArrayBuffer(Buffer.concat(this.chunks));
    this.chunks.length = 0;
    const metadata = parquetMetadata(file);
    const rows = Number(metadata.num_rows);
    if (rows === 0) return { rows, firstTimeMsc: Number.NaN, lastTimeMsc: Number.NaN };
    const read = async (row: number): Promise<number> => {
      const got = await parquetReadObjects({ file, metadata, compressors, columns: ['time_msc'], rowStart: row, rowEnd: row + 1 });
      return toEpochMs(got[0]?.time_msc);
    };
    return { rows, firstTimeMsc: await read(0), lastTimeMsc: await read(rows - 1) };
  }
}

/**
 * Follows an Arrow IPC stream (continuation marker, metadata length, flatbuffer Message, body):
 * rows summed from the record-batch headers; the schema message and the first and the latest
 * record-batch messages are kept (as references to the received chunks) to read their time_msc.
 */
export class ArrowSink implements BodySink {
  rows = 0;
  batches = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes wanted before the next decision: 8 (prefix), metadata length, or body bytes to pass. */
  private state: 'prefix' | 'meta' | 'body' | 'end' = 'prefix';
  private need = 8;
  private schema: Buffer[] = [];
  private first: Buffer[] = [];
  private current: Buffer[] = [];
  private latest: Buffer[] = [];
  private isSchema = false;
  private inBatch = false;
  private error: Error | undefined;

  write(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && this.state !== 'end' && !this.error) {
      if (this.state === 'body') {
        const take = Math.min(this.need, chunk.length - at);
        if (this.inBatch || this.isSchema) this.current.push(chunk.subarray(at, at + take));
        at += take;
        this.need -= take;
        if (this.need === 0) this.endMessage();
        continue;
      }
      const take = Math.min(this.need - this.pendingBytes, chunk.length - at);
      this.pending.push(chunk.subarray(at, at + take));
      this.pendingBytes += take;
      at += take;
      if (this.pendingBytes < this.need) continue;
      const bytes = Buffer.concat(this.pending);
      this.pending = [];
      this.pendingBytes = 0;
      try {
        this.advance(bytes);
      } catch (e) {
        this.error = e instanceof Error ? e : new Error(String(e));
      }
    }
  }

  private advance(bytes: Buffer): void {
    if (this.state === 'prefix') {
      // Stream format >= 0.15: 0xFFFFFFFF then int32 length; 0 length = end of stream.
      if (bytes.readInt32LE(0) !== -1) throw new Error('not an Arrow IPC stream (no continuation marker)');
      const length = bytes.readInt32LE(4);
      if (length === 0) {
        this.state = 'end';
        return;
      }
      this.current = [bytes];
      this.state = 'meta';
      this.need = length;
      return;
    }
    // 'meta'
    this.current.push(bytes);
    const message = Message.decode(bytes);
    this.isSchema = message.headerType === MessageHeader.Schema;
    this.inBatch = message.headerType === MessageHeader.RecordBatch;
    if (message.isRecordBatch()) {
      this.rows += Number(message.header().length);
      this.batches++;
    }
    const body = Number(message.bodyLength);
    if (body > 0) {
      this.state = 'body';
      this.need = body;
    } else this.endMessage();
  }

  private endMessage(): void {
    if (this.isSchema) this.schema = this.current;
    else if (this.inBatch) {
      if (this.batches === 1) this.first = this.current;
      else this.latest = this.current;
    }
    this.current = [];
    this.state = 'prefix';
    this.need = 8;
  }

  private timeOf(batch: Buffer[], which: 'first' | 'last'): number {
    if (batch.length === 0) return Number.NaN;
    const eos = Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
    const stream = Buffer.concat([...this.schema, ...batch, eos]);
    for (const rb of RecordBatchReader.from(new Uint8Array(stream.buffer, stream.byteOffset, stream.byteLength))) {
      const column = rb.getChild('time_msc');
      if (!column || rb.numRows === 0) return Number.NaN;
      return toEpochMs(column.get(which === 'first' ? 0 : rb.numRows - 1));
    }
    return Number.NaN;
  }

  check(): Promise<BodyCheck> {
    if (this.error) return Promise.reject(this.error);
    if (this.state !== 'end') return Promise.reject(new Error(`Arrow stream cut short (${this.state}, ${this.rows} rows so far)`));
    const firstTimeMsc = this.timeOf(this.first, 'first');
    const lastTimeMsc = this.timeOf(this.latest.length ? this.latest : this.first, 'last');
    return Promise.resolve({ rows: this.rows, firstTimeMsc, lastTimeMsc });
  }
}

export function sinkFor(kind: BodyKind, envelope = false): BodySink {
  switch (kind) {
    case 'json':
      return new JsonSink(envelope);
    case 'parquet':
      return new ParquetSink();
    case 'arrow':
      return new ArrowSink();
    case 'opaque':
      return new OpaqueSink();
  }
}

/** Keeps a compressed body (Content-Encoding gzip, br or zstd) and decodes it into `inner` in check(). */
export class DecodingSink implements BodySink {
  private readonly parts: Buffer[] = [];

  constructor(
    readonly encoding: string,
    private readonly inner: BodySink,
  ) {}

  write(chunk: Buffer): void {
    this.parts.push(chunk);
  }

  async check(): Promise<BodyCheck> {
    const body = Buffer.concat(this.parts);
    this.parts.length = 0;
    if (this.encoding === 'zstd') {
      const { Decompress } = (await import('fzstd')) as unknown as { Decompress: new (ondata: (chunk: Uint8Array) => void) => { push(chunk: Uint8Array, final?: boolean): void } };
      const d = new Decompress((c) => this.inner.write(Buffer.from(c.buffer, c.byteOffset, c.byteLength)));
      for (let i = 0; i < body.length; i += 1 << 20) d.push(body.subarray(i, Math.min(body.length, i + (1 << 20))), i + (1 << 20) >= body.length);
    } else {
      const zlib = await import('node:zlib');
      const stream = this.encoding === 'br' ? zlib.createBrotliDecompress() : this.encoding === 'gzip' ? zlib.createGunzip() : undefined;
      if (!stream) throw new Error(`unknown Content-Encoding ${this.encoding}`);
      await new Promise<void>((resolve, reject) => {
        stream.on('data', (c: Buffer) => this.inner.write(c));
        stream.on('end', resolve);
        stream.on('error', reject);
        stream.end(body);
      });
    }
    return this.inner.check();
  }
}

// ---------------------------------------------------------------------------------------------
// The request

/** GET `url` and time it, handing the body to a sink for `kind`. Rejects on timeout or socket error. */
export function pull(url: string, kind: BodyKind, timeoutMs = 600_000, envelope = false, acceptEncoding?: string): Promise<PullResult> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let headersMs = Number.NaN;
    let ttfbMs = Number.NaN;
    let bytes = 0;
    const headers: Record<string, string> = { accept: '*/*', ...(acceptEncoding !== undefined ? { 'accept-encoding': acceptEncoding } : {}) };
    const req = http.get(url, { agent: false, headers }, (res) => {
      headersMs = performance.now() - start;
      const status = res.statusCode ?? 0;
      const contentEncoding = String(res.headers['content-encoding'] ?? 'identity');
      const plain = status === 200 ? sinkFor(kind, envelope) : new OpaqueSink();
      // A compressed body is kept as it came and decoded into the sink after the clock stops.
      const sink = contentEncoding === 'identity' || status !== 200 ? plain : new DecodingSink(contentEncoding, plain);
      let errorText = '';
      res.on('data', (chunk: Buffer) => {
        if (bytes === 0) ttfbMs = performance.now() - start;
        bytes += chunk.length;
        if (status !== 200 && errorText.length < 4096) errorText += chunk.toString('utf8', 0, Math.min(chunk.length, 4096));
        sink.write(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        const totalMs = performance.now() - start;
        resolve({ status, contentType: String(res.headers['content-type'] ?? ''), headersMs, ttfbMs, totalMs, bytes, sink, errorText });
      });
      res.on('error', reject);
      res.on('aborted', () => reject(new Error(`response aborted after ${bytes} bytes`)));
    });
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}
