// GET /ws with a real bridge as the source: the MetaTrader5 stand-in behind the hooked
// `python -m tradeapi_bridge` (the test moves the terminal's clock on, so new ticks and new depth
// appear as they would live). Ticks come for the subscribed symbols only and equal the history;
// depth events come for a symbol with a market-depth subscription and stop after unsubscribe; a
// reconnect with `since` gets exactly what it missed (at a tick rate where ticks share milliseconds).
import t from 'tap';

import { prepareVenv, steppedBridge, waitFor } from '../helpers/bridge.js';
import type { TickData } from '../helpers/sse.js';
import { WsClient } from '../helpers/ws.js';
import { patience } from '../helpers/patience.js';

// A subscribe over the bridge is a terminal call (the symbol's info, the feed's baseline) queued in
// the Python stand-in behind the feed's polls, every 20 ms here: well under a second idle, over 10 s
// on a loaded 2-core machine, over 30 s with a CPU hog per core beside the suite. The bound only
// turns a hang into a failure: nothing here measures the subscribe's speed.
const SUBSCRIBE_MS = patience(5_000);
// The same for waiting on what a few advanced seconds of the stand-in's clock produce: its ticks
// and depth go through the same queue.
const DELIVERY_MS = patience(5_000);

const FIELDS = ['time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'flags', 'volume_real'] as const;
const fieldsOf = (tick: Record<string, number> | TickData): Record<string, number> =>
  Object.fromEntries(FIELDS.map((f) => [f, (tick as Record<string, number>)[f] as number]));
const iso = (ms: number): string => new Date(ms).toISOString();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const SYMBOLS = ['EURUSD', 'GBPUSD'];

interface BookData {
  symbol: string;
  time_msc: number;
  book: Array<Record<string, number>>;
}

const skip = prepareVenv();
if (skip) {
  t.plan(0, `bridge tests need Python 3 with venv: ${skip}`);
} else {
  t.test('WebSocket from a bridge: ticks of the subscribed symbols, depth until unsubscribed', async (t) => {
    const { gw, advance } = await steppedBridge(t, 10);
    // The feed's baseline is each symbol's latest tick. One that has none yet starts from node's
    // clock, which scripts/clock/on.sh moves days past the stand-in's (Python keeps the real one):
    // let every subscribed symbol tick once first, as any quoted symbol has on a real terminal.
    const latest = async (symbol: string): Promise<number> => ((await (await gw.get(`/symbols/${symbol}/tick`)).json()) as { time_msc: number }).time_msc;
    const ticked = await waitFor(async () => {
      if ((await Promise.all(SYMBOLS.map(latest))).every((msc) => msc > 0)) return true;
      await advance(1);
      return undefined;
    }, patience(2_000));
    t.ok(ticked, 'each subscribed symbol has a tick');

    t.equal((await gw.get('/market-book/EURUSD/subscribe', { method: 'POST' })).status, 200, 'depth subscription');
    t.teardown(async () => void (await gw.get('/market-book/EURUSD/unsubscribe', { method: 'POST' })));
    const c = await WsClient.open(`${gw.base.replace(/^http/, 'ws')}/ws`);
    t.teardown(() => c.close());
    const ticksOn = c.next('subscribed', SUBSCRIBE_MS);
    c.send({ op: 'subscribe', symbols: SYMBOLS, id: 1 });
    t.same((await ticksOn).subscriptions, { tick: SYMBOLS, book: [] });
    const booksOn = c.next('subscribed', SUBSCRIBE_MS);
    c.send({ op: 'subscribe', symbols: ['EURUSD'], kinds: ['book'], id: 2 });
    t.same((await booksOn).subscriptions, { tick: SYMBOLS, book: ['EURUSD'] });

    const books = (): BookData[] => c.of('book').map((m) => m.data as BookData);
    // The stand-in's clock moves only when told: a few seconds may hold no tick of one symbol, so
    // the clock moves on a second at a time until what is awaited has come.
    const advanceUntil = async (cond: () => boolean, what: string): Promise<void> => {
      const deadline = Date.now() + DELIVERY_MS;
      while (!cond()) {
        if (Date.now() > deadline) {
          const bySymbol = SYMBOLS.map((s) => `${s} ${c.ticks.filter((k) => k.symbol === s).length}`).join(', ');
          throw new Error(`timed out after ${DELIVERY_MS} ms waiting for ${what} (ticks: ${bySymbol}; depth events: ${books().length})`);
        }
        await advance(1);
        await sleep(100);
      }
    };
    await advance(4);
    await advanceUntil(() => SYMBOLS.every((s) => c.ticks.some((k) => k.symbol === s)) && books().length >= 2, 'ticks of both symbols and depth events');
    t.ok(c.ticks.every((k) => SYMBOLS.includes(k.symbol)), 'ticks of the subscribed symbols only');
    t.ok(books().every((b) => b.symbol === 'EURUSD'), 'depth of the depth-subscribed symbol only');
    const first = books()[0] as BookData;
    t.ok(first.book.length > 0 && 'price' in (first.book[0] as object) && 'type' in (first.book[0] as object), 'BookInfo rows');

    const off = c.next('unsubscribed');
    c.send({ op: 'unsubscribe', kinds: ['book'] });
    t.same((await off).subscriptions, { tick: SYMBOLS, book: [] });
    await sleep(200); // a delivery already under way
    const bookCount = books().length;
    const tickCount = c.ticks.length;
    await advance(3);
    await advanceUntil(() => c.ticks.length > tickCount, 'ticks after the depth unsubscribe');
    await sleep(300);
    t.equal(books().length, bookCount, 'no depth events after unsubscribe, while the clock (and ticks) moved on');

    // The ticks received are exactly the terminal's history of their span, per symbol.
    for (const symbol of SYMBOLS) {
      const mine = c.ticks.filter((k) => k.symbol === symbol);
      t.ok(mine.length > 2, `${symbol}: ticks (${mine.length})`);
      const res = await gw.get(`/ticks/range?symbol=${symbol}&date_from=${iso((mine[0] as TickData).time_msc)}&date_to=${iso((mine.at(-1) as TickData).time_msc)}`);
      const history = ((await res.json()) as Array<Record<string, number>>).map(fieldsOf);
      t.same(mine.map(fieldsOf), history, `${symbol}: the events are the history of that span`);
    }
  });

  t.test('WebSocket from a bridge: a reconnect with since gets what it missed, then live', async (t) => {
    const { gw, advance } = await steppedBridge(t, 40); // some ticks share a millisecond
    const url = `${gw.base.replace(/^http/, 'ws')}/ws`;

    const first = await WsClient.open(url);
    const on = first.next('subscribed', SUBSCRIBE_MS);
    first.send({ op: 'subscribe', symbols: ['EURUSD'] });
    await on;
    await advance(3);
    await first.waitFor(() => first.ticks.length >= 6, DELIVERY_MS, 'ticks from the bridge');
    await sleep(200);
    first.close();
    const seen = first.of('tick');
    // The client kept its first three ticks; 3 s more happened while it was away.
    const kept = seen.slice(0, 3).map((m) => m.data as TickData);
    await advance(3);
    const second = await WsClient.open(url);
    t.teardown(() => second.close());
    const again = second.next('subscribed', SUBSCRIBE_MS);
    second.send({ op: 'subscribe', symbols: ['EURUSD'], since: seen[2]?.event_id as string });
    await again;
    await advance(2);
    const lastSeen = (seen.at(-1)?.data as TickData).time_msc;
    await second.waitFor(() => second.ticks.some((k) => k.time_msc > lastSeen), DELIVERY_MS, 'the resumed stream');
    await sleep(300);
    t.same(second.of('gap'), [], 'no gap');
    const missed = seen.slice(3).map((m) => fieldsOf(m.data as TickData));
    t.same(second.ticks.slice(0, missed.length).map(fieldsOf), missed, 'what was missed comes first');
    const all = [...kept, ...second.ticks];
    const res = await gw.get(`/ticks/range?symbol=EURUSD&date_from=${iso((all[0] as TickData).time_msc)}&date_to=${iso((all.at(-1) as TickData).time_msc)}`);
    const history = ((await res.json()) as Array<Record<string, number>>).map(fieldsOf);
    t.same(all.map(fieldsOf), history, `the two connections together are exactly the history (${all.length})`);
    const shared = all.filter((k, i) => i > 0 && k.time_msc === (all[i - 1] as TickData).time_msc).length;
    t.ok(shared > 0, `ticks sharing a millisecond went through (${shared})`);
    t.ok(second.of('tick').some((m) => /-[1-9]/.test(m.event_id as string)), 'event_id with a seq past 0');
  });
}
