// The kernel's view of a loopback listener, read from /proc/net/tcp (Linux): how many connections
// wait in its accept queue, and how many server-side connections exist (queued or accepted). Lets a
// test tell "the kernel holds the burst" from "something accepted it" while the event loop is held.
import { readFileSync } from 'node:fs';

export interface ListenerState {
  /** Connections in the accept queue, not yet accepted. */
  queued: number;
  /** Established server-side connections on the port, queued or accepted. */
  established: number;
}

/** The state of the IPv4 loopback listener on `port`, or undefined without /proc (or without it). */
export function listenerState(port: number): ListenerState | undefined {
  // Linux only: Windows node under Wine would read the host's /proc through drive Z:, which shows
  // Wine's emulation of the sockets, not what Windows does with them.
  if (process.platform !== 'linux') return undefined;
  let table: string;
  try {
    table = readFileSync('/proc/net/tcp', 'latin1');
  } catch {
    return undefined;
  }
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let queued: number | undefined;
  let established = 0;
  for (const line of table.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[1] !== local) continue;
    // sl local rem st tx:rx …; for a listener (st 0A) rx_queue is the accept queue's length.
    if (f[3] === '0A') queued = Number.parseInt(f[4]?.split(':')[1] ?? '', 16);
    else if (f[3] === '01') established++;
  }
  return queued === undefined ? undefined : { queued, established };
}

/**
 * Holds this thread (and so an in-process server's event loop) while the kernel takes a burst of
 * `count` connects: until `done` says so, or nothing changed for 300 ms, 5 s at most. Returns the
 * largest accept queue seen and the queue when the hold ended, or undefined without /proc.
 */
export function holdWhile(port: number, done: (s: ListenerState) => boolean): { max: number; final: number } | undefined {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  let state = listenerState(port);
  if (state === undefined) return undefined;
  let maxQueued = state.queued;
  let last = JSON.stringify(state);
  let stableSince = performance.now();
  const started = stableSince;
  while (!done(state) && performance.now() - stableSince < 300 && performance.now() - started < 5_000) {
    Atomics.wait(sleeper, 0, 0, 10);
    state = listenerState(port) ?? state;
    maxQueued = Math.max(maxQueued, state.queued);
    const now = JSON.stringify(state);
    if (now !== last) {
      last = now;
      stableSince = performance.now();
    }
  }
  return { max: maxQueued, final: state.queued };
}
