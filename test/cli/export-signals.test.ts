// Issue 33, item 11: `tradeapi export` ends on SIGTERM and SIGINT with its documented status (143,
// 130) whatever its output: a FIFO that has no reader yet, a FIFO or a stdout pipe whose reader
// never reads (full). Before the fix the FIFO cases ignored both signals until SIGKILL: the open(2)
// or write(2) blocked a libuv pool thread, and process.exit joins the pool's threads. Waiting for
// a reader is fine (as `cat > FIFO` does), and a reader that comes later gets the whole export.
//
// The real CLI in child processes. Each test waits until the export is verifiably waiting before
// it sends the signal, from what the kernel says of the child (/proc, Linux): for a FIFO without a
// reader, the export's own note on stderr, or a thread asleep in the FIFO's open (wchan
// wait_for_partner: a blocking open, as before the fix); for a full pipe, a thread asleep in the
// pipe's write (a blocking write), or the pipe's descriptor in one of the child's epoll sets waiting
// for EPOLLOUT (its event loop waits for room). The bound on the exit is the export's own grace
// after a signal plus the suite's allowance for a loaded machine; every child is killed at teardown.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, lstatSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t, { type Test } from 'tap';

import { INTERRUPT_GRACE_MS } from '../../src/export/run.js';
import { cliCommand } from '../helpers/cli.js';
import { LOADED_MACHINE_SLACK_MS } from '../helpers/live-sim.js';

const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tradeapi-export-signals-')));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** How long the child may take to start and reach its wait: a failure bound, never a pause. */
const START_BOUND_MS = 60_000;
/** After the signal the export stops by itself or exits at its grace's end; past this it ignored the signal. */
const EXIT_BOUND_MS = INTERRUPT_GRACE_MS + LOADED_MACHINE_SLACK_MS;
const POLL_MS = 20;

/** Ten minutes of EURUSD ticks (never written here: nobody reads). */
const SMALL = ['ticks', 'EURUSD', '--from', '2024-01-09T10:00:00Z', '--to', '2024-01-09T10:10:00Z', '--format', 'json'];
/** Weeks of ticks: megabytes of JSON, far more than a pipe holds. */
const BIG = ['ticks', 'EURUSD', '--from', '2024-01-01T00:00:00Z', '--to', '2024-02-10T00:00:00Z', '--format', 'json'];

const linux = process.platform === 'linux' && spawnSync('mkfifo', ['--version']).status === 0;
const skip = linux ? false : 'needs Linux /proc and mkfifo';

/** The environment of the child: no terminal settings from the caller's shell. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['TRADEAPI_TERMINAL', 'TRADEAPI_BRIDGE_SECRET', 'TRADEAPI_SERVER_TZ', 'TRADEAPI_SIM_SERVER_TZ', 'TRADEAPI_SIM_CLOCK']) delete env[name];
  return env;
}

interface Export {
  readonly child: ChildProcess;
  readonly pid: number;
  stderr(): string;
  /** The exit code, or undefined if it has not exited within `ms` (it is then killed at teardown). */
  exited(ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null } | undefined>;
}

/** Spawns the export; SIGKILLed at teardown if still running. `stdout`: a descriptor for the child's stdout. */
function startExport(t: Test, args: readonly string[], stdout: number | 'ignore' = 'ignore'): Export {
  const child = spawn(process.execPath, [...cliCommand(), 'export', ...args], { cwd: dir, env: childEnv(), stdio: ['ignore', stdout, 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return done.then(() => undefined);
  });
  return {
    child,
    pid: child.pid as number,
    stderr: () => stderr,
    async exited(ms) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined)));
      try {
        return await Promise.race([done, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** What the kernel says each thread of `pid` sleeps in (wchan). */
function wchans(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map((task) => {
      try {
        return readFileSync(`/proc/${pid}/task/${task}/wchan`, 'utf8');
      } catch {
        return '';
      }
    });
  } catch {
    return [];
  }
}

/** The descriptors of `pid` open on `file` (its path, links resolved). */
function descriptorsOn(pid: number, file: string): number[] {
  const fds: number[] = [];
  for (const fd of safeReaddir(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === file) fds.push(Number(fd));
    } catch {
      // closed meanwhile
    }
  }
  return fds;
}

/** True if one of `pid`'s epoll sets waits for `fd` to become writable (EPOLLOUT). */
function pollsForRoom(pid: number, fd: number): boolean {
  for (const e of safeReaddir(`/proc/${pid}/fd`)) {
    let info: string;
    try {
      if (readlinkSync(`/proc/${pid}/fd/${e}`) !== 'anon_inode:[eventpoll]') continue;
      info = readFileSync(`/proc/${pid}/fdinfo/${e}`, 'utf8');
    } catch {
      continue;
    }
    for (const m of info.matchAll(/^tfd:\s*(\d+)\s+events:\s*([0-9a-f]+)/gm)) {
      if (Number(m[1]) === fd && (parseInt(m[2] as string, 16) & 0x4) !== 0) return true;
    }
  }
  return false;
}

function safeReaddir(p: string): string[] {
  try {
    return readdirSync(p);
  } catch {
    return [];
  }
}

/** Polls `ready` until true or the child ends or START_BOUND_MS passes; says which. */
async function until(exp: Export, ready: () => boolean): Promise<boolean> {
  const deadline = Date.now() + START_BOUND_MS;
  while (Date.now() < deadline && exp.child.exitCode === null && exp.child.signalCode === null) {
    if (ready()) return true;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return false;
}

/** The export waits for a reader of the FIFO: its note, or a thread asleep in the FIFO's open. */
const waitingForReader = (exp: Export) => (): boolean => /waiting for a reader/.test(exp.stderr()) || wchans(exp.pid).some((w) => w === 'wait_for_partner');

/** The export is held by a full pipe open on `file`: a thread asleep in the pipe's write, or its loop polling for room. */
const heldByFullPipe = (exp: Export, file: string) => (): boolean =>
  wchans(exp.pid).some((w) => /pipe_write/.test(w)) || descriptorsOn(exp.pid, file).some((fd) => pollsForRoom(exp.pid, fd));

let fifos = 0;
/** A new FIFO in the scratch directory. */
function makeFifo(t: Test): string {
  const fifo = path.join(dir, `pipe-${++fifos}`);
  const made = spawnSync('mkfifo', [fifo], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
  t.teardown(() => rmSync(fifo, { force: true }));
  return fifo;
}

/** A reader of the FIFO that never reads: this process holds its read end (closed at teardown). */
function idleReader(t: Test, fifo: string): number {
  const fd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  t.teardown(() => closeSync(fd));
  return fd;
}

/** Nothing but the FIFO left where it was: no temp file beside it, and still a FIFO. */
function leftAsItWas(t: Test, fifo: string): void {
  t.ok(lstatSync(fifo).isFIFO(), 'the FIFO is still a FIFO');
  t.same(readdirSync(dir).filter((f) => f.startsWith(`${path.basename(fifo)}.`)), [], 'no temp file beside it');
}

const STATUS = { SIGTERM: 143, SIGINT: 130 } as const;

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  await t.test(`${signal} while waiting for a FIFO's reader: exit ${STATUS[signal]}`, { skip }, async (t) => {
    const fifo = makeFifo(t);
    const exp = startExport(t, [...SMALL, '-o', fifo]);
    t.ok(await until(exp, waitingForReader(exp)), `the export waits for a reader (${exp.stderr().trim() || 'no note'})`);
    process.kill(exp.pid, signal);
    const end = await exp.exited(EXIT_BOUND_MS);
    t.same(end, { code: STATUS[signal], signal: null }, `exit ${STATUS[signal]} (undefined: it ignored ${signal} for ${EXIT_BOUND_MS} ms)`);
    t.match(exp.stderr(), new RegExp(`interrupted by ${signal}`));
    leftAsItWas(t, fifo);
  });
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  await t.test(`${signal} while a FIFO's reader does not read (the pipe full): exit ${STATUS[signal]}`, { skip }, async (t) => {
    const fifo = makeFifo(t);
    idleReader(t, fifo);
    const exp = startExport(t, [...BIG, '-o', fifo]);
    t.ok(await until(exp, heldByFullPipe(exp, fifo)), 'the export is held by the full pipe');
    process.kill(exp.pid, signal);
    const end = await exp.exited(EXIT_BOUND_MS);
    t.same(end, { code: STATUS[signal], signal: null }, `exit ${STATUS[signal]} (undefined: it ignored ${signal} for ${EXIT_BOUND_MS} ms)`);
    t.match(exp.stderr(), new RegExp(`interrupted by ${signal}`));
    leftAsItWas(t, fifo);
  });

  await t.test(`${signal} while stdout's reader does not read (-o -, the pipe full): exit ${STATUS[signal]}`, { skip }, async (t) => {
    const fifo = makeFifo(t);
    idleReader(t, fifo);
    // The child's stdout is the FIFO's write end; this process keeps only the idle read end.
    const out = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    let exp: Export;
    try {
      exp = startExport(t, [...BIG, '-o', '-'], out);
    } finally {
      closeSync(out);
    }
    t.ok(await until(exp, heldByFullPipe(exp, fifo)), 'the export is held by the full pipe');
    process.kill(exp.pid, signal);
    const end = await exp.exited(EXIT_BOUND_MS);
    t.same(end, { code: STATUS[signal], signal: null }, `exit ${STATUS[signal]} (undefined: it ignored ${signal} for ${EXIT_BOUND_MS} ms)`);
    t.match(exp.stderr(), new RegExp(`interrupted by ${signal}`));
  });
}

await t.test('a reader that comes after the export started waiting gets the whole export', { skip }, async (t) => {
  const expected = path.join(dir, 'expected.json');
  const file = startExport(t, [...SMALL, '-o', expected]);
  t.same(await file.exited(START_BOUND_MS), { code: 0, signal: null }, file.stderr());
  const fifo = makeFifo(t);
  const exp = startExport(t, [...SMALL, '-o', fifo]);
  t.ok(await until(exp, waitingForReader(exp)), 'the export waits for a reader');
  t.match(exp.stderr(), new RegExp(`^tradeapi export: waiting for a reader of ${fifo} \\(a FIFO\\)`), 'and says so, piped too');
  const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.teardown(() => void reader.kill('SIGKILL'));
  const got: Buffer[] = [];
  reader.stdout.on('data', (d: Buffer) => got.push(d));
  const readerDone = new Promise<number | null>((resolve) => reader.on('close', resolve));
  t.same(await exp.exited(START_BOUND_MS), { code: 0, signal: null }, exp.stderr());
  t.equal(await readerDone, 0, 'the reader saw the end of the stream');
  t.ok(Buffer.concat(got).equals(readFileSync(expected)), 'the reader got the whole export, byte for byte');
});
