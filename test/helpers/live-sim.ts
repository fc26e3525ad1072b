// A "live" simulated terminal for tests that wait for ticks, whatever the day and hour of the
// machine (issue 21): its clock starts at a fixed busy instant, Wednesday 10 January 2024 14:00 UTC
// (London and New York both open: EURUSD ~5 ticks/s, BTCUSD ~2/s, ETHUSD ~1.3/s), and runs at wall
// speed from there (the simulator's clockStartMs, a steady clock). So FX is open on a Saturday, at
// 03:00 UTC and on Christmas Day alike.
//
// And the schedule of what it will produce: ticks are a pure function of (seed, symbol, time), so a
// frozen terminal with the same config, its clock an hour later (the oracle), tells exactly which
// ticks the running one makes in any window. A test then waits as long as the simulator needs for
// the ticks it expects (window()), plus one poll of the tick feed and a margin for a loaded 2-core
// machine, never a guessed number of seconds; sleeps until ticks have happened (until()); and can
// assert what the simulator must have produced in a window (ticks()). wallClockSchedule() is the
// same for a simulator on the machine's own clock (a gateway started by the CLI), for waits on an
// instrument that trades around the clock.
import { constants, openSimTerminal, type SimConfig, type Terminal, type Tick } from '../../src/terminal/index.js';
import { readTicks } from '../../src/events/tick-feed.js';

import { LOADED_MACHINE_SLACK_MS } from './patience.js';

/** Where the live terminal's clock starts: a Wednesday, 14:00 UTC, every market but shares open. */
export const LIVE_CLOCK_MS = Date.UTC(2024, 0, 10, 14);
export const LIVE_SEED = 42;

// The allowance a loaded machine may add to a wait computed from the schedule (test/helpers/patience.ts).
export { LOADED_MACHINE_SLACK_MS };

/** How far past its start the oracle knows the schedule; a suite runs for minutes at most. */
const ORACLE_SPAN_MS = 3_600_000;
/** The longest stretch searched for the ticks a wait expects (a busy market has them in seconds). */
const MAX_SEARCH_MS = 600_000;
const ALL = constants('COPY_TICKS').get('COPY_TICKS_ALL') ?? -1;

export interface TickSchedule {
  /** The simulator's clock now, ms (never earlier than its own reading). */
  now(): number;
  /** The ticks of `symbol` with fromMs < time_msc <= toMs, as the simulator makes (or made) them. */
  ticks(symbol: string, fromMs: number, toMs: number): Promise<Tick[]>;
  /**
   * The time of the n-th tick after `fromMs` (default: now): of all `symbols` together, or with
   * `each`, the time by which every one of them has had n.
   */
  nthTickAfter(symbols: readonly string[], n: number, options?: { each?: boolean; fromMs?: number }): Promise<number>;
  /**
   * How long to wait from now for n new ticks of `symbols` (together, or of each) to reach a client
   * of a server polling every `pollMs`: the schedule's time to them, one poll, the machine's slack.
   */
  window(symbols: readonly string[], n: number, options: { pollMs: number; each?: boolean }): Promise<number>;
  /** Resolves once the simulator has made n more ticks of `symbols` (together, or of each) than it had now. */
  until(symbols: readonly string[], n: number, options?: { each?: boolean }): Promise<void>;
  /** Resolves once the simulator's clock has reached `ms`. */
  untilTime(ms: number): Promise<void>;
  close(): Promise<void>;
}

export interface LiveSim extends TickSchedule {
  /** The running terminal (serve it, subscribe to it). */
  readonly terminal: Terminal;
}

/** A simulated terminal on the busy test clock (seed 42 unless `config` says otherwise), with its schedule. */
export function liveSimTerminal(config: Omit<SimConfig, 'nowMs' | 'clockStartMs'> = {}): LiveSim {
  const base: SimConfig = { seed: LIVE_SEED, ...config };
  // The terminal's clock starts when it is constructed (synchronously, inside openSimTerminal):
  // between these two readings of the same monotonic clock.
  const before = performance.now();
  const terminal = openSimTerminal({ ...base, clockStartMs: LIVE_CLOCK_MS });
  const after = performance.now();
  const schedule = scheduleOf(base, {
    upper: () => LIVE_CLOCK_MS + Math.ceil(performance.now() - before),
    lower: () => LIVE_CLOCK_MS + Math.floor(performance.now() - after),
    end: LIVE_CLOCK_MS + ORACLE_SPAN_MS,
  });
  return {
    ...schedule,
    terminal,
    async close() {
      await Promise.all([terminal.close(), schedule.close()]);
    },
  };
}

/**
 * The schedule of a simulator on the machine's clock with `config` (default: the CLI's simulator,
 * default seed, server time UTC), e.g. a gateway process: for waits on a symbol that trades at
 * every hour (BTCUSD); on other symbols it tells when the market is closed.
 */
export function wallClockSchedule(config: Omit<SimConfig, 'nowMs' | 'clockStartMs'> = {}): TickSchedule {
  return scheduleOf(config, { upper: () => Date.now(), lower: () => Date.now(), end: Date.now() + ORACLE_SPAN_MS });
}

/** The schedule of a simulator with `config` whose clock reads between lower() and upper(), known up to `end`. */
function scheduleOf(config: SimConfig, clock: { upper(): number; lower(): number; end: number }): TickSchedule {
  const { upper, lower, end } = clock;
  const oracle = openSimTerminal({ ...config, nowMs: end });
  const selected = new Set<string>();

  const ticks = async (symbol: string, fromMs: number, toMs: number): Promise<Tick[]> => {
    if (toMs > end) throw new Error(`the test schedule ends at ${iso(end)}; asked up to ${iso(toMs)}`);
    // A symbol outside the Market Watch is refused its live tick, as in MetaTrader; show it in the oracle.
    if (!selected.has(symbol)) {
      await oracle.symbolSelect(symbol, true);
      selected.add(symbol);
    }
    const series = await oracle.copyTicksRange(symbol, fromMs, toMs, ALL);
    try {
      return (await readTicks(series)).filter((k) => k.time_msc > fromMs && k.time_msc <= toMs);
    } finally {
      series.close();
    }
  };

  const nthTickAfter: TickSchedule['nthTickAfter'] = async (symbols, n, options = {}) => {
    const from = options.fromMs ?? upper();
    for (let span = 10_000; span <= MAX_SEARCH_MS; span *= 2) {
      const to = Math.min(from + span, end);
      const times = await Promise.all(symbols.map(async (s) => (await ticks(s, from, to)).map((k) => k.time_msc)));
      let at: number | undefined;
      if (options.each) {
        if (times.every((ts) => ts.length >= n)) at = Math.max(...times.map((ts) => ts[n - 1] as number));
      } else {
        const merged = times.flat().sort((a, b) => a - b);
        if (merged.length >= n) at = merged[n - 1];
      }
      if (at !== undefined) return at;
      if (to === end) break;
    }
    throw new Error(`the simulator makes fewer than ${n} ticks of ${symbols.join(', ')}${options.each ? ' each' : ''} in the ${MAX_SEARCH_MS / 1000} s after ${iso(from)}: is the market closed then?`);
  };

  const untilTime = async (ms: number): Promise<void> => {
    // lower() never runs ahead of the simulator: once it reaches `ms`, so has the simulator.
    while (lower() < ms) await new Promise((r) => setTimeout(r, Math.max(1, ms - lower())));
  };

  return {
    now: upper,
    ticks,
    nthTickAfter,
    async window(symbols, n, options) {
      const from = upper();
      const at = await nthTickAfter(symbols, n, { each: options.each, fromMs: from });
      return at - from + options.pollMs + LOADED_MACHINE_SLACK_MS;
    },
    async until(symbols, n, options = {}) {
      await untilTime(await nthTickAfter(symbols, n, { each: options.each }));
    },
    untilTime,
    close: () => oracle.close(),
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();
