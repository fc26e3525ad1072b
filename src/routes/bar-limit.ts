// MT5 serves at most terminal_info().maxbars bars per copy_rates_* request ("Max bars in chart")
// and refuses a request that reaches it with a bare (-2, 'Terminal: Invalid params'). This turns
// that refusal into a 400 naming the limit, its value and what to ask instead.
import { ProblemError, validationError } from '../http/problem.js';
import { constantName } from '../terminal/constants.js';
import { TerminalError } from '../terminal/errors.js';
import type { Terminal } from '../terminal/terminal.js';

/** What a copy_rates_* call asked for: a bar count, or a range of one timeframe (ms). */
export type BarRequest = { count: number } | { timeframe: number; fromMs: number; toMs: number };

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;

/**
 * The shortest duration of a bar of `timeframe` in seconds (MT5 encodes minutes as 1..30, hours as
 * 0x4000 | h, W1 as 0x8000 | 1, MN1 as 0xC000 | 1), so that a range's bar count is bounded above.
 */
function shortestBarSeconds(timeframe: number): number {
  switch (timeframe & 0xc000) {
    case 0x0000: return timeframe * MINUTE;
    case 0x4000: return (timeframe & 0x3fff) * HOUR;
    case 0x8000: return 7 * DAY;
    default: return 28 * DAY; // the shortest month
  }
}

/** The detail for a refused request, or undefined when the limit cannot be why. */
function explain(request: BarRequest, maxbars: number): string | undefined {
  const limit = `the terminal serves fewer than maxbars = ${maxbars} bars per request (terminal_info().maxbars, MT5's "Max bars in chart")`;
  if ('count' in request) {
    if (request.count < maxbars) return undefined;
    return `query parameter 'count' (count=${request.count}) is too large: ${limit}; ask for fewer than ${maxbars} bars, in several requests if you need more`;
  }
  const most = Math.floor((request.toMs - request.fromMs) / 1000 / shortestBarSeconds(request.timeframe)) + 1;
  if (most < maxbars) return undefined;
  const tf = constantName('TIMEFRAME', request.timeframe) ?? String(request.timeframe);
  return `the range from ${new Date(request.fromMs).toISOString()} to ${new Date(request.toMs).toISOString()} can hold up to ${most} ${tf} bars, and ${limit}; ask for a shorter range (split it into several requests)`;
}

/**
 * MT5 fails a bars request that lies wholly outside the history it serves (before the first bar,
 * after now, or older than the newest maxbars bars) with a "not found" (-4) that also means an
 * unknown symbol. Asked only after such a failure: when the symbol exists, a 404 that says so.
 */
async function explainNoHistory(terminal: Terminal, symbol: string, e: TerminalError): Promise<never> {
  try {
    await terminal.symbolInfo(symbol);
  } catch {
    throw e; // unknown symbol indeed: the route's symbol-not-found answer
  }
  throw new ProblemError(
    'notFound',
    `no ${symbol} bars there: the request lies wholly outside the history the terminal serves (${e.message}); ` +
      'ask for a range that overlaps it (GET …/rates/from-pos?start_pos=0 gives the newest bars)',
  );
}

/**
 * Runs a copy_rates_* call, turning a refusal for the terminal's bar limit into a clear 400 and,
 * with `symbol`, a request outside the served history into a 404 that does not blame the symbol.
 */
export async function withinMaxBars<T>(terminal: Terminal, request: BarRequest, call: () => Promise<T>, symbol?: string): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (symbol !== undefined && e instanceof TerminalError && e.kind === 'not_found') return explainNoHistory(terminal, symbol, e);
    if (!(e instanceof TerminalError && e.kind === 'invalid_params')) throw e;
    // Asked only after a refusal, so a successful request costs no extra terminal call.
    let maxbars: number;
    try {
      maxbars = (await terminal.terminalInfo()).maxbars;
    } catch {
      throw e; // the original refusal is the better answer
    }
    const detail = maxbars > 0 ? explain(request, maxbars) : undefined;
    if (detail === undefined) throw e;
    throw validationError(detail);
  }
}
