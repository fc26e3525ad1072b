// Terminals whose ticks a test controls: a store the test appends to (ticks sharing a millisecond,
// bursts), or a generator of `perMs` ticks every millisecond up to the wall clock (a fast feed).
// Everything else is the simulator's (symbols, depth...).
import type { Tick } from '../../src/terminal/records.js';
import type { Series, TickChunk } from '../../src/terminal/series.js';
import type { Terminal } from '../../src/terminal/terminal.js';
import { TerminalError } from '../../src/terminal/errors.js';
import { faultyTerminal } from './faulty-terminal.js';

export function tick(time_msc: number, bid: number, flags = 6): Tick {
  return { time: Math.floor(time_msc / 1000), bid, ask: bid + 0.0001, last: 0, volume: 0, time_msc, flags, volume_real: 0 };
}

/** A series of one chunk holding `rows`. */
export function seriesOf(rows: readonly Tick[]): Series<TickChunk> {
  const n = rows.length;
  const chunk: TickChunk = {
    rows: n,
    time: BigInt64Array.from(rows, (r) => BigInt(r.time)),
    bid: Float64Array.from(rows, (r) => r.bid),
    ask: Float64Array.from(rows, (r) => r.ask),
    last: Float64Array.from(rows, (r) => r.last),
    volume: BigUint64Array.from(rows, (r) => BigInt(r.volume)),
    time_msc: BigInt64Array.from(rows, (r) => BigInt(r.time_msc)),
    flags: Uint32Array.from(rows, (r) => r.flags),
    volume_real: Float64Array.from(rows, (r) => r.volume_real),
  };
  let done = n === 0;
  const next = (): Promise<TickChunk | null> => {
    if (done) return Promise.resolve(null);
    done = true;
    return Promise.resolve(chunk);
  };
  return {
    next,
    close: () => (done = true),
    async *[Symbol.asyncIterator]() {
      for (let c = await next(); c; c = await next()) yield c;
    },
  };
}

export interface TickStore {
  readonly terminal: Terminal;
  add(symbol: string, ...ticks: Tick[]): void;
  /** copy_ticks_from calls so far, per symbol. */
  readonly calls: Map<string, number>;
}

/** Symbols the store knows answer from it; others are not found. */
export function tickStore(base: Terminal, symbols: readonly string[]): TickStore {
  const ticks = new Map<string, Tick[]>(symbols.map((s) => [s, []]));
  const calls = new Map<string, number>();
  const rowsOf = (symbol: string): Tick[] => {
    const rows = ticks.get(symbol);
    if (!rows) throw new TerminalError('not_found', -1, 'Terminal: Not found');
    return rows;
  };
  const terminal = faultyTerminal(base, {
    symbolInfoTick: async (symbol) => rowsOf(symbol).at(-1) ?? tick(0, 0),
    copyTicksFrom: async (symbol, from, count) => {
      calls.set(symbol, (calls.get(symbol) ?? 0) + 1);
      return seriesOf(rowsOf(symbol).filter((r) => r.time_msc >= from).slice(0, count));
    },
  });
  return { terminal, calls, add: (symbol, ...more) => rowsOf(symbol).push(...more) };
}

/** `perMs` ticks in every millisecond up to now (the n-th of a millisecond has bid 1 + n/1e5). */
export function fastTicks(base: Terminal, perMs: number): Terminal {
  const make = (from: number, count: number): Tick[] => {
    const rows: Tick[] = [];
    const now = Date.now();
    for (let ms = from; ms <= now && rows.length < count; ms++) {
      for (let k = 0; k < perMs && rows.length < count; k++) rows.push(tick(ms, 1 + k / 1e5));
    }
    return rows;
  };
  return faultyTerminal(base, {
    symbolInfoTick: async () => tick(Date.now(), 1 + (perMs - 1) / 1e5),
    copyTicksFrom: async (_symbol, from, count) => seriesOf(make(from, count)),
  });
}
