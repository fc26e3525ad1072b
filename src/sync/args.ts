// `tradeapi sync` and `tradeapi store gaps` arguments. Dates are read as every command reads them
// (export/args.ts parseDateOption): an ISO 8601 UTC timestamp ending in Z, or a bare UTC day.
import path from 'node:path';
import { parseArgs } from 'node:util';

import { DATE_FORMS, parseDateOption, parseDateRange, UsageError, usageMessage } from '../export/args.js';

export { DATE_FORMS, parseDateOption, parseDateRange, UsageError };

export interface SyncRequest {
  /** The store directory, absolute. */
  store: string;
  symbols: string[];
  /** UTC ms; the sync starts at the UTC day (month, for bars) holding it. */
  fromMs: number;
  /** UTC ms; undefined = up to now. The sync ends with the UTC day holding it. */
  toMs: number | undefined;
  follow: boolean;
  /** Complete days at most this old (by their start, from today) are fetched again. */
  refreshDays: number;
  /** --follow: seconds between passes. */
  intervalS: number;
  /** Sync ticks / M1 bars (both by default). */
  ticks: boolean;
  bars: boolean;
}

export const SYNC_USAGE = `Usage:
  tradeapi sync --store DIR --symbols EURUSD,USDJPY --from DATE [--to DATE] [--follow] [--refresh DAYS]

  --store DIR          the store (default: TRADEAPI_STORE); created if missing
  --symbols S,S,...    symbols to pull (comma-separated)
  --from DATE          first day (the whole UTC day is pulled)
  --to DATE            last day (default: now); days after now are never pulled
                       DATE: ${DATE_FORMS}
  --follow             keep going: a pass every --interval seconds, so the store stays current
  --interval S         seconds between --follow passes (default 60)
  --refresh DAYS       fetch again the complete days of the last DAYS days (revised by the broker)
  --only ticks|bars    pull only ticks, or only M1 bars (default both)

Ticks go to DIR/ticks/symbol=S/date=YYYY-MM-DD/part-0.parquet, M1 bars to
DIR/bars_m1/symbol=S/month=YYYY-MM/part-0.parquet (zstd, UTC timestamps, sorted by time), and what
was asked for and got to DIR/manifest.json. A day already complete in the store is not pulled again;
today (and this month's bars) is pulled again on every pass, without the still-forming bar. Each
file appears only complete; a sync killed at any moment leaves the store readable, and the next one
resumes. One sync at a time per store (DIR/.sync.lock). The terminal is the server's
(TRADEAPI_TERMINAL, TRADEAPI_SERVER_TZ, ...). Exit status: 0 done, 1 failed (or the store is
busy), 2 bad arguments, 130/143 interrupted.
`;

export const GAPS_USAGE = `Usage:
  tradeapi store gaps SYMBOL [--store DIR] [--from DATE] [--to DATE] [--json]

  DATE: ${DATE_FORMS}

  Lists the days of SYMBOL's ticks in the store that are missing (never fetched), partial, refused
  by the terminal, or empty, telling weekends apart from weekdays without ticks (holidays). The
  range defaults to the first and last day the store has fetched for SYMBOL.
`;

/** Symbol names as the terminal knows them: printable, no commas or spaces. */
export const SYMBOL = /^[^\s,\x00-\x1f\x7f]{1,64}$/;

export function storeDir(option: string | undefined, env: Readonly<Record<string, string | undefined>>, cwd: string): string {
  const dir = option ?? env.TRADEAPI_STORE;
  if (dir === undefined || dir === '') throw new UsageError('--store DIR is required (or set TRADEAPI_STORE)');
  return path.resolve(cwd, dir);
}

/** What follows `tradeapi sync`; undefined for --help. */
export function parseSyncArgs(args: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd = process.cwd()): SyncRequest | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: false,
      options: {
        help: { type: 'boolean', short: 'h' },
        store: { type: 'string' },
        symbols: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        follow: { type: 'boolean' },
        interval: { type: 'string' },
        refresh: { type: 'string' },
        only: { type: 'string' },
      },
    });
  } catch (e) {
    throw new UsageError(usageMessage(e));
  }
  const v = parsed.values;
  if (v.help) return undefined;
  const store = storeDir(v.store, env, cwd);
  if (v.symbols === undefined) throw new UsageError('--symbols is required, e.g. --symbols EURUSD,USDJPY');
  const symbols = [...new Set(v.symbols.split(',').map((s) => s.trim()))];
  for (const s of symbols) if (!SYMBOL.test(s)) throw new UsageError(`--symbols: ${JSON.stringify(s)} is not a symbol name`);
  if (v.from === undefined) throw new UsageError('--from is required (the first day to pull)');
  const { fromMs, toMs } = parseDateRange(v.from, v.to);
  const count = (option: string, raw: string | undefined, dflt: number, min: number, max: number): number => {
    if (raw === undefined) return dflt;
    if (!/^\d{1,7}$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new UsageError(`${option} must be an integer from ${min} to ${max}; received ${JSON.stringify(raw)}`);
    return Number(raw);
  };
  const refreshDays = count('--refresh', v.refresh, 0, 0, 3660);
  const intervalS = count('--interval', v.interval, 60, 1, 86_400);
  if (v.interval !== undefined && !v.follow) throw new UsageError('--interval is for --follow');
  if (v.only !== undefined && v.only !== 'ticks' && v.only !== 'bars') throw new UsageError(`--only must be ticks or bars; received ${JSON.stringify(v.only)}`);
  return {
    store,
    symbols,
    fromMs: fromMs as number,
    toMs,
    follow: v.follow === true,
    refreshDays,
    intervalS,
    ticks: v.only !== 'bars',
    bars: v.only !== 'ticks',
  };
}

export interface GapsRequest {
  store: string;
  symbol: string;
  fromMs: number | undefined;
  toMs: number | undefined;
  json: boolean;
}

/** What follows `tradeapi store gaps`; undefined for --help. */
export function parseGapsArgs(args: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd = process.cwd()): GapsRequest | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        store: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (e) {
    throw new UsageError(usageMessage(e));
  }
  const v = parsed.values;
  if (v.help) return undefined;
  const [symbol, ...extra] = parsed.positionals;
  if (symbol === undefined) throw new UsageError('store gaps: the SYMBOL is missing');
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  if (!SYMBOL.test(symbol)) throw new UsageError(`${JSON.stringify(symbol)} is not a symbol name`);
  const { fromMs, toMs } = parseDateRange(v.from, v.to);
  return { store: storeDir(v.store, env, cwd), symbol, fromMs, toMs, json: v.json === true };
}
