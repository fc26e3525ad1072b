// Hardening item 5: shutdown ends whatever the log destination does, a second signal exits at
// once, and responses still running after the grace period are aborted and logged. The real CLI
// runs as a child process (from the TypeScript sources), its stdout a FIFO or a socket that the
// test reads, stops reading, or closes.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import t, { type Test } from 'tap';

import { freePort } from '../../bench/processes.js';
import { cliCommand, root } from '../helpers/cli.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const STREAM = '/ticks/range?symbol=EURUSD&date_from=2024-01-02T00:00:00Z&date_to=2024-06-01T00:00:00Z&format=json';

interface Server {
  child: ChildProcess;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; afterMs: () => number }>;
}

async function start(t: Test, stdout: 'pipe' | 'ignore' | number, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [...cliCommand(), 'serve', '--port', String(port)], {
    cwd: root,
    env: { ...process.env, TRADEAPI_HTTP: 'node', TRADEAPI_LOG_LEVEL: 'INFO', ...env },
    stdio: ['ignore', stdout, 'ignore'],
  });
  let signalledAt = 0;
  const kill = child.kill.bind(child);
  child.kill = (signal?: NodeJS.Signals | number) => {
    signalledAt ||= Date.now();
    return kill(signal);
  };
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; afterMs: () => number }>((resolve) =>
    child.once('exit', (code, signal) => {
      const at = Date.now();
      resolve({ code, signal, afterMs: () => at - signalledAt });
    }),
  );
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) kill('SIGKILL');
  });
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) return { child, port, exited };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error('the server did not start');
}

/** Enough requests for their log lines (~200 bytes each) to fill a 64 KiB pipe several times. */
async function logALot(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    await Promise.all(Array.from({ length: 10 }, () => fetch(`http://127.0.0.1:${port}/health`).then((r) => r.arrayBuffer())));
  }
}

/** A FIFO: its read end (held by the test, never read unless asked) and a write end for the child. */
function fifo(t: Test): { read: number; write: number } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-fifo-'));
  const file = path.join(dir, 'stdout');
  execFileSync('mkfifo', [file]);
  const read = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  const write = openSync(file, constants.O_WRONLY);
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return { read, write };
}

/** A client that starts a long stream and then reads nothing; `streaming` resolves at its first bytes. */
function stalledStream(port: number): { socket: net.Socket; streaming: Promise<void> } {
  const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET ${STREAM} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
  socket.on('error', () => undefined);
  const streaming = new Promise<void>((resolve, reject) => {
    socket.once('data', () => {
      socket.pause();
      resolve();
    });
    socket.once('close', () => reject(new Error('the stream closed before its first bytes')));
  });
  return { socket, streaming };
}

const linux = process.platform === 'linux';
// On Windows, child.kill() is TerminateProcess whatever the signal: no handler runs, so a graceful
// shutdown cannot be asked for this way (Ctrl+C/Ctrl+Break reach a console process as SIGINT/SIGBREAK).
const noSignals = process.platform === 'win32' && 'POSIX signals (on Windows child.kill() terminates the process outright)';

t.test('a log reader that stopped reading (a pipe) does not hold the shutdown', { skip: !linux && 'mkfifo/Linux only' }, async (t) => {
  const pipe = fifo(t);
  const srv = await start(t, pipe.write);
  closeSync(pipe.write);
  await logALot(srv.port);
  t.equal((await fetch(`http://127.0.0.1:${srv.port}/health`)).status, 200, 'still serving with the log pipe full');
  srv.child.kill('SIGTERM');
  const exit = await srv.exited;
  t.equal(exit.code, 0, 'exit status 0');
  t.ok(exit.afterMs() < 8000, `exited ${exit.afterMs()} ms after SIGTERM`);
  closeSync(pipe.read);
});

t.test('a log reader that is gone (EPIPE) does not hold the shutdown', { skip: !linux && 'mkfifo/Linux only' }, async (t) => {
  const pipe = fifo(t);
  const srv = await start(t, pipe.write);
  closeSync(pipe.write);
  closeSync(pipe.read); // the reader dies: every later write is EPIPE
  await logALot(srv.port);
  srv.child.kill('SIGTERM');
  const exit = await srv.exited;
  t.equal(exit.code, 0, 'exit status 0');
  t.ok(exit.afterMs() < 8000, `exited ${exit.afterMs()} ms after SIGTERM`);
});

t.test('a log socket that stopped reading does not hold the shutdown either', { skip: noSignals }, async (t) => {
  const srv = await start(t, 'pipe');
  srv.child.stdout?.pause(); // a socket pair on POSIX; never read again
  await logALot(srv.port);
  srv.child.kill('SIGTERM');
  const exit = await srv.exited;
  t.ok(exit.code === 0 || exit.signal === 'SIGKILL', `exited (code ${exit.code}, signal ${exit.signal})`);
  t.ok(exit.afterMs() < 8000, `exited ${exit.afterMs()} ms after SIGTERM`);
});

t.test('a second signal exits at once', { skip: noSignals }, async (t) => {
  const srv = await start(t, 'ignore', { TRADEAPI_SHUTDOWN_GRACE_MS: '60000' });
  const { socket: client, streaming } = stalledStream(srv.port);
  await streaming; // the stream is in flight
  srv.child.kill('SIGTERM');
  await sleep(300);
  t.equal(srv.child.exitCode, null, 'the first signal waits for the stream in flight');
  srv.child.kill('SIGINT');
  const exit = await srv.exited;
  t.equal(exit.code, 130, 'exit status 128 + SIGINT');
  t.ok(exit.afterMs() < 5000, `exited ${exit.afterMs()} ms after the first signal`);
  client.destroy();
});

t.test('a stream still running after the grace period is aborted, and that is logged', { skip: noSignals }, async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-log-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const logFile = path.join(dir, 'log');
  const fd = openSync(logFile, 'w');
  const srv = await start(t, fd, { TRADEAPI_SHUTDOWN_GRACE_MS: '1000' });
  closeSync(fd);
  const { socket: client, streaming } = stalledStream(srv.port);
  await streaming; // the stream is in flight
  srv.child.kill('SIGTERM');
  const exit = await srv.exited;
  t.equal(exit.code, 0, 'exit status 0');
  t.ok(exit.afterMs() >= 900 && exit.afterMs() < 8000, `exited ${exit.afterMs()} ms after SIGTERM (grace 1 s)`);
  const lines = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { msg?: string; aborted?: number; status?: number; path?: string });
  t.ok(lines.some((l) => l.aborted === 1 && /aborted/.test(l.msg ?? '')), 'the abort is logged with the count');
  t.ok(lines.some((l) => l.msg === 'stopped'), 'then "stopped"');
  client.destroy();
});
