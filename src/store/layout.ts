// Where each partition of the store lives. Days and months are UTC (stored times are true UTC);
// symbol names are escaped for paths as Hive escapes partition values, so that "symbol=…" reads
// back as the symbol in DuckDB, Spark, Polars or Trino.
import path from 'node:path';

export const DAY_MS = 86_400_000;
export const MINUTE_MS = 60_000;

/** The two datasets of a store. */
export type Dataset = 'ticks' | 'bars_m1';

/** The one data file of each partition (replaced whole, atomically, when a partition is rewritten). */
export const PART_FILE = 'part-0.parquet';
export const MANIFEST_FILE = 'manifest.json';
export const LOCK_FILE = '.sync.lock';

/** Hive's escapePathName: these characters and the control characters become %XX. */
const HIVE_ESCAPE = /[\x00-\x1f"#%'*/:=?\\\x7f{}[\]^]/g;

export function escapeSymbol(symbol: string): string {
  return symbol.replace(HIVE_ESCAPE, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

export function unescapeSymbol(escaped: string): string {
  return escaped.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** 'YYYY-MM-DD' of the UTC day holding `ms`. */
export function dayKey(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** 'YYYY-MM' of the UTC month holding `ms`. */
export function monthKey(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** Start (ms, UTC) of the UTC day holding `ms`. */
export function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** Start of the UTC month holding `ms`. */
export function monthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** Start of the UTC month after the one holding `ms`. */
export function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** Start of a day key ('YYYY-MM-DD'), or NaN. */
export function dayKeyStart(key: string): number {
  return /^\d{4}-\d{2}-\d{2}$/.test(key) ? Date.parse(`${key}T00:00:00Z`) : NaN;
}

/** The directory of one partition. */
export function partitionDir(root: string, dataset: Dataset, symbol: string, key: string): string {
  const part = dataset === 'ticks' ? `date=${key}` : `month=${key}`;
  return path.join(root, dataset, `symbol=${escapeSymbol(symbol)}`, part);
}

/** The data file of one partition. */
export function partitionFile(root: string, dataset: Dataset, symbol: string, key: string): string {
  return path.join(partitionDir(root, dataset, symbol, key), PART_FILE);
}
