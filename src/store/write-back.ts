// TRADEAPI_STORE_WRITE=1: whole UTC days of ticks the gateway fetched from the terminal for a
// /ticks/range answer, and whole UTC months of M1 bars for a /rates/range answer in TIMEFRAME_M1,
// are written back into the store, so the next request for them is answered from it. What is
// written, and when:
//
//   whole days   only days the request covered from 00:00:00.000 to 23:59:59.999 UTC, fetched
//                with COPY_TICKS_ALL, streamed to the end (a request aborted midway writes nothing);
//                for bars, only months whose every minute's bar opens inside the request
//   past days    only days that ended SETTLE_MS before the terminal's last tick (its clock as far
//                as it shows it): never today, never the forming day; a month of bars once its
//                last bar has closed (the same SETTLE_MS after the month's end)
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

import { encodeSeries } from '../encode/index.js';
import type { RateChunk, Series, TickChunk } from '../terminal/series.js';
import { DAY_MS, dayKey, MINUTE_MS, monthKey, monthStart, nextMonthStart, partitionFile, type Dataset } from './layout.js';
import { StoreBusyError, StoreLock } from './lock.js';
import { checkIdentity, emptyManifest, MANIFEST_FORMAT, readManifest, setEntry, upgradeManifest, writeManifestHeader, writeSymbolManifest, type Manifest } from './manifest.js';
import { footerOf, ProofBuilder, proofFields, type Proof } from './proof.js';
import { checkDirsBelow, makeDirsBelow } from './safe-file.js';
import { lowerBound } from './decode-protocol.js';
import type { Part } from './mixed-series.js';

/** A day is past once the terminal's clock is this far beyond its end (as `tradeapi sync` settles). */
export const SETTLE_MS = 5_000;

/** `day` is the partition's key: a UTC day of ticks, or a UTC month (`2024-01`) of M1 bars (`dataset: 'bars_m1'`). */
export type WriteEvent = (
  | { kind: 'written'; symbol: string; day: string; rows: number }
  | { kind: 'skipped'; symbol: string; day: string; why: string }
  | { kind: 'failed'; symbol: string; day: string; error: string }
) & { dataset?: Dataset };

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

function copyRows(c: TickChunk, a: number, b: number): TickChunk {
  return {
    rows: b - a, time: c.time.slice(a, b), bid: c.bid.slice(a, b), ask: c.ask.slice(a, b), last: c.last.slice(a, b), volume: c.volume.slice(a, b),
    time_msc: c.time_msc.slice(a, b), flags: c.flags.slice(a, b), volume_real: c.volume_real.slice(a, b),
  };
}

function copyRateRows(c: RateChunk, a: number, b: number): RateChunk {
  return {
    rows: b - a, time: c.time.slice(a, b), open: c.open.slice(a, b), high: c.high.slice(a, b), low: c.low.slice(a, b), close: c.close.slice(a, b),
    tick_volume: c.tick_volume.slice(a, b), spread: c.spread.slice(a, b), real_volume: c.real_volume.slice(a, b),
  };
}

/** A series over chunks held in memory (copies of our own: no release, nothing to give back). */
function heldSeries<C>(chunks: C[]): Series<C> {
  let i = 0;
  const next = (): Promise<C | null> => Promise.resolve(chunks[i++] ?? null);
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
  end: number;
  chunks: TickChunk[];
  rows: number;
}

interface HeldMonth {
  /** ms, UTC */
  start: number;
  end: number;
  chunks: RateChunk[];
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
    for (let d = first; d + DAY_MS - 1 <= toMs; d += DAY_MS) days.push({ start: d, end: d + DAY_MS, chunks: [], rows: 0 });
    return this.hold(inner, days, budget, {
      times: (c) => c.time_msc,
      msPerUnit: 1,
      copy: copyRows,
      overBudget: (d) => this.options.onEvent?.({ kind: 'skipped', symbol, day: dayKey(d.start), why: `more ticks than TRADEAPI_STORE_WRITE_MAX_ROWS (${this.options.maxRows}) held for one request` }),
      ended: (whole) => this.enqueue(symbol, whole),
    });
  }

  /**
   * `inner` (the terminal's M1 bars opening in [fromS, toS], UTC seconds) passed on unchanged, with
   * the bars of its whole UTC months held and written back once it has been read to its end.
   */
  recordBars(symbol: string, inner: Part<RateChunk>, fromS: number, toS: number, budget: { rows: number }): Part<RateChunk> {
    const months: HeldMonth[] = [];
    const fromMs = fromS * 1000;
    for (let m = monthStart(fromMs) < fromMs ? nextMonthStart(fromMs) : monthStart(fromMs); nextMonthStart(m) - MINUTE_MS <= toS * 1000; m = nextMonthStart(m)) {
      months.push({ start: m, end: nextMonthStart(m), chunks: [], rows: 0 });
    }
    return this.hold(inner, months, budget, {
      times: (c) => c.time,
      msPerUnit: 1000,
      copy: copyRateRows,
      overBudget: (m) => this.options.onEvent?.({ kind: 'skipped', symbol, day: monthKey(m.start), dataset: 'bars_m1', why: `more rows than TRADEAPI_STORE_WRITE_MAX_ROWS (${this.options.maxRows}) held for one request` }),
      ended: (whole) => {
        this.queue = this.queue.then(() => this.writeMonths(symbol, whole)).catch((e: unknown) => {
          for (const m of whole) this.options.onEvent?.({ kind: 'failed', symbol, day: monthKey(m.start), dataset: 'bars_m1', error: e instanceof Error ? e.message : String(e) });
        });
      },
    });
  }

  /**
   * `inner` passed on unchanged, with the rows of each partition (ms, [start, start + its span))
   * held as copies within the request's budget (a partition over it is dropped, what it held given
   * back), and `ended` told the whole ones once `inner` has been read to its end; a close before
   * that writes nothing. Release is forwarded: what is held are copies, no chunk is kept.
   */
  private hold<C extends { rows: number }, P extends { start: number; end: number; chunks: C[]; rows: number }>(
    inner: Part<C>,
    parts: P[],
    budget: { rows: number },
    how: { times: (c: C) => BigInt64Array; msPerUnit: number; copy: (c: C, a: number, b: number) => C; overBudget: (p: P) => void; ended: (whole: P[]) => void },
  ): Part<C> {
    if (parts.length === 0) return inner;
    let done = false;
    const take = (c: C): void => {
      const times = how.times(c);
      for (const p of parts) {
        if (p.rows < 0) continue; // over the budget: dropped
        const a = lowerBound(times, BigInt(p.start / how.msPerUnit));
        const b = lowerBound(times, BigInt(p.end / how.msPerUnit));
        if (b <= a) continue;
        if (budget.rows < b - a) {
          budget.rows += p.rows; // what it held goes back: the partition is not written
          p.rows = -1;
          p.chunks = [];
          how.overBudget(p);
          continue;
        }
        budget.rows -= b - a;
        p.rows += b - a;
        p.chunks.push(how.copy(c, a, b));
      }
    };
    return {
      next: async () => {
        const c = await inner.next();
        if (c === null) {
          if (!done) {
            done = true;
            const whole = parts.filter((p) => p.rows >= 0);
            if (whole.length > 0) how.ended(whole);
          }
          return null;
        }
        if (c.rows > 0) take(c);
        return c;
      },
      close: () => {
        done = true; // closed before its end: nothing is written
        inner.close();
      },
      ...(inner.setChunkRows ? { setChunkRows: (rows: number) => inner.setChunkRows?.(rows) } : {}),
      ...(inner.readAhead ? { readAhead: (on: boolean) => inner.readAhead?.(on) } : {}),
      ...(inner.release ? { release: (c: C) => inner.release?.(c) } : {}),
    };
  }

  private async writeMonths(symbol: string, months: HeldMonth[]): Promise<void> {
    const o = this.options;
    const lastTick = await o.lastTickMs(symbol);
    const past = months.filter((m) => m.end + SETTLE_MS < lastTick);
    for (const m of months) if (!past.includes(m)) o.onEvent?.({ kind: 'skipped', symbol, day: monthKey(m.start), dataset: 'bars_m1', why: 'the month is not over on the terminal' });
    if (past.length === 0) return;
    await this.locked(past.map((m) => monthKey(m.start)), symbol, 'bars_m1', async (manifest) => {
      for (const m of past) {
        const key = monthKey(m.start);
        if (manifest.symbols[symbol]?.bars_m1[key]?.complete) {
          o.onEvent?.({ kind: 'skipped', symbol, day: key, dataset: 'bars_m1', why: 'the store holds it already' });
          continue;
        }
        const proven = await writePartitionFile(o.root, 'bars_m1', symbol, key, m.chunks);
        setEntry(manifest, symbol, 'bars_m1', key, { rows: m.rows, complete: true, fetched: new Date().toISOString(), ...proven });
        await writeSymbolManifest(o.root, manifest, symbol);
        o.onEvent?.({ kind: 'written', symbol, day: key, dataset: 'bars_m1', rows: m.rows });
      }
    });
  }

  /** Runs `write` under the store's lock with its manifest (checked for this server and zone); skips all when a sync holds it. */
  private async locked(keys: string[], symbol: string, dataset: Dataset, write: (manifest: Manifest) => Promise<void>): Promise<void> {
    const o = this.options;
    let lock: StoreLock;
    try {
      await mkdir(o.root, { recursive: true }); // a store not filled yet: the gateway starts it
      lock = await StoreLock.acquire(o.root, { ownIsStale: false });
    } catch (e) {
      if (!(e instanceof StoreBusyError)) throw e;
      for (const key of keys) o.onEvent?.({ kind: 'skipped', symbol, day: key, ...(dataset === 'ticks' ? {} : { dataset }), why: 'a sync holds the store' });
      return;
    }
    try {
      const server = await o.server();
      let manifest = await readManifest(o.root, { symbols: [symbol] });
      if (manifest) {
        checkIdentity(manifest, server, o.zone, o.root);
        if (manifest.format !== MANIFEST_FORMAT) {
          await upgradeManifest(o.root, manifest); // format 1: rewritten as 2 (every symbol) before anything is added
          manifest = (await readManifest(o.root, { symbols: [symbol] })) as Manifest;
        }
      } else {
        manifest = emptyManifest(server, o.zone);
        await writeManifestHeader(o.root, manifest);
      }
      await write(manifest);
    } finally {
      await lock.release();
    }
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
    await this.locked(past.map((d) => dayKey(d.start)), symbol, 'ticks', async (manifest) => {
      for (const d of past) {
        const key = dayKey(d.start);
        const entry = manifest.symbols[symbol]?.ticks[key];
        if (entry?.complete) {
          o.onEvent?.({ kind: 'skipped', symbol, day: key, why: 'the store holds it already' });
          continue;
        }
        const proven = await writePartitionFile(o.root, 'ticks', symbol, key, d.chunks);
        setEntry(manifest, symbol, 'ticks', key, { rows: d.rows, complete: true, fetched: new Date().toISOString(), ...proven });
        await writeSymbolManifest(o.root, manifest, symbol);
        o.onEvent?.({ kind: 'written', symbol, day: key, rows: d.rows });
      }
    });
  }
}

/**
 * One partition's file, as `tradeapi sync` writes it (zstd Parquet through the same encoder, its
 * proof in the footer), atomically, never through a directory leading out of the store; none for
 * an empty one. The proof's manifest fields, or nothing for an empty partition.
 */
async function writePartitionFile(root: string, dataset: Dataset, symbol: string, key: string, chunks: TickChunk[] | RateChunk[]): Promise<ReturnType<typeof proofFields> | Record<string, never>> {
  const file = partitionFile(root, dataset, symbol, key);
  if (chunks.length === 0) {
    if (await checkDirsBelow(root, file)) {
      await unlink(file).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      });
    }
    return {};
  }
  const builder = new ProofBuilder(dataset);
  for (const c of chunks) builder.update(c);
  const proof: Proof = builder.proof();
  const footerMetadata = (): Record<string, string> => footerOf(symbol, dataset, key, proof);
  await makeDirsBelow(root, file);
  let bytes = 0;
  // FILE.tmp-PID, as a sync names its temp files, so that a sync removes one a killed gateway left.
  const temp = `${file}.tmp-${process.pid}`;
  await unlink(temp).catch(() => undefined); // ours, from an earlier write that failed to clean up
  const handle = await open(temp, 'wx');
  try {
    const encoded = dataset === 'ticks'
      ? encodeSeries('parquet', 'ticks', heldSeries(chunks as TickChunk[]), { compression: 'zstd', footerMetadata })
      : encodeSeries('parquet', 'rates', heldSeries(chunks as RateChunk[]), { compression: 'zstd', footerMetadata });
    await encoded.writeTo({
      write: async (piece: Uint8Array) => {
        let off = 0;
        while (off < piece.byteLength) off += (await handle.write(piece, off, piece.byteLength - off)).bytesWritten;
        bytes += piece.byteLength;
      },
    });
    await handle.sync();
    await handle.close();
    await rename(temp, file);
    return proofFields(proof, bytes);
  } catch (e) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw e;
  }
}
