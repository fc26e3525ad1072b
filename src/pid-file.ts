// `tradeapi serve --pid-file PATH`: the server's own PID, for a supervisor or a script that must
// stop the node process itself (npm does not forward signals: killing `npm start` by npm's PID
// leaves node running). Written atomically (a temp file renamed over PATH, so a stale file of a
// killed server is replaced and no reader sees a half-written one), removed on exit if it still
// holds this PID. A file that names a running process is refused: a second server started by
// mistake (its port taken, say) would otherwise take the first one's file and remove it on exit.
import { lstatSync, renameSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A PID file that cannot be written: the message is for the user (exit 2, nothing listened). */
export class PidFileError extends Error {
  override readonly name = 'PidFileError';
}

/** Writes this process's PID to `file` (relative to `cwd`); returns the absolute path written. */
export function writePidFile(file: string, cwd = process.cwd(), pid = process.pid): string {
  if (file === '') throw new PidFileError('--pid-file needs a path');
  const target = path.resolve(cwd, file);
  let existing;
  try {
    existing = lstatSync(target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new PidFileError(`--pid-file ${target}: ${(e as Error).message}`);
  }
  if (existing?.isDirectory()) throw new PidFileError(`--pid-file ${target} is a directory; give the path of a file, e.g. ${path.join(target, 'tradeapi.pid')}`);
  if (existing && !existing.isFile() && !existing.isSymbolicLink()) throw new PidFileError(`--pid-file ${target} exists and is not a regular file`);
  if (existing) {
    const running = runningPid(target, pid);
    if (running !== undefined) {
      throw new PidFileError(`--pid-file ${target} holds PID ${running}, a running process (another tradeapi serve?): stop it, or remove the file if that process is not a server`);
    }
  }
  const temp = `${target}.tmp-${pid}`;
  try {
    writeFileSync(temp, `${pid}\n`, { flag: 'wx', mode: 0o644 });
    renameSync(temp, target);
  } catch (e) {
    rmSync(temp, { force: true });
    throw new PidFileError(`--pid-file ${target}: cannot write it: ${(e as Error).message}`);
  }
  return target;
}

/** The PID `file` names if it is not `self` and that process runs (a stale file: undefined). */
function runningPid(file: string, self: number): number | undefined {
  let text;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return undefined; // unreadable: the rename below will say what is wrong
  }
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const other = Number(text);
  if (other === self || other <= 1) return undefined;
  try {
    process.kill(other, 0); // signal 0: is there such a process (no signal is sent)
    return other;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? other : undefined; // EPERM: it runs, as another user
  }
}

/** Removes `file` if it still holds `pid` (another server may have taken the path since). Never throws. */
export function removePidFile(file: string, pid = process.pid): void {
  try {
    if (readFileSync(file, 'utf8').trim() === String(pid)) rmSync(file, { force: true });
  } catch {
    // gone already, or unreadable: nothing of ours to remove
  }
}
