// An output file that appears only complete: bytes go to FILE.tmp-<pid> beside it, which is
// flushed to disk and renamed over FILE at the end (a rename within one directory is atomic), and
// removed on any failure or interruption. A reader never sees a FILE that looks whole but is not.
// The FILE it replaces keeps its mode (and, when root, its owner and group), as an overwrite in
// place would keep them; the temp file stays private (0600) until then, so that data meant for a
// 0600 file is never readable by others on the way. Temp files of exports that were killed
// (SIGKILL, a crash, a power cut) are removed by the next export of the same FILE.
import { unlinkSync, type Stats } from 'node:fs';
import { lstat, open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

import type { ExportSink } from './output-target.js';

export class AtomicFile implements ExportSink {
  readonly temp: string;
  bytes = 0;
  private handle: FileHandle | undefined;
  private stop: Error | undefined;
  private settled = false;

  private constructor(readonly target: string, temp: string, handle: FileHandle, private readonly existing: Stats | undefined) {
    this.temp = temp;
    this.handle = handle;
  }

  /**
   * Creates the temp file (it must not exist: 'wx') after removing stale ones. `existing`: the
   * regular file at `target` now, whose mode and owner the result keeps; a new file gets the
   * usual 0666 less the umask.
   */
  static async create(target: string, existing: Stats | undefined, pid = process.pid): Promise<AtomicFile> {
    await removeStaleTemps(target, pid);
    const temp = `${target}.tmp-${pid}`;
    const handle = existing ? await open(temp, 'wx', 0o600) : await open(temp, 'wx');
    if (existing) {
      // Before any data: a chown clears set-id bits, which commit() then restores with the mode.
      // Root keeps the owner and group; anyone else can keep only a group they belong to. Best
      // effort (a file system without owners refuses): the contents matter more.
      const root = process.getuid?.() === 0;
      if (root || existing.gid !== process.getgid?.()) await handle.chown(root ? existing.uid : -1, existing.gid).catch(() => undefined);
    }
    return new AtomicFile(target, temp, handle, existing);
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

  interrupt(reason: Error): void {
    this.stop ??= reason;
  }

  /** Flushes, closes and renames the temp file over the target. */
  async commit(): Promise<void> {
    const handle = this.take();
    try {
      if (this.existing) await handle.chmod(this.existing.mode & 0o7777);
      await handle.sync();
    } finally {
      await handle.close();
    }
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

/** Largest PID Linux can hand out (PID_MAX_LIMIT); a longer number is not one of our temp files. */
const MAX_PID = 4_194_304;

/**
 * Removes FILE.tmp-<pid> files beside `target` whose process is gone. Our own PID counts as gone:
 * we have not created ours yet, so one with our PID was left by an earlier process that had it
 * (in a container the CLI often gets the same small PID every run, and 'wx' would then fail).
 * A live PID may be an unrelated process that reused it: its file is kept until a later export.
 */
async function removeStaleTemps(target: string, ownPid: number): Promise<void> {
  const dir = path.dirname(target);
  const prefix = `${path.basename(target)}.tmp-`;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const digits = name.slice(prefix.length);
    if (!/^[1-9][0-9]{0,6}$/.test(digits)) continue;
    const pid = Number(digits);
    if (pid > MAX_PID || (pid !== ownPid && isRunning(pid))) continue;
    const file = path.join(dir, name);
    // Only a regular file: a link or a directory by that name is not ours.
    if (!(await lstat(file).then((st) => st.isFile(), () => false))) continue;
    await unlink(file).catch(() => undefined);
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, under another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
