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

/** The embedded simulated terminal (deterministic from config.seed). */
export function openSimTerminal(config: SimConfig = {}, options: OpenOptions = {}): Terminal {
  const timeout = options.callTimeoutMs ?? 30_000;
  return new NativeTerminalFacade('sim', addon.createSimTerminal(config, { queueTimeoutMs: timeout }), {
    callTimeoutMs: timeout,
  });
}
