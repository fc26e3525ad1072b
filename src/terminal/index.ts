// The terminal layer as the rest of the service sees it.
import { addon, type SimConfig } from './native.js';
import { NativeTerminalFacade } from './native-terminal.js';
import type { Terminal } from './terminal.js';

export type { Terminal, TradeFilter, HistoryFilter, SeriesOptions } from './terminal.js';
export type { Series, TickChunk, RateChunk } from './series.js';
export { TickFields, RateFields } from './series.js';
export { TerminalError, isTerminalError, type TerminalErrorKind } from './errors.js';
export type { SimConfig } from './native.js';
export * from './records.js';
export { constants, allConstants, parseConstant, constantName, type ConstantFamily } from './constants.js';

export interface OpenOptions {
  /** Bound on each call including its wait in the queue, ms (default 30 000). */
  callTimeoutMs?: number;
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
  });
}
