// The terminal layer as the rest of the service sees it.
import type { TerminalSettings } from '../config/index.js';
import { addon, type BridgeConfig, type SimConfig } from './native.js';
import { NativeTerminalFacade } from './native-terminal.js';
import { zoneTransitions, type ServerZone } from '../config/server-zone.js';
import type { Terminal } from './terminal.js';

export type { Terminal, TradeFilter, HistoryFilter, SeriesOptions, BridgeStatus } from './terminal.js';
export type { Series, TickChunk, RateChunk } from './series.js';
export { TickFields, RateFields } from './series.js';
export { TerminalError, isTerminalError, type TerminalErrorKind } from './errors.js';
export type { SimConfig, BridgeConfig } from './native.js';
export * from './records.js';
export { constants, allConstants, parseConstant, constantName, type ConstantFamily } from './constants.js';

export interface OpenOptions {
  /** Bound on each call including its wait in the queue, ms (default 30 000). */
  callTimeoutMs?: number;
}

/** The addon's releaseColumns bound to it, when it has one (a prebuild from before it has not: chunks are then left to the GC). */
function releaseColumnsOf(): ((chunk: object) => number) | undefined {
  return typeof addon.releaseColumns === 'function' ? addon.releaseColumns.bind(addon) : undefined;
}

/**
 * "Max bars in chart" of the embedded simulator unless the config says otherwise. MT5 refuses a
 * request of maxbars bars or more, so at the addon's default of 1 000 000 the API's documented
 * maximum count (1 000 000) always failed. Like an MT5 user who raises the setting for data work,
 * the embedded terminal takes 10 000 000: above any count the API accepts, and above the M1 bars
 * of the whole simulated history, so only a terminal configured lower refuses a range for it.
 */
export const EMBEDDED_MAX_BARS = 10_000_000;

/** The embedded simulated terminal (deterministic from config.seed). */
export function openSimTerminal(config: SimConfig = {}, options: OpenOptions = {}): Terminal {
  const timeout = options.callTimeoutMs ?? 30_000;
  const native = addon.createSimTerminal({ ...config, maxBars: config.maxBars ?? EMBEDDED_MAX_BARS }, { queueTimeoutMs: timeout });
  return new NativeTerminalFacade('sim', native, {
    callTimeoutMs: timeout,
    releaseColumns: releaseColumnsOf(),
  });
}

/** The simulator's history starts 2020-01-01 (binding/sim/config.h); its clock is described from the day before. */
const SIM_ZONE_FROM_S = Date.UTC(2019, 11, 31) / 1000;
const SIM_ZONE_YEARS_AHEAD = 30;

/**
 * The simulator stamping in a broker's server time (TRADEAPI_SIM_SERVER_TZ): the zone's changes
 * from before the simulated history to 30 years ahead, looked up once here (~80 ms for a zone
 * with daylight saving) because the addon has no time-zone database of its own.
 */
export function simServerZone(zone: ServerZone, nowMs = Date.now()): Pick<SimConfig, 'serverZone'> {
  const toS = Math.floor(nowMs / 1000) + SIM_ZONE_YEARS_AHEAD * 365 * 86_400;
  return { serverZone: zoneTransitions(zone, SIM_ZONE_FROM_S, toS) };
}

/** The terminal the settings name (TRADEAPI_TERMINAL, TRADEAPI_SIM_SERVER_TZ), as `serve` and `export` open it. */
export function openConfiguredTerminal(
  settings: Pick<TerminalSettings, 'terminal' | 'simServerTz' | 'simClockStartMs'> & Partial<Pick<TerminalSettings, 'simClockRate' | 'simTradesPerHour'>>,
): Terminal {
  const target = settings.terminal;
  if (target !== 'sim') return openBridgeTerminal(target.url, target.secret, { compression: target.compression });
  return openSimTerminal({
    ...(settings.simServerTz ? simServerZone(settings.simServerTz) : {}),
    ...(settings.simClockStartMs !== undefined ? { clockStartMs: settings.simClockStartMs } : {}),
    ...(settings.simClockRate !== undefined ? { clockRate: settings.simClockRate } : {}),
    ...(settings.simTradesPerHour !== undefined ? { tradesPerHour: settings.simTradesPerHour } : {}),
  });
}

export type BridgeOptions = OpenOptions & Omit<BridgeConfig, 'host' | 'port' | 'secret'> & {
  /** Calls that may wait for the addon's worker (default 1024); past it a call fails 'unavailable' (503) at once. */
  queueLimit?: number;
};

/**
 * A real terminal behind a bridge (docs/bridge-protocol.md) at tcp://HOST:PORT. Connects lazily:
 * while the bridge is unreachable or refuses the secret, calls fail with kind 'unavailable'
 * (HTTP 503 + Retry-After) and the next call after the backoff tries again.
 */
export function openBridgeTerminal(url: string, secret: string, options: BridgeOptions = {}): Terminal {
  const m = /^tcp:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(url);
  const port = m ? Number(m[2]) : NaN;
  if (!m || !(port >= 1 && port <= 65535)) throw new TypeError(`bridge address must be tcp://HOST:PORT; got ${JSON.stringify(url)}`);
  const { callTimeoutMs, queueLimit, ...bridge } = options;
  const timeout = callTimeoutMs ?? 30_000;
  const host = m[1]!.replace(/^\[(.*)\]$/, '$1');
  const native = addon.createBridgeTerminal({ ...bridge, host, port, secret }, { queueTimeoutMs: timeout, ...(queueLimit === undefined ? {} : { queueLimit }) });
  return new NativeTerminalFacade('bridge', native, { callTimeoutMs: timeout, releaseColumns: releaseColumnsOf() });
}
