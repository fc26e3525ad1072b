// `tradeapi verify` arguments: the store, dates and usage errors read as `tradeapi sync` reads them
// (sync/args.ts), so that the two commands take the same --store, --from and --to.
import { parseArgs } from 'node:util';

import { usageMessage } from '../export/args.js';
import { DATE_FORMS, parseDateRange, storeDir, SYMBOL, UsageError } from '../sync/args.js';

export { UsageError };

export interface VerifyRequest {
  /** The store directory, absolute. */
  store: string;
  /** The symbols to verify; undefined: every symbol the store holds. */
  symbols: string[] | undefined;
  /** UTC ms: the first day (month, for bars) verified is the one holding it; undefined: the store's first. */
  fromMs: number | undefined;
  /** UTC ms: the last day (month) verified is the one holding it; undefined: the store's last. */
  toMs: number | undefined;
  /** Re-fetch what is damaged, differs or unproven (under the store's lock). */
  repair: boolean;
  /** One JSON report on stdout instead of the text report. */
  json: boolean;
  /** Seconds to wait before asking the terminal again for partitions it answered short or not at all. */
  waitS: number;
  ticks: boolean;
  bars: boolean;
}

export const DEFAULT_WAIT_S = 10;

export const VERIFY_USAGE = `Usage:
  tradeapi verify --store DIR [--symbols S,S] [--from DATE --to DATE] [--repair] [--json] [--wait-s N]

  --store DIR          the store (default: TRADEAPI_STORE)
  --symbols S,S,...    symbols to verify (default: every symbol the store holds)
  --from DATE          first day (and its month, for bars)
  --to DATE            last day (and its month); both default to all the store holds
                       DATE: ${DATE_FORMS}
  --only ticks|bars    verify only ticks, or only M1 bars (default both)
  --repair             fetch again, atomically and under the store's lock, every partition found
                       damaged, differing from the terminal, or without proof; never one the
                       terminal no longer holds
  --json               one JSON report on stdout: every partition, its status, the store's and the
                       terminal's count, first and last time_msc and XXH3-128
  --wait-s N           seconds to wait before asking the terminal again for partitions it answered
                       with fewer rows than the store holds, or none (a terminal still downloading
                       history answers short at first; default ${DEFAULT_WAIT_S})

Each stored partition (a UTC day of ticks, a UTC month of M1 bars) is checked twice: its file
against its manifest entry (placement, size, footer, page checksums, and its rows' count, first and
last time_msc and XXH3-128 recomputed), and its rows against the terminal's for the same range,
hashed the same way. A partition is
  ok             the file is what the manifest recorded, and the terminal has exactly its rows
  damaged        the file is not what the manifest recorded (the reason is given)
  differs        the terminal has other rows: the store was short (a partial download at sync), or
                 the broker revised the history (both counts and the first differing time_msc)
  terminal-lost  the terminal no longer holds it (asked twice): the store is the only copy, keep it
  unproven       a tradeapi-store/1 entry without a proof; its rows match the terminal's
The terminal is the server's (TRADEAPI_TERMINAL, TRADEAPI_SERVER_TZ, ...). Exit status: 0 every
partition ok, 1 anything else (also when repaired: the report says what), 2 bad arguments (or not a
store, or a store of another trade server or zone), 130/143 interrupted.
`;


/** What follows `tradeapi verify`; undefined for --help. */
export function parseVerifyArgs(args: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd = process.cwd()): VerifyRequest | undefined {
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
        only: { type: 'string' },
        repair: { type: 'boolean' },
        json: { type: 'boolean' },
        'wait-s': { type: 'string' },
      },
    });
  } catch (e) {
    throw new UsageError(usageMessage(e));
  }
  const v = parsed.values;
  if (v.help) return undefined;
  const store = storeDir(v.store, env, cwd);
  let symbols: string[] | undefined;
  if (v.symbols !== undefined) {
    symbols = [...new Set(v.symbols.split(',').map((s) => s.trim()))];
    for (const s of symbols) if (!SYMBOL.test(s)) throw new UsageError(`--symbols: ${JSON.stringify(s)} is not a symbol name`);
  }
  const { fromMs, toMs } = parseDateRange(v.from, v.to);
  if (v.only !== undefined && v.only !== 'ticks' && v.only !== 'bars') throw new UsageError(`--only must be ticks or bars; received ${JSON.stringify(v.only)}`);
  let waitS = DEFAULT_WAIT_S;
  if (v['wait-s'] !== undefined) {
    const raw = v['wait-s'];
    if (!/^\d{1,5}$/.test(raw) || Number(raw) > 3600) throw new UsageError(`--wait-s must be an integer from 0 to 3600; received ${JSON.stringify(raw)}`);
    waitS = Number(raw);
  }
  return {
    store,
    symbols,
    fromMs,
    toMs,
    repair: v.repair === true,
    json: v.json === true,
    waitS,
    ticks: v.only !== 'bars',
    bars: v.only !== 'ticks',
  };
}
