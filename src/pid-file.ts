// `tradeapi serve --pid-file PATH`: the server's own PID, for a supervisor or a script that must
// stop the node process itself (npm does not forward signals: killing `npm start` by npm's PID
// leaves node running). Written atomically (a temp file renamed over PATH, so a stale file of a
// killed server is replaced and no reader sees a half-written one), removed on exit if it still
// holds this PID.
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

/** Removes `file` if it still holds `pid` (another server may have taken the path since). Never throws. */
export function removePidFile(file: string, pid = process.pid): void {
  try {
    if (readFileSync(file, 'utf8').trim() === String(pid)) rmSync(file, { force: true });
  } catch {
    // gone already, or unreadable: nothing of ours to remove
  }
}
