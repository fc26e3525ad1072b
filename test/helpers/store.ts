// The store as tests look at it: the whole manifest (format 2 keeps one file per symbol) read and
// written synchronously, and a stored partition around any Parquet file (unproven: checked for its
// placement and kind only, as a format-1 store's are).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { unescapeSymbol, type Dataset } from '../../src/store/layout.js';
import { runSync } from '../../src/sync/run.js';
import { SYMBOL_MANIFESTS_DIR, symbolManifestFile, type Manifest, type PartitionEntry, type SymbolCoverage } from '../../src/store/manifest.js';
import type { StoredPartition } from '../../src/store/partition.js';

/** manifest.json with every symbol's coverage (format 1 as it is; format 2 gathered from manifests/). */
export function manifestOf(root: string): Manifest {
  const head = JSON.parse(readFileSync(path.join(root, 'manifest.json'), 'utf8')) as Manifest;
  if (head.symbols) return head;
  const symbols: Record<string, SymbolCoverage> = {};
  let names: string[] = [];
  try {
    names = readdirSync(path.join(root, SYMBOL_MANIFESTS_DIR));
  } catch {
    // no symbol yet
  }
  for (const name of names) {
    if (!name.startsWith('symbol=') || !name.endsWith('.json')) continue;
    const v = JSON.parse(readFileSync(path.join(root, SYMBOL_MANIFESTS_DIR, name), 'utf8')) as SymbolCoverage & { symbol: string };
    symbols[unescapeSymbol(name.slice('symbol='.length, -'.json'.length))] = { ticks: v.ticks, bars_m1: v.bars_m1 };
  }
  return { ...head, symbols };
}

/** Writes a manifest as format 2 (manifest.json and one file per symbol) — tests that edit entries. */
export function writeManifestOf(root: string, m: Manifest): void {
  const { server, zone, created, updated } = m;
  writeFileSync(path.join(root, 'manifest.json'), JSON.stringify({ format: 'tradeapi-store/2', server, zone, created, updated }));
  mkdirSync(path.join(root, SYMBOL_MANIFESTS_DIR), { recursive: true });
  for (const [symbol, cov] of Object.entries(m.symbols)) {
    writeFileSync(symbolManifestFile(root, symbol), JSON.stringify({ format: 'tradeapi-store/2', symbol, ticks: cov.ticks, bars_m1: cov.bars_m1 }));
  }
}

/** Any Parquet file as a stored partition without a proof (decodeDay / decodeRates read it as a format-1 store's). */
export function looseFile(file: string, dataset: Dataset = 'ticks', entry: Partial<PartitionEntry> = {}): StoredPartition {
  return { root: path.dirname(file), dataset, symbol: 'X', key: 'x', file, entry: { rows: 0, complete: true, fetched: '', ...entry } };
}

/** A stored partition of a store, with its manifest entry. */
export function partOf(root: string, dataset: Dataset, symbol: string, key: string): StoredPartition {
  const entry = manifestOf(root).symbols[symbol]?.[dataset][key];
  if (!entry) throw new Error(`the store ${root} has no ${dataset} entry ${symbol} ${key}`);
  const dir = dataset === 'ticks' ? `date=${key}` : `month=${key}`;
  return { root, dataset, symbol, key, entry, file: path.join(root, dataset, `symbol=${symbol}`, dir, 'part-0.parquet') };
}

/** `tradeapi sync --only ticks` of `symbols` (comma-separated) from `from` up to the simulator clock `clock`, quietly; its exit code. */
export function syncTicks(store: string, symbols: string, from: string, clock: string): Promise<number> {
  return runSync(['--store', store, '--symbols', symbols, '--from', from, '--only', 'ticks'], {
    env: { TRADEAPI_SIM_CLOCK: clock },
    stdout: { write: () => true },
    stderr: { write: () => true },
  });
}
