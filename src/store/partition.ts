// One stored partition as the gateway reads it: its file read through the store's rules (safe-file.ts:
// a regular file inside the store, of the size the manifest recorded), in a read slot with a
// deadline (read-slots.ts); anything else is damage, told to the caller as PartitionDamageError so
// that it can take the range from the terminal instead, or answer store-damaged where the terminal
// does not hold it (TerminalError 'store_damaged': 503 /errors/store-damaged, naming the file).
import { lstat } from 'node:fs/promises';
import path from 'node:path';

import { TerminalError } from '../terminal/errors.js';
import { partitionFile, type Dataset } from './layout.js';
import { isProven, type PartitionEntry } from './manifest.js';
import type { ReadSlots } from './read-slots.js';
import { checkDirsBelow, readStoreFile, UnsafeStoreFileError } from './safe-file.js';

/** A partition file is refused above this size (a day of the busiest symbol is tens of MB). */
export const MAX_PARTITION_BYTES = 2 ** 31;

export interface StoredPartition {
  readonly root: string;
  readonly dataset: Dataset;
  readonly symbol: string;
  /** Its day ('YYYY-MM-DD') or month ('YYYY-MM'). */
  readonly key: string;
  readonly entry: PartitionEntry;
  readonly file: string;
}

export function storedPartition(root: string, dataset: Dataset, symbol: string, key: string, entry: PartitionEntry): StoredPartition {
  return { root, dataset, symbol, key, entry, file: partitionFile(root, dataset, symbol, key) };
}

/** The file as it names itself in messages: relative to the store's root. */
export function nameOf(p: StoredPartition): string {
  return path.relative(p.root, p.file).split(path.sep).join('/');
}

/** A partition that is not what its manifest entry recorded. */
export class PartitionDamageError extends Error {
  override readonly name = 'PartitionDamageError';
  constructor(readonly partition: StoredPartition, readonly why: string) {
    super(`the store's ${nameOf(partition)} is damaged (not the file its manifest entry recorded): ${why}`);
  }
}

/** The answer for a damaged partition the terminal cannot stand in for. */
export function storeDamaged(e: PartitionDamageError, also = ''): TerminalError {
  return new TerminalError('store_damaged', -10002, `${e.message}${also}; repair it with tradeapi verify --repair (docs/store.md)`);
}

export function isPartitionDamage(e: unknown): e is PartitionDamageError {
  return e instanceof PartitionDamageError;
}

/**
 * The partition's bytes: a regular file inside the store, of exactly the recorded size when the
 * entry is proven. A missing file where the manifest records rows is damage too (never a silent
 * empty answer); undefined only for an entry without rows.
 */
export async function readPartitionBytes(p: StoredPartition, slots: ReadSlots): Promise<Buffer | undefined> {
  let bytes: Buffer | undefined;
  try {
    bytes = await slots.run(nameOf(p), (signal) => readStoreFile(p.root, p.file, {
      maxBytes: MAX_PARTITION_BYTES,
      ...(isProven(p.entry) ? { expectBytes: p.entry.bytes as number } : {}),
      signal,
    }));
  } catch (e) {
    if (e instanceof UnsafeStoreFileError) throw new PartitionDamageError(p, e.why);
    throw e;
  }
  if (bytes === undefined && p.entry.rows > 0) throw new PartitionDamageError(p, `the file is missing (the manifest records ${p.entry.rows} rows)`);
  return bytes;
}

/**
 * Why a partition's file cannot be the one its entry recorded, by its placement, kind and size
 * alone (no read: what `tradeapi store gaps` and /store/coverage check for every day they list);
 * undefined when it may be (its footer and pages are checked when it is read).
 */
export async function placementMismatch(p: StoredPartition): Promise<string | undefined> {
  if (p.entry.rows === 0 || p.entry.unavailable) return undefined;
  try {
    if (!(await checkDirsBelow(p.root, p.file))) return 'the file is missing';
    const st = await lstat(p.file);
    if (!st.isFile()) return 'not a regular file';
    if (isProven(p.entry) && st.size !== p.entry.bytes) return `${st.size} bytes where the manifest recorded ${p.entry.bytes}`;
  } catch (e) {
    if (e instanceof UnsafeStoreFileError) return e.why;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'the file is missing';
    throw e;
  }
  return undefined;
}
