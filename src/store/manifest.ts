// The store's manifest: which trade server and time zone it holds, and per symbol what each UTC day
// of ticks and each UTC month of M1 bars is:
//
//   absent                   never fetched
//   { rows: 0, complete }    fetched, and the terminal had nothing (a weekend, a holiday)
//   { rows: N, complete }    fetched whole: the partition file holds its N rows
//   { complete: false }      fetched up to `through` (today, or this month): the next sync redoes it
//   { unavailable: true }    the terminal refused the range (beyond its history / maxbars): not
//                            "empty", and not stored
//
// Every entry with rows carries the partition's proof (format 2): the file's size, the first and
// last time_msc (bars: open time in ms), and the XXH3-128 of its rows in the MetaTrader5 package's
// packed layout (proof.ts). The partition file's Parquet footer carries the same, so a file moved,
// swapped or damaged is told from the one the manifest recorded.
//
// On disk (format tradeapi-store/2):
//
//   DIR/manifest.json                    { format, server, zone, created, updated }
//   DIR/manifests/symbol=EURUSD.json     { format, symbol, ticks: {day: entry}, bars_m1: {month: entry} }
//
// One file per symbol, so that a sync reads and rewrites only the symbols it touches: its manifest
// cost grows with what it adds, not with the store (format 1 kept every symbol in manifest.json,
// rewritten whole after each partition). Each file is written atomically (temp file, fsync, rename);
// a sync killed between a partition's file and its manifest entry leaves a complete file the
// manifest does not name yet, which the next sync fetches again and replaces.
//
// A format-1 store (everything in manifest.json, no proofs) is still read: its partitions are
// served as `unproven`; the next sync (or the gateway's write-back) rewrites it as format 2, and
// `tradeapi verify --repair` adds the proofs.
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

import { escapeSymbol, MANIFEST_FILE, unescapeSymbol, type Dataset } from './layout.js';
import { makeDirsBelow, readStoreFile, UnsafeStoreFileError } from './safe-file.js';

export const MANIFEST_FORMAT = 'tradeapi-store/2';
export const MANIFEST_FORMAT_V1 = 'tradeapi-store/1';
export type ManifestFormat = typeof MANIFEST_FORMAT | typeof MANIFEST_FORMAT_V1;

/** The directory of the per-symbol manifests. */
export const SYMBOL_MANIFESTS_DIR = 'manifests';
/** manifest.json of format 1 held every symbol: bounded, but generously (a 16-year, 36-symbol store is ~25 MB). */
const MAX_MANIFEST_BYTES = 512 << 20;
const MAX_SYMBOL_MANIFEST_BYTES = 64 << 20;

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
  /** The proof (format 2, rows > 0): the file's size in bytes. */
  bytes?: number;
  /** The proof: time_msc of the first and last row (bars: their open time in ms). */
  first_msc?: number;
  last_msc?: number;
  /** The proof: XXH3-128 of the rows, packed as the MetaTrader5 package's arrays (32 hex digits). */
  xxh3_128?: string;
}

export interface SymbolCoverage {
  /** 'YYYY-MM-DD' -> its tick partition. */
  ticks: Record<string, PartitionEntry>;
  /** 'YYYY-MM' -> its M1 bar partition. */
  bars_m1: Record<string, PartitionEntry>;
}

export interface Manifest {
  /** As read: format 1 is upgraded to 2 by the next writer. */
  format: ManifestFormat;
  /** account_info().server of the terminal that filled it. */
  server: string;
  /** The broker time zone the stamps were converted from (TRADEAPI_SERVER_TZ), or 'UTC'. */
  zone: string;
  created: string;
  updated: string;
  /** The symbols read (format 2: those asked for, or all). */
  symbols: Record<string, SymbolCoverage>;
}

/** A store that is not what this run expects (another server or zone, a damaged manifest). */
export class StoreMismatchError extends Error {
  override readonly name = 'StoreMismatchError';
}

/** Whether an entry with rows carries its proof (false: a format-1 store's entry, `unproven`). */
export function isProven(entry: PartitionEntry): boolean {
  return typeof entry.bytes === 'number' && typeof entry.first_msc === 'number' && typeof entry.last_msc === 'number' &&
    typeof entry.xxh3_128 === 'string' && /^[0-9a-f]{32}$/.test(entry.xxh3_128);
}

export function emptyManifest(server: string, zone: string, now = new Date()): Manifest {
  const iso = now.toISOString();
  return { format: MANIFEST_FORMAT, server, zone, created: iso, updated: iso, symbols: {} };
}

/** The per-symbol manifest file of `symbol`. */
export function symbolManifestFile(root: string, symbol: string): string {
  return path.join(root, SYMBOL_MANIFESTS_DIR, `symbol=${escapeSymbol(symbol)}.json`);
}

async function readJson(root: string, file: string, maxBytes: number): Promise<unknown> {
  let bytes: Buffer | undefined;
  try {
    bytes = await readStoreFile(root, file, { maxBytes });
  } catch (e) {
    if (e instanceof UnsafeStoreFileError) throw new StoreMismatchError(`the store's ${e.message}`);
    throw e;
  }
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    // A RangeError here is a nesting too deep for the parser: not a manifest either.
    throw new StoreMismatchError(`${file} is not JSON (${(e as Error).message})`);
  }
}

/**
 * The manifest of the store at `root`, or undefined when it has none yet. `symbols`: only these
 * symbols' coverage is read (format 2); all when absent.
 */
export async function readManifest(root: string, options: { symbols?: readonly string[] } = {}): Promise<Manifest | undefined> {
  const where = path.join(root, MANIFEST_FILE);
  const parsed = await readJson(root, where, MAX_MANIFEST_BYTES);
  if (parsed === undefined) return undefined;
  if (!isRecord(parsed) || (parsed.format !== MANIFEST_FORMAT && parsed.format !== MANIFEST_FORMAT_V1)) {
    throw new StoreMismatchError(`${where} is not a tradeapi store manifest (format ${MANIFEST_FORMAT} or ${MANIFEST_FORMAT_V1})`);
  }
  if (typeof parsed.server !== 'string' || typeof parsed.zone !== 'string') throw new StoreMismatchError(`${where} lacks server or zone`);
  const base = {
    format: parsed.format as ManifestFormat,
    server: parsed.server,
    zone: parsed.zone,
    created: typeof parsed.created === 'string' ? parsed.created : '',
    updated: typeof parsed.updated === 'string' ? parsed.updated : '',
  };
  if (parsed.format === MANIFEST_FORMAT_V1) {
    if (!isRecord(parsed.symbols)) throw new StoreMismatchError(`${where} lacks symbols`);
    const symbols: Record<string, SymbolCoverage> = {};
    for (const [symbol, cov] of Object.entries(parsed.symbols)) symbols[symbol] = checkCoverage(cov, `${where}: symbol ${symbol}`);
    return { ...base, symbols };
  }
  const names = options.symbols ?? (await storedSymbols(root));
  const symbols: Record<string, SymbolCoverage> = {};
  for (const symbol of names) {
    const cov = await readSymbolCoverage(root, symbol);
    if (cov) symbols[symbol] = cov;
  }
  return { ...base, symbols };
}

/** One symbol's coverage from its manifest file (format 2), or undefined when the store has none of it. */
export async function readSymbolCoverage(root: string, symbol: string): Promise<SymbolCoverage | undefined> {
  const file = symbolManifestFile(root, symbol);
  const parsed = await readJson(root, file, MAX_SYMBOL_MANIFEST_BYTES);
  if (parsed === undefined) return undefined;
  if (!isRecord(parsed) || parsed.format !== MANIFEST_FORMAT || parsed.symbol !== symbol) {
    throw new StoreMismatchError(`${file} is not the ${MANIFEST_FORMAT} manifest of ${symbol}`);
  }
  return checkCoverage(parsed, file);
}

/** The symbols a format-2 store has a manifest of. */
export async function storedSymbols(root: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(path.join(root, SYMBOL_MANIFESTS_DIR));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return names.flatMap((n) => (n.startsWith('symbol=') && n.endsWith('.json') ? [unescapeSymbol(n.slice('symbol='.length, -'.json'.length))] : [])).sort();
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** A coverage object as read: its entries checked field by field (a manifest is data, not trusted code). */
function checkCoverage(v: unknown, where: string): SymbolCoverage {
  if (!isRecord(v) || !isRecord(v.ticks) || !isRecord(v.bars_m1)) throw new StoreMismatchError(`${where} has no ticks/bars_m1 coverage`);
  for (const dataset of ['ticks', 'bars_m1'] as const) {
    for (const [key, e] of Object.entries(v[dataset] as Record<string, unknown>)) {
      const ok = isRecord(e) && isCount(e.rows) && typeof e.complete === 'boolean' && typeof e.fetched === 'string' &&
        (e.through === undefined || typeof e.through === 'string') && (e.unavailable === undefined || typeof e.unavailable === 'boolean') &&
        (e.bytes === undefined || isCount(e.bytes)) && (e.first_msc === undefined || Number.isSafeInteger(e.first_msc)) &&
        (e.last_msc === undefined || Number.isSafeInteger(e.last_msc)) && (e.xxh3_128 === undefined || typeof e.xxh3_128 === 'string');
      if (!ok) throw new StoreMismatchError(`${where}: the ${dataset} entry ${JSON.stringify(key)} is not a partition entry`);
    }
  }
  return { ticks: v.ticks as Record<string, PartitionEntry>, bars_m1: v.bars_m1 as Record<string, PartitionEntry> };
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

/**
 * Writes `text` to `target` (below `root`) atomically: a temp file beside it, flushed, renamed over
 * it. Never through a directory that leads out of the store; a symlink planted as `target` is
 * replaced, not followed (rename replaces the link itself).
 */
async function writeAtomic(root: string, target: string, text: string): Promise<void> {
  await makeDirsBelow(root, target);
  const temp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const handle = await open(temp, 'wx');
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } catch (e) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw e;
  }
  await handle.close();
  await rename(temp, target);
}

/** Writes manifest.json (format 2: the store's identity alone). */
export async function writeManifestHeader(root: string, manifest: Manifest): Promise<void> {
  const { server, zone, created, updated } = manifest;
  await writeAtomic(root, path.join(root, MANIFEST_FILE), `${JSON.stringify({ format: MANIFEST_FORMAT, server, zone, created, updated }, null, 1)}\n`);
}

/** Writes `symbol`'s manifest file (its directory made when missing). One entry a line: compact, and a diff of two reads well. */
export async function writeSymbolManifest(root: string, manifest: Manifest, symbol: string): Promise<void> {
  const cov = coverageOf(manifest, symbol);
  const block = (o: Record<string, PartitionEntry>): string => {
    const keys = Object.keys(o).sort();
    return keys.length === 0 ? '{}' : `{\n${keys.map((k) => `  ${JSON.stringify(k)}: ${JSON.stringify(o[k])}`).join(',\n')}\n }`;
  };
  const text = `{\n "format": ${JSON.stringify(MANIFEST_FORMAT)},\n "symbol": ${JSON.stringify(symbol)},\n "ticks": ${block(cov.ticks)},\n "bars_m1": ${block(cov.bars_m1)}\n}\n`;
  await writeAtomic(root, symbolManifestFile(root, symbol), text);
}

/**
 * A format-1 store rewritten as format 2: every symbol's file first, then manifest.json, so that a
 * kill in between leaves format 1 (read as before; the next writer upgrades again).
 */
export async function upgradeManifest(root: string, manifest: Manifest): Promise<void> {
  if (manifest.format === MANIFEST_FORMAT) return;
  for (const symbol of Object.keys(manifest.symbols)) await writeSymbolManifest(root, manifest, symbol);
  await writeManifestHeader(root, manifest);
  manifest.format = MANIFEST_FORMAT;
}


/**
 * The per-symbol manifests of a sync, written as partitions are recorded but at most once every
 * `intervalMs` per symbol (and always on flush): a symbol with 16 years of days has a ~1 MB
 * manifest, and rewriting it after each of thousands of partitions made a first full-history sync
 * quadratic. A kill loses at most the last interval's entries; their files are complete, and the
 * next sync fetches them again (as after a kill between a file and its entry).
 */
export class ManifestWriter {
  private readonly dirty = new Map<string, number>();
  private readonly written = new Map<string, number>();

  /** The interval starts now: a sync shorter than it writes each symbol's manifest once, at its end. */
  constructor(private readonly root: string, private readonly manifest: Manifest, private readonly intervalMs = 1_000, private readonly now = Date.now) {
    this.started = now();
  }

  private readonly started: number;

  /** Records an entry; writes its symbol's manifest when the last write is older than the interval. */
  async set(symbol: string, dataset: Dataset, key: string, entry: PartitionEntry): Promise<void> {
    // A partition replaced (a refresh, today's day again) is named at once: until its entry is
    // written, the gateway would find the new file unlike the old entry, and take it for damage.
    const replaced = (this.manifest.symbols[symbol]?.[dataset][key]?.rows ?? 0) > 0;
    setEntry(this.manifest, symbol, dataset, key, entry);
    this.dirty.set(symbol, (this.dirty.get(symbol) ?? 0) + 1);
    if (replaced || this.now() - (this.written.get(symbol) ?? this.started) >= this.intervalMs) await this.write(symbol);
  }

  /** Writes every symbol with entries not written yet. */
  async flush(): Promise<void> {
    for (const symbol of [...this.dirty.keys()]) await this.write(symbol);
  }

  private async write(symbol: string): Promise<void> {
    this.dirty.delete(symbol);
    await writeSymbolManifest(this.root, this.manifest, symbol);
    this.written.set(symbol, this.now());
  }
}
