// What a replay request asks (`start`, `end`, `speed`: GET /events' query, a /ws subscribe's
// members), checked into a ReplayPlan or refused with a 400 naming what is wrong. Shared by both
// endpoints so that they refuse the same things in the same words.
import type { Config } from '../config/index.js';
import { validationError } from '../http/problem.js';
import type { ReplayPlan } from './replay.js';

/**
 * A terminal that stamps in the broker's server time (no TRADEAPI_SERVER_TZ to convert) may be up to
 * 14 h ahead of UTC (UTC+14 is the furthest zone): "in the future" allows that much.
 */
const SERVER_TIME_AHEAD_MS = 14 * 3_600_000;

/** The latest instant a replay may name: now, on the clock the terminal's stamps are in. */
export function latestInstant(config: Pick<Config, 'serverTz' | 'terminal' | 'simServerTz'>, nowMs = Date.now()): number {
  const utc = config.serverTz !== undefined || (config.terminal === 'sim' && config.simServerTz === undefined);
  return nowMs + (utc ? 0 : SERVER_TIME_AHEAD_MS);
}

export interface ReplayAsk {
  readonly start?: number | undefined;
  readonly end?: number | undefined;
  readonly speed?: number | undefined;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The plan, or undefined without `start`. `where` names the request's part in the problems
 * ("query parameter", "member"); times in ms, already parsed as instants.
 */
export function replayPlan(ask: ReplayAsk, kinds: ReadonlySet<string> | readonly string[], where: string, config: Pick<Config, 'serverTz' | 'terminal' | 'simServerTz'>): ReplayPlan | undefined {
  const has = (k: string): boolean => (Array.isArray(kinds) ? kinds.includes(k) : (kinds as ReadonlySet<string>).has(k));
  const { start, end, speed } = ask;
  if (start === undefined) {
    if (end !== undefined || speed !== undefined) throw validationError(`${where} '${end !== undefined ? 'end' : 'speed'}' applies to a replay: it needs 'start'`);
    return undefined;
  }
  if (has('book')) throw validationError(`${where} 'start' replays ticks: market depth has no history in MetaTrader 5, so a replay cannot have kinds book; ask for tick only`);
  const account = ['deal', 'order', 'position', 'account'].filter(has);
  if (account.length > 0) {
    throw validationError(`${where} 'start' replays ticks; the account kinds (${account.join(', ')}) are not replayed: resume deals with an event id instead, or ask for them in a stream of their own`);
  }
  const latest = latestInstant(config);
  if (start > latest) throw validationError(`${where} 'start' (${iso(start)}) is in the future; a replay starts at or before now`);
  if (end !== undefined) {
    if (end < start) throw validationError(`${where} 'end' (${iso(end)}) must not be earlier than 'start' (${iso(start)})`);
    if (end > latest) throw validationError(`${where} 'end' (${iso(end)}) is in the future; leave it out to run on into live ticks`);
  }
  return { startMsc: start, endMsc: end, speed: speed ?? 0 };
}
