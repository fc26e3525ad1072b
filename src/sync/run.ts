// `tradeapi sync`: pulls ticks and M1 bars of some symbols from the terminal into a store
// (src/store/), one partition file per UTC day of ticks and per UTC month of bars, incrementally.
//
//   resume      a partition the manifest records as complete is never pulled again (unless
//               --refresh reaches it); one it records as partial (today, this month) or not at
//               all is written again whole and its file replaced: so an overlap is replaced as a
//               block and identical genuine ticks are never deduplicated away. A partial day of
//               ticks takes its rows up to `through` from its own file and only the newer ones
//               from the terminal (ticks are keyed by the millisecond: nothing lost or doubled);
//               months of bars are pulled again whole (a month of M1 bars is small)
//   atomic      each file is written to FILE.tmp-PID and renamed over FILE (export/atomic-file.ts),
//               then the manifest (itself atomic); a kill at any moment leaves only whole files
//   bars        never the still-forming bar: a month is pulled up to the last bar that has closed
//   one writer  DIR/.sync.lock (store/lock.ts)
//   terminal    chunk by chunk (64 K rows a call), so an interactive call waits at most one chunk
//
// Exit status: 0 done, 1 failed (a terminal error, the store busy), 2 bad arguments (an unknown
// symbol, a store of another server or zone, a --store that is not a directory), 130/143 on
// SIGINT/SIGTERM (the file in progress is discarded; what is committed stays).
import { mkdir, stat, unlink } from 'node:fs/promises';

import { ConfigError, loadTerminalSettings, type Env } from '../config/index.js';
import { encodeSeries } from '../encode/index.js';
import { AtomicFile } from '../export/atomic-file.js';
import { Progress, type ProgressStream } from '../export/progress.js';
import { symbolHint } from '../http/symbol-hint.js';
import { lowerBound } from '../store/decode-protocol.js';
import { DAY_MS, dayKey, dayStart, MINUTE_MS, monthKey, monthStart, nextMonthStart, partitionFile, type Dataset } from '../store/layout.js';
import { StoreBusyError, StoreLock } from '../store/lock.js';
import { checkIdentity, emptyManifest, MANIFEST_FORMAT, ManifestWriter, readManifest, StoreMismatchError, upgradeManifest, writeManifestHeader, type Manifest, type PartitionEntry } from '../store/manifest.js';
import { footerOf, ProofBuilder, proofFields, type Proof } from '../store/proof.js';
import { checkDirsBelow, makeDirsBelow, UnsafeStoreFileError } from '../store/safe-file.js';
import { mixedTicks } from '../store/store-terminal.js';
import { isTerminalError } from '../terminal/errors.js';
import type { RateChunk, Series, TickChunk } from '../terminal/series.js';
import type { Terminal } from '../terminal/terminal.js';
import { parseSyncArgs, SYNC_USAGE, UsageError, type SyncRequest } from './args.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
const INTERRUPT_GRACE_MS = 3_000;
/** Ticks younger than this are not trusted to be all there yet: a day is complete this long after its end. */
export const SETTLE_MS = 5_000;
/** Rows per terminal call: bounds how long an interactive call waits behind the sync. */
const SYNC_CHUNK_ROWS = 65_536;
const TIMEFRAME_M1 = 1;
const COPY_TICKS_ALL = -1;

export interface SyncIo {
  env: Env;
  stdout: ProgressStream;
  stderr: ProgressStream;
}

export class Interrupted extends Error {
  override readonly name = 'Interrupted';
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
  }
}

export const signalExit = (signal: NodeJS.Signals): number => 128 + (signal === 'SIGINT' ? 2 : 15);

/**
 * SIGINT/SIGTERM for a command that writes partitions (sync, verify --repair): the first signal
 * interrupts the partition in progress (its file discarded, what is committed stays) and wakes a
 * wait; if the command has not ended INTERRUPT_GRACE_MS later, or at a second signal, it exits at
 * once with 128 + the signal's number, after the lock is released. `dispose()` in the command's
 * `finally`.
 */
export class SignalWatch {
  interrupted: Interrupted | undefined;
  /** A wait in progress that a signal should end (its `cancel`). */
  readonly wake: { cancel?: () => void } = {};
  private fallback: NodeJS.Timeout | undefined;
  private readonly onSignal = (signal: NodeJS.Signals): void => {
    if (this.interrupted) {
      this.ctx.current?.discardSync();
      process.exit(signalExit(this.interrupted.signal));
    }
    const interrupted = (this.interrupted = new Interrupted(signal));
    this.ctx.current?.interrupt(interrupted);
    this.wake.cancel?.();
    this.fallback = setTimeout(() => {
      this.ctx.current?.discardSync();
      this.say(interrupted.message);
      void this.release().finally(() => process.exit(signalExit(signal)));
    }, INTERRUPT_GRACE_MS);
    this.fallback.unref();
  };

  constructor(
    private readonly ctx: Pick<SyncContext, 'current'>,
    private readonly say: (line: string) => void,
    private readonly release: () => Promise<void>,
  ) {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  dispose(): void {
    clearTimeout(this.fallback);
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}

/** Passes chunks on, checking time order and counting rows; the first chunk was read already. */
class CheckedSeries<C extends TickChunk | RateChunk> implements Series<C> {
  rows = 0;
  lastMs: number | undefined;
  private pending: C | null;
  private last = -1n;

  constructor(
    first: C,
    private readonly inner: Series<C>,
    private readonly what: string,
    private readonly onChunk: (s: CheckedSeries<C>) => void,
    /** The partition's proof, built from exactly the rows handed on to the file. */
    readonly proof?: ProofBuilder,
  ) {
    this.pending = first;
  }

  async next(): Promise<C | null> {
    let chunk: C | null;
    if (this.pending) {
      chunk = this.pending;
      this.pending = null;
    } else {
      chunk = await this.inner.next();
    }
    if (chunk === null) return null;
    const times = 'time_msc' in chunk ? chunk.time_msc : chunk.time;
    const strict = !('time_msc' in chunk); // bars: one per open time; ticks may share a millisecond
    for (let i = 0; i < chunk.rows; i++) {
      const t = times[i] as bigint;
      if (t < this.last || (strict && t === this.last)) throw new Error(`the terminal returned ${this.what} out of time order (at ${t}); nothing was stored for this partition`);
      this.last = t;
    }
    this.rows += chunk.rows;
    this.proof?.update(chunk);
    if (chunk.rows > 0) this.lastMs = Number('time_msc' in chunk ? this.last : this.last * 1000n);
    this.onChunk(this);
    return chunk;
  }

  close(): void {
    this.inner.close();
  }

  readAhead(enabled: boolean): void {
    this.inner.readAhead?.(enabled);
  }

  /** Forwarded: chunks pass unchanged (only their times are read, in next()) and none is kept once handed on. */
  release(chunk: C): void {
    this.inner.release?.(chunk);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<C> {
    for (;;) {
      const c = await this.next();
      if (c === null) return;
      yield c;
    }
  }
}

/** The first non-empty chunk, or null for an empty series (closed then). */
async function firstChunk<C extends { rows: number }>(series: Series<C>): Promise<C | null> {
  for (;;) {
    const c = await series.next();
    if (c === null) {
      series.close();
      return null;
    }
    if (c.rows > 0) return c;
  }
}

interface Totals {
  rows: number;
  bytes: number;
  files: number;
}

export interface SyncContext {
  terminal: Terminal;
  root: string;
  manifest: Manifest;
  /** The terminal's clock, ms UTC. */
  now(): number;
  /** Set once a signal arrived: stop at the next partition. */
  stopped(): Interrupted | undefined;
  /** The file being written, so that a signal can interrupt and discard it. */
  current: AtomicFile | undefined;
  /** The per-symbol manifests, written as partitions are recorded (at most once a second each). */
  manifests: ManifestWriter;
  progress: (label: string, range: { fromMs: number; toMs: number }) => Progress;
}

/** What one partition needs: nothing (complete), or a pull of [fromMs, throughMs]. */
function plan(entry: PartitionEntry | undefined, start: number, end: number, settledTo: number, refreshFrom: number): { throughMs: number; complete: boolean } | undefined {
  if (start > settledTo) return undefined; // in the future
  const refresh = start >= refreshFrom;
  if (entry && entry.complete && !refresh) return undefined;
  if (entry?.unavailable && !refresh) return undefined;
  const throughMs = Math.min(end - 1, settledTo);
  return { throughMs, complete: throughMs === end - 1 };
}

/** A partition's series, opened and asked for its first rows (reading ahead), or why it could not be. */
export interface Started<C> {
  readonly series: Promise<Series<C>>;
  readonly first: Promise<C | null>;
}

/**
 * Opens a partition's series and starts reading it: called for the next day as soon as the current
 * day's first rows came, so that the terminal (whose calls take turns) goes on to the next day as
 * soon as it has sent this one, never idle between two days. Never rejects unhandled: the
 * rejection is seen when the day is written.
 */
export function start<C extends { rows: number }>(open: () => Promise<Series<C>>): Started<C> {
  const series = configured(open());
  const first = series.then((s) => firstChunk(s));
  series.catch(() => undefined);
  first.catch(() => undefined);
  return { series, first };
}

/** A series being opened, set to the sync's chunk size and to read ahead. */
function configured<C>(opening: Promise<Series<C>>): Promise<Series<C>> {
  return opening.then((s) => {
    s.setChunkRows?.(SYNC_CHUNK_ROWS);
    s.readAhead?.(true);
    return s;
  });
}

/** Whole days asked for in one range at most (see DayRun). */
const RUN_DAYS = 7;

/** Rows [a, b) of a chunk, as views (no copy). */
function rowsOf(c: TickChunk, a: number, b: number): TickChunk {
  return {
    rows: b - a, time: c.time.subarray(a, b), bid: c.bid.subarray(a, b), ask: c.ask.subarray(a, b), last: c.last.subarray(a, b),
    volume: c.volume.subarray(a, b), time_msc: c.time_msc.subarray(a, b), flags: c.flags.subarray(a, b), volume_real: c.volume_real.subarray(a, b),
  };
}

/**
 * One range of consecutive days from the terminal, cut into its days as it streams: day(start,
 * end) is a series of the rows with start <= time_msc < end, as views of the range's chunks, and
 * must be read to its end (or closed) before the next day is asked for. Closing a day leaves the
 * range open; close() closes it. A range the terminal refuses (not_found: before its history) is
 * asked for day by day instead, so that each day is recorded as the terminal answers it.
 */
class DayRun {
  private chunk: TickChunk | null = null;
  private at = 0;
  private ended = false;

  constructor(private readonly series: Promise<Series<TickChunk>>) {
    series.catch(() => undefined);
  }

  day(start: number, end: number, alone: () => Promise<Series<TickChunk>>): Started<TickChunk> {
    return startOpened(this.series.then(
      (s) => this.part(s, BigInt(end)),
      (e: unknown) => {
        if (isTerminalError(e) && e.kind === 'not_found') return configured(alone());
        throw e;
      },
    ));
  }

  close(): void {
    this.series.then((s) => s.close(), () => undefined);
  }

  private part(range: Series<TickChunk>, end: bigint): Series<TickChunk> {
    let closed = false;
    const next = async (): Promise<TickChunk | null> => {
      for (;;) {
        if (closed) return null;
        if (this.chunk === null || this.at >= this.chunk.rows) {
          if (this.ended) return null;
          const c = await range.next();
          if (c === null) {
            this.ended = true;
            return null;
          }
          this.chunk = c;
          this.at = 0;
          continue;
        }
        const times = this.chunk.time_msc;
        if ((times[this.at] as bigint) >= end) return null; // the next day's
        const b = lowerBound(times, end, this.at);
        const rows = rowsOf(this.chunk, this.at, b);
        this.at = b;
        return rows;
      }
    };
    return {
      next,
      close: () => void (closed = true),
      async *[Symbol.asyncIterator]() {
        for (let c = await next(); c !== null; c = await next()) yield c;
      },
    };
  }
}

/** As start(), for a series being opened already (a day of a range: nothing to configure). */
function startOpened<C extends { rows: number }>(opened: Promise<Series<C>>): Started<C> {
  const first = opened.then((s) => firstChunk(s));
  opened.catch(() => undefined);
  first.catch(() => undefined);
  return { series: opened, first };
}

/** Closes a started series that will not be written (a stop between two days). */
function abandon<C>(started: Started<C> | undefined): void {
  started?.series.then((s) => s.close(), () => undefined);
}

/**
 * Writes one partition from a started series: a file when it has rows, none (and none left) when
 * not. `begun` runs once the terminal has begun answering it (its first rows, or that it has none).
 */
export async function writePartition<C extends TickChunk | RateChunk>(
  ctx: SyncContext,
  dataset: Dataset,
  symbol: string,
  key: string,
  started: Started<C>,
  onChunk: (rows: number, bytes: number, lastMs: number | undefined) => void,
  begun: () => void = () => undefined,
): Promise<{ rows: number; bytes: number; unavailable: boolean; proof?: Proof }> {
  const file = partitionFile(ctx.root, dataset, symbol, key);
  let series: Series<C>;
  let first: C | null;
  try {
    series = await started.series;
    first = await started.first;
  } catch (e) {
    // A range the terminal does not serve (before its history, beyond maxbars): recorded as such.
    if (isTerminalError(e) && e.kind === 'not_found') {
      begun();
      return { rows: 0, bytes: 0, unavailable: true };
    }
    throw e;
  }
  // The terminal has begun answering this partition: the next one is asked for now, so that the
  // terminal (whose calls take turns) starts on it as soon as this one's last row is out, while
  // these rows travel, are encoded and flushed. Two partitions in flight at most.
  begun();
  if (first === null) {
    // Fetched and empty: no file (a refresh that finds a day emptied removes the old one), never
    // through a directory that leads out of the store.
    if (await checkDirsBelow(ctx.root, file)) {
      await unlink(file).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      });
    }
    return { rows: 0, bytes: 0, unavailable: false };
  }
  await makeDirsBelow(ctx.root, file);
  const sink = await AtomicFile.create(file, undefined);
  ctx.current = sink;
  const proof = new ProofBuilder(dataset);
  const checked = new CheckedSeries(first, series, dataset === 'ticks' ? 'ticks' : 'bars', (s) => onChunk(s.rows, sink.bytes, s.lastMs), proof);
  try {
    const stop = ctx.stopped();
    if (stop) sink.interrupt(stop);
    // The footer carries the proof of the rows just written (proof.ts), and so does the manifest.
    const footerMetadata = (): Record<string, string> => footerOf(symbol, dataset, key, proof.proof());
    const encoded = dataset === 'ticks'
      ? encodeSeries('parquet', 'ticks', checked as unknown as Series<TickChunk>, { compression: 'zstd', footerMetadata })
      : encodeSeries('parquet', 'rates', checked as unknown as Series<RateChunk>, { compression: 'zstd', footerMetadata });
    await encoded.writeTo(sink);
    const late = ctx.stopped();
    if (late) throw late;
    await sink.commit();
  } catch (e) {
    await sink.discard();
    throw e;
  } finally {
    ctx.current = undefined;
    checked.close();
  }
  return { rows: checked.rows, bytes: sink.bytes, unavailable: false, proof: proof.proof() };
}

/** One pass over every symbol: the days and months from --from to --to (or now) that need it. */
export async function syncPass(ctx: SyncContext, request: Pick<SyncRequest, 'symbols' | 'fromMs' | 'toMs' | 'refreshDays' | 'ticks' | 'bars'>): Promise<Totals> {
  const totals: Totals = { rows: 0, bytes: 0, files: 0 };
  const now = ctx.now();
  const settled = now - SETTLE_MS;
  const last = Math.min(request.toMs ?? now, now);
  const refreshFrom = request.refreshDays > 0 ? dayStart(now) - request.refreshDays * DAY_MS : Infinity;
  const lastClosedBar = Math.floor(now / MINUTE_MS) * MINUTE_MS - MINUTE_MS;
  for (const symbol of request.symbols) {
    if (request.ticks) {
      const from = dayStart(request.fromMs);
      const progress = ctx.progress(`${symbol} ticks`, { fromMs: from, toMs: Math.min(dayStart(last) + DAY_MS - 1, settled) });
      let rows = 0;
      let bytes = 0;
      // The days to pull, planned up front (writing one day changes no other day's entry).
      const days: { d: number; key: string; todo: { throughMs: number; complete: boolean }; incremental: boolean }[] = [];
      for (let d = from; d <= last; d += DAY_MS) {
        const key = dayKey(d);
        const entry = ctx.manifest.symbols[symbol]?.ticks[key];
        const todo = plan(entry, d, d + DAY_MS, settled, refreshFrom);
        if (!todo) continue;
        // A day fetched before up to `through` (today, on a --follow pass): its file up to there and
        // only the newer ticks from the terminal, into a new file (unless --refresh reaches it).
        const incremental = entry !== undefined && !entry.complete && !entry.unavailable && entry.through !== undefined && d < refreshFrom;
        days.push({ d, key, todo, incremental });
      }
      // Consecutive whole days are asked for as one range of at most RUN_DAYS days, cut into day
      // files as it streams (DayRun): one call to the terminal instead of one a day, each paying
      // the call's fixed cost and its first window's whole wait before its first row.
      const runOf: number[] = []; // the index of the first day of day i's run
      for (let i = 0; i < days.length; i++) {
        const prev = days[i - 1];
        const joins = prev !== undefined && !prev.incremental && !days[i]!.incremental && prev.todo.complete &&
          days[i]!.d === prev.d + DAY_MS && i - runOf[i - 1]! < RUN_DAYS;
        runOf.push(joins ? runOf[i - 1]! : i);
      }
      const runEnd = (i: number): number => {
        let j = i;
        while (j + 1 < days.length && runOf[j + 1] === runOf[i]) j++;
        return j;
      };
      const open = new Map<number, DayRun>();
      const startDay = (i: number): Started<TickChunk> => {
        const { d, todo, incremental } = days[i]!;
        const dayRange = (): Promise<Series<TickChunk>> => ctx.terminal.copyTicksRange(symbol, d, todo.throughMs, COPY_TICKS_ALL);
        if (incremental) return start(() => mixedTicks(ctx.terminal, ctx.root, ctx.manifest, symbol, d, todo.throughMs));
        const first = runOf[i]!;
        const last = runEnd(i);
        if (last === first) return start(dayRange);
        let run = open.get(first);
        if (!run) {
          run = new DayRun(configured(ctx.terminal.copyTicksRange(symbol, days[first]!.d, days[last]!.todo.throughMs, COPY_TICKS_ALL)));
          open.set(first, run);
        }
        return run.day(d, d + DAY_MS, dayRange);
      };
      let next: Started<TickChunk> | undefined;
      try {
        for (let i = 0; i < days.length; i++) {
          const stop = ctx.stopped();
          if (stop) throw stop;
          const { key, todo } = days[i]!;
          const current = next ?? startDay(i);
          next = undefined;
          const wrote = await writePartition<TickChunk>(ctx, 'ticks', symbol, key, current,
            (r, b, lastMs) => progress.update(rows + r, bytes + b, lastMs),
            () => {
              // This run's last day is coming: the terminal takes the next run's call once its rows
              // are out. (Within a run, the run's own series reads ahead.)
              if (i + 1 < days.length && runOf[i + 1] === i + 1 && !ctx.stopped()) next = startDay(i + 1);
            });
          if (runEnd(i) === i) {
            open.get(runOf[i]!)?.close();
            open.delete(runOf[i]!);
          }
          rows += wrote.rows;
          bytes += wrote.bytes;
          if (wrote.rows > 0) totals.files++;
          await record(ctx, symbol, 'ticks', key, wrote, todo);
        }
      } finally {
        abandon(next);
        for (const run of open.values()) run.close();
      }
      totals.rows += rows;
      totals.bytes += bytes;
      progress.done(rows, bytes, ctx.root);
    }
    if (request.bars) {
      const from = monthStart(request.fromMs);
      const progress = ctx.progress(`${symbol} M1 bars`, { fromMs: from, toMs: Math.min(last, lastClosedBar) });
      let rows = 0;
      let bytes = 0;
      for (let m = from; m <= last; m = nextMonthStart(m)) {
        const stop = ctx.stopped();
        if (stop) throw stop;
        const key = monthKey(m);
        const end = nextMonthStart(m);
        // A bar is in the month when it opens in it; it is final once the next minute has begun.
        const todo = plan(ctx.manifest.symbols[symbol]?.bars_m1[key], m, end, lastClosedBar + MINUTE_MS - 1, end > refreshFrom ? -Infinity : Infinity);
        if (!todo) continue;
        const throughOpen = Math.min(end - MINUTE_MS, lastClosedBar);
        if (throughOpen < m) continue; // not one closed bar yet
        const wrote = await writePartition<RateChunk>(ctx, 'bars_m1', symbol, key,
          start(() => ctx.terminal.copyRatesRange(symbol, TIMEFRAME_M1, m / 1000, throughOpen / 1000)),
          (r, b, lastMs) => progress.update(rows + r, bytes + b, lastMs));
        rows += wrote.rows;
        bytes += wrote.bytes;
        if (wrote.rows > 0) totals.files++;
        await record(ctx, symbol, 'bars_m1', key, wrote, { throughMs: throughOpen + MINUTE_MS - 1, complete: throughOpen === end - MINUTE_MS });
      }
      totals.rows += rows;
      totals.bytes += bytes;
      progress.done(rows, bytes, ctx.root);
    }
  }
  return totals;
}

export async function record(ctx: SyncContext, symbol: string, dataset: Dataset, key: string, wrote: { rows: number; bytes: number; unavailable: boolean; proof?: Proof }, todo: { throughMs: number; complete: boolean }): Promise<void> {
  const entry: PartitionEntry = { rows: wrote.rows, complete: todo.complete, fetched: new Date().toISOString() };
  if (!todo.complete) entry.through = new Date(todo.throughMs).toISOString();
  if (wrote.unavailable) entry.unavailable = true;
  if (wrote.proof && wrote.rows > 0) Object.assign(entry, proofFields(wrote.proof, wrote.bytes));
  await ctx.manifests.set(symbol, dataset, key, entry);
}

/**
 * The store's manifest with `symbols`' coverage, created for this terminal's server and zone, or
 * checked against them; a format-1 store is rewritten as format 2 (manifest.ts).
 */
export async function openManifest(root: string, server: string, zone: string, symbols: readonly string[]): Promise<Manifest> {
  const existing = await readManifest(root, { symbols });
  if (!existing) {
    const m = emptyManifest(server, zone);
    await writeManifestHeader(root, m);
    return m;
  }
  checkIdentity(existing, server, zone, root);
  if (existing.format !== MANIFEST_FORMAT) {
    await upgradeManifest(root, existing);
    return (await readManifest(root, { symbols })) as Manifest;
  }
  return existing;
}

async function ensureDir(root: string): Promise<void> {
  try {
    const st = await stat(root);
    if (!st.isDirectory()) throw new UsageError(`--store ${root} is not a directory`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    await mkdir(root, { recursive: true });
  }
}

const sleep = (ms: number, wake: { cancel?: () => void }): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    wake.cancel = () => {
      clearTimeout(t);
      resolve();
    };
  });

export async function runSync(args: readonly string[], io: SyncIo = { env: process.env, stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const say = (message: string): void => void io.stderr.write(`tradeapi sync: ${message}\n`);
  let request: SyncRequest | undefined;
  let settings;
  try {
    request = parseSyncArgs(args, io.env);
    if (request === undefined) {
      io.stdout.write(SYNC_USAGE);
      return EXIT_OK;
    }
    settings = loadTerminalSettings(io.env);
    await ensureDir(request.store);
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      say(`${e.message}; see tradeapi sync --help`);
      return EXIT_USAGE;
    }
    const err = e as NodeJS.ErrnoException;
    if (typeof err.code === 'string') {
      say(`cannot use the store directory: ${err.message}`);
      return EXIT_USAGE;
    }
    throw e;
  }

  let lock: StoreLock;
  try {
    lock = await StoreLock.acquire(request.store);
  } catch (e) {
    if (e instanceof StoreBusyError) {
      say(e.message);
      return EXIT_FAILED;
    }
    say(`cannot lock the store: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT_USAGE;
  }

  const { openConfiguredTerminal } = await import('../terminal/index.js');
  const { withServerTime } = await import('../terminal/with-server-time.js');
  const raw = openConfiguredTerminal(settings);
  const openedAt = Date.now();
  const terminal = settings.serverTz ? withServerTime(raw, settings.serverTz) : raw;
  const simClock = settings.terminal === 'sim' ? settings.simClockStartMs : undefined;
  const now = (): number => (simClock === undefined ? Date.now() : simClock + (Date.now() - openedAt));

  const ctx: SyncContext = {
    terminal,
    root: request.store,
    manifest: emptyManifest('', ''),
    manifests: new ManifestWriter(request.store, emptyManifest('', '')),
    now,
    stopped: () => watch.interrupted,
    current: undefined,
    progress: (label, range) => new Progress(io.stderr, label, range),
  };
  const watch = new SignalWatch(ctx, say, () => lock.release());
  try {
    for (const symbol of request.symbols) {
      try {
        await terminal.symbolInfo(symbol);
      } catch (e) {
        if (isTerminalError(e) && e.kind === 'not_found') {
          // The HTTP API's hint: "did you mean EURUSD?" for eurusd.
          const hint = await symbolHint(terminal, symbol, '');
          say(`--symbols: the terminal has no symbol ${JSON.stringify(symbol)}${hint === undefined ? '' : `; ${hint}`}`);
          return EXIT_USAGE;
        }
        throw e;
      }
    }
    const account = await terminal.accountInfo();
    ctx.manifest = await openManifest(request.store, account.server, settings.serverTz?.name ?? 'UTC', request.symbols);
    ctx.manifests = new ManifestWriter(request.store, ctx.manifest);
    for (;;) {
      const t = await syncPass(ctx, request).finally(() => ctx.manifests.flush());
      if (!request.follow) {
        if (io.stderr.isTTY !== true) say(`${t.rows} rows in ${t.files} files -> ${request.store}`);
        return EXIT_OK;
      }
      if (watch.interrupted) throw watch.interrupted;
      await sleep(request.intervalS * 1000, watch.wake);
      if (watch.interrupted) throw watch.interrupted;
    }
  } catch (e) {
    if (watch.interrupted) {
      say(watch.interrupted.message);
      return signalExit(watch.interrupted.signal);
    }
    if (e instanceof StoreMismatchError) {
      say(e.message);
      return EXIT_USAGE;
    }
    if (e instanceof UnsafeStoreFileError) {
      say(`refusing to write into the store: ${e.message}`);
      return EXIT_FAILED;
    }
    say(`sync failed: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT_FAILED;
  } finally {
    watch.dispose();
    await lock.release();
    await terminal.close().catch(() => undefined);
  }
}
