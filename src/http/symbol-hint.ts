// The 404 for an unknown symbol, on every route that names one (path, query, the body of
// /order/check, the symbols of /events and of a WebSocket subscribe) and in `tradeapi export`:
// it says which of the terminal's names match the one asked for case-insensitively ("did you mean
// EURUSD?"), from the cached name list of terminal/symbol-names.ts. Never fails itself: without
// the list (the terminal gone meanwhile) the detail simply has no hint.
import { namesMatchingIgnoringCase } from '../terminal/symbol-names.js';
import type { Terminal } from '../terminal/terminal.js';
import { ProblemError, received } from './problem.js';

export interface UnknownSymbolOptions {
  /** What the detail calls the value (default 'symbol'; e.g. 'request.symbol'). */
  what?: string;
  /** The terminal's own words, in parentheses after the name. */
  cause?: string;
  /** Where the names are listed, said when none matches (default: GET …/symbols); '' for nothing. */
  listing?: string;
}

/** The detail's tail: the names that match `symbol` but for case, or that none does. */
export async function symbolHint(terminal: Terminal, symbol: string, listing = 'GET …/symbols lists them'): Promise<string | undefined> {
  let names: string[];
  try {
    names = await namesMatchingIgnoringCase(terminal, symbol);
  } catch {
    return undefined;
  }
  if (names.length === 0) return `no symbol matches it case-insensitively${listing === '' ? '' : ` (${listing})`}`;
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  return `did you mean ${list}?`;
}

/** The symbol-not-found problem for `symbol`, with the hint. */
export async function unknownSymbol(terminal: Terminal, symbol: string, options: UnknownSymbolOptions = {}): Promise<ProblemError> {
  const { what = 'symbol', cause } = options;
  const hint = await symbolHint(terminal, symbol, options.listing);
  const detail = `${what} ${received(symbol)} is not known to the terminal${cause === undefined ? '' : ` (${cause})`}${hint === undefined ? '' : `; ${hint}`}`;
  return new ProblemError('symbolNotFound', detail);
}
