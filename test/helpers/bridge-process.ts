// A real bridge process (python -m tradeapi_bridge over the MetaTrader5 stand-in) for the tests
// that talk to one, and the venv it runs in.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import { root } from './cli.js';

export const VENV = path.join(root, 'build/bridge-venv');
export const PY = path.join(VENV, 'bin/python');
export const STAND_IN = path.join(root, 'bridge/tests/stand_in');

const LOCK = `${VENV}.lock`;
const LOCK_STALE_MS = 10 * 60_000;

/** Runs fn holding build/bridge-venv.lock: tap runs suites in parallel, and two of them must not
 *  create and pip-install the same venv at once. A lock older than any install is taken over. */
function withVenvLock<T>(fn: () => T): T {
  mkdirSync(path.dirname(LOCK), { recursive: true });
  const deadline = Date.now() + LOCK_STALE_MS;
  for (;;) {
    try {
      closeSync(openSync(LOCK, 'wx'));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_STALE_MS || Date.now() > deadline) rmSync(LOCK, { force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200); // a synchronous 200 ms sleep
    }
  }
  try {
    return fn();
  } finally {
    rmSync(LOCK, { force: true });
  }
}

/** build/bridge-venv with the bridge's pinned numpy (as bridge/tests/run.sh makes it); a reason to skip, or undefined. */
export function prepareVenv(): string | undefined {
  const numpy = () => existsSync(PY) && spawnSync(PY, ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0;
  if (numpy()) return undefined;
  return withVenvLock(() => (numpy() ? undefined : createVenv(numpy)));
}

function createVenv(numpy: () => boolean): string | undefined {
  if (spawnSync('python3', ['--version'], { stdio: 'ignore' }).status !== 0) return 'python3 is not installed';
  let r = spawnSync('python3', ['-m', 'venv', VENV], { encoding: 'utf8' });
  if (r.status !== 0) return `python3 -m venv is unavailable: ${(r.stderr || '').trim().split('\n').pop()}`;
  r = spawnSync(PY, ['-m', 'pip', 'install', '-q', '-r', path.join(root, 'bridge/tests/requirements.txt')], { encoding: 'utf8' });
  if (r.status !== 0) return `pip could not install the bridge's requirements: ${(r.stderr || '').trim().split('\n').pop()}`;
  return numpy() ? undefined : 'numpy does not import in build/bridge-venv';
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface BridgeOptions {
  secret: string;
  /** Extra environment (e.g. MT5_STUB_WORLD for the stand-in's world mode). */
  env?: Record<string, string>;
  /** Extra command-line arguments of tradeapi_bridge (e.g. --window-rows). */
  args?: readonly string[];
}

export class BridgeProcess {
  log = '';
  private constructor(readonly proc: ChildProcess) {}

  /** Starts the bridge on 127.0.0.1:port and resolves once it listens. */
  static start(port: number, options: BridgeOptions): Promise<BridgeProcess> {
    const proc = spawn(PY, ['-m', 'tradeapi_bridge', '--listen', `127.0.0.1:${port}`, ...(options.args ?? [])], {
      cwd: root,
      env: {
        ...process.env,
        PYTHONPATH: [path.join(root, 'bridge'), STAND_IN].join(path.delimiter),
        TRADEAPI_BRIDGE_SECRET: options.secret,
        ...options.env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const b = new BridgeProcess(proc);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`bridge did not listen:\n${b.log}`)), 20_000);
      proc.stderr!.on('data', (d: Buffer) => {
        b.log += d.toString();
        if (b.log.includes('"event":"listening"') || b.log.includes('"event": "listening"')) {
          clearTimeout(timer);
          resolve(b);
        }
      });
      proc.once('exit', (code) => reject(new Error(`bridge exited (${code}):\n${b.log}`)));
    });
  }

  kill(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.proc.once('exit', () => resolve());
      this.proc.kill('SIGKILL');
    });
  }
}
