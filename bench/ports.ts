// Loopback ports for servers under test, reserved across every process of a test run.
//
// Asking the kernel for port 0 and closing it hands on a port that anything may take before the
// server binds it: the kernel gives the same range to every other test file running in parallel
// and to every outgoing connection's local end. So a port here comes from below the kernel's
// ephemeral range (never handed out as a local end) and is reserved by a lock file that names the
// holder's PID (so parallel processes never share one); a lock whose holder has died is taken
// over, and a process's locks go when it exits.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const LOCKS = path.join(os.tmpdir(), 'tradeapi-test-ports');
// Below Linux's default ephemeral range (32768-60999) and above most services' fixed ports.
const FIRST = 20_000;
const COUNT = 12_000;

const held = new Set<string>();
let hooked = false;

function release(): void {
  for (const file of held) rmSync(file, { force: true });
  held.clear();
}

function alive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock of `port` for `holder`; false if a living process holds it. */
function lock(port: number, holder: number): boolean {
  const file = path.join(LOCKS, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(holder));
      closeSync(fd);
      if (holder === process.pid) held.add(file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder = NaN;
      try {
        holder = Number(readFileSync(file, 'utf8'));
      } catch {
        continue; // removed meanwhile: try again
      }
      // An empty file is a lock being written right now.
      if (Number.isNaN(holder) || holder === 0 || alive(holder)) return false;
      rmSync(file, { force: true });
    }
  }
  return false;
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A loopback port nothing listens on, reserved until `holder` exits: this process by default, or
 * another one (a shell script asking through `node dist/bench/ports.js $$`).
 */
export async function freePort(holder = process.pid): Promise<number> {
  if (!hooked) {
    hooked = true;
    mkdirSync(LOCKS, { recursive: true });
    process.on('exit', release);
  }
  const start = Math.floor(Math.random() * COUNT);
  for (let i = 0; i < COUNT; i++) {
    const port = FIRST + ((start + i) % COUNT);
    if (!lock(port, holder)) continue;
    if (await bindable(port)) return port;
    // Held by something outside this scheme: keep the lock so no one else here tries it again.
  }
  throw new Error(`no free loopback port in ${FIRST}-${FIRST + COUNT - 1}`);
}

// As a command: prints a port reserved for the PID given (the calling shell's $$).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const holder = Number(process.argv[2]);
  if (!Number.isSafeInteger(holder) || holder <= 0) {
    process.stderr.write('usage: node dist/bench/ports.js HOLDER_PID\n');
    process.exit(2);
  }
  process.stdout.write(`${await freePort(holder)}\n`);
}
