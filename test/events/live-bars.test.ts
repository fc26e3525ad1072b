// GET /events?kinds=bar&period=…: live bars of a custom period through the real server on loopback,
// read by a real SSE parser, on the busy test clock (test/helpers/live-sim.ts). Every bar event is
// compared field for field with what GET /ticks/bars returns for the same span afterwards; waits
// last as long as the bars awaited take to close (their period), plus a poll, times the allowance
// for a loaded machine.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import t, { type Test } from 'tap';

import { problemOf, SseClient } from '../helpers/sse.js';
import { forEachAdapter, serve, type TestServer } from '../helpers/server.js';
import { liveSimTerminal } from '../helpers/live-sim.js';
import { iso } from '../helpers/tick-history.js';
import { patience } from '../helpers/patience.js';
import { curlMissing, DOC_SNIPPETS, docBlock } from '../helpers/doc-blocks.js';
import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import { WsClient } from '../helpers/ws.js';

const sim = liveSimTerminal();
const live = sim.terminal;
t.teardown(() => sim.close());

const POLL_MS = 50;
const env = { TRADEAPI_EVENTS_POLL_MS: String(POLL_MS) };
const BAR_FIELDS = ['time', 'open', 'high', 'low', 'close', 'tick_volume', 'spread', 'real_volume', 'time_close_msc'] as const;
type BarRow = Record<(typeof BAR_FIELDS)[number], number>;
interface BarEvent extends BarRow {
  symbol: string;
  period: string;
  seq: number;
  id: string | undefined;
}

const barsOf = (c: SseClient): BarEvent[] =>
  c.messages.filter((m) => m.event === 'bar').map((m) => ({ ...(JSON.parse(m.data) as Omit<BarEvent, 'id'>), id: m.id }));
const fields = (b: BarRow): BarRow => Object.fromEntries(BAR_FIELDS.map((f) => [f, b[f]])) as BarRow;
/** How long n bars of `periodMs` take to close, bounded for a loaded machine. */
const barWait = (periodMs: number, n: number): number => patience(periodMs * (n + 1) + POLL_MS);

async function history(srv: TestServer, symbol: string, period: string, fromS: number, toS: number, price?: string): Promise<BarRow[]> {
  const res = await srv.get(`/ticks/bars?symbol=${symbol}&period=${encodeURIComponent(period)}&date_from=${iso(fromS * 1000)}&date_to=${iso(toS * 1000)}${price ? `&price=${price}` : ''}`);
  if (res.status !== 200) throw new Error(`/ticks/bars answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as BarRow[]).map(fields);
}

/** Each symbol's bars: in time order, none twice, and exactly what GET /ticks/bars returns over their span. */
async function sameAsHistory(t: Test, srv: TestServer, bars: readonly BarEvent[], symbols: readonly string[], period: string, price?: string): Promise<void> {
  for (const symbol of symbols) {
    const mine = bars.filter((b) => b.symbol === symbol);
    t.ok(mine.length > 0, `${symbol}: bars came`);
    if (mine.length === 0) continue;
    // (Tick bars may open in the same second: those follow each other by their closing time.)
    const after = (b: BarEvent, a: BarEvent): boolean => b.time > a.time || (b.time === a.time && b.time_close_msc > a.time_close_msc);
    t.ok(mine.every((b, i) => i === 0 || after(b, mine[i - 1] as BarEvent)), `${symbol}: each bar once, in time order`);
    t.ok(mine.every((b) => b.period === period), `${symbol}: each names the period`);
    // A bar closed by the clock (no tick after it yet) is still "forming" to the route until the
    // symbol's next tick: ask once that has come.
    await sim.until([symbol], 1);
    // The route's range is whole seconds of open time: tick bars that opened in the first or last
    // second but closed before the first live bar (history when the stream began) or after the last
    // are outside the span the stream covered.
    const first = mine[0] as BarEvent;
    const last = mine.at(-1) as BarEvent;
    const rows = (await history(srv, symbol, period, first.time, last.time, price)).filter(
      (r) => r.time_close_msc === undefined || (r.time_close_msc >= first.time_close_msc && r.time_close_msc <= last.time_close_msc),
    );
    t.same(mine.map(fields), rows, `${symbol}: ${mine.length} live bars, field for field those GET /ticks/bars returns for the span`);
  }
}

void forEachAdapter(t, async (t, adapter) => {
  t.test('time bars: one event per closed bar, the values GET /ticks/bars returns later', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const symbols = ['BTCUSD', 'EURUSD'];
    const c = await SseClient.open(`${srv.base}/events?symbols=${symbols.join(',')}&kinds=bar&period=1s`);
    t.teardown(() => c.close());
    t.equal(c.status, 200);
    const each = (n: number) => () => symbols.every((s) => barsOf(c).filter((b) => b.symbol === s).length >= n);
    await c.waitFor(each(3), barWait(1000, 4), '3 bars of each symbol');
    const bars = barsOf(c);
    t.ok(c.messages.every((m) => m.event === 'bar'), 'bar events only (kinds=bar)');
    t.ok(bars.every((b, i) => i === 0 || b.time >= (bars[i - 1] as BarEvent).time), 'in time order across symbols');
    for (const b of bars) t.match(b.id, /^~\d+,\d+$/, 'the id: no tick part, the last bar time of each symbol');
    const last = bars.at(-1) as BarEvent;
    t.ok((last.id as string).split('~')[1]?.split(',').includes(String(last.time)), "the id holds the bar's own time");
    await sameAsHistory(t, srv, bars, symbols, '1s');
    t.same(c.messages.map((m) => (JSON.parse(m.data) as { seq: number }).seq), c.messages.map((_, i) => i + 1), 'seq 1..n');
  });

  t.test('tick bars beside ticks: both kinds, ids with both parts, bars equal to history', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const c = await SseClient.open(`${srv.base}/events?symbols=EURUSD&kinds=tick,bar&period=ticks:4&price=mid`);
    t.teardown(() => c.close());
    t.equal(c.status, 200);
    await c.waitFor(() => barsOf(c).length >= 3, patience(await sim.window(['EURUSD'], 16, { pollMs: POLL_MS })), '3 bars of 4 ticks');
    const bars = barsOf(c);
    for (const b of bars) t.match(b.id, /^\d+-\d+~\d+$/, 'the id: the tick position, then the bar time');
    t.ok(c.ticks.length > 0, 'the ticks come too');
    t.ok(bars.every((b) => b.tick_volume === 4), 'each bar holds 4 ticks (within a day)');
    // The last bar's closing tick went out as a tick event too (both fold the same feed).
    const closing = (bars.at(-1) as BarEvent).time_close_msc;
    await c.waitFor(() => c.ticks.some((k) => k.time_msc === closing), patience(1_000), "the last bar's closing tick");
    await sameAsHistory(t, srv, bars, ['EURUSD'], 'ticks:4', 'mid');
  });

  t.test('Last-Event-ID: the bars missed, built from history, then live ones; none twice', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const url = `${srv.base}/events?symbols=BTCUSD&kinds=bar&period=1s`;
    const first = await SseClient.open(url);
    await first.waitFor(() => barsOf(first).length >= 2, barWait(1000, 3), '2 bars');
    first.close();
    const kept = barsOf(first)[0] as BarEvent; // the client "lost" every bar after the first
    // More bars close while it is away.
    await sim.untilTime((barsOf(first).at(-1) as BarEvent).time * 1000 + 3_000);
    const again = await SseClient.open(url, { 'last-event-id': kept.id as string });
    t.teardown(() => again.close());
    t.equal(again.status, 200);
    await again.waitFor(() => barsOf(again).length >= 5, barWait(1000, 2), 'the missed bars and a live one');
    const bars = barsOf(again);
    t.ok((bars[0] as BarEvent).time > kept.time, 'resumes after the last bar received');
    await sim.until(['BTCUSD'], 1);
    const rows = await history(srv, 'BTCUSD', '1s', kept.time + 1, (bars.at(-1) as BarEvent).time);
    t.same(bars.map(fields), rows, `every bar after the last one received, once (${bars.length}), as GET /ticks/bars has them`);
    await sameAsHistory(t, srv, bars, ['BTCUSD'], '1s');
  });

  t.test('WebSocket: bar events, unsubscribe, and bar_since resumes', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const url = `${srv.base.replace(/^http/, 'ws')}/ws`;
    const c = await WsClient.open(url);
    t.teardown(() => c.close());
    const symbols = ['BTCUSD', 'EURUSD'];
    const reply = c.next('subscribed');
    c.send({ op: 'subscribe', symbols, kinds: ['bar'], period: '1s' });
    t.match((await reply).subscriptions, { tick: [], book: [], bar: symbols, period: '1s' }, 'the reply names the bar symbols and period');
    const wsBars = (client: WsClient): BarEvent[] => client.of('bar').map((m) => ({ ...(m.data as Omit<BarEvent, 'id'>), id: m.event_id as string }));
    const each = (n: number) => () => symbols.every((s) => wsBars(c).filter((b) => b.symbol === s).length >= n);
    await c.waitFor(each(2), barWait(1000, 3), '2 bars of each symbol');
    for (const b of wsBars(c)) t.equal(b.id, String(b.time), "event_id: the bar's time");
    await sameAsHistory(t, srv, wsBars(c), symbols, '1s');
    const off = c.next('unsubscribed');
    c.send({ op: 'unsubscribe', symbols: ['EURUSD'], kinds: ['bar'] });
    const u = await off;
    t.match(u.subscriptions, { bar: ['BTCUSD'] });
    const at = c.messages.indexOf(u);
    const btcAt = wsBars(c).filter((b) => b.symbol === 'BTCUSD').length;
    await c.waitFor(() => wsBars(c).filter((b) => b.symbol === 'BTCUSD').length >= btcAt + 2, barWait(1000, 3), 'more BTCUSD bars');
    t.notOk(c.messages.slice(at).some((m) => m.event === 'bar' && (m.data as { symbol: string }).symbol === 'EURUSD'), 'no EURUSD bar after the reply');
    await sameAsHistory(t, srv, wsBars(c), ['BTCUSD'], '1s');
    c.close();

    // A new connection resumes from the first BTCUSD bar: every later one once, built from history, then live.
    const first = wsBars(c).find((b) => b.symbol === 'BTCUSD') as BarEvent;
    const d = await WsClient.open(url);
    t.teardown(() => d.close());
    d.send({ op: 'subscribe', symbols: ['BTCUSD'], kinds: ['bar'], period: '1s', bar_since: [first.time] });
    await d.waitFor(() => wsBars(d).length >= 4, barWait(1000, 2), 'the missed bars');
    const again = wsBars(d);
    await sim.until(['BTCUSD'], 1);
    t.same(again.map(fields), await history(srv, 'BTCUSD', '1s', first.time + 1, (again.at(-1) as BarEvent).time), 'every bar after bar_since once, as GET /ticks/bars has them');
    const bad = d.next('error');
    d.send({ op: 'subscribe', symbols: ['EURUSD'], period: '5s' });
    t.match((await bad).problem?.detail, /applies to bar events/, 'period without bar: an error event');
    const other = d.next('error');
    d.send({ op: 'subscribe', symbols: ['EURUSD'], kinds: ['bar'], period: '5s' });
    t.match((await other).problem?.detail, /one period per connection/, 'a second period: an error event');
  });

  t.test('tick bars: positions by closing time, several bars in one second, an exact resume', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const url = `${srv.base}/events?symbols=EURUSD&kinds=bar&period=ticks:2`;
    const first = await SseClient.open(url);
    await first.waitFor(() => barsOf(first).length >= 3, patience(await sim.window(['EURUSD'], 8, { pollMs: POLL_MS })), '3 bars of 2 ticks');
    first.close();
    const seen = barsOf(first);
    const positions = seen.map((b) => Number((b.id as string).split('~')[1]));
    t.ok(positions.every((p, i) => i === 0 || p > (positions[i - 1] as number)), 'positions only grow');
    t.ok(seen.every((b, i) => Math.floor((positions[i] as number) / 1000) === b.time_close_msc), "a position is the bar's closing ms (x 1000, plus its index in that ms)");
    const kept = seen[0] as BarEvent;
    await sim.until(['EURUSD'], 6);
    const again = await SseClient.open(url, { 'last-event-id': kept.id as string });
    t.teardown(() => again.close());
    await again.waitFor(() => barsOf(again).length >= 4, patience(await sim.window(['EURUSD'], 4, { pollMs: POLL_MS })), 'the missed bars and live ones');
    await sim.until(['EURUSD'], 1);
    const bars = barsOf(again);
    const rows = (await history(srv, 'EURUSD', 'ticks:2', kept.time, (bars.at(-1) as BarEvent).time)).filter((r) => r.time_close_msc > kept.time_close_msc);
    t.same(bars.map(fields), rows, `every bar after the kept one once (${bars.length}), as GET /ticks/bars has them, same-second bars included`);
  });

  t.test('refusals are 400 problems before the stream starts', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const cases: Array<[string, RegExp, Record<string, string>?]> = [
      ['symbols=EURUSD&period=5s', /applies to bar events/],
      ['symbols=EURUSD&price=ask', /applies to bar events/],
      ['symbols=EURUSD&kinds=bar', /need a period/],
      ['symbols=EURUSD&kinds=bar&period=7s', /divides a day/],
      ['symbols=EURUSD&kinds=bar&period=volume:10', /need a symbol whose ticks carry trades/],
      ['symbols=EURUSD&kinds=bar&period=5s&price=last', /need a symbol whose ticks carry trades/],
      [`symbols=EURUSD&kinds=bar&period=5s&start=${iso(sim.now() - 60_000)}`, /kinds=bar is live/],
      ['symbols=EURUSD&kinds=bar&period=5s', /no bar positions/, { 'last-event-id': '1704895180167-0' }],
      ['symbols=EURUSD,BTCUSD&kinds=bar&period=5s', /malformed bar positions/, { 'last-event-id': '~1704895180' }],
    ];
    for (const [query, detail, headers] of cases) {
      const c = await SseClient.open(`${srv.base}/events?${query}`, headers);
      t.equal(c.status, 400, query);
      t.match(problemOf(c).detail, detail, query);
      c.close();
    }
  });
});

await t.test(`${DOC_SNIPPETS.liveBars.page}'s live bars block, as written`, { skip: curlMissing() }, async (t) => {
  const srv = await serve(t, nodeAdapter, live, env);
  const block = docBlock(DOC_SNIPPETS.liveBars);
  if (!block) return t.fail(`no sh block with live bars in ${DOC_SNIPPETS.liveBars.page}`);
  // Verbatim but for the address: head ends it after two bars (and curl with it).
  const { stdout } = await promisify(execFile)('bash', ['-e', '-c', block.replaceAll('http://127.0.0.1:8000', srv.base)], { timeout: barWait(5_000, 3) });
  const bars = stdout
    .split('\n\n')
    .filter((e) => e.includes('event: bar'))
    .map((e) => ({ ...(JSON.parse(e.slice(e.indexOf('data: ') + 6)) as Omit<BarEvent, 'id'>), id: /^id: (.*)$/m.exec(e)?.[1] }));
  t.equal(bars.length, 2, 'two bar events');
  await sameAsHistory(t, srv, bars, ['BTCUSD'], '5s');
});
