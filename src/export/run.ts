// `tradeapi export ticks|rates SYMBOL --from … --to … -o FILE`: one range from the terminal (the
// simulator or a bridge, as the server would use) straight into a file through the encoders of the
// HTTP routes, chunk by chunk (memory stays at about one chunk), with a progress line on a TTY and
// an atomic write (atomic-file.ts). Exit status: 0 written, 1 failed, 2 bad arguments (an unknown
// symbol, a range the terminal refuses, an -o it will not write), 130/143 interrupted by
// SIGINT/SIGTERM; a regular FILE exists (or changes) only after 0. What -o may name, and what
// each kind gets (stdout, a FIFO or a device is written straight into): output-target.ts.
import { ConfigError, loadTerminalSettings, type Env } from '../config/index.js';
import { encodeSeries } from '../encode/index.js';
import { toProblem } from '../http/errors-map.js';
import { ProblemTypes } from '../http/problem.js';
import { unknownSymbol } from '../http/symbol-hint.js';
import { withinMaxBars } from '../routes/bar-limit.js';
import { toSeconds } from '../routes/shared.js';
import { TerminalError } from '../terminal/errors.js';
import type { RateChunk, Series, TickChunk } from '../terminal/series.js';
import type { Terminal } from '../terminal/terminal.js';
import { EXPORT_USAGE, inOptionWords, parseExportArgs, ROUTES, UsageError, type ExportRequest } from './args.js';
import { AtomicFile } from './atomic-file.js';
import { resolveOutput, type ExportSink, type OutputTarget } from './output-target.js';
import { Progress, type ProgressStream } from './progress.js';
import { StreamOutput, type OutputStream } from './stream-output.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/** After the first signal, the export gets this long to stop by itself before the process exits. */
export const INTERRUPT_GRACE_MS = 3_000;

export interface ExportIo {
  env: Env;
  /** --help, and the export itself with -o -. */
  stdout: ProgressStream & OutputStream;
  stderr: ProgressStream;
}

class Interrupted extends Error {
  override readonly name = 'Interrupted';
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
  }
}

const signalExit = (signal: NodeJS.Signals): number => 128 + (signal === 'SIGINT' ? 2 : 15);

/** The time of a chunk's row `i` in ms (ticks carry time_msc, bars whole seconds). */
function rowMs(chunk: TickChunk | RateChunk, i: number): number | undefined {
  const t = 'time_msc' in chunk ? chunk.time_msc[i] : chunk.time[i] === undefined ? undefined : (chunk.time[i] as bigint) * 1000n;
  return t === undefined ? undefined : Number(t);
}

/**
 * Counts rows as the encoder takes chunks, and the rows it is done with: the encoder asks for a
 * chunk only once everything made of the previous one has been written (series-encoder.ts; with
 * Parquet, up to its parallelism of row groups may still be encoding), so at each ask the chunks
 * before are written. The progress line reports those (`written`, `writtenLastMs`).
 */
class CountingSeries<C extends TickChunk | RateChunk> implements Series<C> {
  rows = 0;
  written = 0;
  firstMs: number | undefined;
  writtenLastMs: number | undefined;
  private lastMs: number | undefined;

  constructor(private readonly inner: Series<C>) {}

  async next(): Promise<C | null> {
    this.written = this.rows;
    this.writtenLastMs = this.lastMs;
    const chunk = await this.inner.next();
    if (chunk !== null && chunk.rows > 0) {
      this.rows += chunk.rows;
      this.firstMs ??= rowMs(chunk, 0);
      this.lastMs = rowMs(chunk, chunk.rows - 1) ?? this.lastMs;
    }
    return chunk;
  }

  close(): void {
    this.inner.close();
  }

  readAhead(enabled: boolean): void {
    this.inner.readAhead?.(enabled);
  }

  setChunkRows(rows: number): void {
    this.inner.setChunkRows?.(rows);
  }

  /** Forwarded: chunks pass unchanged and only their counts and times are kept. */
  release(chunk: C): void {
    this.inner.release?.(chunk);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<C> {
    for (;;) {
      const chunk = await this.next();
      if (chunk === null) return;
      yield chunk;
    }
  }
}

export async function runExport(args: readonly string[], io: ExportIo = { env: process.env, stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const say = (message: string): void => void io.stderr.write(`tradeapi export: ${message}\n`);
  let request: ExportRequest | undefined;
  let settings;
  let target: OutputTarget;
  try {
    request = parseExportArgs(args);
    if (request === undefined) {
      io.stdout.write(EXPORT_USAGE);
      return EXIT_OK;
    }
    settings = loadTerminalSettings(io.env);
    target = await resolveOutput(request.output);
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      say(`${e.message}; see tradeapi export --help`);
      return EXIT_USAGE;
    }
    const code = fileError(e, say);
    if (code !== undefined) return code;
    throw e;
  }
  const binary = request.format !== 'json';

  // Loaded only now: bad arguments are reported without loading the addon.
  const { openConfiguredTerminal } = await import('../terminal/index.js');
  const { withServerTime } = await import('../terminal/with-server-time.js');
  const raw = openConfiguredTerminal(settings);
  const terminal = settings.serverTz ? withServerTime(raw, settings.serverTz) : raw;

  let file: ExportSink | undefined;
  let interrupted: Interrupted | undefined;
  let fallback: NodeJS.Timeout | undefined;
  // Ends the wait for a FIFO's reader (stream-output.ts).
  const interruption = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted) {
      // A second signal: leave now, without the temp file.
      file?.discardSync();
      process.exit(signalExit(interrupted.signal));
    }
    interrupted = new Interrupted(signal);
    interruption.abort(interrupted);
    file?.interrupt(interrupted);
    // A terminal call in flight (a slow bridge) may take a while to come back: do not wait for it.
    fallback = setTimeout(() => {
      file?.discardSync();
      say(interrupted?.message ?? 'interrupted');
      process.exit(signalExit(signal));
    }, INTERRUPT_GRACE_MS);
    fallback.unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const label = `${request.symbol} ${request.what}`;
  // JSON to stdout on the terminal that would also show the progress line: no line in the data.
  const progressTo: ProgressStream = target.kind === 'stdout' && io.stdout.isTTY ? { isTTY: false, write: () => true } : io.stderr;
  const progress = new Progress(progressTo, label, request);
  let series: { readonly rows: number; readonly written: number; readonly firstMs: number | undefined; readonly writtenLastMs: number | undefined; close(): void } | undefined;
  const counting = <C extends TickChunk | RateChunk>(inner: Series<C>): CountingSeries<C> => {
    const c = new CountingSeries(inner);
    // Arrow and Parquet leave the main thread idle per chunk: let the terminal produce the next meanwhile.
    c.readAhead(request.format !== 'json');
    series = c;
    return c;
  };
  try {
    // A stream first, as a shell redirection opens it: on any failure its reader then sees the end
    // of the stream instead of waiting for ever for a writer.
    if (target.kind === 'stdout') file = StreamOutput.stdout(io.stdout, binary);
    else if (target.kind === 'stream') {
      // A FIFO without a reader yet: waited for, as `cat > FIFO` does, but said once, TTY or not,
      // so that a script does not sit in silence (and interruptible: the signal ends the wait).
      const output = request.output;
      const waiting = (): void => say(`waiting for a reader of ${output} (a FIFO); start one, or interrupt`);
      file = await StreamOutput.open(target.path, target.what, binary, { signal: interruption.signal, waiting });
    }
    if (interrupted) throw interrupted;
    // The series before a file: an unknown symbol or a refused range creates no file at all.
    const opened = await openSeries(terminal, request);
    const options = request.compression ? { compression: request.compression } : {};
    const encoded =
      opened.which === 'ticks'
        ? encodeSeries(request.format, 'ticks', counting(opened.series), options)
        : encodeSeries(request.format, 'rates', counting(opened.series), options);
    if (interrupted) throw interrupted;
    if (target.kind === 'file') file = await AtomicFile.create(target.path, target.existing);
    if (!file) throw new Error('no output was opened');
    if (interrupted) file.interrupt(interrupted);
    const out = file;
    // The progress line after each write: what has been written, never what is only read.
    await encoded.writeTo({
      async write(chunk: Uint8Array): Promise<void> {
        await out.write(chunk);
        if (series) progress.update(series.written, out.bytes, series.writtenLastMs, series.firstMs);
      },
    });
    if (interrupted) throw interrupted;
    await file.commit();
    progress.done(series?.rows ?? 0, file.bytes, target.kind === 'stdout' ? 'stdout' : request.output);
    // Written and exit 0, as the HTTP answer is a 200 [] (docs/api.md, "Empty ranges"), but never in
    // silence: a mistyped year must not pass for an export. On stderr whether or not it is a TTY.
    if ((series?.rows ?? 0) === 0) say(emptyNote(request, target.kind === 'file' ? 'file' : 'answer'));
    return EXIT_OK;
  } catch (e) {
    progress.clear();
    await file?.discard();
    if (interrupted) {
      say(interrupted.message);
      return signalExit(interrupted.signal);
    }
    return await report(e, request, terminal, say);
  } finally {
    series?.close();
    clearTimeout(fallback);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await terminal.close().catch(() => undefined);
  }
}

/**
 * What an export of no rows says. The exit status stays 0 because the HTTP answer for the range is
 * a 200 with no rows, which follows MT5: copy_ticks_range gives an empty array for any range
 * without ticks, copy_rates_range one for a range inside the history without bars (a weekend);
 * a bars range wholly outside the history fails in MT5 and is a 404 here (exit 2).
 */
function emptyNote(r: ExportRequest, what: 'file' | 'answer'): string {
  const range = `from ${new Date(r.fromMs).toISOString()} to ${new Date(r.toMs).toISOString()}`;
  const written = what === 'file' ? `wrote an empty file (${r.output})` : 'wrote an empty answer';
  return `${r.symbol} ${r.what}: no rows ${range}; ${written}: the terminal has no ${r.what === 'ticks' ? 'ticks' : 'bars'} there, check --from and --to (exit status 0, as GET …/${r.what}/range answers 200 [] for this range)`;
}

type Opened = { which: 'ticks'; series: Series<TickChunk> } | { which: 'rates'; series: Series<RateChunk> };

/** The same terminal calls as GET /ticks/range and /rates/range. */
async function openSeries(terminal: Terminal, r: ExportRequest): Promise<Opened> {
  if (r.what === 'ticks') {
    return { which: 'ticks', series: await terminal.copyTicksRange(r.symbol, r.fromMs, r.toMs, r.flags ?? -1) };
  }
  const timeframe = r.timeframe as number;
  const series = await withinMaxBars(terminal, { timeframe, fromMs: r.fromMs, toMs: r.toMs }, () =>
    terminal.copyRatesRange(r.symbol, timeframe, toSeconds(r.fromMs), toSeconds(r.toMs)),
    r.symbol,
  );
  return { which: 'rates', series };
}

/** The HTTP layer's reading of a failure: a 4xx is the caller's (exit 2), anything else exit 1. */
async function report(e: unknown, request: ExportRequest, terminal: Terminal, say: (m: string) => void): Promise<number> {
  let problem = toProblem(e, ROUTES[request.what], request.symbol);
  // An unknown symbol: the names that match it but for case, as the HTTP answer gives them.
  if (problem?.kind === 'symbolNotFound' && e instanceof TerminalError) problem = await unknownSymbol(terminal, request.symbol, { cause: e.message, listing: '' });
  if (problem) {
    const status = ProblemTypes[problem.kind].status;
    say(inOptionWords(problem.detail));
    return status >= 400 && status < 500 ? EXIT_USAGE : EXIT_FAILED;
  }
  // An -o refused once opened (Parquet to a terminal, a FIFO replaced meanwhile).
  if (e instanceof UsageError) {
    say(e.message);
    return EXIT_USAGE;
  }
  return fileError(e, say) ?? (say(`export failed: ${e instanceof Error ? e.message : String(e)}`), EXIT_FAILED);
}

/** An error of the output file that is the caller's to fix (exit 2) or a reader gone (exit 1); else undefined. */
function fileError(e: unknown, say: (m: string) => void): number | undefined {
  const err = e as NodeJS.ErrnoException | undefined;
  if (typeof err?.code !== 'string') return undefined;
  if (['ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES', 'EPERM', 'EROFS', 'ENXIO'].includes(err.code)) {
    say(`cannot write the output file: ${err.message}`);
    return EXIT_USAGE;
  }
  if (err.code === 'EPIPE') {
    say('export failed: the reader of the output closed it before the end (EPIPE)');
    return EXIT_FAILED;
  }
  return undefined;
}
