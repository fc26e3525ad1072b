// The store's manifest (DIR/manifest.json): which trade server and time zone it holds, and per
// symbol what each UTC day of ticks and each UTC month of M1 bars is:
//
//   absent                   never fetched
//   { rows: 0, complete }    fetched, and the terminal had nothing (a weekend, a holiday)
//   { rows: N, complete }    fetched whole: the partition file holds its N rows
//   { complete: false }      fetched up to `through` (today, or this month): the next sync redoes it
//   { unavailable: true }    the terminal refused the range (beyond its history / maxbars): not
//                            "empty", and not stored
//
// Written after each partition's file is in place, atomically (temp file, fsync, rename): a sync
// killed between the two leaves a complete file the manifest does not name yet, which the next
// sync fetches again and replaces.
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

import { MANIFEST_FILE, type Dataset } from './layout.js';

export const MANIFEST_FORMAT = 'tradeapi-store/1';

export interface PartitionEntry {
  /** Rows in the partition file (0: no file, the terminal had none). */
  rows: number;
  /** true: the whole day (month) was fetched after it ended. */
  complete: boolean;
  /** Partial partitions: the last instant fetched (ISO, UTC), inclusive. */
  through?: string;
  /** The terminal refused the range (outside its history): nothing stored, not the same as empty. */
  unavailable?: boolean;
  /** When it was fetched (ISO). */
  fetched: string;
}

export interface SymbolCoverage {
  /** 'YYYY-MM-DD' -> its tick partition. */
  ticks: Record<string, PartitionEntry>;
  /** 'YYYY-MM' -> its M1 bar partition. */
  bars_m1: Record<string, PartitionEntry>;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  /** account_info().server of the terminal that filled it. */
  server: string;
  /** The broker time zone the stamps were converted from (TRADEAPI_SERVER_TZ), or 'UTC'. */
  zone: string;
  created: string;
  updated: string;
  symbols: Record<string, SymbolCoverage>;
}

/** A store that is not what this run expects (another server or zone, a damaged manifest). */
export class StoreMismatchError extends Error {
  override readonly name = 'StoreMismatchError';
}

export function emptyManifest(server: string, zone: string, now = new Date()): Manifest {
  const iso = now.toISOString();
  return { format: MANIFEST_FORMAT, server, zone, created: iso, updated: iso, symbols: {} };
}

/** The manifest of the store at `root`, or undefined when it has none yet. */
export async function readManifest(root: string): Promise<Manifest | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(root, MANIFEST_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new StoreMismatchError(`${path.join(root, MANIFEST_FILE)} is not JSON (${(e as Error).message})`);
  }
  return checkShape(parsed, path.join(root, MANIFEST_FILE));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkShape(v: unknown, where: string): Manifest {
  if (!isRecord(v) || v.format !== MANIFEST_FORMAT) throw new StoreMismatchError(`${where} is not a tradeapi store manifest (format ${MANIFEST_FORMAT})`);
  if (typeof v.server !== 'string' || typeof v.zone !== 'string' || !isRecord(v.symbols)) throw new StoreMismatchError(`${where} lacks server, zone or symbols`);
  for (const [symbol, cov] of Object.entries(v.symbols)) {
    if (!isRecord(cov) || !isRecord(cov.ticks) || !isRecord(cov.bars_m1)) throw new StoreMismatchError(`${where}: symbol ${symbol} has no ticks/bars_m1 coverage`);
  }
  return v as unknown as Manifest;
}

/** Refuses a store filled from another trade server or in another zone. */
export function checkIdentity(manifest: Manifest, server: string, zone: string, root: string): void {
  if (manifest.server !== server) {
    throw new StoreMismatchError(`the store ${root} holds history of trade server ${JSON.stringify(manifest.server)}, and this terminal is on ${JSON.stringify(server)}: one store per trade server (use another --store)`);
  }
  if (manifest.zone !== zone) {
    throw new StoreMismatchError(`the store ${root} was filled with server time zone ${manifest.zone}, and TRADEAPI_SERVER_TZ now says ${zone}: a store never mixes zones (set it back, or use another --store)`);
  }
}

export function coverageOf(manifest: Manifest, symbol: string): SymbolCoverage {
  const existing = manifest.symbols[symbol];
  if (existing) return existing;
  const created: SymbolCoverage = { ticks: {}, bars_m1: {} };
  manifest.symbols[symbol] = created;
  return created;
}

export function setEntry(manifest: Manifest, symbol: string, dataset: Dataset, key: string, entry: PartitionEntry): void {
  const cov = coverageOf(manifest, symbol);
  cov[dataset][key] = entry;
  manifest.updated = new Date().toISOString();
}

/** Writes the manifest atomically: a temp file beside it, flushed, renamed over it. */
export async function writeManifest(root: string, manifest: Manifest): Promise<void> {
  const target = path.join(root, MANIFEST_FILE);
  const temp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const sorted = sortManifest(manifest);
  const handle = await open(temp, 'wx');
  try {
    await handle.writeFile(`${JSON.stringify(sorted, null, 1)}\n`, 'utf8');
    await handle.sync();
  } catch (e) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw e;
  }
  await handle.close();
  await rename(temp, target);
}

/** Keys in order (symbols, days), so that a diff of two manifests reads well. */
function sortManifest(m: Manifest): Manifest {
  const sortKeys = <T>(o: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const symbols: Record<string, SymbolCoverage> = {};
  for (const [s, c] of Object.entries(sortKeys(m.symbols))) symbols[s] = { ticks: sortKeys(c.ticks), bars_m1: sortKeys(c.bars_m1) };
  return { ...m, symbols };
}
