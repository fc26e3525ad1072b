// Many symbols in one pull (issue 36 §2): the range routes take `symbol=` (one series, as MT5's
// copy_*_range), or `symbols=` (names, comma-separated) or `group=` (symbols_get's filter, Market
// Watch symbols only, in symbols_get's order): one series merged in time order with a `symbol`
// field (src/terminal/merged-series.ts). Every symbol's series is opened before the answer starts,
// so an unknown one is the usual 404 naming it, never a cut stream.
import { Type } from '@sinclair/typebox';

import { Param } from '../http/params.js';
import { ProblemError, received, validationError } from '../http/problem.js';
import { unknownSymbol } from '../http/symbol-hint.js';
import { TerminalError } from '../terminal/errors.js';
import type { Series } from '../terminal/series.js';
import type { Terminal } from '../terminal/terminal.js';

const manyNote =
  ' Exactly one of `symbol`, `symbols` and `group`; with `symbols` or `group` the answer merges the symbols' +
  ' series in time order (rows of equal time in the order listed) and every row has a `symbol` field (docs/api.md, "Many symbols in one pull").';

/** The query members that choose the symbols of a range route. */
export const symbolChoice = {
  symbol: Type.Optional(Param.symbol('One symbol, as the terminal spells it, e.g. EURUSD.' + manyNote)),
  symbols: Type.Optional(Param.symbols('Several symbols, comma-separated, e.g. EURUSD,GBPUSD: one answer merged in time order, ties in this order, with a `symbol` field')),
  group: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description:
        "Market Watch symbols matching a symbols_get filter ('*' wildcards, '!' exclusions, comma-separated, e.g. *USD*,!EURUSD): merged as with `symbols`, ties in symbols_get's order",
      examples: ['*USD*,!EURUSD'],
    }),
  ),
};

/** One symbol (the route's own series), or several (a merged series). */
export type SymbolPick = { readonly one: string } | { readonly many: readonly string[] };

/** Which symbols a request names: exactly one of symbol, symbols and group (a 400 otherwise). */
export async function pickSymbols(
  terminal: Terminal,
  query: { symbol?: string | undefined; symbols?: string | undefined; group?: string | undefined; compression?: string | undefined },
  max: number,
  /** The route's multi-symbol Parquet goes through parquet-wasm (custom bars), which has snappy. */
  opts: { snappy?: boolean } = {},
): Promise<SymbolPick> {
  const given = (['symbol', 'symbols', 'group'] as const).filter((k) => query[k] !== undefined);
  if (given.length !== 1) {
    throw validationError(
      given.length === 0
        ? "one of the query parameters 'symbol', 'symbols' or 'group' is required"
        : `the query parameters ${given.map((k) => `'${k}'`).join(' and ')} exclude each other: give exactly one of 'symbol', 'symbols' or 'group'`,
    );
  }
  if (query.symbol !== undefined) return { one: query.symbol };
  if (query.compression === 'snappy' && opts.snappy !== true) {
    throw validationError("compression=snappy is not available with 'symbols' or 'group': a multi-symbol Parquet answer is written by the native writer (zstd, lz4 or none)");
  }
  let names: string[];
  if (query.symbols !== undefined) {
    names = query.symbols.split(',');
    const empty = names.findIndex((n) => n === '');
    if (empty >= 0) throw validationError(`query parameter 'symbols' has an empty name (at position ${empty + 1}): names are separated by single commas`);
    const seen = new Set<string>();
    for (const n of names) {
      if (seen.has(n)) throw validationError(`query parameter 'symbols' names ${received(n)} twice`);
      seen.add(n);
    }
    if (names.length > max) throw tooMany(`'symbols' names ${names.length} symbols`, max);
  } else {
    const group = query.group!;
    // symbols_get's order; Market Watch only (a filter over thousands of broker symbols would
    // otherwise pull series nobody shows).
    names = (await terminal.symbolsGet(group)).filter((s) => s.select).map((s) => s.name);
    if (names.length === 0) throw new ProblemError('notFound', `group ${received(group)} matches no symbol in Market Watch (GET …/symbols?group=… lists what it matches)`);
    if (names.length > max) throw tooMany(`group ${received(group)} matches ${names.length} Market Watch symbols`, max);
  }
  return { many: names };
}

function tooMany(what: string, max: number): ProblemError {
  return validationError(`${what}, more than the ${max} one request may merge (TRADEAPI_MAX_SYMBOLS_PER_REQUEST): split the request`);
}

/**
 * Each symbol's series, opened one after another before anything is sent; an unknown symbol is the
 * 404 naming it (with the did-you-mean hint), and the series opened so far are closed on any failure.
 */
export async function openEach<S extends Series<unknown>>(terminal: Terminal, names: readonly string[], open: (name: string) => Promise<S>): Promise<S[]> {
  const opened: S[] = [];
  try {
    for (const name of names) {
      try {
        opened.push(await open(name));
      } catch (e) {
        if (e instanceof TerminalError && e.kind === 'not_found' && !(await isKnown(terminal, name))) {
          throw await unknownSymbol(terminal, name, { cause: e.message });
        }
        throw e;
      }
    }
    return opened;
  } catch (e) {
    for (const s of opened) s.close();
    throw e;
  }
}

/** Whether the terminal knows the symbol (a not_found may also be a range without history: /rates/range). */
async function isKnown(terminal: Terminal, name: string): Promise<boolean> {
  try {
    await terminal.symbolInfo(name);
    return true;
  } catch {
    return false;
  }
}
