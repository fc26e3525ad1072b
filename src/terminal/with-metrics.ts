// A Terminal that times every call and counts its failures (GET /metrics): latency by operation,
// errors by operation and kind. Wraps whichever terminal the server was given (simulator or bridge),
// so every caller (routes, event feeds, subscriptions) is measured in one place.
import { isTerminalError } from './errors.js';
import type { Terminal } from './terminal.js';

export interface TerminalObserver {
  /** One finished call: `seconds` from the call to its answer; `error` the kind when it failed. */
  call(op: string, seconds: number, error: string | undefined): void;
}

/** Not calls to the terminal: close() ends the worker. */
const UNTIMED = new Set<PropertyKey>(['close']);

export function withMetrics(terminal: Terminal, observer: TerminalObserver): Terminal {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(terminal, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || UNTIMED.has(prop) || typeof prop !== 'string') return value;
      let fn = wrapped.get(prop);
      if (!fn) {
        const original = value as (...args: unknown[]) => unknown;
        fn = (...args: unknown[]): unknown => {
          const started = process.hrtime.bigint();
          const done = (error: string | undefined): void => observer.call(prop, Number(process.hrtime.bigint() - started) / 1e9, error);
          let result: unknown;
          try {
            result = original.apply(target, args);
          } catch (e) {
            done(kindOf(e));
            throw e;
          }
          if (!(result instanceof Promise)) {
            done(undefined);
            return result;
          }
          return result.then(
            (v: unknown) => {
              done(undefined);
              return v;
            },
            (e: unknown) => {
              done(kindOf(e));
              throw e;
            },
          );
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}

function kindOf(e: unknown): string {
  return isTerminalError(e) ? e.kind : 'other';
}
