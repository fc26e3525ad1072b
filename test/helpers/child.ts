// A child process run to its end, asynchronously (so that a server on this process's event loop can
// answer it), its exit code and output collected.
import { spawn } from 'node:child_process';

import type { Run } from './cli.js';

export interface ChildOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Killed (SIGKILL) after this long, if set: a hung child is a failure, not a hang of the suite. */
  killAfterMs?: number;
}

export function runChild(command: string, args: readonly string[], options: ChildOptions = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd: options.cwd, env: options.env ?? process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = options.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
