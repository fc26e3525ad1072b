// `tradeapi store gaps SYMBOL`: the store's coverage of one symbol's ticks, from its manifest
// alone (no terminal, no lock: the manifest is replaced atomically, so a sync running meanwhile
// is fine). Exit status: 0, 1 (an unreadable store), 2 (bad arguments, no store there).
import { ConfigError, type Env } from '../config/index.js';
import { damagedDays, formatGaps, tickCoverage } from '../store/coverage.js';
import { dayKey } from '../store/layout.js';
import { readManifest, StoreMismatchError } from '../store/manifest.js';
import { GAPS_USAGE, parseGapsArgs, UsageError } from './args.js';

export interface GapsIo {
  env: Env;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

export async function runStore(args: readonly string[], io: GapsIo = { env: process.env, stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const say = (message: string): void => void io.stderr.write(`tradeapi store: ${message}\n`);
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h') {
    io.stdout.write(GAPS_USAGE);
    return 0;
  }
  if (sub !== 'gaps') {
    say(`${sub === undefined ? 'a subcommand is missing' : `unknown subcommand ${JSON.stringify(sub)}`}; the one there is: tradeapi store gaps SYMBOL (see tradeapi store gaps --help)`);
    return 2;
  }
  try {
    const request = parseGapsArgs(rest, io.env);
    if (request === undefined) {
      io.stdout.write(GAPS_USAGE);
      return 0;
    }
    const manifest = await readManifest(request.store, { symbols: [request.symbol] });
    if (!manifest) {
      say(`${request.store} is not a store (no manifest.json): fill it with tradeapi sync --store ${request.store}`);
      return 2;
    }
    if (!manifest.symbols[request.symbol] && request.fromMs === undefined) {
      const held = Object.keys((await readManifest(request.store))?.symbols ?? {});
      say(`the store ${request.store} has nothing of ${request.symbol} (it holds ${held.join(', ') || 'no symbol'})`);
      return 2;
    }
    const toMs = request.toMs ?? (request.fromMs !== undefined ? Date.now() : undefined);
    const damaged = await damagedDays(request.store, manifest, request.symbol, request.fromMs === undefined ? undefined : dayKey(request.fromMs), toMs === undefined ? undefined : dayKey(toMs));
    const report = tickCoverage(manifest, request.symbol, request.fromMs, toMs, damaged);
    io.stdout.write(request.json ? `${JSON.stringify(report)}\n` : formatGaps(report));
    return 0;
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      say(`${e.message}; see tradeapi store gaps --help`);
      return 2;
    }
    if (e instanceof StoreMismatchError) {
      say(e.message);
      return 1;
    }
    throw e;
  }
}
