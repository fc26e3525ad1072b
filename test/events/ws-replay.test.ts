// GET /ws subscribe with `start`: a replay from history that runs into live (or ends at `end`),
// through the real server on loopback with the `ws` package's client, on the busy test clock
// (test/helpers/live-sim.ts). The same seam as GET /events?start= (test/events/replay.test.ts).
import { tableFromIPC } from 'apache-arrow';
import t, { type Test } from 'tap';

import type { TickData } from '../helpers/sse.js';
import { forEachAdapter, serve, type TestServer } from '../helpers/server.js';
import { WsClient, type ServerMessage } from '../helpers/ws.js';
import { liveSimTerminal } from '../helpers/live-sim.js';
import { fieldsOf, iso, rangeRows, realTimeCheck } from '../helpers/tick-history.js';
import { patience } from '../helpers/patience.js';

const sim = liveSimTerminal();
const live = sim.terminal;
t.teardown(() => sim.close());

const POLL_MS = 50;
const env = { TRADEAPI_EVENTS_POLL_MS: String(POLL_MS) };
const SYMBOLS = ['BTCUSD', 'EURUSD'];
const wsUrl = (srv: TestServer): string => `${srv.base.replace(/^http/, 'ws')}/ws`;

const ticksOf = (messages: readonly ServerMessage[]): Array<TickData & { event_id: string }> =>
  messages.filter((m) => m.event === 'tick').map((m) => ({ ...(m.data as TickData), event_id: m.event_id as string }));

/** Each symbol's ticks are its history from `fromMs` to `toMs` (default: the last tick seen), once each. */
async function sameAsHistory(t: Test, srv: TestServer, ticks: readonly TickData[], fromMs: number, toMs?: number): Promise<void> {
  const last = toMs ?? Math.max(...ticks.map((k) => k.time_msc));
  for (const symbol of SYMBOLS) {
    t.same(ticks.filter((k) => k.symbol === symbol).map(fieldsOf), await rangeRows(srv, symbol, fromMs, last), `${symbol}: each tick of the span once, as /ticks/range has them`);
  }
}

void forEachAdapter(t, async (t, adapter) => {
  t.test('start: history, one replay-complete, then live, no hole and no repeat', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    const start = sim.now() - 20_000;
    c.send({ op: 'subscribe', symbols: SYMBOLS, start: iso(start), id: 1 });
    const reply = await c.next('subscribed', patience(1_000));
    t.same(reply.replay, { start: iso(start), end: null, speed: 0 });
    await c.waitFor(() => c.of('replay-complete').length > 0, patience(2_000), 'replay-complete');
    const seamAt = c.messages.findIndex((m) => m.event === 'replay-complete');
    const liveAfter = (s: string) => ticksOf(c.messages.slice(seamAt)).filter((k) => k.symbol === s).length;
    await c.waitFor(() => SYMBOLS.every((s) => liveAfter(s) >= 2), await sim.window(SYMBOLS, 2, { pollMs: POLL_MS, each: true }), 'live ticks of each symbol');
    t.equal(c.of('replay-complete').length, 1, 'one marker');
    const history = ticksOf(c.messages.slice(0, seamAt));
    t.ok(history.length > 20, `history first (${history.length} ticks)`);
    t.equal((c.of('replay-complete')[0]?.data as { ticks: number }).ticks, history.length);
    await sameAsHistory(t, srv, ticksOf(c.messages), start);
    c.send({ op: 'ping', id: 2 });
    await c.next('pong', patience(1_000));
  });

  t.test('start + end: a pure replay ending with replay-end; since resumes it in the middle', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    const end = sim.now() - 5_000;
    const start = end - 30_000;
    c.send({ op: 'subscribe', symbols: ['BTCUSD'], start: iso(start), end: iso(end) });
    await c.next('replay-end', patience(2_000));
    const all = ticksOf(c.messages);
    t.same(all.map(fieldsOf), await rangeRows(srv, 'BTCUSD', start, end), 'the span, each tick once');
    t.same((c.of('subscribed')[0] as ServerMessage).subscriptions, { tick: [], book: [] }, 'a replay with an end subscribes to nothing live');
    const k = Math.floor(all.length / 2);
    const d = await WsClient.open(wsUrl(srv));
    t.teardown(() => d.close());
    d.send({ op: 'subscribe', symbols: ['BTCUSD'], start: iso(start), end: iso(end), since: all[k]?.event_id });
    await d.next('replay-end', patience(2_000));
    t.same(ticksOf(d.messages).map(fieldsOf), all.slice(k + 1).map(fieldsOf), 'since: the ticks after it, each once');
  });

  t.test('format arrow: the replay as Arrow frames, the same ticks', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    const end = sim.now() - 5_000;
    const start = end - 20_000;
    c.send({ op: 'subscribe', symbols: SYMBOLS, start: iso(start), end: iso(end), format: 'arrow' });
    await c.next('replay-end', patience(2_000));
    const rows = c.of('binary').flatMap((m) => tableFromIPC(m.data as Uint8Array).toArray().map((r) => r.toJSON() as Record<string, unknown>));
    for (const symbol of SYMBOLS) {
      const mine = rows.filter((r) => r.symbol === symbol);
      const history = await rangeRows(srv, symbol, start, end);
      t.same(mine.map((r) => [Number(r.time_msc), r.bid, r.ask]), history.map((h) => [h.time_msc, h.bid, h.ask]), `${symbol}: the span in Arrow`);
    }
  });

  t.test('speed 1 stays in history and paces; other messages are answered meanwhile', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    const start = sim.now() - 60_000;
    const opened = performance.now();
    c.send({ op: 'subscribe', symbols: SYMBOLS, start: iso(start), speed: 1 });
    const check = realTimeCheck(() => ticksOf(c.messages), start, opened, 6);
    await c.waitFor(check.until, (await sim.nthTickAfter(SYMBOLS, 6, { fromMs: start })) - start + patience(1_000), '6 paced ticks');
    t.equal(check.ahead(), 0, 'no tick before its time');
    c.send({ op: 'ping', id: 'p' });
    await c.next('pong', patience(1_000));
    t.equal(c.of('replay-complete').length, 0, 'still in history');
    c.send({ op: 'unsubscribe', symbols: ['BTCUSD'], id: 'u' });
    await c.next('unsubscribed', patience(1_000));
    const gap = c.of('gap').at(-1)?.data as { reason: string; symbol: string; from_msc: number; to_msc: number } | undefined;
    t.match(gap, { reason: 'replay-stopped', symbol: 'EURUSD' }, "EURUSD stays and goes live: the history it did not get is a gap");
    const lastEur = ticksOf(c.messages).filter((k) => k.symbol === 'EURUSD').at(-1);
    t.equal(gap?.from_msc, lastEur?.time_msc ?? start, 'from its last tick sent');
    c.send({ op: 'subscribe', symbols: ['USDJPY'], start: iso(start), id: 's' });
    const again = await c.next('subscribed', patience(1_000));
    t.same(again.symbols, ['USDJPY'], 'unsubscribing stopped the replay: another may start');
  });

  t.test('replay refusals are 400 error events', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    const now = sim.now();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ start: '2099-01-01T00:00:00Z' }, /future/],
      [{ start: iso(now - 10_000), end: iso(now - 20_000) }, /must not be earlier than 'start'/],
      [{ start: 'yesterday' }, /ISO 8601/],
      [{ start: iso(now - 10_000), kinds: ['tick', 'book'] }, /depth has no history/],
      [{ speed: 2 }, /needs 'start'/],
      [{ start: iso(now - 10_000), speed: -1 }, /speed/],
      [{ start: iso(now - 10_000), speed: 'fast' }, /speed/],
    ];
    for (const [i, [members, detail]] of cases.entries()) {
      c.send({ op: 'subscribe', symbols: ['EURUSD'], id: i, ...members });
      const e = await c.next('error', patience(1_000));
      t.equal(e.id, i);
      t.equal(e.problem?.status, 400, JSON.stringify(members));
      t.match(e.problem?.detail, detail, JSON.stringify(members));
    }
    t.equal(srv.server.eventStats().tickSymbols, 0, 'nothing subscribed');
  });
});
