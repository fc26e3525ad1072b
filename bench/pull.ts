// One timed GET over loopback and the checks that the answer holds the rows asked for.
//
// The timed part does as little as it can, and keeps little, so that the client is not what is
// measured: JSON bodies are only scanned for '{' (memchr speed) and their edges kept; Arrow streams
// are followed message by message (row counts from the record-batch headers, bodies skipped, only
// the first and the latest batch kept); Parquet bodies (small) are kept whole and decoded after the
// clock stops; floor bodies are only counted. Tick rows are flat objects of numbers, so every '{'
// of a JSON answer opens a row, except the envelope of mt5api's ({"data": [...], "count": N, ...}).
import { DataType, Message, MessageHeader, type Schema } from 'apache-arrow';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

import { rawGet } from './raw-get.js';

export type BodyKind = 'json' | 'parquet' | 'arrow' | 'opaque';

/** What a body was found to hold. */
export interface BodyCheck {
  readonly rows: number;
  /** time_msc of the first and last row, ms since the epoch (NaN where it could not be read). */
  readonly firstTimeMsc: number;
  readonly lastTimeMsc: number;
}

/**
 * Takes the body as it arrives; `check()` runs after the clock stops. A chunk is valid only during
 * write() (the client reads into one reused buffer): a sink copies what it keeps.
 */
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
    // The client reuses its read buffer: what is kept is copied, and of a piece only its last 64 KiB
    // can matter.
    const kept = Buffer.from(chunk.length > EDGE ? chunk.subarray(chunk.length - EDGE) : chunk);
    this.tail.push(kept);
    this.tailBytes += kept.length;
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
    this.chunks.push(Buffer.from(chunk)); // the client reuses its read buffer
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
 * rows summed from the record-batch headers, bodies skipped; of the time_msc column only the first
 * value of the first batch and the last value of the latest one are copied as they stream past
 * (their place in a body comes from the batch's buffer list). Keeps nothing of the chunks it is
 * given: the client reads into one reused buffer.
 */
export class ArrowSink implements BodySink {
  rows = 0;
  batches = 0;
  /** Prefix or metadata bytes gathered across writes (copies). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes wanted before the next decision: 8 (prefix), metadata length, or body bytes to pass. */
  private state: 'prefix' | 'meta' | 'body' | 'end' = 'prefix';
  private need = 8;
  /** Index of time_msc's values among a batch's buffers (-1: not known). */
  private timeBuffer = -1;
  /** The current body: how much of it went past, and the 8-byte windows to copy from it. */
  private bodyAt = 0;
  private windows: { from: number; into: Buffer }[] = [];
  private readonly firstValue = Buffer.alloc(8);
  private readonly lastValue = Buffer.alloc(8);
  private latest = Buffer.alloc(8);
  private haveFirst = false;
  private haveLast = false;
  private error: Error | undefined;

  write(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && this.state !== 'end' && !this.error) {
      if (this.state === 'body') {
        const take = Math.min(this.need, chunk.length - at);
        for (const w of this.windows) {
          // The part of [w.from, w.from + 8) inside this piece [bodyAt, bodyAt + take).
          const lo = Math.max(w.from, this.bodyAt);
          const hi = Math.min(w.from + 8, this.bodyAt + take);
          if (lo < hi) chunk.copy(w.into, lo - w.from, at + (lo - this.bodyAt), at + (hi - this.bodyAt));
        }
        at += take;
        this.bodyAt += take;
        this.need -= take;
        if (this.need === 0) this.endMessage();
        continue;
      }
      const take = Math.min(this.need - this.pendingBytes, chunk.length - at);
      this.pending.push(Buffer.from(chunk.subarray(at, at + take)));
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
      this.state = 'meta';
      this.need = length;
      return;
    }
    // 'meta'
    const message = Message.decode(bytes);
    this.windows = [];
    if (message.headerType === MessageHeader.Schema) this.timeBuffer = timeValuesBuffer(message.header() as Schema);
    if (message.isRecordBatch()) {
      const batch = message.header();
      const rows = Number(batch.length);
      this.rows += rows;
      this.batches++;
      const region = this.timeBuffer >= 0 ? batch.buffers[this.timeBuffer] : undefined;
      if (region && rows > 0 && Number(region.length) >= 8) {
        const start = Number(region.offset);
        if (this.batches === 1) this.windows.push({ from: start, into: this.firstValue });
        this.latest = Buffer.alloc(8);
        this.windows.push({ from: start + Number(region.length) - 8, into: this.latest });
      }
    }
    const body = Number(message.bodyLength);
    if (body > 0) {
      this.state = 'body';
      this.need = body;
      this.bodyAt = 0;
    } else this.endMessage();
  }

  private endMessage(): void {
    if (this.windows.length > 0) {
      if (this.windows[0]!.into === this.firstValue) this.haveFirst = true;
      this.latest.copy(this.lastValue);
      this.haveLast = true;
    }
    this.windows = [];
    this.state = 'prefix';
    this.need = 8;
  }

  check(): Promise<BodyCheck> {
    if (this.error) return Promise.reject(this.error);
    if (this.state !== 'end') return Promise.reject(new Error(`Arrow stream cut short (${this.state}, ${this.rows} rows so far)`));
    return Promise.resolve({
      rows: this.rows,
      firstTimeMsc: this.haveFirst ? toEpochMs(this.firstValue.readBigInt64LE(0)) : Number.NaN,
      lastTimeMsc: this.haveLast ? toEpochMs(this.lastValue.readBigInt64LE(0)) : Number.NaN,
    });
  }
}

/**
 * Where time_msc's values sit among a record batch's buffers: each field of a flat schema has a
 * validity buffer and a values buffer, and a variable-width one an offsets buffer between them.
 * -1 when there is no time_msc or a field of another kind precedes it.
 */
function timeValuesBuffer(schema: Schema): number {
  let index = 0;
  for (const field of schema.fields) {
    const variable = DataType.isUtf8(field.type) || DataType.isBinary(field.type);
    const fixed = DataType.isInt(field.type) || DataType.isFloat(field.type) || DataType.isTimestamp(field.type) || DataType.isDate(field.type) || DataType.isBool(field.type);
    if (field.name === 'time_msc') return fixed ? index + 1 : -1;
    if (variable) index += 3;
    else if (fixed) index += 2;
    else return -1;
  }
  return -1;
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
    this.parts.push(Buffer.from(chunk)); // the client reuses its read buffer
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
  const start = performance.now();
  let headersMs = Number.NaN;
  let ttfbMs = Number.NaN;
  let bytes = 0;
  let status = 0;
  let contentType = '';
  let errorText = '';
  let sink: BodySink = new OpaqueSink();
  const headers: Record<string, string> = { accept: '*/*', ...(acceptEncoding !== undefined ? { 'accept-encoding': acceptEncoding } : {}) };
  return rawGet(
    url,
    headers,
    {
      onHead(res) {
        headersMs = performance.now() - start;
        status = res.status;
        contentType = res.headers['content-type'] ?? '';
        const contentEncoding = res.headers['content-encoding'] ?? 'identity';
        const plain = status === 200 ? sinkFor(kind, envelope) : new OpaqueSink();
        // A compressed body is kept as it came and decoded into the sink after the clock stops.
        sink = contentEncoding === 'identity' || status !== 200 ? plain : new DecodingSink(contentEncoding, plain);
      },
      onBody(chunk) {
        if (bytes === 0) ttfbMs = performance.now() - start;
        bytes += chunk.length;
        if (status !== 200 && errorText.length < 4096) errorText += chunk.toString('utf8', 0, Math.min(chunk.length, 4096));
        sink.write(chunk);
      },
    },
    timeoutMs,
  ).then(() => ({ status, contentType, headersMs, ttfbMs, totalMs: performance.now() - start, bytes, sink, errorText }));
}
