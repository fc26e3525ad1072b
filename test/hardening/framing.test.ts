// A malformed request on a keep-alive connection must not corrupt the responses queued before it:
// the streamed body in flight ends intact, the pipelined requests are answered in order, then one
// 400 problem, then the connection closes, and the server's in-flight bookkeeping returns to zero
// (close() with a long grace period returns at once).
import t, { type Test } from 'tap';

import { exchange, parseResponses, problemOf, received, type RawResponse } from '../helpers/raw-http.js';
import { forEachAdapter, serve, simTerminal, type TestServer } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

/** One day of EURUSD ticks as JSON: ~20 MB, so the body is still streaming when garbage arrives. */
const TICKS = '/ticks/range?symbol=EURUSD&date_from=2024-01-08T00:00:00Z&date_to=2024-01-09T00:00:00Z&format=json';
const get = (path: string, extra = ''): string => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n`;
const GARBAGE = 'GARBAGE\r\n\r\n';

/** The server answers /health and then closes promptly although close() is given 10 s of grace. */
async function healthyThenPromptClose(t: Test, s: TestServer): Promise<void> {
  t.equal((await s.get('/health')).status, 200, 'the server is healthy afterwards');
  const started = performance.now();
  await s.server.close(10_000);
  const ms = performance.now() - started;
  t.ok(ms < 2_000, `close(10 s) returned in ${Math.round(ms)} ms: nothing is counted in flight`);
}

function expectBadRequest(t: Test, res: RawResponse | undefined): void {
  t.equal(res?.status, 400, 'a 400 follows');
  const p = res ? problemOf(res) : undefined;
  t.equal(p?.type, '/errors/bad-request', 'as a problem document');
  t.equal(p?.status, 400);
  t.match(p?.detail ?? '', /malformed|parse|invalid/i, 'the detail says what was wrong');
  t.equal(res?.headers.get('connection'), 'close', 'and says the connection closes');
}

await forEachAdapter(t, async (t, adapter) => {
  // The reference body, fetched on its own.
  const reference = await (async () => {
    const s = await serve(t, adapter, terminal);
    const res = await s.get(TICKS);
    const body = Buffer.from(await res.arrayBuffer());
    await s.server.close(1000);
    return body;
  })();
  t.ok(reference.length > 10_000_000, `the reference body is large (${reference.length} bytes)`);
  const rows = (JSON.parse(reference.toString('utf8')) as unknown[]).length;

  const streamedThenGarbage = async (t: Test, parts: Parameters<typeof exchange>[1]): Promise<void> => {
    const s = await serve(t, adapter, terminal);
    // uWS (20.57) never ends this connection: its parser keeps `GARBAGE\r\n\r\n` buffered as the
    // start of a request line still to come (it waits for ' /'), and a connection that has had a
    // response is not timed out by uWS at all (measured: still open after 100 s, with
    // setIdleTimeout too). Our handler never sees those bytes, and uWS gives an adapter no handle
    // on the connection between requests, so we cannot close it. Known bug, recorded as a todo;
    // the wait for uWS is only long enough for the stream to finish, as longer proves nothing more.
    const ex = await exchange(s.server.port, parts, adapter.name === 'uws' ? 12_000 : 30_000);
    const neverClosed = adapter.name === 'uws' ? 'uWS keeps a connection open forever behind an answered request when unparseable bytes follow' : false;
    t.ok(ex.closed, 'the server closes the connection', { todo: neverClosed });
    const responses = parseResponses(ex.bytes);
    if (adapter.name === 'uws') {
      // uWS parses on its own and answers malformed input itself; what we hold it to is that
      // no response is corrupted and the connection ends.
      t.ok(responses.length >= 1, 'the streamed response is there');
    } else {
      t.equal(responses.length, 2, 'exactly two responses: the stream, then the 400');
    }
    const stream = responses[0];
    t.equal(stream?.status, 200);
    t.ok(stream?.complete, 'the streamed body has its terminating chunk');
    t.ok(stream?.body.equals(reference), `the streamed body is byte-identical to the reference (${stream?.body.length} of ${reference.length} bytes)`);
    t.equal((JSON.parse(stream?.body.toString('utf8') ?? '[]') as unknown[]).length, rows, `all ${rows} rows`);
    if (adapter.name === 'node') expectBadRequest(t, responses[1]);
    await healthyThenPromptClose(t, s);
  };

  await t.test('garbage sent while a streamed body is in flight', (t) =>
    streamedThenGarbage(t, [get(TICKS), (socket) => received(socket, 64 * 1024), GARBAGE]));

  await t.test('garbage pipelined behind a streamed request in the same write', (t) => streamedThenGarbage(t, [get(TICKS) + GARBAGE]));

  await t.test('three pipelined requests and garbage in one write', async (t) => {
    const s = await serve(t, adapter, terminal);
    const account = Buffer.from(await (await s.get('/account')).arrayBuffer());
    const ids = ['first', 'second', 'third'];
    const ex = await exchange(s.server.port, [ids.map((id) => get('/account', `X-Request-Id: ${id}\r\n`)).join('') + GARBAGE]);
    t.ok(ex.closed, 'the server closes the connection');
    const responses = parseResponses(ex.bytes);
    if (adapter.name === 'node') t.equal(responses.length, 4, 'three answers and one 400');
    // uWS refuses asynchronous pipelining: our handler answers after an await, so when uWS parses
    // the second request of the same write the first is still pending, and it closes the
    // connection without any answer (uWS HttpContext: "denying async pipelining").
    else t.equal(responses.length, 0, 'uWS: no answer, the connection closed by uWS');
    const answered = responses.filter((r) => r.status === 200);
    t.same(answered.map((r) => r.headers.get('x-request-id')), adapter.name === 'node' ? ids : ids.slice(0, answered.length), 'the valid requests are answered in order');
    for (const r of answered) t.ok(r.complete && r.body.equals(account), 'each answer is the whole account');
    if (adapter.name === 'node') expectBadRequest(t, responses[3]);
    await healthyThenPromptClose(t, s);
  });

  await t.test('a client that leaves with pipelined requests queued', async (t) => {
    const s = await serve(t, adapter, terminal);
    // Three streamed requests queued on one connection; the client vanishes during the first.
    const ex = await exchange(s.server.port, [get(TICKS).repeat(3), (socket) => received(socket, 64 * 1024).then(() => void socket.destroy())], 10_000);
    if (adapter.name === 'uws') {
      // uWS refuses asynchronous pipelining: parsing the second request while the first response
      // is still pending, it closes the connection at once (uWS HttpContext: "denying async
      // pipelining"), so the client never gets 64 KiB to leave in the middle of. Fewer bytes
      // means received() returned on the server's close, not ours. What matters holds on both:
      // the first response is released (close() below finds nothing in flight) and all is well.
      t.ok(ex.bytes.length < 64 * 1024, `uWS closed the connection itself (${ex.bytes.length} bytes received)`);
      t.ok(ex.ms < 5_000, `and at once (${Math.round(ex.ms)} ms)`);
    } else {
      t.ok(ex.bytes.length >= 64 * 1024, 'the first answer had started');
    }
    await healthyThenPromptClose(t, s);
  });
});
