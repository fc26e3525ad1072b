// An output written straight into: stdout (`-o -`), a FIFO or a character device (output-target.ts
// says why these are not replaced). No temp file and no rename: a reader gets the bytes as they
// come, and a failed export simply ends the stream early (its exit status says so). Parquet and
// Arrow are refused on a terminal, as curl refuses binary output there: it would garble the screen
// and is never what was meant.
//
// A FIFO never blocks a thread (issue 33, item 11). A blocking open(2) of a FIFO waits in the
// kernel until a reader comes, and a blocking write(2) into a full one until the reader reads: done
// on libuv's thread pool (fs.open, fs.write), either left a pool thread stuck, and process.exit
// joins the pool's threads before the process ends, so the export ignored SIGTERM and SIGINT
// (the handler ran, said "interrupted", and then hung in exit) until SIGKILL. So the FIFO is opened
// with O_NONBLOCK, retried every FIFO_RETRY_MS while it has no reader (ENXIO), and written through
// the event loop (a libuv pipe, as node writes to a piped stdout), which waits for the pipe to be
// writable without holding a thread. An interruption rejects a write still waiting at once.
import { closeSync, constants, fstatSync, open as openFd, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { isatty } from 'node:tty';
import { promisify } from 'node:util';

import { UsageError } from './args.js';
import { STREAM_OPEN_FLAGS, streamKind, type ExportSink, type StreamKind } from './output-target.js';

/** How often the open of a FIFO without a reader is tried again (a reader waits at most this long for the export). */
export const FIFO_RETRY_MS = 50;

/** What StreamOutput.open may be told. */
export interface StreamOpenOptions {
  /** Aborted when the export is interrupted: the wait for a FIFO's reader ends. */
  signal?: AbortSignal | undefined;
  /** Called once if the FIFO has no reader yet, when the export starts waiting for one. */
  waiting?: (() => void) | undefined;
}

const openFifoFd = promisify(openFd);

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
  /** Rejected by interrupt(): a write waiting on a reader that does not read gives way to it. */
  private readonly stopped: Promise<never>;
  private stopWaiting: (reason: Error) => void = () => undefined;

  private constructor(
    private readonly put: (chunk: Uint8Array) => Promise<void>,
    private readonly end: () => Promise<void>,
  ) {
    this.stopped = new Promise<never>((_, reject) => (this.stopWaiting = reject));
    this.stopped.catch(() => undefined);
  }

  /** Opens a FIFO (waiting, as any writer does, for a reader) or a character device. */
  static async open(path: string, what: StreamKind, binary: boolean, options: StreamOpenOptions = {}): Promise<StreamOutput> {
    if (what === 'FIFO') return StreamOutput.openFifo(path, binary, options);
    const handle = await open(path, STREAM_OPEN_FLAGS);
    try {
      checkOpened(path, what, fstatSync(handle.fd), isatty(handle.fd), binary);
    } catch (e) {
      await handle.close();
      throw e;
    }
    return new StreamOutput((chunk) => writeAll(handle, chunk), () => handle.close());
  }

  /** A FIFO: opened without blocking (retried until a reader comes), written through the event loop. */
  private static async openFifo(path: string, binary: boolean, { signal, waiting }: StreamOpenOptions): Promise<StreamOutput> {
    let fd: number | undefined;
    for (let tries = 0; fd === undefined; tries++) {
      signal?.throwIfAborted();
      try {
        fd = await openFifoFd(path, STREAM_OPEN_FLAGS | constants.O_NONBLOCK);
      } catch (e) {
        // ENXIO: a FIFO with no reader (anything else is the caller's to report).
        if ((e as NodeJS.ErrnoException).code !== 'ENXIO') throw e;
        if (tries === 0) waiting?.();
        await sleep(FIFO_RETRY_MS, undefined, signal ? { signal } : {});
      }
    }
    let socket: net.Socket;
    try {
      checkOpened(path, 'FIFO', fstatSync(fd), false, binary);
      // Node's stream over a pipe: libuv writes when the pipe has room, on the loop's thread.
      socket = new net.Socket({ fd, readable: false, writable: true });
    } catch (e) {
      closeQuietly(fd);
      throw e;
    }
    // A write's error (EPIPE: the reader went away) is reported by the write that met it.
    socket.on('error', () => undefined);
    const put = (chunk: Uint8Array): Promise<void> => new Promise((resolve, reject) => void socket.write(chunk, (err) => (err ? reject(err) : resolve())));
    // Once every write has called back its bytes are in the pipe: closing the descriptor then ends
    // the stream for the reader (an end() would shutdown(2) it, which a FIFO is not made for).
    return new StreamOutput(put, async () => void socket.destroy());
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
    await Promise.race([this.put(chunk), this.stopped]);
    this.bytes += chunk.byteLength;
  }

  interrupt(reason: Error): void {
    this.stop ??= reason;
    this.stopWaiting(this.stop);
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

/** Refuses what was opened if it is not what resolveOutput saw, or is a terminal for binary output. */
function checkOpened(path: string, what: StreamKind, st: Stats, tty: boolean, binary: boolean): void {
  // Replaced between resolveOutput and now: refuse rather than write into a regular file in place.
  if (streamKind(st) !== what) throw new UsageError(`cannot write to ${path}: it is no longer a ${what}`);
  if (binary && tty) throw binaryOnTerminal(path);
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

function binaryOnTerminal(where: string): UsageError {
  return new UsageError(`will not write Parquet or Arrow to a terminal (-o ${where}); redirect stdout, or give -o FILE or --format json`);
}
