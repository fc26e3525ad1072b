// Runs the CLI as a child process, as a user would, and collects its exit code and output.
// By default it runs the compiled CLI when dist/ is fresh (the test command builds it first; a
// node process starts in a fraction of the loader's time) and the TypeScript sources otherwise
// (test/helpers/run-cli.ts under the suite's TypeScript loader), so the tests need no build; `compiled: true`
// always runs bin/tradeapi.js (the dist/ build).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { patience } from './patience.js';

export const root = fileURLToPath(new URL('../../', import.meta.url));

/** The suite's TypeScript loader (.taprc's node-arg) by its absolute URL: the child's cwd may be a temp dir. */
const TS_LOADER = `--import=${pathToFileURL(path.join(root, 'scripts/test/compiled-sources.js')).href}`;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: readonly string[], env: NodeJS.ProcessEnv, options: { compiled?: boolean } = {}): Promise<Run> {
  const entry = options.compiled ? ['bin/tradeapi.js'] : cliCommand();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...entry, ...args], { cwd: root, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), patience(3_000)); // a server that did start is a failure, not a hang
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The compiled CLI (`bin/tradeapi.js`, what `npm start` runs) when dist/ is at least as new as
 * src/, else the sources through the suite's TypeScript loader (slower to start, heavier baseline).
 */
export function cliCommand(): string[] {
  const compiled = path.join(root, 'dist/src/cli.js');
  const newestSource = (dir: string): number =>
    Math.max(0, ...readdirSync(dir, { withFileTypes: true }).map((e) => {
      const p = path.join(dir, e.name);
      return e.isDirectory() ? newestSource(p) : e.name.endsWith('.ts') ? statSync(p).mtimeMs : 0;
    }));
  if (existsSync(compiled) && statSync(compiled).mtimeMs >= newestSource(path.join(root, 'src'))) return [path.join(root, 'bin/tradeapi.js')];
  return [TS_LOADER, path.join(root, 'test/helpers/run-cli.ts')];
}
