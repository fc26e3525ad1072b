// `tradeapi verify`: every stored partition of the selected symbols and range checked against its
// manifest entry and against the terminal (check.ts), and with --repair the damaged, differing and
// unproven ones fetched again through sync's own partition writer (atomic file, proof in footer
// and manifest) under the store's lock.
//
//   order      partitions by symbol, ticks by day then M1 bars by month; the terminal asked for one
//              after the other (consecutive whole days as one range, as sync asks), each file
//              decoded on the thread pool a few partitions ahead
//   again      a partition the terminal answered with fewer rows than the store holds, or none, is
//              asked for again after --wait-s seconds (a real terminal still downloading history
//              answers short at first): terminal-lost and "the terminal has fewer" only then
//   lock       --repair takes DIR/.sync.lock for the whole run (as sync does: a sync or a
//              gateway's write-back cannot change the store between the check and the repair);
//              a plain verify reads without it, and a partition whose manifest entry changed while
//              it was checked (a sync beside it) is checked again with its new entry
//   repair     never a terminal-lost partition, never one the terminal answers nothing for at
//              repair time (the store's copy is kept); each repaired file is checked again
//
// Exit status: 0 every partition ok, 1 anything else (the report says what; also when repaired),
// 2 bad arguments, not a store, or a store of another server or zone, 130/143 on SIGINT/SIGTERM.
import { stat } from 'node:fs/promises';

import { ConfigError, loadTerminalSettings, type Env, type TerminalSettings } from '../config/index.js';
import { formatCount, Progress, type ProgressStream } from '../export/progress.js';
import { DAY_MS, dayKey, monthKey, type Dataset } from '../store/layout.js';
import { StoreBusyError, StoreLock } from '../store/lock.js';
import { checkIdentity, emptyManifest, ManifestWriter, readManifest, readSymbolCoverage, StoreMismatchError, type Manifest, type PartitionEntry } from '../store/manifest.js';
import { nameOf, storedPartition } from '../store/partition.js';
import { ReadSlots } from '../store/read-slots.js';
import { UnsafeStoreFileError } from '../store/safe-file.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, openManifest, record, SignalWatch, signalExit, start, writePartition, type SyncContext } from '../sync/run.js';
import { isTerminalError } from '../terminal/errors.js';
import type { RateChunk, TickChunk } from '../terminal/series.js';
import type { Terminal } from '../terminal/terminal.js';
import { parseVerifyArgs, UsageError, VERIFY_USAGE, type VerifyRequest } from './args.js';
import { askTerminal, checkFile, judge, recordedSide, RUN_DAYS, STATUSES, targetOf, TickRun, type FileCheck, type Side, type Status, type Target, type TerminalCheck, type Verdict } from './check.js';

const TIMEFRAME_M1 = 1;
const COPY_TICKS_ALL = -1;
/** Partition files decoded ahead of the one being checked (on the thread pool, while the terminal answers). */
const FILES_AHEAD = 2;

type Result = { t: Target; file: Side; term: Side; verdict: Verdict };

export interface VerifyIo {
  env: Env;
  stdout: ProgressStream;
  stderr: ProgressStream;
  /** The terminal to verify against (default: the one the settings name, as sync opens it); tests put a stand-in here. */
  openTerminal?: (settings: TerminalSettings) => Terminal;
}

/** One partition in the report. */
export interface PartitionReport {
  symbol: string;
  dataset: Dataset;
  key: string;
  /** The partition's file, relative to the store. */
  file: string;
  status: Status;
  /** The store's rows (recomputed from the file; for a damaged file, what the manifest recorded). */
  store: Side;
  /** The terminal's rows for the same range; null when it was not asked (interrupted). */
  terminal: Side | null;
  why?: string;
  /** differs: the earliest time_msc where the two first differ, and how. */
  first_diff_msc?: number;
  diff?: 'store-short' | 'terminal-short' | 'revised';
  /** --repair: fetched again (true), or why not. */
  repaired?: boolean;
  repair_note?: string;
}

export interface VerifyReport {
  store: string;
  server: string;
  zone: string;
  partitions: PartitionReport[];
  totals: Record<Status, number> & { partitions: number; rows: number; seconds: number; rows_per_s: number; repaired: number };
}


/** The partitions of the selected symbols, datasets and range, in order. */
function targetsOf(root: string, manifest: Manifest, symbols: readonly string[], request: VerifyRequest): { targets: Target[]; bad: PartitionReport[] } {
  const targets: Target[] = [];
  const bad: PartitionReport[] = [];
  const fromDay = request.fromMs === undefined ? '' : dayKey(request.fromMs);
  const toDay = request.toMs === undefined ? '\uffff' : dayKey(request.toMs);
  const fromMonth = request.fromMs === undefined ? '' : monthKey(request.fromMs);
  const toMonth = request.toMs === undefined ? '\uffff' : monthKey(request.toMs);
  for (const symbol of symbols) {
    const cov = manifest.symbols[symbol];
    if (!cov) continue;
    const datasets: [Dataset, string, string][] = [];
    if (request.ticks) datasets.push(['ticks', fromDay, toDay]);
    if (request.bars) datasets.push(['bars_m1', fromMonth, toMonth]);
    for (const [dataset, lo, hi] of datasets) {
      for (const key of Object.keys(cov[dataset]).sort()) {
        const entry = cov[dataset][key]!;
        if (entry.unavailable || key < lo || key > hi) continue; // refused by the terminal at sync: nothing stored
        const t = targetOf(root, dataset, symbol, key, entry);
        if (t) targets.push(t);
        else bad.push({ symbol, dataset, key, file: '', status: 'damaged', store: recordedSide(entry), terminal: null, why: `the manifest names a partition ${JSON.stringify(key)}, which is no ${dataset === 'ticks' ? 'UTC day (YYYY-MM-DD)' : 'UTC month (YYYY-MM)'}` });
      }
    }
  }
  return { targets, bad };
}

const sameEntry = (a: PartitionEntry | undefined, b: PartitionEntry): boolean => a !== undefined && JSON.stringify(a) === JSON.stringify(b);

export async function runVerify(args: readonly string[], io: VerifyIo = { env: process.env, stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const say = (message: string): void => void io.stderr.write(`tradeapi verify: ${message}\n`);
  const began = performance.now();
  let request: VerifyRequest | undefined;
  let settings: TerminalSettings;
  let manifest: Manifest | undefined;
  try {
    request = parseVerifyArgs(args, io.env);
    if (request === undefined) {
      io.stdout.write(VERIFY_USAGE);
      return EXIT_OK;
    }
    settings = loadTerminalSettings(io.env);
    const st = await stat(request.store).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') throw new UsageError(`--store ${request!.store} does not exist`);
      throw e;
    });
    if (!st.isDirectory()) throw new UsageError(`--store ${request.store} is not a directory`);
    manifest = await readManifest(request.store, request.symbols ? { symbols: request.symbols } : {});
    if (!manifest) throw new UsageError(`${request.store} is not a store (no manifest.json): fill it with tradeapi sync --store ${request.store}`);
    for (const s of request.symbols ?? []) {
      if (!manifest.symbols[s]) {
        const held = Object.keys((await readManifest(request.store))?.symbols ?? {});
        throw new UsageError(`--symbols: the store has nothing of ${s} (it holds ${held.join(', ') || 'no symbol'})`);
      }
    }
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError || e instanceof StoreMismatchError) {
      say(`${e.message}${e instanceof StoreMismatchError ? '' : '; see tradeapi verify --help'}`);
      return EXIT_USAGE;
    }
    const err = e as NodeJS.ErrnoException;
    if (typeof err.code === 'string') {
      say(`cannot read the store: ${err.message}`);
      return EXIT_USAGE;
    }
    throw e;
  }
  const root = request.store;
  const symbols = request.symbols ?? Object.keys(manifest.symbols).sort();

  let lock: StoreLock | undefined;
  if (request.repair) {
    try {
      lock = await StoreLock.acquire(root);
    } catch (e) {
      if (e instanceof StoreBusyError) {
        say(`${e.message}; --repair waits for no one: run it again once it is done`);
        return EXIT_FAILED;
      }
      say(`cannot lock the store: ${e instanceof Error ? e.message : String(e)}`);
      return EXIT_USAGE;
    }
  }

  let terminal: Terminal;
  try {
    const raw = io.openTerminal
      ? io.openTerminal(settings)
      : (await import('../terminal/index.js')).openConfiguredTerminal(settings);
    const { withServerTime } = await import('../terminal/with-server-time.js');
    terminal = settings.serverTz ? withServerTime(raw, settings.serverTz) : raw;
  } catch (e) {
    await lock?.release();
    say(`cannot open the terminal: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT_FAILED;
  }
  const slots = new ReadSlots({ slots: 4, queue: 1024, deadlineMs: 600_000 });

  const ctx: SyncContext = {
    terminal,
    root,
    manifest: emptyManifest('', ''),
    manifests: new ManifestWriter(root, emptyManifest('', '')),
    now: () => Date.now(),
    stopped: () => watch.interrupted,
    current: undefined,
    progress: (label, range) => new Progress({ write: () => true }, label, range),
  };
  const watch = new SignalWatch(ctx, say, () => lock?.release() ?? Promise.resolve());
  const stopped = (): boolean => watch.interrupted !== undefined;
  let progress: Progress | undefined;
  try {
    const account = await terminal.accountInfo();
    const zone = settings.serverTz?.name ?? 'UTC';
    if (lock) {
      // Under the lock: the manifest as it is now, a format-1 store rewritten as format 2 (as sync does).
      manifest = await openManifest(root, account.server, zone, symbols);
      ctx.manifest = manifest;
      ctx.manifests = new ManifestWriter(root, manifest);
    } else {
      checkIdentity(manifest, account.server, zone, root);
    }
    const { targets, bad } = targetsOf(root, manifest, symbols, request);
    const totalRows = targets.reduce((n, t) => n + t.part.entry.rows, 0);
    progress = new Progress(io.stderr, 'verify', { fromMs: 0, toMs: Math.max(1, totalRows) });
    let rowsDone = 0;
    let bytesDone = 0;

    // One partition: its file and the terminal's rows at once, then the verdict (the file's check
    // may have been started ahead). A plain verify beside a sync: an entry that changed meanwhile
    // is read again and checked with it.
    const checkOne = async (t: Target, file0?: Promise<FileCheck>, term0?: () => Promise<TerminalCheck>): Promise<Result> => {
      for (let attempt = 0; ; attempt++) {
        const [file, term] = await Promise.all([
          attempt === 0 && file0 ? file0 : checkFile(t, slots),
          attempt === 0 && term0 ? term0() : askTerminal(terminal, t, stopped),
        ]);
        let verdict: Verdict;
        try {
          verdict = judge(t, file, term);
        } finally {
          term.release();
        }
        if (verdict.status === 'damaged' && !lock && attempt < 2) {
          const now = (await readSymbolCoverage(root, t.part.symbol).catch(() => undefined))?.[t.part.dataset][t.part.key];
          if (now && !sameEntry(now, t.part.entry)) {
            const again = targetOf(root, t.part.dataset, t.part.symbol, t.part.key, now);
            if (again) {
              t = again;
              continue;
            }
          }
        }
        return { t, file: file.side, term: term.side, verdict };
      }
    };
    const done = (t: Target): void => {
      rowsDone += t.part.entry.rows;
      bytesDone += t.part.entry.bytes ?? 0;
      progress?.update(rowsDone, Math.max(1, bytesDone), rowsDone, 0);
    };

    // In order: the terminal asked one partition after the other (consecutive whole days of ticks
    // as one range, TickRun), each file decoded (on the thread pool) FILES_AHEAD partitions ahead.
    const results: (Result | undefined)[] = new Array<Result | undefined>(targets.length).fill(undefined);
    const files: (Promise<FileCheck> | undefined)[] = [];
    const prefetch = (i: number): void => {
      if (i >= targets.length || files[i] !== undefined) return;
      const p = checkFile(targets[i]!, slots);
      p.catch(() => undefined); // seen when it is awaited
      files[i] = p;
    };
    const runEnd = (i: number): number => {
      let j = i;
      for (;;) {
        const a = targets[j]!;
        const b = targets[j + 1];
        if (!b || j + 1 - i >= RUN_DAYS || b.part.dataset !== 'ticks' || b.part.symbol !== a.part.symbol || !a.part.entry.complete || b.startMs !== a.startMs + DAY_MS) return j;
        j++;
      }
    };
    let run: { run: TickRun; last: number } | undefined;
    try {
      for (let i = 0; i < targets.length; i++) {
        if (watch.interrupted) throw watch.interrupted;
        for (let k = i; k <= i + FILES_AHEAD; k++) prefetch(k);
        const t = targets[i]!;
        let term = (): Promise<TerminalCheck> => askTerminal(terminal, t, stopped);
        if (t.part.dataset === 'ticks') {
          if (!run || i > run.last) {
            run?.run.close();
            const last = runEnd(i);
            run = last > i ? { run: new TickRun(terminal, t.part.symbol, t.startMs, targets[last]!.throughMs), last } : undefined;
          }
          const r = run?.run;
          if (r) term = () => r.day(t, stopped);
        }
        results[i] = await checkOne(t, files[i], term);
        files[i] = undefined;
        done(t);
      }
    } finally {
      run?.run.close();
    }
    if (watch.interrupted) throw watch.interrupted;

    // Asked again after a wait: those the terminal answered with fewer rows than the store holds.
    const again = results.flatMap((r, i) => (r?.verdict.short ? [i] : []));
    if (again.length > 0) {
      progress.clear();
      say(`${again.length} partition${again.length === 1 ? '' : 's'}: the terminal answered fewer rows than the store holds, or none; asking again ${request.waitS > 0 ? `in ${request.waitS} s` : 'now'} (a terminal still downloading history answers short at first)`);
      if (request.waitS > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, request!.waitS * 1000);
          watch.wake.cancel = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      for (const i of again) {
        if (watch.interrupted) throw watch.interrupted;
        results[i] = await checkOne(results[i]!.t);
      }
    }

    const reports: PartitionReport[] = [...bad];
    for (const r of results) {
      if (!r) continue;
      const p = r.t.part;
      const rep: PartitionReport = { symbol: p.symbol, dataset: p.dataset, key: p.key, file: nameOf(p), status: r.verdict.status, store: r.file, terminal: r.term };
      if (r.verdict.why !== undefined) rep.why = r.verdict.why;
      if (r.verdict.diff) {
        rep.diff = r.verdict.diff.kind;
        if (r.verdict.diff.first_diff_msc !== undefined) rep.first_diff_msc = r.verdict.diff.first_diff_msc;
      }
      reports.push(rep);
    }
    progress.clear();

    // --repair: fetched again, one at a time, through sync's writer.
    let repaired = 0;
    if (lock) {
      const byKey = new Map(results.flatMap((r) => (r ? [[`${r.t.part.symbol}\0${r.t.part.dataset}\0${r.t.part.key}`, r.t] as const] : [])));
      for (const rep of reports) {
        if (watch.interrupted) throw watch.interrupted;
        if (rep.status === 'terminal-lost') {
          rep.repaired = false;
          rep.repair_note = 'kept as it is: the terminal no longer holds it';
          continue;
        }
        if (rep.status !== 'damaged' && rep.status !== 'differs' && rep.status !== 'unproven') continue;
        const t = byKey.get(`${rep.symbol}\0${rep.dataset}\0${rep.key}`);
        if (!t) {
          rep.repaired = false;
          rep.repair_note = 'not a partition the store can name: remove the entry by hand';
          continue;
        }
        if (rep.terminal === null || rep.terminal.rows === 0) {
          rep.repaired = false;
          rep.repair_note = 'the terminal has no rows for it: the store\'s copy is kept';
          continue;
        }
        if (rep.terminal.rows < t.part.entry.rows) {
          // The terminal lacks rows the store recorded: fetching again would lose them, and the
          // store's copy may be the only one left of them.
          rep.repaired = false;
          rep.repair_note = `the terminal has fewer rows (${rep.terminal.rows}) than the store recorded (${t.part.entry.rows}): the store's copy is kept`;
          continue;
        }
        try {
          const note = await repairOne(ctx, t, slots);
          rep.repaired = note === undefined;
          if (note !== undefined) rep.repair_note = note;
          else repaired++;
        } catch (e) {
          if (watch.interrupted) throw watch.interrupted;
          rep.repaired = false;
          rep.repair_note = `not repaired: ${e instanceof UnsafeStoreFileError ? `refusing to write into the store: ${e.message}` : e instanceof Error ? e.message : String(e)}`;
        }
      }
      await ctx.manifests.flush();
    }

    const seconds = (performance.now() - began) / 1000;
    const counts = Object.fromEntries(STATUSES.map((s) => [s, reports.filter((r) => r.status === s).length])) as Record<Status, number>;
    const report: VerifyReport = {
      store: root,
      server: manifest.server,
      zone: manifest.zone,
      partitions: reports,
      totals: { partitions: reports.length, rows: totalRows, ...counts, repaired, seconds: Math.round(seconds * 1000) / 1000, rows_per_s: Math.round(totalRows / Math.max(seconds, 1e-3)) },
    };
    io.stdout.write(request.json ? `${JSON.stringify(report)}\n` : formatReport(report, symbols, request.repair));
    return reports.every((r) => r.status === 'ok') ? EXIT_OK : EXIT_FAILED;
  } catch (e) {
    progress?.clear();
    if (watch.interrupted) {
      say(watch.interrupted.message);
      return signalExit(watch.interrupted.signal);
    }
    if (e instanceof StoreMismatchError) {
      say(e.message);
      return EXIT_USAGE;
    }
    say(`verify failed: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT_FAILED;
  } finally {
    watch.dispose();
    await lock?.release();
    await terminal.close().catch(() => undefined);
  }
}

/**
 * Fetches one partition again (the same range as before: the whole day or month, or up to its
 * `through`), writes it through sync's writer and records it; then checks the new file. Undefined
 * when repaired, else why not (the terminal answered nothing this time: the store's copy is kept).
 */
async function repairOne(ctx: SyncContext, t: Target, slots: ReadSlots): Promise<string | undefined> {
  const { symbol, dataset, key, entry } = t.part;
  const started = dataset === 'ticks'
    ? start<TickChunk | RateChunk>(() => ctx.terminal.copyTicksRange(symbol, t.startMs, t.throughMs, COPY_TICKS_ALL))
    : start<TickChunk | RateChunk>(() => ctx.terminal.copyRatesRange(symbol, TIMEFRAME_M1, t.startMs / 1000, Math.floor((t.throughMs + 1 - 60_000) / 60_000) * 60));
  let first;
  try {
    first = await started.first;
  } catch (e) {
    if (isTerminalError(e) && e.kind === 'not_found') return 'the terminal refused the range this time: the store\'s copy is kept';
    throw e;
  }
  if (first === null) return 'the terminal answered no rows this time: the store\'s copy is kept';
  const wrote = await writePartition(ctx, dataset, symbol, key, started, () => undefined);
  await record(ctx, symbol, dataset, key, wrote, { throughMs: t.throughMs, complete: entry.complete });
  const now = ctx.manifest.symbols[symbol]?.[dataset][key];
  if (!now) return 'recorded nothing (unexpected)';
  const again = targetOf(ctx.root, dataset, symbol, key, now);
  const check = again ? await checkFile(again, slots) : undefined;
  if (check?.damage !== undefined) return `written again, but the new file does not check: ${check.damage} (${nameOf(storedPartition(ctx.root, dataset, symbol, key, now))})`;
  return undefined;
}

function formatReport(report: VerifyReport, symbols: readonly string[], repair: boolean): string {
  const lines: string[] = [];
  for (const p of report.partitions) {
    if (p.status === 'ok') continue;
    const what = `${p.symbol} ${p.dataset === 'ticks' ? 'ticks' : 'M1 bars'} ${p.key}`;
    let line = `${what}: ${p.status}: ${p.why ?? ''}`;
    if (p.repaired === true) line += ` -> repaired: fetched again (${formatCount(p.terminal?.rows ?? 0)} rows, as the terminal has them)`;
    else if (p.repair_note !== undefined) line += ` -> ${p.repair_note}`;
    lines.push(line);
  }
  const t = report.totals;
  const tally = STATUSES.filter((s) => t[s] > 0 || s === 'ok').map((s) => `${t[s]} ${s}`).join(', ');
  let summary = `verify: ${t.partitions} partition${t.partitions === 1 ? '' : 's'} of ${symbols.join(', ')} (${formatCount(t.rows)} rows) in ${t.seconds.toFixed(1)} s, ${formatCount(t.rows_per_s)} rows/s: ${tally}`;
  if (repair) summary += `; repaired ${t.repaired}`;
  lines.push(summary);
  const fixable = t.damaged + t.differs + t.unproven;
  if (!repair && fixable > 0) lines.push(`tradeapi verify --repair fetches the ${fixable} damaged, differing or unproven again from the terminal (terminal-lost ones are kept)`);
  if (t['terminal-lost'] > 0) lines.push(`${t['terminal-lost']} terminal-lost: the store holds the only copy; back it up`);
  return `${lines.join('\n')}\n`;
}
