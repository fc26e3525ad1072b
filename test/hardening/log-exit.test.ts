// The exit's last log lines to a regular file: a write that is only slow (queued behind busy
// thread-pool threads, as on a loaded machine) is waited for, the line lands and the exit keeps its
// status; the process kills itself (137) only for a reader that can stall for ever (a pipe or
// socket that stopped reading: shutdown.test.ts). A clean shutdown on a CI host at load 16 ended in
// SIGKILL before: the file write took longer than the flush allowance.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import t from 'tap';

import { root } from '../helpers/cli.js';
import { patience } from '../helpers/patience.js';

// The child: one thread in the pool, kept busy by a long pbkdf2, so the line's write is still in
// progress when the exit begins (checked, and reported on stderr).
const CHILD = `
import { openSync } from 'node:fs';
import { pbkdf2 } from 'node:crypto';
const { createLogger, logDestination, exitProcess, logWriteInProgress } = await import(${JSON.stringify(pathToFileURL(path.join(root, 'src/log.ts')).href)});
const logger = createLogger('info', logDestination(openSync(process.argv[2], 'w')));
pbkdf2('x', 'y', 2_000_000, 64, 'sha512', () => {});
logger.info('the last line');
process.stderr.write('in progress: ' + logWriteInProgress(logger) + '\\n');
await exitProcess(logger, 3, 200);
`;

t.test('a slow write to a log file is waited for at exit, with the exit status kept', { skip: process.platform === 'win32' ? 'UV_THREADPOOL_SIZE and pbkdf2 timing on Windows' : false }, async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-log-exit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const script = path.join(dir, 'child.mjs');
  writeFileSync(script, CHILD);
  const logFile = path.join(dir, 'log');
  const loader = pathToFileURL(path.join(root, 'scripts/test/compiled-sources.js')).href;
  const run = await new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, [`--import=${loader}`, script, logFile], { env: { ...process.env, UV_THREADPOOL_SIZE: '1' }, timeout: patience(10_000) }, (_e, _out, stderr) =>
      resolve({ code: child.exitCode, signal: child.signalCode, stderr }),
    );
  });
  t.match(run.stderr, /in progress: true/, 'the line was still being written when the exit began');
  t.same([run.code, run.signal], [3, null], 'the exit status the caller asked for, not SIGKILL');
  t.match(readFileSync(logFile, 'utf8'), /"msg":"the last line"/, 'the line is in the file');
});
