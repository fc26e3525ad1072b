// What `-o FILE` names, decided before the terminal is touched (issue 22, item 5: an export as root
// once turned /dev/null into a regular file, replaced a symlink and a FIFO, and reset a 600 file to
// 644). What a user of a production tool expects, and so what each kind gets:
// - a regular file, or a new name: replaced atomically (atomic-file.ts), keeping the mode of the
//   file it replaces (and its owner and group when root), as an in-place overwrite would;
// - `-` (stdout), a FIFO, a character device: written straight into, as a shell redirection
//   would. Streaming to a pipe or to /dev/null is legitimate, and a rename over them would destroy
//   them; the bytes are then not atomic (a reader sees them as they come, and a failure ends the
//   stream early), so the exit status is what tells a complete stream;
// - a symbolic link: followed to its target (as cp and `>` do), which is then handled as above, so
//   the link survives and the file it names is replaced atomically in its own directory; a
//   dangling link is refused, as GNU cp refuses to write through one, rather than creating a file
//   wherever it points;
// - a directory, a socket, a block device: refused with exit 2. Writing a whole export into a disk
//   device is never what was meant, and replacing the device node would be worse.
import { constants, type Stats } from 'node:fs';
import { lstat, readlink, realpath, stat } from 'node:fs/promises';

import type { BodySink } from '../encode/types.js';
import { UsageError } from './args.js';

export type OutputTarget =
  | { kind: 'stdout' }
  /** Written straight into: `path` is where the links (if any) lead. */
  | { kind: 'stream'; path: string; what: StreamKind }
  /** Replaced atomically: `path` is where the links (if any) lead; `existing` is what it replaces. */
  | { kind: 'file'; path: string; existing: Stats | undefined };

export type StreamKind = 'FIFO' | 'character device';

/** What run.ts writes to, whichever the target: AtomicFile or StreamOutput. */
export interface ExportSink extends BodySink {
  /** Bytes written so far. */
  readonly bytes: number;
  /** Makes the next write() reject with `reason` (an interruption), so that the encoder stops. */
  interrupt(reason: Error): void;
  /** Completes the output (renames the temp file over FILE, or closes the stream). */
  commit(): Promise<void>;
  /** Gives up: FILE is left as it was; never throws. */
  discard(): Promise<void>;
  /** The same, synchronously, for a process about to exit. */
  discardSync(): void;
}

/** `output`: an absolute path, or `-` for stdout. Throws UsageError for what is refused. */
export async function resolveOutput(output: string): Promise<OutputTarget> {
  if (output === '-') return { kind: 'stdout' };
  let st: Stats;
  try {
    st = await lstat(output);
  } catch (e) {
    // A new name (or a missing directory, reported by the file's creation in the same words as before).
    if (isCode(e, 'ENOENT', 'ENOTDIR')) return { kind: 'file', path: output, existing: undefined };
    throw e;
  }
  let real = output;
  if (st.isSymbolicLink()) {
    try {
      real = await realpath(output);
      st = await stat(real);
    } catch (e) {
      if (isCode(e, 'ENOENT', 'ENOTDIR')) throw refusal(output, `it is a symbolic link to ${await readlink(output).catch(() => '?')}, which does not exist`);
      if (isCode(e, 'ELOOP')) throw refusal(output, 'it is a loop of symbolic links');
      throw e;
    }
  }
  const where = real === output ? output : `${output} (-> ${real})`;
  if (st.isFile()) return { kind: 'file', path: real, existing: st };
  if (st.isFIFO()) return { kind: 'stream', path: real, what: 'FIFO' };
  if (st.isCharacterDevice()) return { kind: 'stream', path: real, what: 'character device' };
  if (st.isDirectory()) throw refusal(where, 'it is a directory');
  const kind = st.isBlockDevice() ? 'a block device' : st.isSocket() ? 'a socket' : 'not a regular file';
  throw refusal(where, `it is ${kind} (-o takes a regular file, a FIFO, a character device or - for stdout)`);
}

/** The kind of an open stream target, to check that it is still what resolveOutput saw. */
export function streamKind(st: Stats): StreamKind | undefined {
  return st.isFIFO() ? 'FIFO' : st.isCharacterDevice() ? 'character device' : undefined;
}

/** O_WRONLY without O_CREAT (a vanished FIFO must not come back as a regular file) nor a controlling terminal. */
export const STREAM_OPEN_FLAGS = constants.O_WRONLY | constants.O_NOCTTY;

function refusal(where: string, why: string): UsageError {
  return new UsageError(`cannot write to ${where}: ${why}`);
}

function isCode(e: unknown, ...codes: string[]): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && codes.includes(code);
}
