// The account kinds on GET /ws through the real server on loopback: a subscribe without symbols
// gets the snapshots, then the changes of a scripted account; `since` with a deal id (a deal
// event's `event_id`) sends exactly the deals after it from the simulator's history, none twice;
// unknown kinds and a deal `since` without the deal kind are refused with a 400 error event.
import t from 'tap';

import { WsClient, type ServerMessage } from '../helpers/ws.js';
import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';
import { ScriptedAccount } from '../helpers/scripted-account.js';

const sim = simTerminal();
t.teardown(() => sim.close());
const env = { TRADEAPI_EVENTS_TRADE_MS: '20', TRADEAPI_EVENTS_ACCOUNT_MS: '20' };
const WAIT_MS = 20_000;
type Json = Record<string, unknown>;
const wsUrl = (base: string): string => `${base.replace(/^http/, 'ws')}/ws`;

void forEachAdapter(t, async (t, adapter) => {
  t.test('snapshots, then the changes of a scripted account; the kinds in the subscriptions', async (t) => {
    const acc = new ScriptedAccount(sim);
    acc.open(700, Date.now() - 60_000);
    const srv = await serve(t, adapter, acc.terminal, env);
    const ws = await WsClient.open(wsUrl(srv.base));
    t.teardown(() => ws.close());
    ws.send({ op: 'subscribe', kinds: ['deal', 'position', 'order'], id: 1 });
    const subscribed = await ws.next('subscribed');
    t.same((subscribed.subscriptions as Json).account, ['deal', 'position', 'order']);
    await ws.waitFor(() => ws.of('snapshot').length === 2, WAIT_MS, 'two snapshots');
    t.same(ws.of('snapshot').map((m) => (m.data as Json).kind), ['order', 'position']);
    t.match(ws.of('snapshot')[1]?.event_id, /^deal:\d+-700$/);
    acc.close(700, 701, Date.now(), -3);
    await ws.waitFor(() => ws.of('deal').length === 1 && ws.of('position').length === 1, WAIT_MS, 'the close');
    t.match(ws.of('deal')[0], { event_id: /^deal:\d+-701$/, data: { ticket: 701, profit: -3 } });
    t.match(ws.of('position')[0]?.data, { change: 'closed', position: { ticket: 700 } });
    ws.send({ op: 'unsubscribe', kinds: ['position'], id: 2 });
    const unsubscribed = await ws.next('unsubscribed');
    t.same((unsubscribed.subscriptions as Json).account, ['deal', 'order']);
    acc.open(702, Date.now());
    await ws.waitFor(() => ws.of('deal').length === 2, WAIT_MS, 'the next deal');
    t.equal(ws.of('position').length, 1, 'no position event after the unsubscribe');
  });

  t.test('since with a deal id: exactly the deals after it from history', async (t) => {
    const srv = await serve(t, adapter, sim, env);
    const history = (await (await srv.get('/history/deals?date_from=2000-01-01T00:00:00Z&date_to=2100-01-01T00:00:00Z')).json()) as Json[];
    const from = history[history.length - 6] as Json;
    const ws = await WsClient.open(wsUrl(srv.base));
    t.teardown(() => ws.close());
    ws.send({ op: 'subscribe', kinds: ['deal'], since: `deal:${from.time_msc as number}-${from.ticket as number}` });
    await ws.waitFor(() => ws.of('deal').length >= 5, WAIT_MS, 'five deals');
    t.same(ws.of('deal').map((m: ServerMessage) => m.data), history.slice(-5));
    const last = history.at(-1) as Json;
    t.equal(ws.of('deal').at(-1)?.event_id, `deal:${last.time_msc as number}-${last.ticket as number}`);
  });

  t.test('refusals as error events', async (t) => {
    const srv = await serve(t, adapter, sim, env);
    const ws = await WsClient.open(wsUrl(srv.base));
    t.teardown(() => ws.close());
    ws.send({ op: 'subscribe', kinds: ['deal', 'fills'], id: 'a' });
    t.match((await ws.next('error')).problem, { status: 400, detail: /member "kinds" may hold tick, book, bar, deal, order, position, account; received "fills"/ });
    ws.send({ op: 'subscribe', kinds: ['position'], since: 'deal:1-2', id: 'b' });
    await ws.waitFor(() => ws.of('error').length === 2, WAIT_MS, 'the second error');
    t.match(ws.of('error')[1]?.problem, { status: 400, detail: /needs "deal" in member "kinds"/ });
    ws.send({ op: 'subscribe', kinds: ['tick', 'deal'], id: 'c' });
    await ws.waitFor(() => ws.of('error').length === 3, WAIT_MS, 'the third error');
    t.match(ws.of('error')[2]?.problem, { status: 400, detail: /needs a member "symbols".*for kinds tick/ });
    ws.send({ op: 'subscribe', kinds: ['deal'], symbols: ['EURUSD'], id: 'd' });
    await ws.waitFor(() => ws.of('error').length === 4, WAIT_MS, 'the fourth error');
    t.match(ws.of('error')[3]?.problem, { status: 400, detail: /"symbols" applies to the kinds tick, book and bar/ });
  });
});
