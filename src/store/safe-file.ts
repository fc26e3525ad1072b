// Reading a file of the store without trusting what is there: anyone who can write into the store
// directory can plant a FIFO, a device, a symlink out of the store, or a huge file under a name the
// gateway reads. Every read of the store goes through here:
//
//   placement  each directory between the store's root and the file is a real directory (lstat:
//              no symlink, no junction), and the file itself is opened with O_NOFOLLOW (a symlink
//              is refused by the kernel, not by a check that a swap could race) and O_NONBLOCK (a
//              FIFO opens without waiting for a writer)
//   kind       fstat on the open descriptor: a regular file, or it is refused before any read (a
//              read() from a FIFO or a device would hold a libuv thread for as long as it blocks,
//              and a deadline cannot free it)
//   size       at most `maxBytes` (checked before allocating), and, when the caller knows it, exactly
//              the size it expects
//
// The root itself may be a symlink (an operator's choice, resolved once by the caller); nothing below
// it may be. On Windows O_NOFOLLOW does not exist: lstat refuses symlinks and junctions there
// (Node reports both as symbolic links).
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import path from 'node:path';

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** A file of the store that is not what it should be: its path, and why. */
export class UnsafeStoreFileError extends Error {
  override readonly name = 'UnsafeStoreFileError';
  constructor(readonly file: string, readonly why: string) {
    super(`${file}: ${why}`);
  }
}

function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/** The directories from `root` (exclusive) down to `file`'s, outermost first. */
function dirsBelow(root: string, file: string): string[] {
  const rel = path.relative(root, path.dirname(file));
  if (rel === '') return [];
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new UnsafeStoreFileError(file, 'outside the store');
  const out: string[] = [];
  let dir = root;
  for (const part of rel.split(path.sep)) out.push((dir = path.join(dir, part)));
  return out;
}

/**
 * Checks that every directory from `root` (exclusive) down to `file`'s directory is a real
 * directory: false when one does not exist (yet), UnsafeStoreFileError when one is anything else.
 */
export async function checkDirsBelow(root: string, file: string): Promise<boolean> {
  for (const dir of dirsBelow(root, file)) {
    let st: Stats;
    try {
      st = await lstat(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw e;
    }
    if (!st.isDirectory()) throw new UnsafeStoreFileError(file, `${dir} is ${kindOf(st)}, not a directory of the store (nothing below the store's root may lead out of it)`);
  }
  return true;
}

export interface SafeReadOptions {
  /** Refused above this size, before anything is allocated. */
  maxBytes: number;
  /** When set, the file must have exactly this size. */
  expectBytes?: number;
  /** Aborts the read (a deadline). */
  signal?: AbortSignal;
}

/**
 * The bytes of `file` (below `root`), read as the header says; undefined when it does not exist.
 * Throws UnsafeStoreFileError for anything but a regular file of a fitting size inside the store.
 */
export async function readStoreFile(root: string, file: string, options: SafeReadOptions): Promise<Buffer | undefined> {
  if (!(await checkDirsBelow(root, file))) return undefined;
  if (O_NOFOLLOW === 0) {
    // Windows: no O_NOFOLLOW; refuse a symlink or junction by lstat.
    try {
      const st = await lstat(file);
      if (!st.isFile()) throw new UnsafeStoreFileError(file, `${kindOf(st)}, not a regular file`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') throw new UnsafeStoreFileError(file, 'a symbolic link, not a regular file');
    if (code === 'ENXIO' || code === 'EISDIR') throw new UnsafeStoreFileError(file, 'not a regular file');
    throw e;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new UnsafeStoreFileError(file, `${kindOf(st)}, not a regular file`);
    if (st.size > options.maxBytes) throw new UnsafeStoreFileError(file, `${st.size} bytes, more than the ${options.maxBytes} a file of the store may have`);
    if (options.expectBytes !== undefined && st.size !== options.expectBytes) {
      throw new UnsafeStoreFileError(file, `${st.size} bytes where the manifest recorded ${options.expectBytes}`);
    }
    const bytes = Buffer.allocUnsafe(st.size);
    let at = 0;
    while (at < st.size) {
      options.signal?.throwIfAborted();
      const { bytesRead } = await handle.read(bytes, at, Math.min(st.size - at, 4 << 20), at);
      if (bytesRead === 0) throw new UnsafeStoreFileError(file, `shorter than its ${st.size} bytes while it was read (being replaced?)`);
      at += bytesRead;
    }
    return bytes;
  } finally {
    await handle.close();
  }
}

/**
 * Makes the directories from `root` (exclusive) down to `file`'s directory, refusing any that is
 * not a real directory (a symlink planted to lead a writer out of the store): a writer never
 * writes through one. Each is made one level at a time and checked again after (lstat).
 */
export async function makeDirsBelow(root: string, file: string): Promise<void> {
  for (const dir of dirsBelow(root, file)) {
    let st: Stats;
    try {
      st = await lstat(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      await mkdir(dir).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
      st = await lstat(dir);
    }
    if (!st.isDirectory()) throw new UnsafeStoreFileError(file, `${dir} is ${kindOf(st)}, not a directory of the store: refusing to write through it (nothing below the store's root may lead out of it)`);
  }
}
