// The names of the terminal's symbols, cached: what the 404 for an unknown symbol compares it with
// ("no symbol 'eurusd'; did you mean EURUSD?"). One symbols_get serves every such 404 for
// NAMES_TTL_MS (a broker's list changes rarely) and is shared by the 404s that ask meanwhile, so a
// burst of mistyped names costs one call; a failed fetch is not kept.
import { performance } from 'node:perf_hooks';

import type { Terminal } from './terminal.js';

/** How long a fetched list of names answers (monotonic time: a moved wall clock does not matter). */
export const NAMES_TTL_MS = 60_000;

interface Entry {
  readonly at: number;
  readonly names: Promise<readonly string[]>;
}

const cache = new WeakMap<Terminal, Entry>();

/** The names of every symbol the terminal has, at most NAMES_TTL_MS old. */
export function symbolNames(terminal: Terminal, now: number = performance.now()): Promise<readonly string[]> {
  const entry = cache.get(terminal);
  if (entry && now - entry.at < NAMES_TTL_MS) return entry.names;
  const names = terminal.symbolsGet().then((symbols) => symbols.map((s) => s.name));
  const fresh = { at: now, names };
  cache.set(terminal, fresh);
  names.catch(() => {
    if (cache.get(terminal) === fresh) cache.delete(terminal);
  });
  return names;
}

/** The terminal's names that equal `symbol` but for case (the name itself excluded), at most `max`. */
export async function namesMatchingIgnoringCase(terminal: Terminal, symbol: string, max = 5): Promise<string[]> {
  const wanted = symbol.toLowerCase();
  return (await symbolNames(terminal)).filter((name) => name !== symbol && name.toLowerCase() === wanted).slice(0, max);
}
