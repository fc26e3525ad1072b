// Interactive calls overtake a bulk pull (issue 34, docs/architecture.md "Interactive calls first"):
// while a big pull (JSON) streams to a client that has stopped reading, GET /symbols/EURUSD/tick and
// GET /health are answered, and the pull produces no further chunk before they are; once the client
// reads again the pull goes on and ends whole. Asserted as an order of events, never as a speed.
import net from 'node:net';

import t from 'tap';

import type { Terminal } from '../../src/terminal/index.js';
import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';

type Event = { what: string; at: number };

/** The simulated terminal, logging each series chunk it hands out and each symbolInfoTick it answers. */
function loggingTerminal(events: Event[]): Terminal {
  const inner = simTerminal();
  const log = (what: string): void => {
    events.push({ what, at: events.length });
  };
  return new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (key === 'copyTicksRange') {
        return async (...args: unknown[]) => {
          const series = await (value as (...a: unknown[]) => Promise<{ next(): Promise<unknown> }>).apply(target, args);
          const next = series.next.bind(series);
          series.next = async () => {
            const chunk = await next();
            if (chunk !== null) log('chunk');
            return chunk;
          };
          return series;
        };
      }
      if (key === 'symbolInfoTick') {
        return async (...args: unknown[]) => {
          const r = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          log('tick-call');
          return r;
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  }) as Terminal;
}

/** Resolves once no event was logged for `quietMs` (the stream is held by backpressure). */
async function quiescent(events: Event[], quietMs: number): Promise<void> {
  for (;;) {
    const n = events.length;
    await new Promise((r) => setTimeout(r, quietMs));
    if (events.length === n) return;
  }
}

t.test('a /symbols/EURUSD/tick and a /health answer arrive before a stalled pull produces its next chunk', (t) =>
  forEachAdapter(t, async (t, adapter) => {
    const events: Event[] = [];
    const srv = await serve(t, adapter, loggingTerminal(events));
    // Two days of EURUSD ticks as JSON: ~25 chunks of 16 K rows, ~1 MB of text each, far more
    // than the socket buffers hold (as Parquet they would fit in them).
    const path = '/ticks/range?symbol=EURUSD&date_from=2024-01-08T00:00:00Z&date_to=2024-01-10T00:00:00Z&flags=COPY_TICKS_ALL&format=json';
    const socket = net.connect(Number(new URL(srv.base).port), '127.0.0.1');
    socket.on('error', () => undefined);
    let received = 0;
    let ended!: () => void;
    const done = new Promise<void>((r) => (ended = r));
    let head = '';
    socket.on('data', (b: Buffer) => {
      if (received < 64) head += b.subarray(0, 64).toString('latin1');
      received += b.length;
      // Chunked transfer ends with a zero-length chunk (or the connection closes).
      if (b.subarray(-5).toString('latin1') === '0\r\n\r\n') ended();
    });
    socket.on('end', () => ended());
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    // Let the pull fill the socket buffers, then stop reading: the server's writes stop resolving
    // and the pull stops asking its series for chunks.
    while (events.filter((e) => e.what === 'chunk').length < 2) await new Promise((r) => setTimeout(r, 5));
    socket.pause();
    await quiescent(events, 300);
    const chunksBefore = events.filter((e) => e.what === 'chunk').length;

    const [tick, health] = await Promise.all([srv.get('/symbols/EURUSD/tick'), srv.get('/health')]);
    t.equal(tick.status, 200, 'the last tick is answered while the pull is held');
    t.equal(health.status, 200, '/health is answered while the pull is held');
    const tickBody = (await tick.json()) as { bid?: number };
    t.type(tickBody.bid, 'number');
    await health.text();
    events.push({ what: 'answers', at: events.length });

    socket.resume(); // the client reads again: the pull goes on
    await done;
    const order = events.map((e) => e.what);
    const answers = order.indexOf('answers');
    const tickCall = order.indexOf('tick-call');
    const nextChunk = order.indexOf('chunk', answers);
    t.ok(tickCall >= 0 && tickCall < answers, 'the terminal answered the tick call');
    t.equal(order.slice(0, answers).filter((w) => w === 'chunk').length, chunksBefore, 'no chunk was produced between the stall and the answers');
    t.ok(nextChunk > answers, `the pull produced its next chunk after the answers (${order.filter((w) => w === 'chunk').length} chunks in all)`);
    t.match(head, /^HTTP\/1\.1 200/, 'the pull was answered 200');
    t.ok(received > 10_000_000, `the pull went on to its end (${received} bytes)`);
    socket.destroy();
  }),
);
