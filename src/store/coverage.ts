// What the store holds of one symbol's ticks, day by day, and its gaps: what `tradeapi store gaps`
// prints and GET /store/coverage answers. A day is
//   complete     fetched whole, with ticks
//   weekend      fetched whole, no ticks, a Saturday or Sunday (UTC)
//   empty        fetched whole, no ticks, a weekday (a holiday, a closed market)
//   partial      fetched up to `through` (today when it was synced): the next sync completes it
//   unavailable  the terminal refused the range (beyond the history it holds)
//   missing      never fetched
//   damaged      fetched, but its file is not the one the manifest recorded (missing, moved, of
//                another size, not a regular file): served from the terminal; verify --repair
//
// A day with ticks whose entry carries no proof (a format-1 store) is marked `unproven`.
import { DAY_MS, dayKey, dayKeyStart } from './layout.js';
import { isProven, type Manifest, type PartitionEntry } from './manifest.js';
import { placementMismatch, storedPartition } from './partition.js';

export type DayStatus = 'complete' | 'weekend' | 'empty' | 'partial' | 'unavailable' | 'missing' | 'damaged';

export interface DayCoverage {
  date: string;
  status: DayStatus;
  rows: number;
  through?: string;
  /** Why a damaged day's file is not the one recorded. */
  damage?: string;
  /** A day with ticks whose entry has no proof (format-1 store): tradeapi verify --repair adds it. */
  unproven?: true;
}

/** The days of `symbol` in [from, to] (keys) whose files cannot be the ones recorded, with why. */
export async function damagedDays(root: string, manifest: Manifest, symbol: string, from?: string, to?: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [key, entry] of Object.entries(manifest.symbols[symbol]?.ticks ?? {})) {
    if ((from !== undefined && key < from) || (to !== undefined && key > to)) continue;
    const why = await placementMismatch(storedPartition(root, 'ticks', symbol, key, entry));
    if (why !== undefined) out.set(key, why);
  }
  return out;
}

export interface Gap {
  /** First and last day of a run of days with one status (inclusive). */
  from: string;
  to: string;
  days: number;
  status: Exclude<DayStatus, 'complete'>;
}

export interface SymbolCoverageReport {
  symbol: string;
  server: string;
  zone: string;
  /** First and last day considered (null when the store has nothing of the symbol and no range was given). */
  from: string | null;
  to: string | null;
  /** Days per status. */
  totals: Record<DayStatus, number>;
  /** Days with ticks whose entry carries no proof (a format-1 store). */
  unproven: number;
  rows: number;
  days: DayCoverage[];
  gaps: Gap[];
}

export function dayStatus(date: string, entry: PartitionEntry | undefined): DayStatus {
  if (!entry) return 'missing';
  if (entry.unavailable) return 'unavailable';
  if (!entry.complete) return 'partial';
  if (entry.rows > 0) return 'complete';
  const weekday = new Date(dayKeyStart(date)).getUTCDay();
  return weekday === 0 || weekday === 6 ? 'weekend' : 'empty';
}

/** Coverage of `symbol`'s ticks over [fromMs, toMs] (days holding them), by default the days fetched. */
export function tickCoverage(manifest: Manifest, symbol: string, fromMs?: number, toMs?: number, damaged: ReadonlyMap<string, string> = new Map()): SymbolCoverageReport {
  const entries = manifest.symbols[symbol]?.ticks ?? {};
  const keys = Object.keys(entries).sort();
  const from = fromMs !== undefined ? dayKey(fromMs) : keys[0];
  const to = toMs !== undefined ? dayKey(toMs) : keys[keys.length - 1];
  const totals: Record<DayStatus, number> = { complete: 0, weekend: 0, empty: 0, partial: 0, unavailable: 0, missing: 0, damaged: 0 };
  let unproven = 0;
  const days: DayCoverage[] = [];
  const gaps: Gap[] = [];
  let rows = 0;
  if (from !== undefined && to !== undefined) {
    for (let d = dayKeyStart(from); d <= dayKeyStart(to); d += DAY_MS) {
      const date = dayKey(d);
      const entry = entries[date];
      const damage = damaged.get(date);
      const status = damage !== undefined ? 'damaged' : dayStatus(date, entry);
      const day: DayCoverage = { date, status, rows: entry?.rows ?? 0 };
      if (entry?.through !== undefined) day.through = entry.through;
      if (damage !== undefined) day.damage = damage;
      if (entry && entry.rows > 0 && !isProven(entry)) {
        day.unproven = true;
        unproven++;
      }
      days.push(day);
      totals[status]++;
      rows += day.rows;
      if (status === 'complete') continue;
      const prev = gaps[gaps.length - 1];
      if (prev && prev.status === status && dayKeyStart(prev.to) + DAY_MS === d) {
        prev.to = date;
        prev.days++;
      } else gaps.push({ from: date, to: date, days: 1, status });
    }
  }
  return { symbol, server: manifest.server, zone: manifest.zone, from: from ?? null, to: to ?? null, totals, unproven, rows, days, gaps };
}

/** `1 day`, `2 days`, `0 days`. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The report as lines for a terminal. */
export function formatGaps(report: SymbolCoverageReport): string {
  const lines = [`${report.symbol} ticks in the store (server ${report.server}, zone ${report.zone}): ${report.from ?? '-'} .. ${report.to ?? '-'}`];
  const t = report.totals;
  lines.push(
    `  ${count(t.complete, 'day')} with ticks (${count(report.rows, 'row')}), ${count(t.weekend, 'weekend day')} and ${count(t.empty, 'weekday')} without ticks, ` +
      `${t.partial} partial, ${t.unavailable} unavailable, ${t.missing} missing${t.damaged > 0 ? `, ${t.damaged} damaged` : ''}`,
  );
  if (report.unproven > 0) lines.push(`  ${count(report.unproven, 'day')} stored without a proof (a tradeapi-store/1 store): tradeapi verify --repair adds them`);
  for (const g of report.gaps) {
    const span = g.from === g.to ? g.from : `${g.from} .. ${g.to}`;
    const why = {
      weekend: 'empty: weekend',
      empty: 'empty: weekday without ticks (holiday or closed)',
      partial: 'partial: fetched in part, the next sync completes it',
      unavailable: 'unavailable: the terminal refused the range',
      missing: 'missing: never fetched',
      damaged: 'damaged: the file is not the one the manifest recorded (served from the terminal; tradeapi verify --repair)',
    }[g.status];
    lines.push(`  ${span.padEnd(24)} ${String(g.days).padStart(4)} day${g.days === 1 ? ' ' : 's'}  ${why}`);
  }
  return `${lines.join('\n')}\n`;
}
