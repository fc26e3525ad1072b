// Structured logs: pino JSON lines on stdout. Nothing secret is ever passed in (no keys, no query strings).
//
// stdout is whatever the operator pipes it into (pino-pretty, a log shipper, journald), and that
// reader may stall or die. Neither may stall or stop the service, nor its shutdown:
//   - lines are written asynchronously into a buffer of at most LOG_BUFFER_BYTES; past it, lines
//     are dropped rather than memory grown. A pipe is written without blocking (see writableFd):
//     a thread blocked on a full pipe would also block process.exit, which joins the thread pool;
//   - a destination that fails (EPIPE when the reader is gone, or any other error) is given up:
//     logging stops, the service goes on;
//   - nothing flushes at process exit on its own (pino's exit hook would write synchronously and
//     can spin for ever on a dead or stuck pipe): flushLog() waits a bounded time instead.
import { constants, fstatSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';

import { pino, type Logger } from 'pino';
import type { SonicBoom as SonicBoomStream } from 'sonic-boom';

import type { LogLevel } from './config/index.js';

export type { Logger };

// sonic-boom (pino's own writer) is CommonJS with `module.exports = SonicBoom`: named ESM imports of
// it do not resolve, and its types describe the class as a named export.
const SonicBoom = createRequire(import.meta.url)('sonic-boom') as typeof SonicBoomStream;

/** Log lines buffered while the reader is slow, at most (then dropped). */
export const LOG_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * stdout as a descriptor whose writes never block. A pipe (`| pino-pretty`, a log shipper) is
 * opened anew through /proc with O_NONBLOCK: a full pipe then answers EAGAIN, which the writer
 * retries on a timer, instead of holding a thread-pool thread in write(2) for as long as the
 * reader sleeps. Files, terminals and sockets (and other systems) keep the descriptor as it is.
 */
function writableFd(fd: number): number {
  if (process.platform !== 'linux') return fd;
  try {
    if (!fstatSync(fd).isFIFO()) return fd;
    return openSync(`/proc/self/fd/${fd}`, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch {
    return fd;
  }
}

/** Writers whose descriptor never blocks: a write of theirs in progress holds no thread. */
const nonBlocking = new WeakSet<SonicBoomStream>();

/**
 * Writers to a regular file: a write of theirs always ends (a loaded machine only delays it, e.g.
 * behind busy thread-pool threads), so the exit waits for it rather than killing the process.
 */
const toFile = new WeakSet<SonicBoomStream>();

/** How long the exit waits for a regular file's last lines at most (a dead filesystem, not a slow one). */
const FILE_FLUSH_MS = 10_000;

function isRegularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/** A destination for log lines on `fd` that can neither block nor fail the process. */
export function logDestination(fd = 1): SonicBoomStream {
  const target = writableFd(fd);
  const stream = new SonicBoom({ fd: target, sync: false, minLength: 0, maxLength: LOG_BUFFER_BYTES });
  if (target !== fd) nonBlocking.add(stream);
  else if (isRegularFile(target)) toFile.add(stream);
  stream.on('error', () => {
    // The reader is gone (EPIPE) or the fd is unusable: stop writing; there is nowhere to report it.
    stream.write = () => true;
    stream.flush = (cb?: (err?: Error) => void) => cb?.();
  });
  return stream;
}

export function createLogger(level: LogLevel | 'silent', destination?: NodeJS.WritableStream | SonicBoomStream): Logger {
  const options = { level, base: { service: 'tradeapi' }, timestamp: pino.stdTimeFunctions.isoTime };
  if (level === 'silent' && !destination) return pino(options);
  return pino(options, destination ?? logDestination());
}

function writerOf(logger: Logger): SonicBoomStream | undefined {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym];
  return stream instanceof SonicBoom ? stream : undefined;
}

/** Whether a write of the logger's is under way (`_writing`, not in SonicBoom's types). */
export function logWriteInProgress(logger: Logger): boolean {
  return (writerOf(logger) as unknown as { _writing?: boolean } | undefined)?._writing === true;
}

/** Waits until the logger's buffered lines are written, at most `timeoutMs` (a stuck reader cannot hold us). */
export function flushLog(logger: Logger, timeoutMs: number): Promise<void> {
  const stream = writerOf(logger);
  // SonicBoom (async) writes whatever is buffered as soon as it can and emits 'drain' once nothing is left.
  if (!stream || !logWriteInProgress(logger)) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    timer.unref();
    stream.once('drain', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Gives the last log lines up to `flushMs`, then exits with `code`. process.exit joins the thread
 * pool, so a log write still blocked in write(2) on a reader that stopped reading (a socket, or a
 * pipe that could not be reopened non-blocking) would hold the exit for ever: then the process
 * kills itself instead (status 137), the one exit that cannot wait. A regular file's write is only
 * slow, never stuck: its lines get up to FILE_FLUSH_MS and the exit keeps its status (on a loaded
 * machine a file write queued behind busy thread-pool threads took over a second, and a clean
 * shutdown ended in SIGKILL).
 */
export async function exitProcess(logger: Logger, code: number, flushMs: number): Promise<never> {
  const writer = writerOf(logger);
  const file = writer !== undefined && toFile.has(writer);
  await flushLog(logger, file ? Math.max(flushMs, FILE_FLUSH_MS) : flushMs);
  if (logWriteInProgress(logger) && !(writer && (nonBlocking.has(writer) || file))) process.kill(process.pid, 'SIGKILL');
  process.exit(code);
}
