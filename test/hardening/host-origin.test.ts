// Hardening, issue 22 item 7: cross-site reads of a gateway that runs without a key. A web page
// the user opens can reach 127.0.0.1 too: through DNS rebinding (its own name, resolved to
// 127.0.0.1, so the browser sends `Host: attacker.example`) it reads any route, /events included;
// and a WebSocket is not bound by the same-origin policy at all. Without a key, a Host that is a
// name the server does not know is refused (421), and so is a browser Origin that is not the
// server's own (403); in read-only mode /ws follows API_CORS_ORIGINS like the HTTP routes.
import http from 'node:http';

import t, { type Test } from 'tap';

import { ignoredInReadOnly, loadConfig } from '../../src/config/index.js';
import { expectProblem, forEachAdapter, READ_ONLY_KEY, serve, serveReadOnly, simTerminal, type TestServer } from '../helpers/server.js';
import { WsClient } from '../helpers/ws.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A GET to the server on 127.0.0.1 with the given headers (Host included: fetch() will not set
 * it). For an event stream, only the head is waited for; the connection is then dropped.
 */
function get(s: TestServer, path: string, headers: Record<string, string>): Promise<Answer> {
  const port = Number(new URL(s.base).port);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
        req.destroy();
        return;
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

interface Problem {
  type: string;
  status: number;
  detail: string;
}

function problemOf(t: Test, a: { status: number; headers: http.IncomingHttpHeaders | Record<string, string | string[] | undefined>; body: string }, status: number, type: string): Problem {
  t.equal(a.status, status, `status ${status}`);
  t.match(String(a.headers['content-type']), /^application\/problem\+json/, 'a problem document');
  const body = JSON.parse(a.body) as Problem;
  t.equal(body.type, type, type);
  t.equal(body.status, status, 'status member');
  return body;
}

const wsUrl = (s: TestServer, path = '/ws'): string => `${s.base.replace(/^http/, 'ws')}${path}`;

t.test('TRADEAPI_ALLOWED_HOSTS: host names, validated at start; full variant only', async (t) => {
  t.same(loadConfig({}).allowedHosts, [], 'unset: none');
  t.same(loadConfig({ TRADEAPI_ALLOWED_HOSTS: ' Trade.Example.LAN , gw.local,,' }).allowedHosts, ['trade.example.lan', 'gw.local'], 'lower-cased, blanks dropped');
  for (const bad of ['http://trade.example', 'trade.example:8000', 'trade.example/x', 'user@trade.example', 'a b', '*', '.example.com']) {
    t.throws(() => loadConfig({ TRADEAPI_ALLOWED_HOSTS: bad }), { name: 'ConfigError', message: /TRADEAPI_ALLOWED_HOSTS/ }, bad);
  }
  t.ok(ignoredInReadOnly({ TRADEAPI_ALLOWED_HOSTS: 'trade.example' }).includes('TRADEAPI_ALLOWED_HOSTS'), 'read-only mode names it as ignored');
});

await forEachAdapter(t, async (t, adapter) => {
  await t.test('without a key, a Host that is an unknown name is refused on every route (DNS rebinding)', async (t) => {
    const s = await serve(t, adapter, terminal);
    const port = new URL(s.base).port;
    const evil = { host: `attacker.example:${port}` };
    for (const path of ['/account', '/symbols/EURUSD/tick', '/health', '/openapi.json', '/docs', '/events?symbols=EURUSD']) {
      const a = await get(s, path, evil);
      const p = problemOf(t, a, 421, '/errors/misdirected-request');
      t.match(p.detail, /attacker\.example/, `${path}: the detail names the Host`);
      t.match(p.detail, /TRADEAPI_ALLOWED_HOSTS/, `${path}: and says how to allow it`);
    }
    // The WebSocket handshake is refused the same way, before anything is streamed.
    const refusal = await WsClient.refused(wsUrl(s), evil);
    problemOf(t, refusal, 421, '/errors/misdirected-request');
    t.equal(s.server.eventStats().clients, 0, 'no event client joined');
  });

  await t.test('without a key: IP literals, localhost, the listen host and TRADEAPI_ALLOWED_HOSTS are served', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_HOST: 'gateway.lan', TRADEAPI_ALLOWED_HOSTS: 'trade.example.lan' });
    const port = new URL(s.base).port;
    const accepted = [
      `127.0.0.1:${port}`,
      '127.0.0.1',
      `[::1]:${port}`,
      '192.168.1.20:8000', // keyless LAN use by IP: rebinding needs a name
      `localhost:${port}`,
      'LOCALHOST',
      `gateway.lan:${port}`, // the configured listen host
      'trade.example.lan', // nginx forwards $host: the name without the port
      `Trade.Example.Lan:${port}`,
    ];
    for (const host of accepted) {
      const a = await get(s, '/account', { host });
      t.equal(a.status, 200, `Host ${host}`);
    }
    for (const host of ['other.example.lan', 'localhost.attacker.example', 'trade.example.lan.attacker.example', '127.0.0.1.nip.io']) {
      problemOf(t, await get(s, '/account', { host }), 421, '/errors/misdirected-request');
    }
    // GET /events gets the same rule: served by IP and by an allowed name.
    t.equal((await get(s, '/events?symbols=EURUSD', { host: 'trade.example.lan' })).status, 200, 'SSE under an allowed name');
    problemOf(t, await get(s, '/events?symbols=EURUSD', { host: 'other.example.lan' }), 421, '/errors/misdirected-request');
    const ws = await WsClient.open(wsUrl(s), { host: `localhost:${port}` });
    ws.close();
    t.pass('/ws under localhost');
  });

  await t.test('with a key, any Host is served: the key is the protection (the nginx recipes forward the public name)', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_SECRET_KEY: 'k' });
    const a = await get(s, '/account', { host: 'trade.example.com', 'x-api-key': 'k' });
    t.equal(a.status, 200);
    t.equal((await get(s, '/account', { host: 'trade.example.com' })).status, 401, 'and without the key: 401, as ever');
  });

  await t.test('without a key, /ws refuses a browser Origin that is not the server\'s own', async (t) => {
    const s = await serve(t, adapter, terminal);
    const port = new URL(s.base).port;
    for (const origin of ['https://attacker.example', `http://attacker.example:${port}`, 'null', 'http://192.168.1.66']) {
      const refusal = await WsClient.refused(wsUrl(s), { origin });
      const p = problemOf(t, refusal, 403, '/errors/origin-not-allowed');
      t.match(p.detail, /Origin/, `${origin}: the detail says why`);
    }
    t.equal(s.server.eventStats().clients, 0, 'no event client joined');
    // The server's own pages, pages of this machine, and clients that send no Origin at all.
    for (const origin of [`http://127.0.0.1:${port}`, 'http://localhost:3000', 'http://127.0.0.1:5173', undefined]) {
      const ws = await WsClient.open(wsUrl(s), origin === undefined ? {} : { origin });
      ws.send({ op: 'subscribe', symbols: ['EURUSD'] });
      const m = await ws.next('subscribed');
      t.same(m.symbols, ['EURUSD'], `Origin ${origin ?? '(none)'}: served`);
      ws.close();
    }
  });

  await t.test('without a key, a write from a foreign page is refused too (a cross-site POST carries an Origin)', async (t) => {
    const s = await serve(t, adapter, terminal);
    const foreign = await s.post('/symbols/EURUSD/select?enable=true', { headers: { origin: 'https://attacker.example' } });
    await expectProblem(t, foreign, 403, '/errors/origin-not-allowed');
    const own = await s.post('/symbols/EURUSD/select?enable=true', { headers: { origin: s.base } });
    t.equal(own.status, 200, 'the server\'s own page (the docs) may');
  });

  await t.test('read-only: /ws follows API_CORS_ORIGINS', async (t) => {
    const app = 'https://app.example.com';
    const s = await serveReadOnly(t, adapter, terminal, { API_CORS_ORIGINS: app });
    const key = { 'x-api-key': READ_ONLY_KEY };
    const refusal = await WsClient.refused(wsUrl(s, '/api/v1/ws'), { ...key, origin: 'https://attacker.example' });
    problemOf(t, refusal, 403, '/errors/origin-not-allowed');
    for (const headers of [{ ...key, origin: app }, key]) {
      const ws = await WsClient.open(wsUrl(s, '/api/v1/ws'), headers);
      ws.close();
      t.pass(`Origin ${'origin' in headers ? headers.origin : '(none)'}: upgraded`);
    }
    // A page that is not listed cannot get in even with the key (as the browser would not let it read the HTTP routes).
    const none = await serveReadOnly(t, adapter, terminal);
    problemOf(t, await WsClient.refused(wsUrl(none, '/api/v1/ws'), { ...key, origin: app }), 403, '/errors/origin-not-allowed');
    const any = await serveReadOnly(t, adapter, terminal, { API_CORS_ORIGINS: '*' });
    const ws = await WsClient.open(wsUrl(any, '/api/v1/ws'), { ...key, origin: 'https://anywhere.example' });
    ws.close();
    t.pass('API_CORS_ORIGINS=*: any origin');
    // The key is mandatory here: the Host rule is not needed, and a proxy's public name passes.
    t.equal((await get(s, '/api/v1/account', { ...key, host: 'api.example.com' })).status, 200, 'any Host with the key');
  });
});
