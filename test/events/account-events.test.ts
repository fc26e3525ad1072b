// The account kinds (deal, order, position, account) of GET /events through the real server on
// loopback, read by a real SSE parser: the snapshots equal /orders, /positions and /account; a
// resume from an older deal (the simulator's history holds a year of deals) gets exactly the
// deals after it that /history/deals lists, none twice, also with the ticks' positions in the
// same id; a scripted account's changes reach the client; the kinds are validated with a 400.
import { spawn } from 'node:child_process';

import t from 'tap';

import { curlMissing, DOC_SNIPPETS, docBlock } from '../helpers/doc-blocks.js';
import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';

import { problemOf, SseClient, type SseMessage } from '../helpers/sse.js';
import { forEachAdapter, READ_ONLY_KEY, serve, serveReadOnly, simTerminal } from '../helpers/server.js';
import { ScriptedAccount } from '../helpers/scripted-account.js';
import { liveSimTerminal } from '../helpers/live-sim.js';

const sim = simTerminal();
t.teardown(() => sim.close());
const env = { TRADEAPI_EVENTS_TRADE_MS: '20', TRADEAPI_EVENTS_ACCOUNT_MS: '20' };
const WAIT_MS = 20_000;

type Json = Record<string, unknown>;
/** An event's data without the connection's `seq` (sse.test.ts checks that), to compare with records. */
const data = (m: SseMessage): Json => {
  const { seq, ...rest } = JSON.parse(m.data) as Json;
  void seq;
  return rest;
};
const events = (c: SseClient, name: string): SseMessage[] => c.messages.filter((m) => m.event === name);

void forEachAdapter(t, async (t, adapter) => {
  t.test('a snapshot per state kind first, equal to /orders, /positions and /account', async (t) => {
    const srv = await serve(t, adapter, sim, env);
    const c = await SseClient.open(`${srv.base}/events?kinds=order,position,account`);
    t.teardown(() => c.close());
    t.equal(c.status, 200);
    await c.waitFor(() => c.messages.length >= 3, WAIT_MS, 'three snapshots');
    t.same(c.messages.slice(0, 3).map((m) => [m.event, data(m).kind]), [['snapshot', 'order'], ['snapshot', 'position'], ['snapshot', 'account']]);
    const [orders, positions, account] = await Promise.all(['/orders', '/positions', '/account'].map(async (p) => (await srv.get(p)).json() as Promise<Json | Json[]>));
    const snap = c.messages.slice(0, 3).map(data);
    t.ok((positions as Json[]).length > 0, 'the simulated account has open positions');
    t.same(snap[0]?.orders, orders, 'orders as /orders gives them');
    t.same(snap[1]?.positions, positions, 'positions as /positions gives them');
    const figures = snap[2]?.account as Json;
    for (const f of ['balance', 'credit', 'equity', 'margin', 'margin_free', 'margin_level']) t.equal(figures[f], (account as Json)[f], `account ${f} as /account gives it`);
    t.equal(c.messages[0]?.id, undefined, 'no deal kind: no id to resume from');
  });

  t.test('deal resume: exactly the deals after the id, as /history/deals has them, none twice; again from the middle', async (t) => {
    const srv = await serve(t, adapter, sim, env);
    const history = (await (await srv.get('/history/deals?date_from=2000-01-01T00:00:00Z&date_to=2100-01-01T00:00:00Z')).json()) as Json[];
    t.ok(history.length > 20, `the simulator's history has deals (${history.length})`);
    const from = history[history.length - 20] as Json;
    const id = `deal:${from.time_msc as number}-${from.ticket as number}`;
    const want = history.slice(-19);
    const c = await SseClient.open(`${srv.base}/events?kinds=deal`, { 'last-event-id': id });
    t.teardown(() => c.close());
    t.equal(c.status, 200);
    await c.waitFor(() => events(c, 'deal').length >= want.length, WAIT_MS, `${want.length} deals`);
    const got = events(c, 'deal');
    t.same(got.map(data), want, 'the deals after the id, in history order, equal to /history/deals');
    const last = want.at(-1) as Json;
    t.equal(got.at(-1)?.id, `deal:${last.time_msc as number}-${last.ticket as number}`, 'each deal carries its position as the id');
    // Resume from the 10th: the 9 after it, none of those before.
    const mid = got[9] as SseMessage;
    const again = await SseClient.open(`${srv.base}/events?kinds=deal`, { 'last-event-id': mid.id as string });
    t.teardown(() => again.close());
    await again.waitFor(() => events(again, 'deal').length >= 9, WAIT_MS, '9 deals');
    t.same(events(again, 'deal').map(data), want.slice(10));
    // From the last: nothing more (the simulated account is frozen), but the stream is live.
    const none = await SseClient.open(`${srv.base}/events?kinds=deal,account`, { 'last-event-id': got.at(-1)?.id as string });
    t.teardown(() => none.close());
    await none.waitFor(() => events(none, 'snapshot').length >= 1, WAIT_MS, 'the account snapshot');
    t.equal(events(none, 'snapshot')[0]?.id, got.at(-1)?.id, 'the snapshot carries the position resumed from');
    t.same(events(none, 'deal'), [], 'no deal twice');
  });

  t.test('mixed with ticks: one id names both positions, and a resume with it is exact for both', async (t) => {
    const live = liveSimTerminal();
    t.teardown(() => live.close());
    const srv = await serve(t, adapter, live.terminal, { ...env, TRADEAPI_EVENTS_POLL_MS: '50' });
    const history = (await (await srv.get('/history/deals?date_from=2000-01-01T00:00:00Z&date_to=2100-01-01T00:00:00Z')).json()) as Json[];
    const from = history[history.length - 3] as Json;
    const c = await SseClient.open(`${srv.base}/events?symbols=BTCUSD&kinds=tick,deal,position`, { 'last-event-id': `deal:${from.time_msc as number}-${from.ticket as number}` });
    t.teardown(() => c.close());
    t.equal(c.status, 200);
    await c.waitFor(() => events(c, 'deal').length >= 2 && c.ticks.length >= 2, WAIT_MS, 'two deals and two ticks');
    t.equal(c.messages[0]?.event, 'snapshot', 'the snapshot first');
    // (A living simulated account may have dealt meanwhile: compare with the history as it is now.)
    const now = (await (await srv.get('/history/deals?date_from=2000-01-01T00:00:00Z&date_to=2100-01-01T00:00:00Z')).json()) as Json[];
    const after = now.slice(now.findIndex((d) => d.ticket === from.ticket) + 1);
    const got = events(c, 'deal').map(data);
    t.same(got, after.slice(0, got.length), 'the deals after the id, in history order');
    const lastDeal = got.at(-1) as Json;
    const tick = c.ticks.at(-1);
    t.match(tick?.id, new RegExp(`^\\d+-\\d+;deal:${lastDeal.time_msc as number}-${lastDeal.ticket as number}$`), 'a tick id names the ticks and the last deal');
    const again = await SseClient.open(`${srv.base}/events?symbols=BTCUSD&kinds=tick,deal,position`, { 'last-event-id': tick?.id as string });
    t.teardown(() => again.close());
    await again.waitFor(() => again.ticks.length >= 1, WAIT_MS, 'a tick after the resume');
    t.same(events(again, 'deal'), [], 'no deal twice');
    t.ok(again.ticks.every((k) => k.time_msc >= (tick?.time_msc ?? 0)), 'ticks from the position on');
  });

  t.test("a scripted account's changes reach the stream as events", async (t) => {
    const acc = new ScriptedAccount(sim);
    acc.open(500, Date.now() - 60_000);
    const srv = await serve(t, adapter, acc.terminal, env);
    const c = await SseClient.open(`${srv.base}/events?kinds=deal,order,position,account`);
    t.teardown(() => c.close());
    await c.waitFor(() => events(c, 'snapshot').length === 3, WAIT_MS, 'the snapshots');
    t.same((data(events(c, 'snapshot')[1] as SseMessage).positions as Json[]).map((p) => p.ticket), [500]);
    t.match(c.messages[0]?.id, /^deal:\d+-500$/, 'the id names the last deal');
    acc.modifyPosition(500, { sl: 1.01 });
    acc.place(501);
    await c.waitFor(() => events(c, 'position').length >= 1 && events(c, 'order').length >= 1, WAIT_MS, 'the changes');
    t.same(data(events(c, 'position')[0] as SseMessage), { change: 'modified', position: { ...(acc.positions.get(500) as object) } });
    t.equal(data(events(c, 'order')[0] as SseMessage).change, 'opened');
    acc.close(500, 502, Date.now(), 25);
    acc.cancel(501);
    await c.waitFor(() => events(c, 'deal').length >= 1 && events(c, 'position').length >= 2 && events(c, 'order').length >= 2, WAIT_MS, 'the close and the cancel');
    t.equal(data(events(c, 'deal')[0] as SseMessage).ticket, 502);
    t.match(events(c, 'deal')[0]?.id, /^deal:\d+-502$/);
    t.equal(data(events(c, 'position')[1] as SseMessage).change, 'closed');
    t.equal(data(events(c, 'order')[1] as SseMessage).change, 'cancelled');
    await c.waitFor(() => events(c, 'account').some((m) => data(m).balance === 10_025), WAIT_MS, 'the balance after the close');
  });

  t.test("one poll's changes: streams in step share them, streams of other kinds get their own, each numbered in turn", async (t) => {
    const acc = new ScriptedAccount(sim);
    acc.open(700, Date.now() - 60_000);
    const srv = await serve(t, adapter, acc.terminal, env);
    const open = async (kinds: string): Promise<SseClient> => {
      const c = await SseClient.open(`${srv.base}/events?kinds=${kinds}`);
      t.teardown(() => c.close());
      await c.waitFor(() => events(c, 'snapshot').length >= kinds.split(',').length - (kinds.includes('deal') ? 1 : 0), WAIT_MS, `${kinds}: the snapshots`);
      return c;
    };
    // c and d start their deliveries at the same event (the first order) as each other, with other kinds.
    const [a, b, c, d] = [await open('deal,order,position'), await open('deal,order,position'), await open('order,position'), await open('order')];
    // In one turn of the loop: one poll sees them all.
    acc.place(701);
    acc.place(702);
    acc.open(703, Date.now());
    acc.close(700, 704, Date.now(), 5);
    const live = (c: SseClient): SseMessage[] => c.messages.filter((m) => m.event !== 'snapshot');
    for (const s of [a, b]) await s.waitFor(() => live(s).length >= 6, WAIT_MS, 'two deals, two orders, two positions');
    await c.waitFor(() => live(c).length >= 4, WAIT_MS, 'two orders, two positions');
    await d.waitFor(() => live(d).length >= 2, WAIT_MS, 'two orders');
    const shape = (s: SseClient): Array<[string, string | undefined, Json]> => live(s).map((m) => [m.event, m.id, data(m)]);
    t.same(live(a).map((m) => m.event), ['deal', 'deal', 'order', 'order', 'position', 'position'], 'deals, orders, positions, in that order');
    t.same(live(a).filter((m) => m.event === 'deal').map((m) => m.id?.replace(/^deal:\d+-/, '')), ['703', '704'], 'each deal with its own id');
    t.same(shape(b), shape(a), 'two streams in step: the same events and ids');
    const without = (kinds: string[]) => shape(a).filter(([event]) => kinds.includes(event)).map(([e, , x]) => [e, undefined, x]);
    t.same(shape(c), without(['order', 'position']), 'kinds order,position: those, no ids');
    t.same(shape(d), without(['order']), 'kinds order: the orders only');
    for (const s of [a, b, c, d]) {
      const seqs = s.messages.map((m) => (JSON.parse(m.data) as { seq: number }).seq);
      t.same(seqs, seqs.map((_, i) => i + 1), 'numbered 1, 2, 3… on each stream');
    }
  });

  t.test('the read-only variant serves the account kinds with its key', async (t) => {
    const srv = await serveReadOnly(t, adapter, sim, env);
    const c = await SseClient.open(`${srv.base}/api/v1/events?kinds=position,deal`, { 'x-api-key': READ_ONLY_KEY });
    t.teardown(() => c.close());
    t.equal(c.status, 200);
    await c.waitFor(() => events(c, 'snapshot').length === 1, WAIT_MS, 'the position snapshot');
    const refused = await SseClient.open(`${srv.base}/api/v1/events?kinds=position,book&symbols=EURUSD`, { 'x-api-key': READ_ONLY_KEY });
    t.equal(refused.status, 400);
    t.match(problemOf(refused).detail, /book events need a market-depth subscription/);
  });

  t.test('refusals: unknown kinds, ticks without symbols, a replay of account kinds, a malformed deal id', async (t) => {
    const srv = await serve(t, adapter, sim, env);
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ['/events?kinds=deal,trades', {}, /query parameter 'kinds' has "trades"; allowed: tick, book, bar, deal, order, position, account/],
      ['/events?kinds=deal,tick', {}, /query parameter 'symbols' is required for kinds tick/],
      ['/events', {}, /query parameter 'symbols' is required/],
      ['/events?kinds=deal,position&symbols=EURUSD', {}, /'symbols' applies to the kinds tick, book and bar; kinds deal,position are about the account/],
      ['/events?kinds=deal&start=2024-01-10T00:00:00Z', {}, /account kinds \(deal\) are not replayed/],
      ['/events?kinds=deal', { 'last-event-id': 'deal:12x-3' }, /malformed deal position/],
      ['/events?kinds=deal', { 'last-event-id': 'deal:1-2;deal:3-4' }, /malformed deal position/],
    ];
    for (const [path, headers, detail] of cases) {
      const c = await SseClient.open(`${srv.base}${path}`, headers);
      await c.ended;
      t.equal(c.status, 400, path);
      t.match(problemOf(c).detail, detail, path);
    }
  });
});

await t.test(`${DOC_SNIPPETS.accountEvents.page}'s account events block, as written`, { skip: curlMissing() }, async (t) => {
  const acc = new ScriptedAccount(sim);
  acc.open(900, Date.now() - 60_000);
  const srv = await serve(t, nodeAdapter, acc.terminal, env);
  const block = docBlock(DOC_SNIPPETS.accountEvents);
  if (!block) return t.fail(`no sh block with the account events in ${DOC_SNIPPETS.accountEvents.page}`);
  // Verbatim but for the address; the stream is endless: read until the close below has come, then stop curl.
  const curl = spawn('bash', ['-e', '-c', block.replaceAll('http://127.0.0.1:8000', srv.base)], { detached: true });
  t.teardown(() => {
    if (curl.exitCode === null && curl.pid !== undefined) process.kill(-curl.pid);
  });
  let out = '';
  const seen = new Promise<void>((resolve, reject) => {
    curl.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('event: snapshot') && !acc.positions.has(901) && out.split('event: snapshot').length === 4) acc.open(901, Date.now());
      if (out.includes('"change":"opened"')) resolve();
    });
    curl.on('exit', (code) => reject(new Error(`curl ended (${code}) before the events came: ${out}`)));
  });
  await seen;
  const events = out.split('\n\n').filter((e) => e.includes('event: '));
  const names = events.map((e) => /event: (\S+)/.exec(e)?.[1]);
  t.same(names.slice(0, 3), ['snapshot', 'snapshot', 'snapshot'], 'the three snapshots first');
  t.ok(names.includes('deal') && names.includes('position'), 'then the deal and the position it opened');
  t.match(events.find((e) => e.includes('event: deal')), /^id: deal:\d+-901$/m, 'the deal carries its id');
});
