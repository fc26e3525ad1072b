// One command of a stage, run asynchronously (stages on other lanes go on meanwhile) with its
// output appended to the stage's log file, so that parallel stages never interleave on the console.
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';

/**
 * Runs `cmd args` and resolves { status, output } (output: what this command printed, also
 * appended to `log`). Never rejects: a command that cannot start resolves status 127.
 */
export function runLogged(log, cmd, args, { cwd, env, timeoutMs } = {}) {
  appendFileSync(log, `\n$ ${cmd} ${args.join(' ')}\n`);
  return new Promise((resolve) => {
    let output = '';
    let child;
    try {
      child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      appendFileSync(log, `cannot start: ${e.message}\n`);
      resolve({ status: 127, output: '' });
      return;
    }
    const take = (chunk) => {
      const text = chunk.toString();
      output += text;
      appendFileSync(log, text);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    // A stage that hangs must not eat the whole CI budget: its process group gets SIGKILL.
    const timer = timeoutMs ? setTimeout(() => {
      appendFileSync(log, `\n[test runner] no end after ${Math.round(timeoutMs / 1000)} s: killed\n`);
      child.kill('SIGKILL');
    }, timeoutMs) : undefined;
    child.on('error', (e) => {
      appendFileSync(log, `cannot start: ${e.message}\n`);
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ status: code ?? (signal ? 128 : 1), output });
    });
  });
}

/** The last `n` lines of a log, for the console when a stage fails. */
export function tail(log, n) {
  const lines = readFileSync(log, 'utf8').split('\n');
  return lines.slice(-n).join('\n');
}
