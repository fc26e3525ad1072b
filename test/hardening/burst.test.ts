// A burst of 1 000 connections opened at once against a freshly started server: every one is
// answered 200, and none has to wait for a SYN retransmission (1 s, 3 s, 7 s…) because the listen
// queue was too short for the burst (node's default backlog, 511, was).
//
// The burst is made to arrive while the server cannot accept (its event loop is held, as it is
// when busy serving), so the whole burst has to wait in the kernel's listen queue; the queue's
// length is read from /proc/net/tcp meanwhile. No timing is asserted: speed figures are measured
// with autocannon (see the hardening report), not here.
import { readFileSync } from 'node:fs';
import net from 'node:net';

import t from 'tap';

import { parseResponses } from '../helpers/raw-http.js';
import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const CONNECTIONS = 1000;
const REQUEST = 'GET /symbols/EURUSD/tick HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n';

/** Connections waiting in the accept queue of the IPv4 listener on `port`, or undefined without /proc. */
function acceptQueue(port: number): number | undefined {
  let table: string;
  try {
    table = readFileSync('/proc/net/tcp', 'latin1');
  } catch {
    return undefined;
  }
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const line of table.split('\n')) {
    const f = line.trim().split(/\s+/);
    // sl local rem st tx:rx …; for a listener (st 0A) rx_queue is the accept queue's length.
    if (f[1] === local && f[3] === '0A') return Number.parseInt(f[4]?.split(':')[1] ?? '', 16);
  }
  return undefined;
}

/** Holds this thread (and so the server's event loop) while the kernel takes the burst. */
function holdWhileQueueGrows(port: number): number | undefined {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  let best = acceptQueue(port);
  if (best === undefined) return undefined;
  let stableSince = performance.now();
  const started = stableSince;
  // Until the whole burst is queued, or the queue stopped growing for 300 ms (it is full), 5 s at most.
  while (best < CONNECTIONS && performance.now() - stableSince < 300 && performance.now() - started < 5_000) {
    Atomics.wait(sleeper, 0, 0, 10);
    const now = acceptQueue(port) ?? 0;
    if (now > best) {
      best = now;
      stableSince = performance.now();
    }
  }
  return best;
}

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal);
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
  // The connect() calls happen on the next tick; then hold the loop while the kernel queues them.
  await new Promise((resolve) => setImmediate(resolve));
  const queued = holdWhileQueueGrows(port);

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
    t.comment(`uWS: ${queued} of ${CONNECTIONS} connections fitted in its listen queue at once`);
  } else {
    t.equal(queued, CONNECTIONS, `the listen queue held the whole burst (${queued} queued): no connection had to retry its SYN`);
  }
  t.equal((await s.get('/health')).status, 200, 'the server is healthy afterwards');
});
