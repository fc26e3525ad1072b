// Shared by the suites under test/bridge/: a real bridge process (python -m tradeapi_bridge over the
// MetaTrader5 stand-in, or bridge/tests/hooked_bridge.py to change the stand-in's behaviour from
// outside), the venv it runs in, and a real gateway on loopback in front of it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { freePort } from '../../bench/ports.js';
import path from 'node:path';

import type { Test } from 'tap';

import { loadConfig, type Env } from '../../src/config/index.js';
import { availableAdapters } from '../../src/http/adapters/index.js';
import { createLogger } from '../../src/log.js';
import { startServer } from '../../src/server.js';
import { openBridgeTerminal, type BridgeOptions, type Terminal } from '../../src/terminal/index.js';
import { root } from './cli.js';
import { patience } from './patience.js';

export const VENV = path.join(root, 'build/bridge-venv');
export const PY = path.join(VENV, 'bin/python');
export const SECRET = 'tap-bridge-secret-5e1f0c2a9b7d4c63';
export const WRONG = 'not-the-bridge-secret-8d2e61f0a4';
export const STAND_IN = path.join(root, 'bridge/tests/stand_in');
const HOOKED = path.join(root, 'bridge/tests/hooked_bridge.py');

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

/** build/bridge-venv with the bridge's pinned numpy and zstandard (as bridge/tests/run.sh makes it); a reason to skip, or undefined. */
export function prepareVenv(): string | undefined {
  const numpy = () => existsSync(PY) && spawnSync(PY, ['-c', 'import numpy, zstandard'], { stdio: 'ignore' }).status === 0;
  if (numpy()) return undefined;
  return withVenvLock(() => (numpy() ? undefined : createVenv(numpy)));
}

function createVenv(numpy: () => boolean): string | undefined {
  if (spawnSync('python3', ['--version'], { stdio: 'ignore' }).status !== 0) return 'python3 is not installed';
  let r = existsSync(PY) ? { status: 0, stderr: '' } : spawnSync('python3', ['-m', 'venv', VENV], { encoding: 'utf8' });
  if (r.status !== 0) return `python3 -m venv is unavailable: ${(r.stderr || '').trim().split('\n').pop()}`;
  r = spawnSync(PY, ['-m', 'pip', 'install', '-q', '-r', path.join(root, 'bridge/tests/requirements.txt')], { encoding: 'utf8' });
  if (r.status !== 0) return `pip could not install the bridge's requirements: ${(r.stderr || '').trim().split('\n').pop()}`;
  return numpy() ? undefined : 'numpy or zstandard does not import in build/bridge-venv';
}

export { freePort };

export interface BridgeStartOptions {
  /** Run bridge/tests/hooked_bridge.py: hook() then calls the stand-in's test hooks. */
  hooked?: boolean;
  /** Extra command-line options of the bridge (e.g. ['--call-timeout', '1']). */
  args?: readonly string[];
  /** Extra environment (e.g. MT5_STUB_WORLD for the stand-in's world mode). */
  env?: Record<string, string>;
}

export class Bridge {
  log = '';
  private hookWaiters: Array<{ hook: string; resolve: (result: unknown) => void }> = [];
  private constructor(readonly proc: ChildProcess) {}

  static start(port: number, secret = SECRET, options: BridgeStartOptions = {}): Promise<Bridge> {
    const entry = options.hooked ? [HOOKED] : ['-m', 'tradeapi_bridge'];
    const proc = spawn(PY, [...entry, '--listen', `127.0.0.1:${port}`, ...(options.args ?? [])], {
      cwd: root,
      env: { ...process.env, PYTHONPATH: [path.join(root, 'bridge'), STAND_IN].join(path.delimiter), TRADEAPI_BRIDGE_SECRET: secret, ...options.env },
      stdio: [options.hooked ? 'pipe' : 'ignore', 'ignore', 'pipe'],
    });
    const b = new Bridge(proc);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`bridge did not listen:\n${b.log}`)), patience(3_000));
      proc.stderr!.on('data', (d: Buffer) => {
        const before = b.log.length;
        b.log += d.toString();
        b.settleHooks(before);
        if (b.log.includes('"event":"listening"') || b.log.includes('"event": "listening"')) {
          clearTimeout(timer);
          resolve(b);
        }
      });
      proc.once('exit', (code) => reject(new Error(`bridge exited (${code}):\n${b.log}`)));
    });
  }

  /** Calls a stand-in test hook in the (hooked) bridge process; resolves with its result once done. */
  hook(name: string, args: readonly unknown[] = [], kwargs: Record<string, unknown> = {}): Promise<unknown> {
    if (!this.proc.stdin) throw new Error('hook() needs a bridge started with { hooked: true }');
    return new Promise((resolve) => {
      this.hookWaiters.push({ hook: name, resolve });
      this.proc.stdin!.write(`${JSON.stringify({ hook: name, args, kwargs })}\n`);
    });
  }

  /** Log lines (JSON events) whose event is `event`, parsed. */
  events(event: string): Array<Record<string, unknown>> {
    return this.log
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => { try { return JSON.parse(l) as Record<string, unknown>; } catch { return {}; } })
      .filter((e) => e.event === event);
  }

  private settleHooks(from: number): void {
    // Whole lines only: a line is parsed once its newline has arrived.
    const start = this.log.lastIndexOf('\n', from - 1) + 1;
    const text = this.log.slice(start, this.log.lastIndexOf('\n') + 1);
    for (const line of text.split('\n')) {
      if (!line.includes('hook_done')) continue;
      let e: { event?: string; hook?: string; result?: unknown };
      try { e = JSON.parse(line) as typeof e; } catch { continue; }
      if (e.event !== 'hook_done') continue;
      const i = this.hookWaiters.findIndex((w) => w.hook === e.hook);
      if (i >= 0) this.hookWaiters.splice(i, 1)[0]!.resolve(e.result);
    }
  }

  kill(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.proc.once('exit', () => resolve());
      this.proc.kill('SIGKILL');
    });
  }
}

/** Parquet cells as JSON numbers: int64 as bigint, timestamps as Date (seconds or ms by column). */
export function plain(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (typeof v === 'bigint') out[k] = Number(v);
    else if (v instanceof Date) out[k] = k.endsWith('_msc') ? v.getTime() : v.getTime() / 1000;
    else out[k] = v;
  }
  return out;
}

export async function waitFor<T>(fn: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The bridge's clock read as this process's: what to add to a time the bridge (Python) stamps, its
 * /health `since`, to compare it with Date.now() here. 0 on a real machine, weekend or not; under
 * scripts/clock/on.sh, which moves node's clock only and by whole seconds, that shift. Measured
 * with the venv's Python (the bridge's clock), to the second.
 */
export function bridgeClockLagMs(): number {
  for (let attempt = 1; ; attempt++) {
    const before = Date.now();
    const r = spawnSync(PY, ['-c', 'import time; print(repr(time.time()))'], { encoding: 'utf8' });
    const after = Date.now();
    const python = Number(r.stdout.trim()) * 1000;
    if (r.status !== 0 || !Number.isFinite(python)) throw new Error(`the bridge's Python did not tell its time: ${r.stderr}`);
    // Rounding to the second is exact while Python answers within a second (the midpoint is then
    // less than half a second off); a machine too busy for that is asked again.
    if (after - before < 1000 || attempt === 5) return Math.round(((before + after) / 2 - python) / 1000) * 1000;
  }
}

export type Get = (p: string, init?: RequestInit) => Promise<Response>;

export interface GatewayOptions {
  /** Options of openBridgeTerminal (default { backoffMaxMs: 500 }). */
  terminal?: BridgeOptions;
  /** Extra configuration variables (e.g. TRADEAPI_SERVER_TZ). */
  env?: Env;
}

/** A gateway on loopback in front of the bridge at `port`, closed at the end of `tt`. */
export async function startGateway(tt: Test, port: number, secret = SECRET, options: GatewayOptions = {}): Promise<{ get: Get; terminal: Terminal; base: string }> {
  const terminal = openBridgeTerminal(`tcp://127.0.0.1:${port}`, secret, options.terminal ?? { backoffMaxMs: 500 });
  const server = await startServer({
    terminal,
    config: loadConfig({ TRADEAPI_HOST: '127.0.0.1', TRADEAPI_PORT: '0', ...options.env }),
    adapter: availableAdapters()[0]!,
    host: '127.0.0.1',
    port: 0,
    // Warnings show in the test's output (a link lost, a reconnect); TRADEAPI_TEST_LOG=debug shows more.
    logger: createLogger((process.env.TRADEAPI_TEST_LOG as Parameters<typeof createLogger>[0] | undefined) || 'warn'),
  });
  tt.teardown(async () => {
    await server.close(1000);
    await terminal.close();
  });
  const base = `http://127.0.0.1:${server.port}`;
  return { get: (p: string, init?: RequestInit) => fetch(base + p, init), terminal, base };
}

/**
 * A bridge over the stand-in (its probe quiet: no terminal check during the suite) and a gateway in
 * front of it, both stopped at the end of `tt`; `json` GETs a path and throws unless it answers 200.
 */
export async function bridgedGateway(tt: Test): Promise<{ get: Get; json: <T = Array<Record<string, unknown>>>(p: string) => Promise<T> }> {
  const port = await freePort();
  const bridge = await Bridge.start(port, SECRET, { args: ['--probe-interval', '3600'] });
  tt.teardown(() => bridge.kill());
  const { get } = await startGateway(tt, port);
  const json = async <T,>(p: string): Promise<T> => {
    const res = await get(p);
    if (res.status !== 200) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  return { get, json };
}

/** startGateway's fetch alone (what client.test.ts uses). */
export async function gateway(tt: Test, port: number, secret = SECRET): Promise<Get> {
  return (await startGateway(tt, port, secret)).get;
}

/** A hooked bridge whose clock a test moves on, and a gateway in front of it polling every `pollMs`. */
export interface SteppedBridge {
  readonly bridge: Bridge;
  readonly gw: Awaited<ReturnType<typeof startGateway>>;
  /** Moves the stand-in's clock on a second at a time, `steps` times: each step's ticks appear at once. */
  advance(steps: number): Promise<void>;
}

/**
 * For the live-event suites over a bridge: the stand-in making `tickRate` ticks a second (set before
 * the gateway connects: configuring resets the stand-in's connection), a gateway polling every
 * 20 ms, up once the bridge has its terminal again; both stopped at the end of `tt`.
 */
export async function steppedBridge(tt: Test, tickRate: number): Promise<SteppedBridge> {
  const port = await freePort();
  const bridge = await Bridge.start(port, undefined, { hooked: true });
  tt.teardown(() => {
    // A failure on a loaded machine is read from the log: what the bridge saw of its connections.
    if (!tt.passing()) tt.comment(`the bridge's log:\n${bridge.log.split('\n').filter((l) => !l.includes('hook_done')).slice(-40).join('\n')}`);
    bridge.kill();
  });
  await bridge.hook('_configure', [], { tick_rate: tickRate });
  // A queue far above the default 256 KB: the feed's first poll can come after many steps on a
  // loaded machine and deliver them at once (a thousand ticks and more), which these suites must
  // receive whole (they are not about slow consumers: slow-consumer.test.ts is).
  const gw = await startGateway(tt, port, undefined, { env: { TRADEAPI_EVENTS_POLL_MS: '20', TRADEAPI_EVENTS_QUEUE_BYTES: String(16 * 1024 * 1024) } });
  const up = await waitFor(async () => ((await gw.get('/symbols/EURUSD/tick')).status === 200 ? true : undefined), patience(2_000));
  tt.ok(up, 'the bridge has its terminal');
  const advance = async (steps: number): Promise<void> => {
    for (let i = 0; i < steps; i++) {
      await bridge.hook('_advance', [1000]);
      await new Promise((r) => setTimeout(r, 60));
    }
  };
  return { bridge, gw, advance };
}
