// Issue 23 item 4, fifth friction: a client that disconnected in the middle of a series was logged
// as `status 200`, like a complete answer. Its request line now says it was aborted (status 499,
// nginx's "client closed request", as the pipeline already logs a client gone before the head),
// and how many body bytes had been handed to the connection; a complete answer logs its bytes too.
// Through a real server on loopback with a logger whose lines the test reads.
import net from 'node:net';
import { Writable } from 'node:stream';

import t from 'tap';

import { createLogger } from '../../src/log.js';
import { startServer } from '../../src/server.js';
import { forEachAdapter, simTerminal, testConfig } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

/** Five months of EURUSD ticks: far more than is read here, so the body is mid-stream when the client goes. */
const SERIES = '/ticks/range?symbol=EURUSD&date_from=2023-08-01T00:00:00Z&date_to=2024-01-01T00:00:00Z';

interface Line {
  msg: string;
  path?: string;
  status?: number;
  aborted?: string;
  bytes?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

await forEachAdapter(t, async (t, adapter) => {
  const out: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      cb();
    },
  });
  const server = await startServer({ terminal, config: testConfig(), adapter, host: '127.0.0.1', port: 0, logger: createLogger('info', sink) });
  t.teardown(() => server.close(1000));
  const lines = (): Line[] => out.map((l) => JSON.parse(l) as Line);
  const requestLine = async (path: string, status?: number): Promise<Line | undefined> => {
    for (let i = 0; i < 200; i++) {
      const found = lines().find((l) => l.msg === 'request' && l.path === path && (status === undefined || l.status === status));
      if (found) return found;
      await sleep(25);
    }
    return undefined;
  };

  await t.test('a client gone mid-stream: logged as aborted, with the bytes sent', async (t) => {
    const socket = net.connect(server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    let received = 0;
    const enough = new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > 256 * 1024) resolve();
      });
    });
    socket.write(`GET ${SERIES} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n`);
    await enough;
    socket.destroy();
    const line = await requestLine('/ticks/range');
    t.ok(line, 'the request is logged');
    t.equal(line?.status, 499, 'status 499 (client closed request), not 200');
    t.equal(line?.aborted, 'client-gone', 'says why it was cut short');
    t.type(line?.bytes, 'number');
    t.ok((line?.bytes ?? 0) >= 256 * 1024, `bytes sent: ${line?.bytes} (the client read ${received})`);
  });

  await t.test('a complete answer: its status and bytes, no abort', async (t) => {
    const res = await fetch(`http://127.0.0.1:${server.port}/ticks/range?symbol=EURUSD&date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T10:10:00Z`, { headers: { 'accept-encoding': 'identity' } });
    const body = await res.arrayBuffer();
    const line = await requestLine('/ticks/range', 200);
    t.ok(line, 'logged with status 200');
    t.equal(line?.aborted, undefined, 'not aborted');
    t.equal(line?.bytes, body.byteLength, 'the body bytes (sent uncompressed)');
  });
});
