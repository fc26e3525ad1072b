// Servers under test as child processes: started with their output in a log file (a pipe nobody
// reads would block them), ready once they answer HTTP, stopped with SIGTERM then SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const live = new Set<ChildProcess>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  // A harness that dies (or is interrupted) must not leave servers behind.
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of live) child.kill('SIGKILL');
      process.exit(130);
    });
  }
}

/** A loopback port nothing listens on, reserved for this process (ports.ts says why). */
export { freePort } from './ports.js';

/** Resolves with the status of GET url, or undefined if nothing answers. */
export function probe(url: string, timeoutMs = 2000): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

export interface ServerProcessOptions {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly logDir: string;
  /** GET this until anything answers. */
  readonly readyUrl?: string;
  /** Or: ready once the process's log matches this (a server that does not speak HTTP). */
  readonly readyLog?: RegExp;
  readonly readyTimeoutMs?: number;
}

export class ServerProcess {
  private exited = false;
  private exitInfo = '';

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    readonly logFile: string,
  ) {
    child.once('exit', (code, signal) => {
      this.exited = true;
      this.exitInfo = signal ? `signal ${signal}` : `code ${code}`;
      live.delete(child);
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  static async start(options: ServerProcessOptions): Promise<ServerProcess> {
    hookExit();
    mkdirSync(options.logDir, { recursive: true });
    const logFile = path.join(options.logDir, `${options.name}.log`);
    const fd = openSync(logFile, 'a');
    const logStart = fstatSync(fd).size; // readyLog looks only at what this run writes
    const child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    live.add(child);
    const server = new ServerProcess(options.name, child, logFile);
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', reject);
    });
    const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
    while (Date.now() < deadline) {
      if (server.exited) throw new Error(`${options.name} exited (${server.exitInfo}) before it was ready:\n${server.logTail()}`);
      if (options.readyUrl !== undefined ? (await probe(options.readyUrl, 1000)) !== undefined : options.readyLog?.test(server.logSince(logStart))) return server;
      await new Promise((r) => setTimeout(r, 100));
    }
    await server.stop();
    throw new Error(`${options.name} did not answer ${options.readyUrl ?? `(log ${String(options.readyLog)})`} within ${options.readyTimeoutMs ?? 30_000} ms:\n${server.logTail()}`);
  }

  logSince(offset: number): string {
    try {
      return readFileSync(this.logFile).subarray(offset).toString('utf8');
    } catch {
      return '';
    }
  }

  logTail(bytes = 2000): string {
    try {
      const text = readFileSync(this.logFile, 'utf8');
      return text.slice(-bytes);
    } catch {
      return '';
    }
  }

  async stop(graceMs = 10_000): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await gone;
    clearTimeout(timer);
  }
}
