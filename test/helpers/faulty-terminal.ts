// A Terminal that answers like the real one except for the operations overridden: lets tests
// provoke terminal failures (unavailable, call_failed, a series that breaks mid-stream, a bug).
import type { Terminal } from '../../src/terminal/terminal.js';

export function faultyTerminal(real: Terminal, overrides: Partial<Terminal>): Terminal {
  return new Proxy(real, {
    get(target, key, receiver) {
      if (Object.hasOwn(overrides, key)) return (overrides as Record<string | symbol, unknown>)[key];
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
