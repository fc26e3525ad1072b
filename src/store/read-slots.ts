// A bound on the store's file reads at once, each with a deadline. File reads share libuv's thread
// pool (4 threads by default) with compression, DNS and the addon's encoders: a few slow or stuck
// reads must not take it from the rest of the server. Past `slots` reads at once a read waits in a
// queue of at most `queue`; past that it is refused at once (503 store-busy, Retry-After), as a
// read that waits longer than its deadline is.
import { TerminalError } from '../terminal/errors.js';

export interface ReadSlotOptions {
  /** Reads at once. */
  slots: number;
  /** Reads waiting for a slot, at most. */
  queue: number;
  /** A read (waiting included) that takes longer is given up (ms). */
  deadlineMs: number;
}

export const DEFAULT_READ_SLOTS: ReadSlotOptions = { slots: 4, queue: 256, deadlineMs: 30_000 };

/** The store is too busy (or too slow) to read a partition now: answered as 503 /errors/store-busy. */
export function storeBusy(detail: string): TerminalError {
  return new TerminalError('store_busy', -10005, detail);
}

export class ReadSlots {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly options: ReadSlotOptions = DEFAULT_READ_SLOTS) {}

  /** Runs `read` in a slot, with an AbortSignal that fires at the deadline. */
  async run<T>(what: string, read: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const o = this.options;
    const signal = AbortSignal.timeout(o.deadlineMs);
    if (this.busy >= o.slots) {
      if (this.waiting.length >= o.queue) throw storeBusy(`the store has ${o.slots} reads running and ${o.queue} waiting; ${what} was not read`);
      await new Promise<void>((resolve, reject) => {
        const go = (): void => {
          signal.removeEventListener('abort', late);
          resolve();
        };
        const late = (): void => {
          const i = this.waiting.indexOf(go);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(storeBusy(`${what} waited ${o.deadlineMs} ms for a read slot`));
        };
        signal.addEventListener('abort', late, { once: true });
        this.waiting.push(go);
      });
    } else {
      this.busy++;
    }
    try {
      return await read(signal);
    } catch (e) {
      if (signal.aborted && (e as Error).name === 'TimeoutError') throw storeBusy(`reading ${what} took longer than ${o.deadlineMs} ms`);
      throw e;
    } finally {
      const next = this.waiting.shift();
      if (next) next(); // the slot passes on
      else this.busy--;
    }
  }
}
