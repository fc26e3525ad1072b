// TRADEAPI_STORE_WRITE=1: whole UTC days of ticks the gateway fetched from the terminal for a
// /ticks/range answer are written back into the store, so the next request for them is answered
// from it. What is written, and when:
//
//   whole days   only days the request covered from 00:00:00.000 to 23:59:59.999 UTC, fetched
//                with COPY_TICKS_ALL, streamed to the end (a request aborted midway writes nothing)
//   past days    only days that ended SETTLE_MS before the terminal's last tick (its clock as far
//                as it shows it): never today, never the forming day
//   bounded      a request holds at most `maxRows` ticks for writing (TRADEAPI_STORE_WRITE_MAX_ROWS);
//                a day that does not fit is not written (the response is not affected)
//   one writer   the store's lock is taken for the write; while a sync holds it, nothing is written
//                (the sync will fetch the day itself)
//   atomic       as a sync writes: FILE.tmp-PID, flushed, renamed; then the manifest, atomically,
//                read again under the lock so that a sync's entries are kept
//   identity     a store of another trade server or zone is never written (withStore checks first)
//
// The write happens after the response's rows are handed on, off the request's path; failures are
// reported (logged) and leave the store as it was.
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

import { encodeSeries } from '../encode/index.js';
import type { Series, TickChunk } from '../terminal/series.js';
import { DAY_MS, dayKey, partitionFile } from './layout.js';
import { StoreBusyError, StoreLock } from './lock.js';
import { checkIdentity, emptyManifest, readManifest, setEntry, writeManifest } from './manifest.js';
import type { Part } from './mixed-series.js';

/** A day is past once the terminal's clock is this far beyond its end (as `tradeapi sync` settles). */
export const SETTLE_MS = 5_000;

export type WriteEvent =
  | { kind: 'written'; symbol: string; day: string; rows: number }
  | { kind: 'skipped'; symbol: string; day: string; why: string }
  | { kind: 'failed'; symbol: string; day: string; error: string };

export interface WriteBackOptions {
  root: string;
  /** Ticks held for writing per request, at most. */
  maxRows: number;
  server: () => Promise<string>;
  zone: string;
  /** The terminal's last tick time of `symbol` (ms, UTC): days ending SETTLE_MS before it are past. */
  lastTickMs: (symbol: string) => Promise<number>;
  onEvent?: (e: WriteEvent) => void;
}

/** First index in `times` (ascending) whose value is >= v. */
function lowerBound(times: BigInt64Array, v: bigint): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] as bigint) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function copyRows(c: TickChunk, a: number, b: number): TickChunk {
  return {
    rows: b - a, time: c.time.slice(a, b), bid: c.bid.slice(a, b), ask: c.ask.slice(a, b), last: c.last.slice(a, b), volume: c.volume.slice(a, b),
    time_msc: c.time_msc.slice(a, b), flags: c.flags.slice(a, b), volume_real: c.volume_real.slice(a, b),
  };
}

/** A series over chunks held in memory. */
function heldSeries(chunks: TickChunk[]): Series<TickChunk> {
  let i = 0;
  const next = (): Promise<TickChunk | null> => Promise.resolve(chunks[i++] ?? null);
  return {
    next,
    close: () => void (i = chunks.length),
    async *[Symbol.asyncIterator]() {
      for (let c = await next(); c !== null; c = await next()) yield c;
    },
  };
}

interface HeldDay {
  start: number;
  chunks: TickChunk[];
  rows: number;
}

export class StoreWriter {
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: WriteBackOptions) {}

  /** Resolves once every write queued so far has ended (tests, shutdown). */
  idle(): Promise<void> {
    return this.queue;
  }

  /**
   * `inner` (the terminal's ticks of [fromMs, toMs]) passed on unchanged, with the rows of its whole
   * UTC days held and written back once it has been read to its end. The budget is per request.
   */
  record(symbol: string, inner: Part<TickChunk>, fromMs: number, toMs: number, budget: { rows: number }): Part<TickChunk> {
    const first = Math.ceil(fromMs / DAY_MS) * DAY_MS;
    const days: HeldDay[] = [];
    for (let d = first; d + DAY_MS - 1 <= toMs; d += DAY_MS) days.push({ start: d, chunks: [], rows: 0 });
    if (days.length === 0) return inner;
    let done = false;
    const hold = (c: TickChunk): void => {
      for (const day of days) {
        if (day.rows < 0) continue; // over the budget: dropped
        const a = lowerBound(c.time_msc, BigInt(day.start));
        const b = lowerBound(c.time_msc, BigInt(day.start + DAY_MS));
        if (b <= a) continue;
        if (budget.rows < b - a) {
          budget.rows += day.rows; // what it held goes back: the day is not written
          day.rows = -1;
          day.chunks = [];
          this.options.onEvent?.({ kind: 'skipped', symbol, day: dayKey(day.start), why: `more ticks than TRADEAPI_STORE_WRITE_MAX_ROWS (${this.options.maxRows}) held for one request` });
          continue;
        }
        budget.rows -= b - a;
        day.rows += b - a;
        day.chunks.push(copyRows(c, a, b));
      }
    };
    return {
      next: async () => {
        const c = await inner.next();
        if (c === null) {
          if (!done) {
            done = true;
            const whole = days.filter((d) => d.rows >= 0);
            if (whole.length > 0) this.enqueue(symbol, whole);
          }
          return null;
        }
        if (c.rows > 0) hold(c);
        return c;
      },
      close: () => {
        done = true; // closed before its end: nothing is written
        inner.close();
      },
      ...(inner.setChunkRows ? { setChunkRows: (rows: number) => inner.setChunkRows?.(rows) } : {}),
      ...(inner.readAhead ? { readAhead: (on: boolean) => inner.readAhead?.(on) } : {}),
    };
  }

  private enqueue(symbol: string, days: HeldDay[]): void {
    this.queue = this.queue.then(() => this.write(symbol, days)).catch((e: unknown) => {
      for (const d of days) this.options.onEvent?.({ kind: 'failed', symbol, day: dayKey(d.start), error: e instanceof Error ? e.message : String(e) });
    });
  }

  private async write(symbol: string, days: HeldDay[]): Promise<void> {
    const o = this.options;
    const lastTick = await o.lastTickMs(symbol);
    const past = days.filter((d) => d.start + DAY_MS - 1 + SETTLE_MS < lastTick);
    for (const d of days) if (!past.includes(d)) o.onEvent?.({ kind: 'skipped', symbol, day: dayKey(d.start), why: 'the day is not over on the terminal' });
    if (past.length === 0) return;
    let lock: StoreLock;
    try {
      await mkdir(o.root, { recursive: true }); // a store not filled yet: the gateway starts it
      lock = await StoreLock.acquire(o.root, { ownIsStale: false });
    } catch (e) {
      if (!(e instanceof StoreBusyError)) throw e;
      for (const d of past) o.onEvent?.({ kind: 'skipped', symbol, day: dayKey(d.start), why: 'a sync holds the store' });
      return;
    }
    try {
      const server = await o.server();
      const manifest = (await readManifest(o.root)) ?? emptyManifest(server, o.zone);
      checkIdentity(manifest, server, o.zone, o.root);
      for (const d of past) {
        const key = dayKey(d.start);
        const entry = manifest.symbols[symbol]?.ticks[key];
        if (entry?.complete) {
          o.onEvent?.({ kind: 'skipped', symbol, day: key, why: 'the store holds it already' });
          continue;
        }
        await writeDay(o.root, symbol, key, d.chunks);
        setEntry(manifest, symbol, 'ticks', key, { rows: d.rows, complete: true, fetched: new Date().toISOString() });
        await writeManifest(o.root, manifest);
        o.onEvent?.({ kind: 'written', symbol, day: key, rows: d.rows });
      }
    } finally {
      await lock.release();
    }
  }
}

/** One day's file, as `tradeapi sync` writes it (zstd Parquet through the same encoder), atomically; none for an empty day. */
async function writeDay(root: string, symbol: string, key: string, chunks: TickChunk[]): Promise<void> {
  const file = partitionFile(root, 'ticks', symbol, key);
  if (chunks.length === 0) {
    await unlink(file).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
    return;
  }
  await mkdir(path.dirname(file), { recursive: true });
  // FILE.tmp-PID, as a sync names its temp files, so that a sync removes one a killed gateway left.
  const temp = `${file}.tmp-${process.pid}`;
  await unlink(temp).catch(() => undefined); // ours, from an earlier write that failed to clean up
  const handle = await open(temp, 'wx');
  try {
    await encodeSeries('parquet', 'ticks', heldSeries(chunks), { compression: 'zstd' }).writeTo({
      write: async (bytes: Uint8Array) => {
        let off = 0;
        while (off < bytes.byteLength) off += (await handle.write(bytes, off, bytes.byteLength - off)).bytesWritten;
      },
    });
    await handle.sync();
    await handle.close();
    await rename(temp, file);
  } catch (e) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw e;
  }
}
