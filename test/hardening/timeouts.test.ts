// Slow, over-long and malformed requests get a problem document with the right status and the
// connection closes, instead of a bare 400 or minutes of waiting; the connection cap answers 503.
// Timeouts are set short through the environment, as an operator would set them.
import t, { type Test } from 'tap';

import { ConfigError, DEFAULTS, loadConfig } from '../../src/config/index.js';
import { MAX_URL_BYTES } from '../../src/http/protocol-problems.js';
import { connect, collect, exchange, parseResponses, problemOf, type Exchange } from '../helpers/raw-http.js';
import { forEachAdapter, serve, simTerminal, testConfig, type TestServer } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const HEADERS_MS = 400;
const REQUEST_MS = 900;
const SHORT = { TRADEAPI_HEADERS_TIMEOUT_MS: String(HEADERS_MS), TRADEAPI_REQUEST_TIMEOUT_MS: String(REQUEST_MS), TRADEAPI_KEEPALIVE_TIMEOUT_MS: '2000' };

/** The one response of `ex`: a problem with this status and type, and the connection closed. */
function expectOneProblem(t: Test, ex: Exchange, status: number, type: string): void {
  t.ok(ex.closed, 'the server closed the connection');
  const responses = parseResponses(ex.bytes);
  t.equal(responses.length, 1, 'one response');
  const res = responses[0];
  t.equal(res?.status, status, `status ${status}`);
  const p = res ? problemOf(res) : undefined;
  t.ok(p, 'an application/problem+json body');
  t.equal(p?.type, type, `type ${type}`);
  t.equal(p?.status, status, 'status member');
  t.type(p?.title, 'string');
  t.ok((p?.detail ?? '').length > 0, `detail: ${p?.detail}`);
  t.equal(res?.headers.get('connection'), 'close');
}

async function healthy(t: Test, s: TestServer): Promise<void> {
  t.equal((await s.get('/health')).status, 200, 'the server is healthy afterwards');
}

t.test('configuration', async (t) => {
  const c = loadConfig({}).connections;
  t.same(c, { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: 10_000, backlog: 4096, nativeAccept: true }, 'production defaults');
  t.equal(DEFAULTS.backlog, 4096);
  t.same(testConfig({ ...SHORT, TRADEAPI_MAX_CONNECTIONS: '7', TRADEAPI_LISTEN_BACKLOG: '100' }).connections, {
    headersTimeoutMs: HEADERS_MS,
    requestTimeoutMs: REQUEST_MS,
    keepAliveTimeoutMs: 2000,
    maxConnections: 7,
    backlog: 100,
    nativeAccept: true,
  });
  t.equal(testConfig({ TRADEAPI_NATIVE_ACCEPT: '0' }).connections.nativeAccept, false, 'TRADEAPI_NATIVE_ACCEPT=0 turns the native accept loop off');
  for (const [name, value] of [
    ['TRADEAPI_HEADERS_TIMEOUT_MS', '0'],
    ['TRADEAPI_HEADERS_TIMEOUT_MS', '1.5'],
    ['TRADEAPI_REQUEST_TIMEOUT_MS', 'soon'],
    ['TRADEAPI_REQUEST_TIMEOUT_MS', '9999999999'],
    ['TRADEAPI_KEEPALIVE_TIMEOUT_MS', '-1'],
    ['TRADEAPI_MAX_CONNECTIONS', '0'],
    ['TRADEAPI_LISTEN_BACKLOG', '70000'],
    ['TRADEAPI_NATIVE_ACCEPT', 'yes'],
  ] as const) {
    t.throws(() => testConfig({ [name]: value }), { name: 'ConfigError', message: new RegExp(name) }, `${name}=${value} is refused`);
  }
  t.throws(() => testConfig({ TRADEAPI_HEADERS_TIMEOUT_MS: '5000', TRADEAPI_REQUEST_TIMEOUT_MS: '4000' }), ConfigError, 'headers timeout above the request timeout');
  // Process-level: read-only mode reads them too.
  const { readOnlyConfig } = await import('../helpers/server.js');
  t.equal(readOnlyConfig({ TRADEAPI_MAX_CONNECTIONS: '3' }).connections.maxConnections, 3, 'read-only mode applies them');
});

await forEachAdapter(t, async (t, adapter) => {
  const node = adapter.name === 'node';
  const s = await serve(t, adapter, terminal, SHORT);
  const port = s.server.port;

  await t.test('408: headers that never finish', { skip: node ? false : 'uWS has its own timeouts (~30 s before a first request), answers nothing on them, and takes no setting from us' }, async (t) => {
    const ex = await exchange(port, ['GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n'], 10_000);
    expectOneProblem(t, ex, 408, '/errors/request-timeout');
    t.ok(ex.ms >= HEADERS_MS - 50, `not before the headers timeout (${Math.round(ex.ms)} ms)`);
    t.ok(ex.ms < 5_000, 'and not minutes later');
  });

  await t.test('408: a body that never finishes', { skip: node ? false : 'uWS has its own timeouts (~30 s before a first request), answers nothing on them, and takes no setting from us' }, async (t) => {
    const ex = await exchange(port, ['POST /order/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"request":'], 10_000);
    expectOneProblem(t, ex, 408, '/errors/request-timeout');
    t.ok(ex.ms >= REQUEST_MS - 50, `not before the request timeout (${Math.round(ex.ms)} ms)`);
    t.ok(ex.ms < 5_000, 'and not minutes later');
  });

  await t.test('414: a URL over the limit', async (t) => {
    // Just over our limit (answered by the adapter), and over the head limit (answered by node's parser).
    for (const length of [MAX_URL_BYTES + 1, 20 * 1024]) {
      const path = `/symbols/EURUSD?pad=${'a'.repeat(length - '/symbols/EURUSD?pad='.length)}`;
      const ex = await exchange(port, [`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`]);
      if (!node && length > MAX_URL_BYTES * 2) {
        // uWS rejects a head over 16 KiB in its own parser, with its own bare 431.
        t.equal(parseResponses(ex.bytes)[0]?.status, 431, `uWS: ${length}-byte URL gets its own 431`);
        continue;
      }
      expectOneProblem(t, ex, 414, '/errors/uri-too-long');
    }
    const ok = await exchange(port, [`GET /symbols/EURUSD?pad=${'a'.repeat(MAX_URL_BYTES - 100)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`]);
    t.equal(parseResponses(ok.bytes)[0]?.status, 200, 'a URL under the limit reaches the service');
  });

  // Without `Connection: close` from the client the connection stays open unless the server closes
  // it: here the closing, and the header announcing it, must be the server's own doing (docs/api.md,
  // Errors: after a protocol-level answer the connection closes).
  await t.test('414 on a keep-alive connection closes it', async (t) => {
    const path = `/symbols/EURUSD?pad=${'a'.repeat(MAX_URL_BYTES + 1 - '/symbols/EURUSD?pad='.length)}`;
    const ex = await exchange(port, [`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`], 5_000);
    expectOneProblem(t, ex, 414, '/errors/uri-too-long');
    t.ok(ex.ms < 1_000, `closed at once (${Math.round(ex.ms)} ms), not by an idle timeout`);
  });

  await t.test('431: headers over the limit', async (t) => {
    const ex = await exchange(port, [`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'b'.repeat(20 * 1024)}\r\n\r\n`]);
    if (!node) {
      t.equal(parseResponses(ex.bytes)[0]?.status, 431, 'uWS answers its own bare 431');
      return;
    }
    expectOneProblem(t, ex, 431, '/errors/headers-too-large');
  });

  await t.test('400: malformed framing', { skip: node ? false : "uWS's parser answers malformed requests itself" }, async (t) => {
    const cases = {
      'not HTTP at all': 'GARBAGE\r\n\r\n',
      'a header without a colon': 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n',
      'a non-numeric Content-Length': 'POST /order/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ten\r\n\r\n',
      'Content-Length and chunked together': 'POST /order/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'a bad chunk size': 'POST /order/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    };
    for (const [name, bytes] of Object.entries(cases)) {
      await t.test(name, async (t) => expectOneProblem(t, await exchange(port, [bytes]), 400, '/errors/bad-request'));
    }
  });

  await t.test('405: CONNECT', async (t) => {
    const ex = await exchange(port, ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n']);
    if (!node) {
      // uWS's parser takes only an origin-form target ('/' after the method): any other, the
      // authority form of CONNECT included, gets uWS's own canned 505 (its HTML body blames
      // HTTP/1.0) and the connection closes, before any route or handler, so we cannot answer
      // 405. What we hold uWS to: a refusal, never a tunnel, and the connection closed.
      t.ok(ex.closed, 'uWS: the connection is closed');
      const responses = parseResponses(ex.bytes);
      t.equal(responses.length, 1, 'uWS: one response');
      t.equal(responses[0]?.status, 505, "uWS: its own 505, not a tunnel's 200");
      t.equal(responses[0]?.headers.get('connection'), 'close', 'uWS: saying the connection closes');
      t.equal(responses[0] && problemOf(responses[0]), undefined, 'uWS: its canned body, not our problem');
      return;
    }
    expectOneProblem(t, ex, 405, '/errors/method-not-allowed');
    t.equal(parseResponses(ex.bytes)[0]?.headers.get('allow'), 'GET, POST, HEAD', 'Allow lists the service methods');
  });

  await healthy(t, s);

  await t.test('connection cap', { skip: node ? false : 'uWS has no connection cap to configure' }, async (t) => {
    const capped = await serve(t, adapter, terminal, { TRADEAPI_MAX_CONNECTIONS: '2' });
    const keepAlive = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    // Two connections the server has accepted and answered, both kept open.
    const held = await Promise.all([connect(capped.server.port), connect(capped.server.port)]);
    for (const socket of held) {
      const first = new Promise<Buffer>((resolve) => socket.once('data', resolve));
      socket.write(keepAlive);
      t.match((await first).toString('latin1'), /^HTTP\/1\.1 200/, 'held connection answered');
    }
    const third = await exchange(capped.server.port, [keepAlive]);
    expectOneProblem(t, third, 503, '/errors/connection-limit');
    t.equal(parseResponses(third.bytes)[0]?.headers.get('retry-after'), '1', 'with Retry-After');
    // Once one of the held connections goes, a new one is served again.
    const gone = new Promise((resolve) => held[0]?.once('close', resolve));
    held[0]?.destroy();
    await gone;
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      const socket = await connect(capped.server.port);
      const answer = collect(socket, 5_000);
      socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      status = parseResponses((await answer).bytes)[0]?.status ?? 0;
      if (status !== 200) await new Promise((r) => setTimeout(r, 20));
    }
    t.equal(status, 200, 'a connection freed makes room');
    held[1]?.destroy();
  });

  await healthy(t, s);
});
