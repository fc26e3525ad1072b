// A burst of 1 000 connections opened at once against a freshly started server: every one is
// answered 200, and none has to wait for a SYN retransmission (1 s, 3 s, 7 s…) because the listen
// queue was too short for the burst (node's default backlog, 511, was).
//
// The burst is made to arrive while the server's event loop is held (as it is when busy serving).
// node adapter, native accept loop off: the whole burst waits in the kernel's listen queue, whose
// length is read from /proc/net/tcp meanwhile. With it on (the default): the accept thread takes
// the burst while the loop is held, so the queue stays empty. No timing is asserted: speed figures
// are measured with autocannon (see the hardening report), not here.
import net from 'node:net';

import t, { type Test } from 'tap';

import type { HttpAdapter } from '../../src/http/adapter.js';
import { holdWhile } from '../helpers/listen-queue.js';
import { parseResponses } from '../helpers/raw-http.js';
import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const CONNECTIONS = 1000;
const REQUEST = 'GET /symbols/EURUSD/tick HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';

async function burst(t: Test, adapter: HttpAdapter, nativeAccept: boolean): Promise<void> {
  const s = await serve(t, adapter, terminal, { TRADEAPI_NATIVE_ACCEPT: nativeAccept ? '1' : '0' });
  const port = s.server.port;

  const answers: Array<Promise<Buffer>> = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    answers.push(
      new Promise((resolve) => {
        const chunks: Buffer[] = [];
        const socket = net.connect(port, '127.0.0.1', () => socket.write(REQUEST));
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', () => undefined); // a reset shows as a missing answer below
        socket.on('close', () => resolve(Buffer.concat(chunks)));
        socket.setTimeout(60_000, () => socket.destroy());
      }),
    );
  }
  // The connect() calls happen on the next tick; then hold the loop while the kernel takes them:
  // until all are queued (accept loop off) or all are established and none queued (on).
  await new Promise((resolve) => setImmediate(resolve));
  const native = adapter.name === 'node' && nativeAccept && process.platform !== 'win32';
  const queued = holdWhile(port, (q) => (native ? q.established >= CONNECTIONS && q.queued === 0 : q.queued >= CONNECTIONS));

  const responses = await Promise.all(answers);
  const statuses = new Map<number, number>();
  for (const bytes of responses) {
    let status = 0;
    try {
      status = parseResponses(bytes)[0]?.status ?? 0;
    } catch {
      status = -1;
    }
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  t.same(Object.fromEntries(statuses), { 200: CONNECTIONS }, `all ${CONNECTIONS} connections answered 200`);

  if (queued === undefined) {
    t.pass('the listen queue', { skip: 'no /proc/net/tcp here: the listen queue cannot be observed' });
  } else if (adapter.name === 'uws') {
    // uSockets listens with a fixed backlog of 512; nothing in uWS's API changes it.
    t.comment(`uWS: ${queued.max} of ${CONNECTIONS} connections fitted in its listen queue at once`);
  } else if (native) {
    // The peak depends on how fast connects arrive against the thread's batches (a loaded machine
    // queues more for a moment); what proves the thread is that the queue empties while the loop is held.
    t.equal(queued.final, 0, `the accept thread took the burst while the event loop was held (${queued.max} at most ever queued)`);
  } else {
    t.equal(queued.max, CONNECTIONS, `the listen queue held the whole burst (${queued.max} queued): no connection had to retry its SYN`);
  }
  t.equal((await s.get('/health')).status, 200, 'the server is healthy afterwards');
}

await forEachAdapter(t, async (t, adapter) => {
  if (adapter.name !== 'node') return burst(t, adapter, false);
  await t.test('native accept loop off (TRADEAPI_NATIVE_ACCEPT=0)', (t) => burst(t, adapter, false));
  await t.test('native accept loop on (the default)', (t) => burst(t, adapter, true));
});
