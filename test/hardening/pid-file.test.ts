// `tradeapi serve --pid-file PATH` (issue 35 §3.1): npm does not forward signals, so a supervisor
// or a script must signal node itself. The server writes its own PID (a stale file replaced), removes
// it on SIGTERM and SIGINT, and refuses a directory before anything listens; docs/operations.md says
// how to run it under a supervisor.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t, { type Test } from 'tap';

import { freePort } from '../../bench/processes.js';
import { cliCommand, root, runCli } from '../helpers/cli.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const noSignals = process.platform === 'win32' && 'POSIX signals (on Windows child.kill() terminates the process outright)';

function tempDir(t: Test): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-pid-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function serve(t: Test, pidFile: string): Promise<{ child: ChildProcess; exited: Promise<number | null> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...cliCommand(), 'serve', '--port', String(port), '--pid-file', pidFile], {
    cwd: root,
    env: { ...process.env, TRADEAPI_HTTP: 'node', TRADEAPI_LOG_LEVEL: 'ERROR' },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) return { child, exited };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error('the server did not start');
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  t.test(`the PID file holds node's own PID and is gone after ${signal}`, { skip: noSignals }, async (t) => {
    const file = path.join(tempDir(t), 'tradeapi.pid');
    const srv = await serve(t, file);
    t.equal(readFileSync(file, 'utf8'), `${srv.child.pid}\n`, 'the serving process, not a parent');
    process.kill(Number(readFileSync(file, 'utf8')), signal);
    t.equal(await srv.exited, 0, 'a graceful exit');
    t.notOk(existsSync(file), 'the file is removed on exit');
  });
}

t.test('a stale PID file (a server killed outright) is replaced, a relative path taken from the working directory', { skip: noSignals }, async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'stale.pid');
  writeFileSync(file, '999999999\n');
  const srv = await serve(t, path.relative(root, file));
  t.equal(readFileSync(file, 'utf8'), `${srv.child.pid}\n`);
  t.same(readdirSync(dir).sort(), ['stale.pid'], 'no temp file left beside it');
  srv.child.kill('SIGTERM');
  await srv.exited;
  t.notOk(existsSync(file));
});

t.test('the PID file of a running process is refused before anything listens, and left as it was', async (t) => {
  const file = path.join(tempDir(t), 'live.pid');
  writeFileSync(file, `${process.pid}\n`); // this test's own process: certainly running
  const r = await runCli(['serve', '--port', '0', '--pid-file', file], { PATH: process.env.PATH ?? '' });
  t.equal(r.code, 2, 'exit 2');
  t.match(r.stderr, new RegExp(`^tradeapi: --pid-file .* holds PID ${process.pid}, a running process`));
  t.equal(readFileSync(file, 'utf8'), `${process.pid}\n`, 'not replaced, not removed');
});

t.test('a directory is refused before anything listens (exit 2, one plain line)', async (t) => {
  const dir = tempDir(t);
  const r = await runCli(['serve', '--port', '0', '--pid-file', dir], { PATH: process.env.PATH ?? '' });
  t.equal(r.code, 2, 'exit 2');
  t.match(r.stderr, /^tradeapi: --pid-file .* is a directory; give the path of a file/);
  t.same(readdirSync(dir).sort(), [], 'nothing written into it');
  const missing = path.join(dir, 'no', 'such', 'dir', 'x.pid');
  const r2 = await runCli(['serve', '--port', '0', '--pid-file', missing], { PATH: process.env.PATH ?? '' });
  t.equal(r2.code, 2, 'a path that cannot be written: exit 2');
  t.match(r2.stderr, /^tradeapi: --pid-file .*: cannot write it/);
});

t.test('--help and docs/operations.md say to signal node, not npm, and how to run it under a supervisor', async (t) => {
  const help = await runCli(['--help'], { PATH: process.env.PATH ?? '' });
  t.match(help.stdout, /--pid-file PATH/);
  const ops = readFileSync(path.join(root, 'docs/operations.md'), 'utf8');
  t.match(ops, /npm does\s+not forward signals/, 'killing npm\'s PID does not stop node');
  t.match(ops, /```ini[\s\S]*\[Service\][\s\S]*ExecStart=\S*node bin\/tradeapi\.js serve[\s\S]*```/, 'a systemd unit starting node itself');
  t.match(ops, /--pid-file/);
});
