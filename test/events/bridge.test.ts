// Live events with a real bridge as the source: the MetaTrader5 stand-in behind
// `python -m tradeapi_bridge` (hooked, so that the test moves the terminal's clock on and new ticks
// appear as they would live). At a high tick rate the stand-in has ticks that share a millisecond,
// so the feed's de-duplication at the boundary of a poll is exercised through the real protocol.
import t from 'tap';

import { prepareVenv, steppedBridge } from '../helpers/bridge.js';
import { SseClient, type TickData } from '../helpers/sse.js';
import { patience } from '../helpers/patience.js';

const FIELDS = ['time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'flags', 'volume_real'] as const;
const fieldsOf = (tick: Record<string, number> | TickData): Record<string, number> =>
  Object.fromEntries(FIELDS.map((f) => [f, (tick as Record<string, number>)[f] as number]));
const iso = (ms: number): string => new Date(ms).toISOString();
const SYMBOLS = ['EURUSD', 'GBPUSD'];

const skip = prepareVenv();
if (skip) {
  t.plan(0, `bridge tests need Python 3 with venv: ${skip}`);
} else {
  t.test('ticks from a bridge: live, resumed, and equal to the history', async (t) => {
    // Many ticks a second, so that some share a millisecond; the clock moves on in steps, each
    // making about a second of ticks appear at once.
    const { gw, advance } = await steppedBridge(t, 40);
    const url = `${gw.base}/events?symbols=${SYMBOLS.join(',')}`;

    const first = await SseClient.open(url);
    t.equal(first.status, 200);
    // The answer's head comes after the feed took its starting point (EventSession.open awaits the
    // subscription), so every step from here is news to it. (Stepping on until ticks came, as this
    // did, ran the clock on by minutes while a loaded machine's first poll was in flight: thousands
    // of ticks for each connection to carry.)
    await advance(5);
    await first.waitFor(() => first.ticks.length >= 6, patience(2_000), 'ticks from the bridge');
    await new Promise((r) => setTimeout(r, 200)); // the last step's ticks
    first.close();
    const seen = first.ticks;
    t.ok(seen.every((k) => SYMBOLS.includes(k.symbol)), 'listed symbols only');
    t.same(first.messages.filter((m) => m.event === 'gap').map((m) => m.data), [], 'the first connection got every tick (no gap)');

    // The client missed everything after its third tick, and 3 s more happened while it was away.
    const kept = seen.slice(0, 3);
    await advance(3);
    const second = await SseClient.open(url, { 'last-event-id': kept[2]?.id as string });
    t.teardown(() => second.close());
    t.equal(second.status, 200);
    await advance(2);
    await new Promise((r) => setTimeout(r, 300));
    // Every symbol caught up past what the first connection saw of it.
    const lastOf = new Map(SYMBOLS.map((symbol) => [symbol, seen.reduce((m, k) => (k.symbol === symbol ? Math.max(m, k.time_msc) : m), 0)]));
    await second.waitFor(() => SYMBOLS.every((s) => second.ticks.some((k) => k.symbol === s && k.time_msc > (lastOf.get(s) as number))), patience(2_000), 'the resumed stream');
    t.notOk(second.messages.some((m) => m.event === 'gap'), 'no gap');
    // Per symbol: across symbols, live ticks are merged per poll, and one step of the clock can
    // reach two symbols' polls in different cycles.
    for (const symbol of SYMBOLS) {
      const missed = seen.slice(3).filter((k) => k.symbol === symbol);
      const again = second.ticks.filter((k) => k.symbol === symbol).slice(0, missed.length);
      t.same(again.map(fieldsOf), missed.map(fieldsOf), `${symbol}: what was missed comes first`);
    }

    const all = [...kept, ...second.ticks];
    let sharedMs = 0;
    for (const symbol of SYMBOLS) {
      const mine = all.filter((k) => k.symbol === symbol);
      t.ok(mine.length > 2, `${symbol}: ticks (${mine.length})`);
      const res = await gw.get(`/ticks/range?symbol=${symbol}&date_from=${iso((mine[0] as TickData).time_msc)}&date_to=${iso((mine.at(-1) as TickData).time_msc)}`);
      const history = ((await res.json()) as Array<Record<string, number>>).map(fieldsOf);
      t.same(mine.map(fieldsOf), history, `${symbol}: the two connections together are exactly the history`);
      sharedMs += mine.filter((k, i) => i > 0 && k.time_msc === (mine[i - 1] as TickData).time_msc).length;
    }
    t.ok(sharedMs > 0, `ticks sharing a millisecond went through (${sharedMs} of ${all.length})`);
  });
}
