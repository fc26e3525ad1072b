// Issue 22, item 3: WebSockets opened without a key must not hold the live-event slots
// (TRADEAPI_MAX_EVENT_CLIENTS). Such a socket waits for its {"op":"auth"} message in a small
// separate pool (TRADEAPI_EVENTS_MAX_AUTHENTICATING), for TRADEAPI_EVENTS_AUTH_TIMEOUT_MS at most,
// and takes an event slot only once its key is right. The frozen simulator is enough: nothing here
// waits for a tick.
import t, { type Test } from 'tap';

import { ConfigError, loadConfig } from '../../src/config/index.js';
import { expectProblem, forEachAdapter, serve, simTerminal, type TestServer } from '../helpers/server.js';
import { WsClient } from '../helpers/ws.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const KEY = 'event-slots-key';
const HEADERS = { 'x-api-key': KEY };
const wsUrl = (srv: TestServer): string => `${srv.base.replace(/^http/, 'ws')}/ws`;

/** Keyless sockets that never authenticate (the attack): each stays open until the auth deadline. */
async function openKeyless(t: Test, srv: TestServer, n: number): Promise<WsClient[]> {
  const clients: WsClient[] = [];
  for (let i = 0; i < n; i++) clients.push(await WsClient.open(wsUrl(srv)));
  t.teardown(() => clients.forEach((c) => c.close()));
  return clients;
}

/** Retries `attempt` until it holds (the server frees a slot a moment after the client saw the close). */
async function eventually(attempt: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    if (await attempt()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

/** Whether a keyless upgrade is accepted now (the socket is closed at once). */
async function keylessFits(srv: TestServer): Promise<boolean> {
  try {
    (await WsClient.open(wsUrl(srv))).close();
    return true;
  } catch {
    return false;
  }
}

/** The status of a keyed GET /events, the stream dropped once its head is in. */
async function eventsStatus(srv: TestServer): Promise<Response> {
  const abort = new AbortController();
  const res = await srv.get('/events?symbols=EURUSD', { headers: HEADERS, signal: abort.signal });
  if (res.status === 200) abort.abort();
  return res;
}

t.test('TRADEAPI_EVENTS_MAX_AUTHENTICATING: a positive integer, 100 by default', async (t) => {
  t.equal(loadConfig({}).events.maxAuthenticating, 100);
  t.equal(loadConfig({ TRADEAPI_EVENTS_MAX_AUTHENTICATING: '8' }).events.maxAuthenticating, 8);
  for (const value of ['0', '-1', '2.5', 'many']) {
    t.throws(() => loadConfig({ TRADEAPI_EVENTS_MAX_AUTHENTICATING: value }), new ConfigError(`TRADEAPI_EVENTS_MAX_AUTHENTICATING must be a positive integer; got ${JSON.stringify(value)}`), value);
  }
});

void forEachAdapter(t, async (t, adapter) => {
  t.test('sockets waiting to authenticate hold no event slot: a keyed client still gets one', async (t) => {
    const srv = await serve(t, adapter, terminal, {
      TRADEAPI_SECRET_KEY: KEY,
      TRADEAPI_MAX_EVENT_CLIENTS: '2',
      TRADEAPI_EVENTS_AUTH_TIMEOUT_MS: '15000',
    });
    await openKeyless(t, srv, 2);
    const events = await eventsStatus(srv);
    t.equal(events.status, 200, 'GET /events with a key is served');
    const keyed = await WsClient.open(wsUrl(srv), HEADERS);
    t.teardown(() => keyed.close());
    t.pass('a /ws upgrade with the key header is accepted');
  });

  t.test('the authenticating pool is small and separate: full, a keyless upgrade gets 503', async (t) => {
    const srv = await serve(t, adapter, terminal, {
      TRADEAPI_SECRET_KEY: KEY,
      TRADEAPI_EVENTS_MAX_AUTHENTICATING: '2',
      TRADEAPI_EVENTS_AUTH_TIMEOUT_MS: '15000',
    });
    const waiting = await openKeyless(t, srv, 2);
    const refusal = await WsClient.refused(wsUrl(srv));
    t.equal(refusal.status, 503, 'the third keyless upgrade is refused');
    t.equal(refusal.headers['retry-after'], '5', 'with Retry-After');
    const body = JSON.parse(refusal.body) as { type: string; detail: string };
    t.equal(body.type, '/errors/too-many-event-clients');
    t.match(body.detail, /TRADEAPI_EVENTS_MAX_AUTHENTICATING/, 'the detail names the setting');
    t.match(body.detail, /X-API-Key/, 'and says how to avoid the pool');
    // A keyed client is not held to that pool.
    const keyed = await WsClient.open(wsUrl(srv), HEADERS);
    keyed.close();
    // A socket that authenticates leaves the pool: another keyless one fits.
    const first = waiting[0] as WsClient;
    const ok = first.next('authenticated');
    first.send({ op: 'auth', key: KEY });
    await ok;
    t.ok(await eventually(() => keylessFits(srv)), 'an authenticated socket frees its place in the pool');
  });

  t.test('authenticated by message, a socket takes an event slot; none free: a 503 error event, close 1013', async (t) => {
    const srv = await serve(t, adapter, terminal, {
      TRADEAPI_SECRET_KEY: KEY,
      TRADEAPI_MAX_EVENT_CLIENTS: '1',
      TRADEAPI_EVENTS_AUTH_TIMEOUT_MS: '15000',
    });
    const [a, b] = await openKeyless(t, srv, 2);
    const aOk = (a as WsClient).next('authenticated');
    (a as WsClient).send({ op: 'auth', key: KEY, id: 1 });
    await aOk;
    await expectProblem(t, await eventsStatus(srv), 503, '/errors/too-many-event-clients', '/events');
    const bError = (b as WsClient).next('error');
    (b as WsClient).send({ op: 'auth', key: KEY, id: 2 });
    const error = await bError;
    t.equal(error.id, 2, 'the error answers the auth message');
    t.match(error.problem, { status: 503, type: '/errors/too-many-event-clients', instance: '/ws' });
    t.match(error.problem?.detail, /TRADEAPI_MAX_EVENT_CLIENTS/);
    const closed = await (b as WsClient).closed;
    t.equal(closed.code, 1013, 'closed with 1013 (try again later)');
    // The slot is the authenticated socket's until it closes.
    (a as WsClient).close();
    await (a as WsClient).closed;
    t.ok(
      await eventually(async () => {
        const res = await eventsStatus(srv);
        if (res.status !== 200) await res.text();
        return res.status === 200;
      }),
      'its slot is free once it closed',
    );
  });

  t.test('the deadline frees the pool: a socket that never authenticates is closed (1008)', async (t) => {
    const srv = await serve(t, adapter, terminal, {
      TRADEAPI_SECRET_KEY: KEY,
      TRADEAPI_EVENTS_MAX_AUTHENTICATING: '1',
      TRADEAPI_EVENTS_AUTH_TIMEOUT_MS: '300',
    });
    const [idle] = await openKeyless(t, srv, 1);
    t.equal((await WsClient.refused(wsUrl(srv))).status, 503, 'the pool of one is full');
    t.equal((await (idle as WsClient).closed).code, 1008, 'closed at the deadline');
    t.ok(await eventually(() => keylessFits(srv)), 'the pool has room again');
  });
});
