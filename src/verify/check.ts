// One stored partition checked twice: its file against its manifest entry, and its rows against
// the terminal's for the same range, each side's proof built the way sync builds it at write
// (store/proof.ts: the rows as the store holds them, UTC, `time` in seconds, hashed packed).
//
//   file      read through the store's rules and decoded by the store's reader (decodeDay /
//             decodeRates: placement, kind, size, footer proof, page checksums), then its rows'
//             count, first and last time_msc and XXH3-128 recomputed and held against the entry;
//             rows outside the partition's day (month) or out of time order are damage too
//   terminal  copy_ticks_range (COPY_TICKS_ALL) over the day up to what was fetched (`through`
//             for a partial day), copy_rates_range (M1) over the month's bars up to the last one
//             fetched; hashed the same way, its chunks kept until the two sides are compared.
//             Consecutive whole days are asked for as one range of at most RUN_DAYS days and cut
//             into days as it streams (TickRun), as sync asks: a call a day cost the terminal its
//             fixed cost each time (measured on the simulator: ~1.5x the CPU of 7-day ranges)
import { lowerBound } from '../store/decode-protocol.js';
import type { Dataset } from '../store/layout.js';
import { DAY_MS, dayKeyStart, MINUTE_MS, nextMonthStart } from '../store/layout.js';
import { isProven, type PartitionEntry } from '../store/manifest.js';
import { PartitionDamageError, storedPartition, type StoredPartition } from '../store/partition.js';
import { ProofBuilder } from '../store/proof.js';
import type { ReadSlots } from '../store/read-slots.js';
import { decodeDay, decodeRates } from '../store/reader.js';
import { isTerminalError } from '../terminal/errors.js';
import type { RateChunk, Series, TickChunk } from '../terminal/series.js';
import type { Terminal } from '../terminal/terminal.js';
import { diffRows, type Diff } from './compare.js';

type Chunk = TickChunk | RateChunk;

const TIMEFRAME_M1 = 1;
const COPY_TICKS_ALL = -1;
/** Rows per terminal call, as sync asks (an interactive call of a gateway waits at most one such call). */
const CHUNK_ROWS = 65_536;

/** What one side holds of a partition: its proof (rows 0: no first/last/hash). */
export interface Side {
  rows: number;
  first_msc?: number;
  last_msc?: number;
  xxh3_128?: string;
}

export type Status = 'ok' | 'damaged' | 'differs' | 'terminal-lost' | 'unproven';
export const STATUSES: readonly Status[] = ['ok', 'damaged', 'differs', 'terminal-lost', 'unproven'];

/** A partition to verify: where it is, and the range the terminal is asked for. */
export interface Target {
  readonly part: StoredPartition;
  /** The partition's first instant (ms UTC). */
  readonly startMs: number;
  /** The last instant fetched, inclusive (ms UTC): the day's (month's) end, or `through`. */
  readonly throughMs: number;
}

/** The target of a manifest entry, or undefined when its key names no day (month). */
export function targetOf(root: string, dataset: Dataset, symbol: string, key: string, entry: PartitionEntry): Target | undefined {
  const startMs = dataset === 'ticks' ? dayKeyStart(key) : /^\d{4}-\d{2}$/.test(key) ? Date.parse(`${key}-01T00:00:00Z`) : NaN;
  if (!Number.isFinite(startMs)) return undefined;
  const endMs = dataset === 'ticks' ? startMs + DAY_MS : nextMonthStart(startMs);
  const through = entry.through === undefined ? NaN : Date.parse(entry.through);
  const throughMs = entry.complete || !Number.isFinite(through) ? endMs - 1 : Math.min(Math.max(through, startMs), endMs - 1);
  return { part: storedPartition(root, dataset, symbol, key, entry), startMs, throughMs };
}

/** The end of the target's day (month), exclusive. */
function endOf(t: Target): number {
  return t.part.dataset === 'ticks' ? t.startMs + DAY_MS : nextMonthStart(t.startMs);
}

export interface FileCheck {
  /** The rows the file holds (damaged: the manifest's record of them). */
  side: Side;
  /** The file's rows (undefined when it is damaged). */
  chunks?: Chunk[];
  /** Why the file is not what the manifest recorded. */
  damage?: string;
}

export interface TerminalCheck {
  side: Side;
  chunks: Chunk[];
  /** The terminal refused the range (not_found: before its history, or the symbol gone). */
  notFound: boolean;
  /** Gives the chunks back to the terminal (once compared). */
  release(): void;
}

const sideOf = (p: ProofBuilder): Side => (p.rows === 0 ? { rows: 0 } : p.proof());

/** The manifest's record of an entry (what the store says it holds). */
export function recordedSide(e: PartitionEntry): Side {
  return isProven(e) && e.rows > 0 ? { rows: e.rows, first_msc: e.first_msc!, last_msc: e.last_msc!, xxh3_128: e.xxh3_128! } : { rows: e.rows };
}

const iso = (ms: number | undefined): string => (ms === undefined || !Number.isFinite(ms) ? String(ms) : new Date(ms).toISOString());

/** The file of a partition, decoded and proven again. */
export async function checkFile(t: Target, slots: ReadSlots): Promise<FileCheck> {
  const { part } = t;
  const entry = part.entry;
  if (entry.rows === 0) return { side: { rows: 0 }, chunks: [] };
  let chunks: Chunk[];
  try {
    chunks = part.dataset === 'ticks'
      ? await decodeDay(part, -8.64e15, 8.64e15, 'auto', slots)
      : (await decodeRates(part, 'auto', slots)) ?? [];
  } catch (e) {
    if (e instanceof PartitionDamageError) return { side: recordedSide(entry), damage: e.why };
    if (isTerminalError(e)) throw e; // the store too busy or slow to read: a failure of the run, not damage
    return { side: recordedSide(entry), damage: `it does not decode (${e instanceof Error ? e.message : String(e)})` };
  }
  const proof = new ProofBuilder(part.dataset);
  for (const c of chunks) proof.update(c);
  const side = sideOf(proof);
  const damaged = (why: string): FileCheck => ({ side, damage: why });
  if (side.rows !== entry.rows) return damaged(`it holds ${side.rows} rows where the manifest says ${entry.rows}`);
  if (side.first_msc! < t.startMs || side.last_msc! >= endOf(t)) {
    return damaged(`its rows run from ${iso(side.first_msc)} to ${iso(side.last_msc)}, outside ${part.key}`);
  }
  if (isProven(entry)) {
    if (side.first_msc !== entry.first_msc || side.last_msc !== entry.last_msc) {
      return damaged(`its rows run from time_msc ${side.first_msc} to ${side.last_msc} where the manifest says ${entry.first_msc} to ${entry.last_msc}`);
    }
    if (side.xxh3_128 !== entry.xxh3_128) return damaged(`its rows hash to ${side.xxh3_128} where the manifest says ${entry.xxh3_128}`);
    // The rows are those sync hashed at write, after checking their time order: nothing more to check.
  } else {
    const disorder = outOfOrder(chunks);
    if (disorder !== undefined) return damaged(`its rows are out of time order (at ${iso(disorder)})`);
  }
  return { side, chunks };
}

/** The time (ms) of the first row earlier than the one before it (bars: not later), or undefined. */
function outOfOrder(chunks: readonly Chunk[]): number | undefined {
  let prev = -(2n ** 63n);
  for (const c of chunks) {
    const ticks = 'time_msc' in c;
    const times = ticks ? c.time_msc : c.time;
    for (let i = 0; i < c.rows; i++) {
      const v = times[i] as bigint;
      if (v < prev || (!ticks && v === prev)) return Number(ticks ? v : v * 1000n);
      prev = v;
    }
  }
  return undefined;
}

/** The terminal's rows for the partition's range, hashed as at write. `stopped`: give up between two chunks. */
export async function askTerminal(terminal: Terminal, t: Target, stopped: () => boolean): Promise<TerminalCheck> {
  const { part } = t;
  let series: Series<Chunk>;
  const nothing = (): TerminalCheck => ({ side: { rows: 0 }, chunks: [], notFound: true, release: () => undefined });
  try {
    if (part.dataset === 'ticks') {
      series = await terminal.copyTicksRange(part.symbol, t.startMs, t.throughMs, COPY_TICKS_ALL);
    } else {
      // Bars by open time: the last one fetched opened a minute before `through` ended.
      const lastOpenMs = Math.floor((t.throughMs + 1 - MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
      series = await terminal.copyRatesRange(part.symbol, TIMEFRAME_M1, t.startMs / 1000, lastOpenMs / 1000);
    }
  } catch (e) {
    if (isTerminalError(e) && e.kind === 'not_found') return nothing();
    throw e;
  }
  series.setChunkRows?.(CHUNK_ROWS);
  series.readAhead?.(true);
  const proof = new ProofBuilder(part.dataset);
  const chunks: Chunk[] = [];
  try {
    for (;;) {
      if (stopped()) break;
      let c: Chunk | null;
      try {
        c = await series.next();
      } catch (e) {
        if (isTerminalError(e) && e.kind === 'not_found' && chunks.length === 0) return nothing();
        throw e;
      }
      if (c === null) break;
      if (c.rows === 0) continue;
      proof.update(c);
      chunks.push(c);
    }
  } finally {
    series.close();
  }
  return {
    side: sideOf(proof),
    chunks,
    notFound: false,
    release: () => {
      for (const c of chunks.splice(0)) series.release?.(c);
    },
  };
}

export interface Verdict {
  status: Status;
  /** Why, for anything but ok. */
  why?: string;
  diff?: Diff;
  /** The terminal answered fewer rows than the store holds (or none): worth asking again after a wait. */
  short: boolean;
}

const sameProof = (a: Side, b: Side): boolean =>
  a.rows === b.rows && (a.rows === 0 || (a.first_msc === b.first_msc && a.last_msc === b.last_msc && a.xxh3_128 === b.xxh3_128));

const at = (ms: number | undefined): string => (ms === undefined ? 'an unknown row' : `${iso(ms)} (time_msc ${ms})`);

/** The status of a partition from its two checks. */
export function judge(t: Target, file: FileCheck, term: TerminalCheck): Verdict {
  const entry = t.part.entry;
  const storeRows = file.damage === undefined ? file.side.rows : entry.rows;
  const short = term.side.rows < storeRows;
  if (file.damage !== undefined) {
    const lost = term.side.rows === 0 && entry.rows > 0 ? '; the terminal no longer holds it either: nothing to repair it from, keep it' : '';
    return { status: 'damaged', why: `${file.damage}${lost}`, short };
  }
  if (term.side.rows === 0 && storeRows > 0) {
    return {
      status: 'terminal-lost',
      why: `the terminal ${term.notFound ? 'refuses the range (not found)' : 'answers no rows for it'}, asked twice: the store's ${storeRows} rows are now the only copy; keep them`,
      short,
    };
  }
  if (sameProof(file.side, term.side)) {
    if (storeRows > 0 && !isProven(entry)) {
      return { status: 'unproven', why: 'its manifest entry has no proof (a tradeapi-store/1 entry); its rows are the terminal\'s: --repair adds the proof', short: false };
    }
    return { status: 'ok', short: false };
  }
  const diff = diffRows(file.chunks ?? [], term.chunks, storeRows, term.side.rows);
  const counts = `the store holds ${storeRows} rows, the terminal ${term.side.rows}`;
  let why: string;
  if (diff.kind === 'store-short') {
    why = `the store was short (a partial download at sync): ${storeRows === 0 ? 'recorded empty' : `${counts}, every stored row among the terminal's`}; the first missing from the store at ${at(diff.first_diff_msc)}`;
  } else if (diff.kind === 'terminal-short') {
    why = `the terminal now has fewer rows (asked twice): ${counts}; the first it lacks at ${at(diff.first_diff_msc)}: the broker removed them, or the terminal does not hold all of this history`;
  } else {
    why = `the broker revised it: ${counts}; they first differ at ${at(diff.first_diff_msc)}`;
  }
  return { status: 'differs', why, diff, short };
}

/** Whole days asked for in one range at most (as sync asks). */
export const RUN_DAYS = 7;

/** Rows [a, b) of a tick chunk, as views. */
function tickViews(c: TickChunk, a: number, b: number): TickChunk {
  return a === 0 && b === c.rows ? c : {
    rows: b - a, time: c.time.subarray(a, b), bid: c.bid.subarray(a, b), ask: c.ask.subarray(a, b), last: c.last.subarray(a, b),
    volume: c.volume.subarray(a, b), time_msc: c.time_msc.subarray(a, b), flags: c.flags.subarray(a, b), volume_real: c.volume_real.subarray(a, b),
  };
}

/**
 * One range of consecutive days of ticks from the terminal, cut into its days as it streams: day()
 * must be called for each day in order, each day's check judged and released before the next
 * day is asked for. Days get views of the range's chunks; a chunk is released by the day that
 * takes its last row (a day before it that took its first rows was judged already). A range
 * the terminal refuses (not_found: before its history) is asked for day by day instead, so that
 * each day is judged on the terminal's own answer for it.
 */
export class TickRun {
  private readonly series: Promise<Series<TickChunk>>;
  private chunk: TickChunk | null = null;
  private at = 0;
  private ended = false;

  constructor(private readonly terminal: Terminal, symbol: string, fromMs: number, throughMs: number) {
    this.series = terminal.copyTicksRange(symbol, fromMs, throughMs, COPY_TICKS_ALL).then((s) => {
      s.setChunkRows?.(CHUNK_ROWS);
      s.readAhead?.(true);
      return s;
    });
    this.series.catch(() => undefined);
  }

  async day(t: Target, stopped: () => boolean): Promise<TerminalCheck> {
    let s: Series<TickChunk>;
    try {
      s = await this.series;
    } catch (e) {
      if (isTerminalError(e) && e.kind === 'not_found') return askTerminal(this.terminal, t, stopped);
      throw e;
    }
    const end = BigInt(endOf(t));
    const proof = new ProofBuilder('ticks');
    const chunks: TickChunk[] = [];
    const owned: TickChunk[] = [];
    while (!stopped()) {
      if (this.chunk === null || this.at >= this.chunk.rows) {
        if (this.ended) break;
        const c = await s.next();
        if (c === null) {
          this.ended = true;
          break;
        }
        this.chunk = c;
        this.at = 0;
        continue;
      }
      const c = this.chunk;
      if ((c.time_msc[this.at] as bigint) >= end) break; // the next day's
      const b = lowerBound(c.time_msc, end, this.at);
      const part = tickViews(c, this.at, b);
      proof.update(part);
      chunks.push(part);
      if (b === c.rows) owned.push(c);
      this.at = b;
    }
    return {
      side: sideOf(proof),
      chunks,
      notFound: false,
      release: () => {
        chunks.length = 0;
        for (const c of owned.splice(0)) s.release?.(c);
      },
    };
  }

  close(): void {
    this.series.then((s) => s.close(), () => undefined);
  }
}
