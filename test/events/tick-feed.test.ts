// The tick feed on a scripted terminal: ticks that share the boundary millisecond across two polls,
// bursts larger than one poll, one poll per symbol for any number of listeners, and stopping.
import t from 'tap';

import { TerminalError } from '../../src/terminal/errors.js';
import { TickFeed, type FeedTick } from '../../src/events/tick-feed.js';
import { simTerminal } from '../helpers/server.js';
import { tick, tickStore } from '../helpers/scripted-ticks.js';

const sim = simTerminal();
t.teardown(() => sim.close());

const until = async (pred: () => boolean, ms = 3000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
};
const brief = (f: FeedTick): string => `${f.symbol}@${f.tick.time_msc}#${f.seq}:${f.tick.bid}`;
/** Waits for `n` more polls of `symbol` than so far (counted by the store), however slow the machine. */
const morePolls = (store: { calls: Map<string, number> }, symbol: string, n: number): Promise<void> => {
  const from = store.calls.get(symbol) ?? 0;
  return until(() => (store.calls.get(symbol) ?? 0) >= from + n);
};

t.test('ticks sharing the last millisecond of a poll are delivered once, with their per-ms index', async (t) => {
  const store = tickStore(sim, ['EURUSD']);
  store.add('EURUSD', tick(1000, 1.1), tick(1000, 1.2));
  const feed = new TickFeed(store.terminal, { pollMs: 10 });
  t.teardown(() => feed.stop());
  const got: FeedTick[] = [];
  const sub = await feed.subscribe(['EURUSD'], (ticks) => got.push(...ticks));
  t.same(sub.cursors.get('EURUSD'), { time_msc: 1000, seq: 1 }, 'live begins after both ticks of the latest millisecond');
  // A third tick in the same millisecond, after the poll that saw two of them.
  store.add('EURUSD', tick(1000, 1.3), tick(1001, 1.4), tick(1001, 1.5));
  await until(() => got.length >= 3);
  store.add('EURUSD', tick(1001, 1.6), tick(1005, 1.7));
  await until(() => got.length >= 5);
  await morePolls(store, 'EURUSD', 3); // a few more polls: nothing again
  t.same(got.map(brief), ['EURUSD@1000#2:1.3', 'EURUSD@1001#0:1.4', 'EURUSD@1001#1:1.5', 'EURUSD@1001#2:1.6', 'EURUSD@1005#0:1.7']);
  sub.close();
  feed.stop();
});

t.test('a burst larger than one poll arrives whole and in order', async (t) => {
  const store = tickStore(sim, ['EURUSD']);
  store.add('EURUSD', tick(1000, 1));
  const feed = new TickFeed(store.terminal, { pollMs: 10, maxTicksPerPoll: 4 });
  t.teardown(() => feed.stop());
  const got: FeedTick[] = [];
  const sub = await feed.subscribe(['EURUSD'], (ticks) => got.push(...ticks));
  const burst = Array.from({ length: 23 }, (_, i) => tick(1001 + Math.floor(i / 5), 2 + i / 100)); // 5 per millisecond
  store.add('EURUSD', ...burst);
  await until(() => got.length >= 23);
  await morePolls(store, 'EURUSD', 3);
  t.equal(got.length, 23, 'each tick once');
  t.same(got.map((f) => f.tick.bid), burst.map((b) => b.bid), 'in order');
  t.same(got.map((f) => f.seq), burst.map((_, i) => i % 5), 'per-millisecond index');
  sub.close();
  feed.stop();
});

t.test('one poll per symbol however many listen; ties in each listener\'s symbol order; polling stops with the last listener', async (t) => {
  const store = tickStore(sim, ['EURUSD', 'USDJPY']);
  store.add('EURUSD', tick(1000, 1));
  store.add('USDJPY', tick(1000, 150));
  const feed = new TickFeed(store.terminal, { pollMs: 20 });
  t.teardown(() => feed.stop());
  const a: FeedTick[] = [];
  const b: FeedTick[] = [];
  const subA = await feed.subscribe(['EURUSD', 'USDJPY'], (ticks) => a.push(...ticks));
  const subB = await feed.subscribe(['USDJPY', 'EURUSD'], (ticks) => b.push(...ticks));
  t.equal(feed.activeSymbols, 2);
  const before = store.calls.get('EURUSD') ?? 0;
  const started = performance.now();
  store.add('EURUSD', tick(1002, 1.1));
  store.add('USDJPY', tick(1002, 150.1));
  await until(() => a.length >= 2 && b.length >= 2);
  await morePolls(store, 'EURUSD', 3);
  const polls = (store.calls.get('EURUSD') ?? 0) - before;
  const elapsed = performance.now() - started;
  // A poll per listener would be two every 20 ms; one per symbol is at most one (after the cycle
  // that may have been due when the count started; rounded up, as timers keep whole milliseconds).
  // Bounded by the time it took, so that a slow machine (late timers) makes fewer polls, not a failure.
  t.ok(polls >= 3 && polls <= Math.ceil(elapsed / 20) + 1, `EURUSD polled at most once per 20 ms for two listeners (${polls} in ${elapsed.toFixed(0)} ms)`);
  t.same(a.map((f) => f.symbol), ['EURUSD', 'USDJPY'], 'same millisecond: the listener\'s order');
  t.same(b.map((f) => f.symbol), ['USDJPY', 'EURUSD']);
  subA.close();
  t.equal(feed.activeSymbols, 2, 'B still listens');
  subB.close();
  t.equal(feed.activeSymbols, 0);
  const after = store.calls.get('EURUSD');
  await new Promise((r) => setTimeout(r, 100));
  t.equal(store.calls.get('EURUSD'), after, 'no poll once nobody listens');
  feed.stop();
});

t.test('an unknown symbol: subscribe rejects and leaves no poller', async (t) => {
  const store = tickStore(sim, ['EURUSD']);
  store.add('EURUSD', tick(1000, 1));
  const feed = new TickFeed(store.terminal, { pollMs: 10 });
  t.teardown(() => feed.stop());
  const outcome = await feed.subscribe(['EURUSD', 'NOPE'], () => undefined).then(
    () => 'subscribed',
    (e: unknown) => (e instanceof TerminalError ? e.kind : String(e)),
  );
  t.equal(outcome, 'not_found');
  t.equal(feed.activeSymbols, 0);
  feed.stop();
});
