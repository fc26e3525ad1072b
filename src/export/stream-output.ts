// An output written straight into: stdout (`-o -`), a FIFO or a character device (output-target.ts
// says why these are not replaced). No temp file and no rename: a reader gets the bytes as they
// come, and a failed export simply ends the stream early (its exit status says so). Parquet and
// Arrow are refused on a terminal, as curl refuses binary output there: it would garble the screen
// and is never what was meant.
import { fstatSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { isatty } from 'node:tty';

import { UsageError } from './args.js';
import { STREAM_OPEN_FLAGS, streamKind, type ExportSink, type StreamKind } from './output-target.js';

/** The part of process.stdout this needs. */
export interface OutputStream {
  readonly isTTY?: boolean;
  write(chunk: Uint8Array, callback: (err?: Error | null) => void): boolean;
  on(event: 'error', listener: (err: Error) => void): unknown;
  off(event: 'error', listener: (err: Error) => void): unknown;
}

export class StreamOutput implements ExportSink {
  bytes = 0;
  private stop: Error | undefined;
  private ended = false;

  private constructor(
    private readonly put: (chunk: Uint8Array) => Promise<void>,
    private readonly end: () => Promise<void>,
  ) {}

  /** Opens a FIFO (waiting, as any writer does, for a reader) or a character device. */
  static async open(path: string, what: StreamKind, binary: boolean): Promise<StreamOutput> {
    const handle = await open(path, STREAM_OPEN_FLAGS);
    try {
      // Replaced between resolveOutput and now: refuse rather than write into a regular file in place.
      if (streamKind(fstatSync(handle.fd)) !== what) throw new UsageError(`cannot write to ${path}: it is no longer a ${what}`);
      if (binary && isatty(handle.fd)) throw binaryOnTerminal(path);
    } catch (e) {
      await handle.close();
      throw e;
    }
    return new StreamOutput((chunk) => writeAll(handle, chunk), () => handle.close());
  }

  /** stdout, through the stream node already made of it (so that its own writes and ours do not interleave). */
  static stdout(stream: OutputStream, binary: boolean): StreamOutput {
    if (binary && stream.isTTY) throw binaryOnTerminal('-');
    // An EPIPE (the reader went away) is reported by the write that met it; without a listener
    // node would also throw it as an unhandled 'error' event.
    const ignore = (): void => undefined;
    stream.on('error', ignore);
    const put = (chunk: Uint8Array): Promise<void> => new Promise((resolve, reject) => void stream.write(chunk, (err) => (err ? reject(err) : resolve())));
    return new StreamOutput(put, async () => void stream.off('error', ignore));
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.stop) throw this.stop;
    if (this.ended) throw new Error('the output is closed');
    await this.put(chunk);
    this.bytes += chunk.byteLength;
  }

  interrupt(reason: Error): void {
    this.stop ??= reason;
  }

  async commit(): Promise<void> {
    if (this.ended) throw new Error('the output was already closed');
    this.ended = true;
    await this.end();
  }

  async discard(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.end().catch(() => undefined);
  }

  discardSync(): void {
    // Nothing to remove: what was written has been read.
  }
}

async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.byteLength) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
    offset += bytesWritten;
  }
}

function binaryOnTerminal(where: string): UsageError {
  return new UsageError(`will not write Parquet or Arrow to a terminal (-o ${where}); redirect stdout, or give -o FILE or --format json`);
}
