// The history part of a replay on a scripted terminal: pages that split a millisecond's ticks,
// several symbols merged in time order with ties in the listed order, `end`, a resumed position,
// and reading again once the terminal has gone on (the seam's "read again").
import t from 'tap';

import { MergedHistory } from '../../src/events/replay-history.js';
import { simTerminal } from '../helpers/server.js';
import { tick, tickStore } from '../helpers/scripted-ticks.js';

const sim = simTerminal();
t.teardown(() => sim.close());

const brief = (f: { symbol: string; time_msc: number; seq: number; tick: { bid: number } }): string => `${f.symbol}@${f.time_msc}#${f.seq}:${f.tick.bid}`;

async function drain(h: MergedHistory, max = 3): Promise<string[]> {
  const out: string[] = [];
  for (let batch = await h.next(max); batch.length > 0; batch = await h.next(max)) out.push(...batch.map(brief));
  return out;
}

t.test('pages of 2 split a millisecond of 5 ticks: each once, seq counted from its first', async (t) => {
  const store = tickStore(sim, ['EURUSD']);
  store.add('EURUSD', tick(900, 1), ...[0, 1, 2, 3, 4].map((k) => tick(1000, 2 + k)), tick(1001, 9));
  const h = new MergedHistory(store.terminal, ['EURUSD'], [{ time_msc: 950, seq: -1 }], undefined, () => undefined, 2);
  t.same(await drain(h), ['EURUSD@1000#0:2', 'EURUSD@1000#1:3', 'EURUSD@1000#2:4', 'EURUSD@1000#3:5', 'EURUSD@1000#4:6', 'EURUSD@1001#0:9']);
});

t.test('resumed inside a millisecond: the ticks after that position only', async (t) => {
  const store = tickStore(sim, ['EURUSD']);
  store.add('EURUSD', ...[0, 1, 2].map((k) => tick(1000, 2 + k)), tick(1002, 9));
  const h = new MergedHistory(store.terminal, ['EURUSD'], [{ time_msc: 1000, seq: 1 }], undefined, () => undefined, 2);
  t.same(await drain(h), ['EURUSD@1000#2:4', 'EURUSD@1002#0:9']);
});

t.test('symbols merged in time order, ties in the listed order, cut at end', async (t) => {
  const store = tickStore(sim, ['EURUSD', 'GBPUSD']);
  store.add('EURUSD', tick(1000, 1), tick(1002, 2), tick(1002, 3), tick(1005, 4), tick(1009, 5));
  store.add('GBPUSD', tick(1001, 6), tick(1002, 7), tick(1004, 8), tick(1005, 9), tick(1006, 10));
  const from = [{ time_msc: 1000, seq: -1 }, { time_msc: 1000, seq: -1 }];
  const h = new MergedHistory(store.terminal, ['GBPUSD', 'EURUSD'], from, 1005, () => undefined, 2);
  t.same(await drain(h, 4), [
    'EURUSD@1000#0:1',
    'GBPUSD@1001#0:6',
    'GBPUSD@1002#0:7', // GBPUSD is listed first: its tick of 1002 before EURUSD's
    'EURUSD@1002#0:2',
    'EURUSD@1002#1:3',
    'GBPUSD@1004#0:8',
    'GBPUSD@1005#0:9',
    'EURUSD@1005#0:4',
  ]);
});

t.test('history that ran out is read again after refresh(), from where it stopped; reads are announced', async (t) => {
  const store = tickStore(sim, ['EURUSD']);
  store.add('EURUSD', tick(1000, 1), tick(1000, 2));
  let reads = 0;
  const h = new MergedHistory(store.terminal, ['EURUSD'], [{ time_msc: 0, seq: -1 }], undefined, () => reads++, 4);
  t.same(await drain(h), ['EURUSD@1000#0:1', 'EURUSD@1000#1:2']);
  t.ok(h.quiet(0, { time_msc: 1000, seq: 1 }), 'quiet at its last tick');
  t.notOk(h.quiet(0, { time_msc: 1000, seq: 0 }), 'not quiet while a tick read is unsent');
  store.add('EURUSD', tick(1000, 3), tick(1003, 4));
  t.same(await h.next(10), [], 'nothing until refreshed');
  h.refresh();
  const before = reads;
  t.same(await drain(h), ['EURUSD@1000#2:3', 'EURUSD@1003#0:4'], 'the new ticks of the same millisecond go on counting');
  t.ok(reads > before, 'the read was announced');
});

t.test('at the live edge: a symbol that ran out is read again before a later-read symbol\'s ticks pass it', async (t) => {
  // EURUSD is read first and runs out at 1000; the terminal's clock goes on before GBPUSD's read,
  // which sees ticks up to 1003, while EURUSD has had one at 1002 meanwhile. Merged on its own
  // first read, EURUSD's 1002 would have come after GBPUSD's 1003: history going back in time.
  const store = tickStore(sim, ['EURUSD', 'GBPUSD']);
  store.add('EURUSD', tick(1000, 1));
  store.add('GBPUSD', tick(1001, 2));
  let moved = false;
  const terminal = new Proxy(store.terminal, {
    get(target, prop) {
      if (prop === 'copyTicksFrom') {
        return (...args: Parameters<typeof target.copyTicksFrom>) => {
          if (args[0] === 'GBPUSD' && !moved) {
            moved = true;
            store.add('EURUSD', tick(1002, 3));
            store.add('GBPUSD', tick(1003, 4));
          }
          return target.copyTicksFrom(...args);
        };
      }
      const v: unknown = Reflect.get(target, prop);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const from = [{ time_msc: 0, seq: -1 }, { time_msc: 0, seq: -1 }];
  const h = new MergedHistory(terminal, ['EURUSD', 'GBPUSD'], from, undefined, () => undefined, 8);
  t.same(await drain(h, 10), ['EURUSD@1000#0:1', 'GBPUSD@1001#0:2', 'EURUSD@1002#0:3', 'GBPUSD@1003#0:4']);
});
