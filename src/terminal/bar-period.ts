// The periods of custom bars (GET /ticks/bars) and the price they are charted by, parsed from
// their text form: `90s`, `3m`, `2h` (any length dividing a day), `1d`, `1w` (Sunday-opened as
// MT5's W1), `ticks:500` (a bar every 500 ticks) and `volume:100` (a bar closing at the first tick
// where the traded volume reaches 100).

import type { SymbolInfo } from './records.js';

const DAY_S = 86_400;

export type BarPeriod =
  /** Bars of a fixed length of server wall-clock time that divides a day (1d included). */
  | { readonly kind: 'time'; readonly seconds: number }
  /** Weeks opened on Sunday 00:00 server time, as W1. */
  | { readonly kind: 'week' }
  /** A bar every `count` ticks, restarting at each server-time day start. */
  | { readonly kind: 'ticks'; readonly count: number }
  /** A bar closing at the first tick where the traded volume since its open reaches `size`; restarts each server day. */
  | { readonly kind: 'volume'; readonly size: number };

/** Which tick price a bar's open, high, low and close are made of. */
export type BarPrice = 'bid' | 'ask' | 'mid' | 'last';
export const BAR_PRICES: readonly BarPrice[] = ['bid', 'ask', 'mid', 'last'];

/** The largest tick count or volume a bar may hold (beyond it a bar would be a day anyway). */
export const MAX_BAR_SIZE = 1_000_000_000;

const UNIT_S: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600 };

const divisors = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1).filter((d) => n % d === 0);

/**
 * Every period text the server accepts, as one regular expression for the OpenAPI document (so that
 * a client generator or a fuzzer knows a valid period from the schema alone): each time unit's
 * divisors of a day written out, then 1d, 1w, ticks:N and volume:N. parseBarPeriod accepts exactly
 * these (no leading zeros, no spaces) and says why anything else is refused.
 */
export const BAR_PERIOD_PATTERN =
  '^(?:' +
  [
    `(?:${divisors(DAY_S).join('|')})s`,
    `(?:${divisors(DAY_S / 60).join('|')})m`,
    `(?:${divisors(DAY_S / 3600).join('|')})h`,
    '1d',
    '1w',
    'ticks:(?:[1-9]\\d{0,8}|1000000000)',
    'volume:(?:[1-9]\\d{0,8}(?:\\.\\d+)?|1000000000(?:\\.0+)?|0\\.\\d*[1-9]\\d*)',
  ].join('|') +
  ')$';
const PATTERN = new RegExp(BAR_PERIOD_PATTERN);

/** The period `text` stands for, or a message saying why it is none. */
export function parseBarPeriod(text: string): BarPeriod | string {
  const parsed = periodOf(text);
  if (typeof parsed !== 'string' && !PATTERN.test(text)) {
    return `write the period without leading zeros or spaces, e.g. 90s, 3m, 2h, ticks:500, volume:100; got ${JSON.stringify(text)}`;
  }
  return parsed;
}

function periodOf(text: string): BarPeriod | string {
  const t = text;
  if (t === '1d') return { kind: 'time', seconds: DAY_S };
  if (t === '1w') return { kind: 'week' };
  const time = /^(\d{1,6})([smh])$/.exec(t);
  if (time) {
    const seconds = Number(time[1]) * UNIT_S[time[2]!]!;
    if (seconds <= 0 || DAY_S % seconds !== 0) {
      return `a time period must be a length that divides a day (86400 s) exactly, e.g. 90s, 3m, 2h; ${JSON.stringify(text)} is ${seconds} s`;
    }
    return { kind: 'time', seconds };
  }
  const size = /^(ticks|volume):(\d+(?:\.\d+)?)$/.exec(t);
  if (size) {
    const n = Number(size[2]);
    if (size[1] === 'ticks') {
      if (!Number.isInteger(n) || n < 1 || n > MAX_BAR_SIZE) return `ticks:N takes a whole number of ticks from 1 to ${MAX_BAR_SIZE}; got ${JSON.stringify(text)}`;
      return { kind: 'ticks', count: n };
    }
    if (!(n > 0) || n > MAX_BAR_SIZE) return `volume:N takes a volume above 0 and at most ${MAX_BAR_SIZE}; got ${JSON.stringify(text)}`;
    return { kind: 'volume', size: n };
  }
  return `period must be Ns, Nm or Nh dividing a day (e.g. 90s, 3m, 2h), 1d, 1w, ticks:N or volume:N; got ${JSON.stringify(text)}`;
}

/** Tick and volume bars close on their content, not the clock: they carry their closing time. */
export const closesOnContent = (p: BarPeriod): boolean => p.kind === 'ticks' || p.kind === 'volume';

/** The server-time open (seconds) of the time bar holding server second `s`. */
export function timeBarOpen(p: BarPeriod, s: number): number {
  if (p.kind === 'time') return Math.floor(s / p.seconds) * p.seconds;
  const day = Math.floor(s / DAY_S);
  return (day - ((((day + 4) % 7) + 7) % 7)) * DAY_S; // 1970-01-01 was a Thursday
}

/** The length of a time bar, seconds (a week for 1w). */
export const timeBarSeconds = (p: BarPeriod): number => (p.kind === 'time' ? p.seconds : p.kind === 'week' ? 7 * DAY_S : DAY_S);

/** SYMBOL_CALC_MODE_EXCH_STOCKS .. _EXCH_BONDS_MOEX: instruments traded on an exchange, whose ticks carry trades. */
const EXCHANGE_MODES = new Set([32, 33, 34, 35, 36, 37, 38, 39]);

/** Whether the symbol's ticks carry trades (last price, real volume): charted by Last, or traded on an exchange. */
export const hasTrades = (info: Pick<SymbolInfo, 'chart_mode' | 'trade_calc_mode'>): boolean =>
  info.chart_mode === 1 || EXCHANGE_MODES.has(info.trade_calc_mode);

/**
 * The price `symbol`'s bars chart: `asked`, or by its chart_mode (bid, or last); or why none (last
 * and volume bars need ticks that carry trades). GET /ticks/bars and live bar events alike.
 */
export function barPriceOf(
  symbol: string,
  info: Pick<SymbolInfo, 'chart_mode' | 'trade_calc_mode'>,
  period: BarPeriod,
  periodText: string,
  asked: BarPrice | undefined,
): BarPrice | { why: string } {
  const price: BarPrice = asked ?? (info.chart_mode === 1 ? 'last' : 'bid');
  if (!hasTrades(info) && (price === 'last' || period.kind === 'volume')) {
    const what = period.kind === 'volume' ? `volume bars (period=${periodText})` : 'price=last';
    return { why: `${what} need a symbol whose ticks carry trades; ${symbol} is quoted by bid and ask only (chart_mode ${info.chart_mode}): ask for time or tick bars by bid, ask or mid` };
  }
  return price;
}
