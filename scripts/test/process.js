// One command of a stage, run asynchronously (stages on other lanes go on meanwhile) with its
// output appended to the stage's log file, so that parallel stages never interleave on the console.
//
// Each command runs in a process group of its own, and the whole group is killed when the command
// ends, however it ends (its own exit, the stage's time limit, the runner stopped by a signal):
// a test file that tap killed on its timeout runs no handler, so the servers and exports it
// started would otherwise keep running after the suite (issue 35). A process that calls setsid()
// leaves the group; none of ours does.
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';

/** The process groups of the commands running now (their leaders' PIDs). */
const groups = new Set();

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: nothing left in the group
  }
}

/** Kills every command's group still running (the runner is being stopped). */
export function killAllGroups() {
  for (const pid of groups) killGroup(pid);
  groups.clear();
}

let handlersInstalled = false;
/** Once, at the first command: the runner stopped by a signal takes the running groups with it. */
function installStopHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  for (const [signal, number] of [['SIGINT', 2], ['SIGTERM', 15], ['SIGHUP', 1]]) {
    process.once(signal, () => {
      killAllGroups();
      process.exit(128 + number);
    });
  }
}

/**
 * Runs `cmd args` and resolves { status, output } (output: what this command printed, also
 * appended to `log`). Never rejects: a command that cannot start resolves status 127.
 */
export function runLogged(log, cmd, args, { cwd, env, timeoutMs } = {}) {
  appendFileSync(log, `\n$ ${cmd} ${args.join(' ')}\n`);
  installStopHandlers();
  return new Promise((resolve) => {
    let output = '';
    let child;
    try {
      // detached: the child leads a new process group (not a new session: no terminal is involved).
      child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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
    const pid = child.pid;
    if (pid !== undefined) groups.add(pid);
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    // A stage that hangs must not eat the whole CI budget: its process group gets SIGKILL.
    const timer = timeoutMs ? setTimeout(() => {
      appendFileSync(log, `\n[test runner] no end after ${Math.round(timeoutMs / 1000)} s: killed\n`);
      if (pid !== undefined) killGroup(pid);
    }, timeoutMs) : undefined;
    child.on('error', (e) => {
      appendFileSync(log, `cannot start: ${e.message}\n`);
    });
    // 'exit' comes when the command itself ends; 'close' only once every process holding its
    // output pipes has: killing the group here lets 'close' come even if one was left behind.
    child.on('exit', () => {
      if (pid === undefined) return;
      killGroup(pid);
      groups.delete(pid);
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
