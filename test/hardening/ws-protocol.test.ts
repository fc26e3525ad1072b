// Hardening, issue 22 items 6 and 8, on every adapter: the WebSocket protocol of GET /ws.
// - An op named after a member every object inherits (`__proto__`, `constructor`, `toString`…) is
//   an unknown op like any other: a 400 error event, counted towards the bad-message cap.
// - {"op":"auth"} says the truth about the key it carries: a wrong one is wrong even after a valid
//   X-API-Key header, and a server that asks for no key says so rather than "authenticated".
// - No subprotocol is defined, so none is selected: whatever a client offers in
//   Sec-WebSocket-Protocol (a key, say) never comes back in the handshake's answer.
// The simulator's clock is frozen: none of this needs a tick.
import http from 'node:http';
import { randomBytes } from 'node:crypto';

import t from 'tap';
import WebSocket from 'ws';

import { forEachAdapter, READ_ONLY_KEY, serve, serveReadOnly, simTerminal, type TestServer } from '../helpers/server.js';
import { WsClient } from '../helpers/ws.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const KEY = 'sekret-ws-key';
/** Members every plain object inherits from Object.prototype. */
const INHERITED = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'toLocaleString', '__defineGetter__'];
const wsUrl = (srv: TestServer, path = '/ws'): string => `${srv.base.replace(/^http/, 'ws')}${path}`;
/** The close, or undefined when the connection is still open after `ms`. */
const closedWithin = (c: WsClient, ms: number): Promise<{ code: number; reason: string } | undefined> =>
  Promise.race([c.closed, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);

interface Handshake {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The whole head of the answer, as sent (every header name and value). */
  rawHead: string;
  body: string;
}

/** A WebSocket handshake by hand, offering `protocols`: the server's answer, whatever it is (the socket is then closed). */
function handshake(srv: TestServer, path: string, protocols: string, headers: Record<string, string> = {}): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${srv.base}${path}`, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        'sec-websocket-protocol': protocols,
        ...headers,
      },
    });
    const rawHead = (res: http.IncomingMessage): string => res.rawHeaders.join('\n');
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHead: rawHead(res), body: '' });
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHead: rawHead(res), body }));
    });
    req.on('error', reject);
  });
}

await forEachAdapter(t, async (t, adapter) => {
  t.test('an op named after an inherited member is an unknown op: 400, with its id', async (t) => {
    const srv = await serve(t, adapter, terminal);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    for (const [i, op] of INHERITED.entries()) {
      const error = c.next('error');
      c.send({ op, id: i });
      const e = await error;
      t.equal(e.problem?.status, 400, `${op}: 400`);
      t.equal(e.problem?.type, '/errors/validation-error', `${op}: a validation problem`);
      t.match(e.problem?.detail, /member "op" must be one of auth, ping, subscribe, unsubscribe/, `${op}: says which ops exist`);
      t.equal(e.id, i, `${op}: the id comes back`);
    }
    // A member named "__proto__" (JSON.parse makes it an own member) is an unknown member.
    const member = c.next('error');
    c.send('{"op":"ping","__proto__":{"op":"auth"},"id":"m"}');
    const m = await member;
    t.equal(m.problem?.status, 400, 'a "__proto__" member: 400');
    t.match(m.problem?.detail, /unknown member "__proto__"/);
    const pong = c.next('pong');
    c.send({ op: 'ping', id: 'still' });
    t.same(await pong, { event: 'pong', id: 'still', seq: c.messages.length }, 'the connection stays open and serves (its latest message)');
  });

  t.test('inherited-member ops count towards the bad-message cap (1008 after 20)', async (t) => {
    const srv = await serve(t, adapter, terminal);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    for (let i = 0; i < 25; i++) c.send({ op: INHERITED[i % INHERITED.length] });
    const closed = await closedWithin(c, 5_000);
    t.same(closed, { code: 1008, reason: 'too many bad messages' }, 'closed as abusive');
    t.equal(c.of('error').length, 21, 'an error event for each until then');
    t.same([...new Set(c.of('error').map((e) => e.problem?.status))], [400], 'every one a 400');
  });

  t.test('a wrong key in {"op":"auth"} after a valid X-API-Key header is answered as wrong', async (t) => {
    const srv = await serve(t, adapter, terminal, { TRADEAPI_SECRET_KEY: KEY });
    const right = await WsClient.open(wsUrl(srv), { 'x-api-key': KEY });
    t.teardown(() => right.close());
    const ok = right.next('authenticated');
    right.send({ op: 'auth', key: KEY, id: 'r' });
    t.same(await ok, { event: 'authenticated', id: 'r', seq: right.messages.length }, 'the right key again: authenticated (its latest message)');

    const c = await WsClient.open(wsUrl(srv), { 'x-api-key': KEY });
    t.teardown(() => c.close());
    c.send({ op: 'auth', key: 'wrong-key', id: 'w' });
    const closed = await closedWithin(c, 5_000);
    t.equal(c.of('authenticated').length, 0, 'never "authenticated" for a wrong key');
    const error = c.of('error')[0];
    t.equal(error?.problem?.status, 401, 'a 401 error event');
    t.equal(error?.problem?.type, '/errors/unauthorized');
    t.equal(error?.id, 'w', 'with the message id');
    t.match(error?.problem?.detail, /not valid/);
    t.same(closed, { code: 1008, reason: 'unauthorized' }, 'then closed, as a wrong first-message key is');
    t.notMatch(JSON.stringify(c.messages), /wrong-key/, 'the key is not echoed');
  });

  t.test('read-only mode: a wrong key in {"op":"auth"} after the header is wrong too', async (t) => {
    const srv = await serveReadOnly(t, adapter, terminal);
    const c = await WsClient.open(wsUrl(srv, '/api/v1/ws'), { 'x-api-key': READ_ONLY_KEY });
    t.teardown(() => c.close());
    c.send({ op: 'auth', key: `${READ_ONLY_KEY}-not` });
    const closed = await closedWithin(c, 5_000);
    t.equal(c.of('authenticated').length, 0, 'never "authenticated"');
    t.equal(c.of('error')[0]?.problem?.status, 401);
    t.equal(closed?.code, 1008);
  });

  t.test('{"op":"auth"} on a server without a key: no key is asked, never "authenticated"', async (t) => {
    const srv = await serve(t, adapter, terminal);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    const before = c.messages.length;
    const pong = c.next('pong');
    c.send({ op: 'auth', key: 'whatever-key', id: 7 });
    c.send({ op: 'ping' });
    await pong;
    const reply = c.messages.slice(before)[0];
    t.equal(reply?.event, 'no-key-needed', 'says that this server asks for no key');
    t.equal(reply?.id, 7, 'with the message id');
    t.match(reply?.detail, /asks for no key/);
    t.equal(c.of('authenticated').length, 0, 'never "authenticated"');
    t.equal(c.of('error').length, 0, 'not an error: a client that always sends its key keeps working');
    t.notMatch(JSON.stringify(c.messages), /whatever-key/, 'the key is not echoed');
    const subscribed = c.next('subscribed');
    c.send({ op: 'subscribe', symbols: ['EURUSD'] });
    await subscribed;
    t.pass('and the connection serves');
  });

  t.test('no subprotocol is selected: an offered one (a key) never comes back', async (t) => {
    const srv = await serve(t, adapter, terminal, { TRADEAPI_SECRET_KEY: KEY });
    // The key smuggled as a subprotocol name, with the header key: the upgrade goes through…
    const withHeader = await handshake(srv, '/ws', KEY, { 'x-api-key': KEY });
    t.equal(withHeader.status, 101, 'upgraded (by the header key)');
    t.equal(withHeader.headers['sec-websocket-protocol'], undefined, 'no subprotocol selected');
    t.notMatch(withHeader.rawHead, KEY, 'the key is nowhere in the answer');
    // …and without it (the session then waits for an auth message; the subprotocol is no key).
    const several = await handshake(srv, '/ws', `json, ${KEY}, v1`);
    t.equal(several.status, 101);
    t.equal(several.headers['sec-websocket-protocol'], undefined, 'none of several selected');
    t.notMatch(several.rawHead, KEY);
    // A refused upgrade echoes nothing either.
    const refused = await handshake(srv, '/ws', KEY, { 'x-api-key': 'wrong' });
    t.equal(refused.status, 401);
    t.notMatch(refused.rawHead + refused.body, KEY, 'a 401 says nothing of the offered subprotocol');
  });

  t.test('a client that asks for a subprotocol is told none was selected', async (t) => {
    const srv = await serve(t, adapter, terminal, { TRADEAPI_SECRET_KEY: KEY });
    // The `ws` client, like a browser, fails a handshake whose answer selects none of the
    // subprotocols it offered: the key offered as one never opens a connection.
    const ws = new WebSocket(wsUrl(srv), [KEY], { headers: { 'x-api-key': KEY }, perMessageDeflate: false });
    const outcome = await new Promise<string>((resolve) => {
      ws.once('open', () => resolve(`opened with subprotocol ${JSON.stringify(ws.protocol)}`));
      ws.once('error', (e) => resolve(e.message));
    });
    ws.terminate();
    t.match(outcome, /Server sent no subprotocol/, 'the handshake fails on the client');
  });
});
