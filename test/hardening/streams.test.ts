// Hardening item 2: series streams are capped, bounded in memory while their peer reads nothing,
// and closed after the send timeout.
//   - past TRADEAPI_MAX_STREAMS a series request gets 503 /errors/too-many-streams with Retry-After,
//     other routes (and HEAD on a series) still answer, and a freed slot is usable again;
//   - a peer that reads nothing for TRADEAPI_SEND_TIMEOUT_MS has its stream aborted (the body ends
//     without the chunked terminator) and its slot released;
//   - 20 stalled year-long Parquet pulls hold a few MB each (external memory, after a GC), where
//     each held ~8 MB before (chunks of 64 K rows, read-ahead, 128 K-row groups).
import net from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import t from 'tap';

import { defaultMaxStreams } from '../../src/http/streams.js';
import { expectProblem, forEachAdapter, serve, simTerminal, testConfig, type TestServer } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const YEAR = '/ticks/range?symbol=EURUSD&date_from=2023-01-02T00:00:00Z&date_to=2024-01-09T00:00:00Z&format=parquet';
const MiB = 1024 * 1024;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Stalled {
  socket: net.Socket;
  /** The status line's code, once the head has arrived. */
  status: Promise<number>;
}

/** Sends one request and reads only the first segment (the head), then nothing more. */
function stalledClient(port: number, path: string): Stalled {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.once('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
  const status = new Promise<number>((resolve) => {
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1', 0, 32))?.[1] ?? -1));
    });
    socket.once('close', () => resolve(0));
  });
  return { socket, status };
}

/** Resumes a stalled client and reads the rest: what it got, and whether the connection closed. */
function drain(s: Stalled): Promise<{ tail: string; bytes: number }> {
  return new Promise((resolve) => {
    let bytes = 0;
    let tail = Buffer.alloc(0);
    s.socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      tail = Buffer.concat([tail, chunk]).subarray(-16);
    });
    s.socket.once('close', () => resolve({ tail: tail.toString('latin1'), bytes }));
    s.socket.resume();
  });
}

/** Asks for a small series every 100 ms, `tries` times at most, until one gets 200; the last status. */
async function smallStreamStatus(srv: TestServer, tries: number): Promise<number> {
  let status = 0;
  for (let i = 0; i < tries && status !== 200; i++) {
    await sleep(100);
    const res = await srv.get('/rates/from-pos?symbol=EURUSD&timeframe=TIMEFRAME_H1&start_pos=0&count=10');
    status = res.status;
    await res.arrayBuffer();
  }
  return status;
}

function gc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

t.test('past TRADEAPI_MAX_STREAMS a series request gets 503 with Retry-After; other routes still answer', (t) =>
  forEachAdapter(t, async (t, adapter) => {
    const srv = await serve(t, adapter, terminal, { TRADEAPI_MAX_STREAMS: '2' });
    const port = srv.server.port;
    const stalled = [stalledClient(port, YEAR), stalledClient(port, YEAR)];
    t.same(await Promise.all(stalled.map((s) => s.status)), [200, 200], 'two streams run');

    const refused = await srv.get(YEAR);
    t.equal(refused.headers.get('retry-after'), '5', 'Retry-After');
    const body = await expectProblem(t, refused, 503, '/errors/too-many-streams', '/ticks/range');
    t.match(body.detail, /2 series streams/, 'the detail names the cap');
    t.equal((await srv.get('/symbols/EURUSD/tick')).status, 200, 'a non-series route still answers');
    t.equal((await srv.get(YEAR, { method: 'HEAD' })).status, 200, 'HEAD on a series takes no slot');
    t.equal((await srv.get('/health')).status, 200, 'healthy');

    // A client that goes away frees its slot.
    stalled[0]?.socket.destroy();
    t.equal(await smallStreamStatus(srv, 50), 200, 'the freed slot serves a new stream');
    for (const s of stalled) s.socket.destroy();
  }),
);

t.test('a peer that reads nothing for TRADEAPI_SEND_TIMEOUT_MS is cut off and its slot freed', (t) =>
  forEachAdapter(t, async (t, adapter) => {
    const srv = await serve(t, adapter, terminal, { TRADEAPI_MAX_STREAMS: '1', TRADEAPI_SEND_TIMEOUT_MS: '1000' });
    const stalled = stalledClient(srv.server.port, YEAR);
    t.equal(await stalled.status, 200, 'the stream started');
    const busy = await srv.get(YEAR);
    t.equal(busy.status, 503, 'its slot is taken while it stalls');
    await busy.arrayBuffer();

    t.equal(await smallStreamStatus(srv, 100), 200, 'the slot came free after the send timeout');
    const { tail, bytes } = await drain(stalled);
    t.ok(bytes > 0, 'the stalled client had been sent data');
    t.notMatch(tail, /0\r\n\r\n$/, 'the aborted body does not end like a complete one');
    t.equal((await srv.get('/health')).status, 200, 'healthy');
  }),
);

t.test('stalled Parquet pulls hold a few MB each, not a chunk pipeline', (t) =>
  forEachAdapter(t, async (t, adapter) => {
    const srv = await serve(t, adapter, terminal);
    const warm = await srv.get('/ticks/from?symbol=EURUSD&date_from=2024-01-08T00:00:00Z&count=1000&format=parquet');
    await warm.arrayBuffer();
    gc();
    const before = process.memoryUsage().external;
    const n = 20;
    const stalled = Array.from({ length: n }, () => stalledClient(srv.server.port, YEAR));
    t.same(new Set(await Promise.all(stalled.map((s) => s.status))), new Set([200]), 'all streams started');
    // Let each fill the socket buffers until its writes stop being taken.
    await sleep(4000);
    gc();
    const growth = process.memoryUsage().external - before;
    t.ok(growth < n * 3 * MiB, `external memory grew ${(growth / MiB).toFixed(1)} MiB for ${n} stalled streams (bound ${n * 3} MiB)`);
    for (const s of stalled) s.socket.destroy();
    t.equal((await srv.get('/health')).status, 200, 'healthy');
  }),
);

t.test('stream settings: defaults sized for the machine, bad values refused', async (t) => {
  const GiB = 1024 * MiB;
  t.equal(defaultMaxStreams(512 * MiB), 32, 'a small machine still runs 32');
  t.equal(defaultMaxStreams(8 * GiB), 256, 'one per 32 MiB of RAM');
  t.equal(defaultMaxStreams(256 * GiB), 1024, 'at most 1024');
  const config = testConfig();
  t.equal(config.maxStreams, defaultMaxStreams(), 'TRADEAPI_MAX_STREAMS defaults to the machine-sized cap');
  t.equal(config.sendTimeoutMs, 60_000, 'TRADEAPI_SEND_TIMEOUT_MS defaults to 60 s');
  t.equal(config.shutdownGraceMs, 10_000, 'TRADEAPI_SHUTDOWN_GRACE_MS defaults to 10 s');
  for (const [name, value] of [
    ['TRADEAPI_MAX_STREAMS', '0'],
    ['TRADEAPI_MAX_STREAMS', '1e3'],
    ['TRADEAPI_SEND_TIMEOUT_MS', '-1'],
    ['TRADEAPI_SEND_TIMEOUT_MS', '2147483648'],
    ['TRADEAPI_SHUTDOWN_GRACE_MS', 'soon'],
  ] as const) {
    t.throws(() => testConfig({ [name]: value }), { name: 'ConfigError', message: new RegExp(name) }, `${name}=${value} refused`);
  }
});
