// `tradeapi export` arguments: parsed with node:util, then validated by the very parameter parsers
// of GET /ticks/range and /rates/range, so that a date, a timeframe or a flags value means the same
// here as over HTTP. Errors name the command-line option, not the query parameter.
import path from 'node:path';
import { parseArgs } from 'node:util';

import type { ParquetCompression } from '../encode/index.js';
import type { Format } from '../encode/types.js';
import { ParameterParser, parseIsoUtc } from '../http/params.js';
import { ProblemError } from '../http/problem.js';
import type { Route } from '../http/route.js';
import { rateRoutes } from '../routes/rates.js';
import { tickRoutes } from '../routes/ticks.js';

export type ExportWhat = 'ticks' | 'rates';

export interface ExportRequest {
  what: ExportWhat;
  symbol: string;
  /** Milliseconds since the epoch (UTC), inclusive. */
  fromMs: number;
  toMs: number;
  /** rates: a TIMEFRAME_* value. */
  timeframe?: number | undefined;
  /** ticks: a COPY_TICKS_* value (default COPY_TICKS_ALL). */
  flags?: number | undefined;
  format: Format;
  compression?: ParquetCompression | undefined;
  /** The file asked for, absolute, or `-` for stdout (output-target.ts: what each kind of file gets). */
  output: string;
}

/** Bad arguments: the message is for the user; the exit status is 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** What every command's --from and --to take (parseDateOption), for their usage texts. */
export const DATE_FORMS = 'YYYY-MM-DD (a UTC day: its start in --from, through its end in --to) or ISO 8601 UTC ending in Z, e.g. 2024-01-09T10:00:00Z';

const DAY_MS = 86_400_000;

/**
 * A date option of any command (export, sync, verify, store gaps), one parser for all: an ISO 8601
 * UTC timestamp ending in Z, as the HTTP API takes, or a bare UTC day YYYY-MM-DD, which means its
 * first millisecond in --from (`end` 'start') and its last, 23:59:59.999, in --to (`end` 'end').
 */
export function parseDateOption(option: string, raw: string, end: 'start' | 'end'): number {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(raw);
  const ms = day ? parseIsoUtc(`${raw}T00:00:00Z`) : parseIsoUtc(raw);
  if (ms === undefined) throw new UsageError(`${option} must be YYYY-MM-DD or an ISO 8601 UTC timestamp ending in Z, e.g. 2024-01-08T00:00:00Z; received ${JSON.stringify(raw)}`);
  if (ms < Date.UTC(1970, 0, 1)) throw new UsageError(`${option} must not be before 1970; received ${JSON.stringify(raw)}`);
  return day && end === 'end' ? ms + DAY_MS - 1 : ms;
}

/** --from and --to read by parseDateOption; refused when --from is later. */
export function parseDateRange(from: string | undefined, to: string | undefined): { fromMs: number | undefined; toMs: number | undefined } {
  const fromMs = from === undefined ? undefined : parseDateOption('--from', from, 'start');
  const toMs = to === undefined ? undefined : parseDateOption('--to', to, 'end');
  if (fromMs !== undefined && toMs !== undefined && toMs < fromMs) {
    throw new UsageError(`--from (${new Date(fromMs).toISOString()}) must not be later than --to (${new Date(toMs).toISOString()})`);
  }
  return { fromMs, toMs };
}

export const EXPORT_USAGE = `Usage:
  tradeapi export ticks SYMBOL --from DATE --to DATE [--flags COPY_TICKS_ALL] -o FILE
  tradeapi export rates SYMBOL --from DATE --to DATE --timeframe TIMEFRAME_M1 -o FILE

  -o, --output FILE       FILE.parquet, FILE.arrow or FILE.json (the format follows the extension);
                          - (stdout), a FIFO or a device is written straight into (give --format)
  --from, --to DATE       ${DATE_FORMS} (both inclusive)
  --timeframe TF          rates: TIMEFRAME_* name or its integer
  --flags F               ticks: COPY_TICKS_ALL (default), COPY_TICKS_INFO, COPY_TICKS_TRADE or the integer
  --format F              parquet, arrow or json (instead of the extension)
  --compression C         Parquet codec: zstd (default), lz4, snappy, none

The terminal is the server's: TRADEAPI_TERMINAL (sim or tcp://HOST:PORT), TRADEAPI_BRIDGE_SECRET,
TRADEAPI_SERVER_TZ, TRADEAPI_SIM_SERVER_TZ. The file appears only once complete (written to FILE.tmp-PID, then renamed
over FILE, keeping FILE's mode; a symbolic link is followed to its target).
`;

const EXTENSIONS: Readonly<Record<string, Format>> = { '.parquet': 'parquet', '.pq': 'parquet', '.arrow': 'arrow', '.arrows': 'arrow', '.json': 'json' };
const FORMATS: readonly Format[] = ['parquet', 'arrow', 'json'];

/** The route whose parameter parser validates each kind of export (and whose errors it shares). */
export const ROUTES: Readonly<Record<ExportWhat, Route>> = {
  ticks: tickRoutes.find((r) => r.path === '/ticks/range') as Route,
  rates: rateRoutes.find((r) => r.path === '/rates/range') as Route,
};

/** Query parameter -> the option that supplies it. */
const OPTION_OF: Readonly<Record<string, string>> = {
  symbol: 'SYMBOL',
  date_from: '--from',
  date_to: '--to',
  timeframe: '--timeframe',
  flags: '--flags',
  compression: '--compression',
};

/** A route parser's message in command-line words. */
export function inOptionWords(detail: string): string {
  return detail
    .replace(/query parameter '(\w+)'/g, (_m, name: string) => OPTION_OF[name] ?? `'${name}'`)
    .replace(/'(date_from|date_to)'/g, (_m, name: string) => OPTION_OF[name] as string);
}

/** `args`: what follows `tradeapi export`. Returns undefined for --help. */
export function parseExportArgs(args: readonly string[], cwd = process.cwd()): ExportRequest | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        from: { type: 'string' },
        to: { type: 'string' },
        timeframe: { type: 'string' },
        flags: { type: 'string' },
        format: { type: 'string' },
        compression: { type: 'string' },
        output: { type: 'string', short: 'o' },
      },
    });
  } catch (e) {
    throw new UsageError(usageMessage(e));
  }
  const { values, positionals } = parsed;
  if (values.help) return undefined;
  const [what, symbol, ...extra] = positionals;
  if (what !== 'ticks' && what !== 'rates') throw new UsageError(`export what? ${what === undefined ? 'give ticks or rates' : `${JSON.stringify(what)} is neither ticks nor rates`}`);
  if (symbol === undefined) throw new UsageError(`export ${what}: the SYMBOL is missing`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  if (what === 'ticks' && values.timeframe !== undefined) throw new UsageError('--timeframe is for rates; ticks take --flags');
  if (what === 'rates' && values.flags !== undefined) throw new UsageError('--flags is for ticks; rates take --timeframe');
  if (values.output === undefined || values.output === '') throw new UsageError('-o FILE is required (FILE.parquet, FILE.arrow or FILE.json)');
  if (values.from === undefined) throw new UsageError('--from is required');
  if (values.to === undefined) throw new UsageError('--to is required');

  let format: Format;
  if (values.format !== undefined) {
    if (!(FORMATS as readonly string[]).includes(values.format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}; got ${JSON.stringify(values.format)}`);
    format = values.format as Format;
  } else if (values.output === '-') {
    throw new UsageError('-o - (stdout) needs --format parquet, arrow or json');
  } else {
    const ext = path.extname(values.output).toLowerCase();
    const byExt = Object.hasOwn(EXTENSIONS, ext) ? EXTENSIONS[ext] : undefined;
    if (!byExt) throw new UsageError(`cannot tell the format from ${JSON.stringify(path.basename(values.output))}: name it .parquet, .arrow or .json, or give --format`);
    format = byExt;
  }

  // The dates as every command reads them; the route's parser then sees them as the HTTP API would.
  const range = parseDateRange(values.from, values.to);
  const raw: Record<string, string | undefined> = {
    symbol,
    date_from: new Date(range.fromMs as number).toISOString(),
    date_to: new Date(range.toMs as number).toISOString(),
    timeframe: values.timeframe,
    flags: values.flags,
    compression: values.compression,
  };
  let query: Record<string, unknown>;
  try {
    query = new ParameterParser('query', ROUTES[what].query).parse((name) => (raw[name] === undefined ? [] : [raw[name] as string]));
  } catch (e) {
    if (e instanceof ProblemError) throw new UsageError(inOptionWords(e.detail));
    throw e;
  }
  const fromMs = query.date_from as number;
  const toMs = query.date_to as number;
  return {
    what,
    symbol: query.symbol as string,
    fromMs,
    toMs,
    timeframe: query.timeframe as number | undefined,
    flags: query.flags as number | undefined,
    format,
    compression: query.compression as ParquetCompression | undefined,
    output: values.output === '-' ? '-' : path.resolve(cwd, values.output),
  };
}

/** parseArgs' errors in our words (for every subcommand's parser: export, sync, store). */
export function usageMessage(e: unknown): string {
  const code = (e as { code?: string }).code;
  const message = e instanceof Error ? e.message : String(e);
  const option = (/'(-{1,2}[^'\s]*)/.exec(message)?.[1] ?? '').replace(/,$/, '');
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return /argument missing/.test(message) ? `option ${option} needs a value` : `option ${option} takes no value`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `unexpected argument ${/'([^']*)'/.exec(message)?.[1] ?? ''}`.trim();
  return message;
}
