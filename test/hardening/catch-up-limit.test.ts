// Issue 22, item 4: in the read-only variant a WebSocket's subscribe with `since` (a catch-up from
// history, up to TRADEAPI_EVENTS_CATCHUP_TICKS ticks per symbol) costs one request of the client's
// rate limit, as a GET /events reconnect with Last-Event-ID does; else one upgrade (one request)
// looping subscribe-with-since/unsubscribe reads history without end. The frozen simulator's
// history at 2024-01-10 12:00 has ticks enough to catch up from.
import t from 'tap';

import { expectProblem, forEachAdapter, NOW_MS, READ_ONLY_KEY, serve, serveReadOnly, simTerminal, type TestServer } from '../helpers/server.js';
import { WsClient } from '../helpers/ws.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const HEADERS = { 'x-api-key': READ_ONLY_KEY };
const wsUrl = (srv: TestServer, path: string): string => `${srv.base.replace(/^http/, 'ws')}${path}`;
/** A minute before the frozen clock: a catch-up of a minute of EURUSD. */
const SINCE = `${NOW_MS - 60_000}-0`;

/** One subscribe-with-since and its unsubscribe (answered once the catch-up is sent): the event answering the subscribe. */
async function catchUpOnce(c: WsClient, id: number): Promise<{ event: string; ticks: number; problem?: WsClient['messages'][number]['problem'] }> {
  const seen = c.messages.length;
  c.send({ op: 'subscribe', symbols: ['EURUSD'], since: SINCE, id });
  c.send({ op: 'unsubscribe', id: id + 1000 });
  await c.waitFor(() => c.messages.slice(seen).some((m) => m.event === 'unsubscribed' && m.id === id + 1000), 10_000, `the unsubscribe ${id + 1000}`);
  const mine = c.messages.slice(seen);
  const answer = mine.find((m) => m.id === id);
  return { event: answer?.event ?? '(none)', ticks: mine.filter((m) => m.event === 'tick').length, problem: answer?.problem };
}

void forEachAdapter(t, async (t, adapter) => {
  t.test('read-only: each subscribe with since is one request of the rate limit', async (t) => {
    const srv = await serveReadOnly(t, adapter, terminal, { API_RATE_LIMIT: '4' });
    const c = await WsClient.open(wsUrl(srv, '/api/v1/ws'), HEADERS); // request 1 of 4
    t.teardown(() => c.close());
    const answers = [];
    for (let i = 1; i <= 5; i++) answers.push(await catchUpOnce(c, i));
    t.same(
      answers.map((a) => a.event),
      ['subscribed', 'subscribed', 'subscribed', 'error', 'error'],
      'three catch-ups fit the allowance left after the upgrade; then refused',
    );
    t.ok(answers.slice(0, 3).every((a) => a.ticks > 10), 'the allowed ones sent their history');
    t.equal(answers[3]?.ticks, 0, 'a refused one sends nothing');
    const refused = answers[3]?.problem;
    t.match(refused, { status: 429, type: '/errors/rate-limit-exceeded', instance: '/api/v1/ws' }, 'a 429 problem');
    t.match(refused?.detail, /since/, 'the detail says what was counted');
    t.match(refused?.detail, /retry in \d+ s/, 'and when to retry');
    // The same allowance as every other request.
    await expectProblem(t, await srv.get('/api/v1/account', { headers: HEADERS }), 429, '/errors/rate-limit-exceeded');
    // A subscribe without since reads no history: not counted, still served.
    const plain = c.next('subscribed');
    c.send({ op: 'subscribe', symbols: ['EURUSD'], id: 99 });
    t.equal((await plain).id, 99, 'a live subscribe is not limited');
    t.equal((await Promise.race([c.closed, Promise.resolve('open')])), 'open', 'the connection stays open');
  });

  t.test('the full variant has no rate limit: catch-ups are not refused', async (t) => {
    const srv = await serve(t, adapter, terminal);
    const c = await WsClient.open(wsUrl(srv, '/ws'));
    t.teardown(() => c.close());
    for (let i = 1; i <= 5; i++) t.equal((await catchUpOnce(c, i)).event, 'subscribed', `catch-up ${i}`);
  });
});
