// One writer per store: DIR/.sync.lock, created exclusively ('wx') and holding the writer's pid,
// host and start. A lock whose process is gone (same host, pid not running: a sync killed with
// SIGKILL, a crash) is taken over: renamed aside first, so that of two syncs finding the same
// stale lock only one takes it.
import { hostname } from 'node:os';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

import { LOCK_FILE } from './layout.js';
import { readStoreFile } from './safe-file.js';

/** A lock file is a line of JSON: anything bigger is not one. */
const MAX_LOCK_BYTES = 4096;

export interface LockOwner {
  pid: number;
  host: string;
  started: string;
}

/** Another writer holds the store. */
export class StoreBusyError extends Error {
  override readonly name = 'StoreBusyError';
  constructor(readonly root: string, readonly owner: LockOwner | undefined) {
    super(
      owner
        ? `the store ${root} is being written by another sync (pid ${owner.pid} on ${owner.host}, since ${owner.started}); one writer at a time`
        : `the store ${root} is locked by another sync (${path.join(root, LOCK_FILE)}); one writer at a time`,
    );
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock's owner, read as every file of the store is (safe-file.ts: a FIFO or symlink planted as the lock is not read). */
async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    const bytes = await readStoreFile(path.dirname(file), file, { maxBytes: MAX_LOCK_BYTES });
    if (bytes === undefined) return undefined;
    const v = JSON.parse(bytes.toString('utf8')) as Partial<LockOwner>;
    if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.started === 'string') return { pid: v.pid, host: v.host, started: v.started };
  } catch {
    // unreadable or half-written: treated as held, unknown owner
  }
  return undefined;
}

export class StoreLock {
  private released = false;

  private constructor(readonly file: string) {}

  /**
   * Takes the lock of the store at `root`, or throws StoreBusyError. `ownIsStale` false: a lock of
   * this very process is busy too (the gateway's write-back beside an in-process sync).
   */
  static async acquire(root: string, options: { ownIsStale?: boolean } = {}): Promise<StoreLock> {
    const ownIsStale = options.ownIsStale ?? true;
    const file = path.join(root, LOCK_FILE);
    const me: LockOwner = { pid: process.pid, host: hostname(), started: new Date().toISOString() };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const handle = await open(file, 'wx', 0o644);
        try {
          await handle.writeFile(JSON.stringify(me));
          await handle.sync();
        } finally {
          await handle.close();
        }
        return new StoreLock(file);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const owner = await readOwner(file);
      const stale = owner !== undefined && owner.host === me.host && (owner.pid === process.pid ? ownIsStale : !isRunning(owner.pid));
      if (!stale) throw new StoreBusyError(root, owner);
      const aside = `${file}.stale-${process.pid}`;
      try {
        await rename(file, aside);
      } catch {
        continue; // someone else moved it: try again
      }
      const moved = await readOwner(aside);
      if (moved?.pid === owner.pid && moved.started === owner.started) {
        await unlink(aside).catch(() => undefined);
      } else {
        // We moved a fresh lock another sync had just taken: put it back and give way.
        await rename(aside, file).catch(() => undefined);
        throw new StoreBusyError(root, moved);
      }
    }
    throw new StoreBusyError(root, await readOwner(file));
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await unlink(this.file).catch(() => undefined);
  }
}
