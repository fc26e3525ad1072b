// Loads the compiled addon (build/Release, else prebuilds/<platform>-<arch>) through node-gyp-build.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import type { TradeRequest } from './records.js';
import type { BarChunk, TickChunk } from './series.js';
import type { HistoryFilter, TradeFilter } from './terminal.js';

const require = createRequire(import.meta.url);
/** The package root: the nearest directory above this file that holds CMakeLists.txt (this file
 *  runs both from src/ under tap and from dist/src/ once compiled). */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'CMakeLists.txt'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('tradeapi: cannot find the package root (CMakeLists.txt)');
    dir = up;
  }
  return dir;
}
const root = packageRoot();

/** A series as the addon returns it, before the façade wraps it. */
export interface NativeSeries {
  next(maxRows: number): Promise<unknown>;
  close(): void;
}

/** The addon's terminal object: same operations as the façade, raw results. */
export interface NativeTerminal {
  version(): Promise<unknown>;
  lastError(): Promise<unknown>;
  terminalInfo(): Promise<unknown>;
  accountInfo(): Promise<unknown>;
  symbolsTotal(): Promise<unknown>;
  symbolsGet(group?: string): Promise<unknown>;
  symbolInfo(symbol: string): Promise<unknown>;
  symbolInfoTick(symbol: string): Promise<unknown>;
  symbolSelect(symbol: string, enable: boolean): Promise<unknown>;
  marketBookAdd(symbol: string): Promise<unknown>;
  marketBookGet(symbol: string): Promise<unknown>;
  marketBookRelease(symbol: string): Promise<unknown>;
  copyRatesFrom(symbol: string, timeframe: number, dateFrom: number, count: number): Promise<NativeSeries>;
  copyRatesFromPos(symbol: string, timeframe: number, startPos: number, count: number): Promise<NativeSeries>;
  copyRatesRange(symbol: string, timeframe: number, dateFrom: number, dateTo: number): Promise<NativeSeries>;
  copyTicksFrom(symbol: string, dateFromMsc: number, count: number, flags: number): Promise<NativeSeries>;
  copyTicksRange(symbol: string, dateFromMsc: number, dateToMsc: number, flags: number): Promise<NativeSeries>;
  orderCalcMargin(action: number, symbol: string, volume: number, price: number): Promise<unknown>;
  orderCalcProfit(action: number, symbol: string, volume: number, priceOpen: number, priceClose: number): Promise<unknown>;
  orderCheck(request: Partial<TradeRequest>): Promise<unknown>;
  positionsTotal(): Promise<unknown>;
  positionsGet(filter?: TradeFilter): Promise<unknown>;
  ordersTotal(): Promise<unknown>;
  ordersGet(filter?: TradeFilter): Promise<unknown>;
  historyOrdersTotal(dateFrom: number, dateTo: number): Promise<unknown>;
  historyOrdersGet(filter: HistoryFilter): Promise<unknown>;
  historyDealsTotal(dateFrom: number, dateTo: number): Promise<unknown>;
  historyDealsGet(filter: HistoryFilter): Promise<unknown>;
  /** A bridge terminal's status (runs beside the worker); undefined for any other terminal. */
  bridgeStatus(): Promise<unknown> | undefined;
  close(): void;
}

/** Configuration of the simulated terminal (binding/sim/config.h); every member optional. */
export interface SimConfig {
  seed?: number;
  currency?: string;
  leverage?: number;
  /** Balance after the generated history. */
  balance?: number;
  login?: number;
  /** Open positions, pending orders and a year of history (default true). */
  demoTrades?: boolean;
  /** End of the generated history, seconds (default: start of the current UTC day). */
  accountAnchor?: number;
  /** Subset of the catalogue (default: all ~30 symbols). */
  symbols?: string[];
  /** Server time = UTC + offset, seconds (default 0)... */
  serverUtcOffset?: number;
  /** ...or by these transitions: [UTC second, server minus UTC in seconds], in time order, the first
   *  also holding before it (zoneTransitions in src/config/server-zone.ts; TRADEAPI_SIM_SERVER_TZ). */
  serverZone?: Array<[number, number]>;
  /** Nothing exists before this, seconds (default 2020-01-01). */
  historyStart?: number;
  /** Frozen clock in ms (default: wall clock). */
  nowMs?: number;
  /** A running clock: reads this UTC instant (ms) when the terminal opens and moves at wall speed
   *  from there (TRADEAPI_SIM_CLOCK; tests that need a live market on any day). Ignored with nowMs. */
  clockStartMs?: number;
  /** Simulated ms per real ms of a running clock (default 1; TRADEAPI_SIM_CLOCK_RATE), above 0 up to 1e6. */
  clockRate?: number;
  /** The trading schedule after the generated history: actions per hour on average (default 4;
   *  0 = none; TRADEAPI_SIM_TRADES_PER_HOUR), up to 3600. Pending orders, SL/TP and stop-out play either way. */
  tradesPerHour?: number;
  /** Pinned live quotes. */
  fixedQuotes?: Record<string, { bid: number; ask: number }>;
  /** MT5's "Max bars in chart": a copy_rates_* request of this many bars or more fails with -2
   *  (mt5-reference §3.1). The addon's default is 1 000 000; openSimTerminal raises it (see there). */
  maxBars?: number;
  commentMaxLength?: number;
  tradeAllowed?: boolean;
}

/** Where the bridge is and how long to wait for it (binding/bridge/bridge_terminal.h). */
export interface BridgeConfig {
  host: string;
  port: number;
  /** TRADEAPI_BRIDGE_SECRET (at least 16 bytes); never sent, never logged. */
  secret: string;
  connectTimeoutMs?: number;
  handshakeTimeoutMs?: number;
  /** Longest wait for one reply frame (default 20 s, or 2/3 of a shorter callTimeoutMs: below it, so a hung bridge frees the worker before callers time out). */
  ioTimeoutMs?: number;
  /** Reconnect backoff after a failure: first delay, doubling up to the max (defaults 100 / 1000 ms). */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** Series compression to ask the bridge for (TRADEAPI_BRIDGE_COMPRESSION): auto (default) = none on a loopback address, zstd otherwise; zstd falls back to none when the bridge does not offer it. */
  compression?: BridgeCompression;
}

export type BridgeCompression = 'auto' | 'zstd' | 'none';

export interface NativeAddon {
  createSimTerminal(config?: SimConfig, options?: { queueTimeoutMs?: number }): NativeTerminal;
  /** queueLimit: calls that may wait for the worker (default 1024); past it a call fails 'unavailable' at once. */
  createBridgeTerminal(config: BridgeConfig, options?: { queueTimeoutMs?: number; queueLimit?: number }): NativeTerminal;
  constants: Record<string, Record<string, number>>;
  /** Bench aid: ms spent handing a `rows`-row tick chunk to JS (conversion only). */
  measureHandoff(rows: number): { ms: number; chunk: unknown };
  /**
   * A native accept thread on a listening socket (binding/net/acceptor.h): each batch of accepted
   * descriptors arrives in one onSockets call, which owns them. null where there is none (Windows).
   */
  startAcceptor(listenFd: number, onSockets: (fds: number[]) => void): { stop(): void } | null;
  /**
   * Detaches the typed arrays of a series chunk that the addon made and gives their storage back to
   * its column pool at once (binding/napi/columns_js.h); other arrays are left alone. Returns the
   * bytes given back. Only once nothing reads the chunk any more. Absent in addons built before it.
   */
  releaseColumns?(chunk: object): number;
  /** The column pool's state (tests, benchmarks). */
  columnPoolStats?(): ColumnPoolStats;
  /** Custom bars folded on the thread pool (binding/napi/bar_fold_js.h). Absent in addons built before it. */
  BarFolder?: new (options: NativeBarFolderOptions) => NativeBarFolder;
  /** The k-way merge of several symbols' chunks (binding/napi/merge_js.cpp). Absent in addons built before it. */
  SeriesMerger?: new (kind: 'ticks' | 'rates', outRows: number) => NativeSeriesMerger;
}

export interface NativeBarFolderOptions {
  kind: 'time' | 'week' | 'ticks' | 'volume';
  seconds: number;
  count: number;
  size: number;
  price: 'bid' | 'ask' | 'mid' | 'last';
  digits: number;
  /** [utc_s, offset_s] pairs, flattened. */
  transitions: number[];
  fromS: number;
  toS: number;
}

/** binding/encode/bar_fold.h as JS sees it: one push in flight at a time. */
export interface NativeBarFolder {
  push(chunk: TickChunk): Promise<void>;
  take(minRows: number): BarChunk | undefined;
  finish(nowServerMs: number, forming: boolean): void;
}

/** One merge of several symbols' series (merged-series.ts): each merge() on the thread pool, one at a time. */
export interface NativeSeriesMerger {
  /** The source's current chunk (its columns are read once, and referenced until replaced), or null: none. Not during a merge. */
  setSource(id: number, chunk: object | null): void;
  /**
   * Merges on from each source's row `from`, given as [id, from, id, from, …] (every source set, every
   * window non-empty) up to the first window emptied; `next`: each source's next row, in the order
   * given; `chunk`: an output of outRows rows, once full.
   */
  merge(positions: readonly number[]): Promise<{ next: number[]; chunk: object | null }>;
  /** The rows merged and not yet handed over (the series' end), or null. */
  flush(): object | null;
}

export interface ColumnPoolStats {
  /** Capacity in the pool's free lists. */
  pooledBytes: number;
  /** Columns made from pooled storage, since the process started. */
  reused: number;
  /** Columns released (releaseColumns), since the process started. */
  released: number;
  /** Columns handed to JS and neither released nor freed by the GC (this thread). */
  live: number;
  /** Columns whose buffer's finalizer has not run yet (released ones included, until it runs). */
  holders: number;
}

const load = require('node-gyp-build') as (dir: string) => unknown;
// TRADEAPI_ADDON names a specific .node file instead (the test script uses it to run the suites
// against an AddressSanitizer build of the addon).
const override = process.env.TRADEAPI_ADDON;
export const addon = (override ? require(path.resolve(override)) : load(root)) as NativeAddon;
