// An output file that appears only complete: bytes go to FILE.tmp-<pid> beside it, which is
// flushed to disk and renamed over FILE at the end (a rename within one directory is atomic), and
// removed on any failure or interruption. A reader never sees a FILE that looks whole but is not.
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { unlinkSync } from 'node:fs';

import type { BodySink } from '../encode/types.js';

export class AtomicFile implements BodySink {
  readonly temp: string;
  /** Bytes written so far. */
  bytes = 0;
  private handle: FileHandle | undefined;
  private stop: Error | undefined;
  private settled = false;

  private constructor(readonly target: string, temp: string, handle: FileHandle) {
    this.temp = temp;
    this.handle = handle;
  }

  /** Creates the temp file (it must not exist: 'wx'). */
  static async create(target: string, pid = process.pid): Promise<AtomicFile> {
    const temp = `${target}.tmp-${pid}`;
    const handle = await open(temp, 'wx');
    return new AtomicFile(target, temp, handle);
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (this.stop) throw this.stop;
    const handle = this.handle;
    if (!handle) throw new Error('the output file is closed');
    let offset = 0;
    while (offset < chunk.byteLength) {
      const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
      offset += bytesWritten;
    }
    this.bytes += chunk.byteLength;
  }

  /** Makes the next write() reject with `reason` (an interruption), so that the encoder stops. */
  interrupt(reason: Error): void {
    this.stop ??= reason;
  }

  /** Flushes, closes and renames the temp file over the target. */
  async commit(): Promise<void> {
    const handle = this.take();
    await handle.sync();
    await handle.close();
    await rename(this.temp, this.target);
  }

  /** Closes and removes the temp file; never throws. The target is left as it was. */
  async discard(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    this.settled = true;
    await handle?.close().catch(() => undefined);
    await unlink(this.temp).catch(() => undefined);
  }

  /** For a process about to exit at once (a second signal): remove the temp file synchronously. */
  discardSync(): void {
    try {
      unlinkSync(this.temp);
    } catch {
      // already gone
    }
  }

  private take(): FileHandle {
    if (this.settled || !this.handle) throw new Error('the output file was already committed or discarded');
    this.settled = true;
    const h = this.handle;
    this.handle = undefined;
    return h;
  }
}
