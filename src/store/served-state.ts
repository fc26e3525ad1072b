// What the serving decorator (store-terminal.ts) keeps between requests: the manifest, one symbol
// at a time, read again only when a file changed; the partitions found damaged (each reported once,
// not covered from then on); and the decoded M1 months most recently used.
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';

import type { RateChunk } from '../terminal/series.js';
import { MANIFEST_FILE, monthKey } from './layout.js';
import { MANIFEST_FORMAT, readManifest, readSymbolCoverage, StoreMismatchError, symbolManifestFile, type Manifest } from './manifest.js';
import { isPartitionDamage, storeDamaged, storedPartition, type PartitionDamageError, type StoredPartition } from './partition.js';
import { decodeRates } from './reader.js';

/**
 * Partitions found not to be what their manifest entry recorded: not covered from then on (the
 * terminal answers for them), each reported once. Keyed by file and entry, so that a partition a
 * sync or `verify --repair` rewrote (a new entry) is trusted again.
 */
export class DamagedPartitions {
  private readonly seen = new Set<string>();

  constructor(private readonly onDamaged?: (e: PartitionDamageError) => void) {}

  private static key(p: StoredPartition): string {
    return `${p.file}\n${p.entry.fetched}\n${p.entry.xxh3_128 ?? ''}`;
  }

  has(p: StoredPartition): boolean {
    return this.seen.size > 0 && this.seen.has(DamagedPartitions.key(p));
  }

  report(e: PartitionDamageError): void {
    const key = DamagedPartitions.key(e.partition);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.onDamaged?.(e);
  }
}

/**
 * The manifest as the gateway needs it, one symbol at a time: manifest.json (the store's identity;
 * format 1: everything) and the symbol's own manifest file (format 2), each read again only when it
 * changed (a sync beside the server replaces them). A manifest that cannot be read (not JSON, not a
 * regular file, too big) is told once and the store is not used until it changes.
 */
export class ManifestCache {
  private header: { mtimeMs: number; size: number; manifest: Manifest } | undefined;
  private readonly symbols = new Map<string, { mtimeMs: number; size: number; manifest: Manifest }>();
  private told = '';

  constructor(private readonly root: string, private readonly onUnreadable?: (why: string) => void) {}

  private unreadable(e: unknown): undefined {
    if (!(e instanceof StoreMismatchError)) throw e;
    if (this.told !== e.message) this.onUnreadable?.(`${e.message}: the store is not used`);
    this.told = e.message;
    return undefined;
  }

  /** The store's identity (format 1: with every symbol), or undefined (no store yet, or unreadable). */
  async identity(): Promise<Manifest | undefined> {
    let st;
    try {
      st = await stat(path.join(this.root, MANIFEST_FILE));
    } catch {
      this.header = undefined;
      return undefined; // no store yet: everything from the terminal
    }
    const c = this.header;
    if (c && c.mtimeMs === st.mtimeMs && c.size === st.size) return c.manifest;
    try {
      const manifest = await readManifest(this.root, { symbols: [] });
      if (manifest) this.header = { mtimeMs: st.mtimeMs, size: st.size, manifest };
      this.symbols.clear();
      return manifest;
    } catch (e) {
      return this.unreadable(e);
    }
  }

  /** The manifest with `symbol`'s coverage (format 2: that symbol only). */
  async get(symbol: string): Promise<Manifest | undefined> {
    const header = await this.identity();
    if (!header || header.format !== MANIFEST_FORMAT) return header;
    const file = symbolManifestFile(this.root, symbol);
    let st;
    try {
      st = await stat(file);
    } catch {
      this.symbols.delete(symbol);
      return header; // nothing of this symbol
    }
    const c = this.symbols.get(symbol);
    if (c && c.mtimeMs === st.mtimeMs && c.size === st.size) return c.manifest;
    try {
      const cov = await readSymbolCoverage(this.root, symbol);
      const manifest: Manifest = { ...header, symbols: cov ? { [symbol]: cov } : {} };
      this.symbols.set(symbol, { mtimeMs: st.mtimeMs, size: st.size, manifest });
      return manifest;
    } catch (e) {
      return this.unreadable(e);
    }
  }
}

/**
 * Decoded M1 month files, the most recently used few kept (a month of M1 bars is ~2 MB decoded),
 * each checked against its file's size and mtime so that a sync's replacement is seen. A month
 * found damaged is reported and fails the request with store-damaged (rows of it may have been
 * sent: bars are built across months); from then on it is not covered, and the terminal answers.
 */
export class M1Months {
  private readonly entries = new Map<string, { mtimeMs: number; size: number; fetched: string; chunks: RateChunk[] }>();

  constructor(private readonly damaged: DamagedPartitions, private readonly keep = 12) {}

  async get(part: StoredPartition | undefined): Promise<readonly RateChunk[]> {
    if (!part) return [];
    const file = part.file;
    let st: Stats;
    try {
      st = await stat(file);
    } catch {
      this.entries.delete(file);
      if (part.entry.rows === 0) return [];
    }
    const hit = this.entries.get(file);
    if (hit && st! && hit.mtimeMs === st.mtimeMs && hit.size === st.size && hit.fetched === part.entry.fetched) {
      this.entries.delete(file); // most recent last
      this.entries.set(file, hit);
      return hit.chunks;
    }
    let chunks: RateChunk[];
    try {
      chunks = (await decodeRates(part)) ?? [];
    } catch (e) {
      if (!isPartitionDamage(e)) throw e;
      this.damaged.report(e);
      throw storeDamaged(e);
    }
    this.entries.delete(file);
    if (st!) this.entries.set(file, { mtimeMs: st.mtimeMs, size: st.size, fetched: part.entry.fetched, chunks });
    while (this.entries.size > this.keep) this.entries.delete(this.entries.keys().next().value as string);
    return chunks;
  }
}

/** The stored partition of `symbol`'s M1 month holding `ms`, or undefined when the manifest has none. */
export function monthPart(root: string, manifest: Manifest | undefined, symbol: string, ms: number): StoredPartition | undefined {
  const key = monthKey(ms);
  const entry = manifest?.symbols[symbol]?.bars_m1[key];
  return entry && !entry.unavailable ? storedPartition(root, 'bars_m1', symbol, key, entry) : undefined;
}

