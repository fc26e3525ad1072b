// The big-pull harness (bench/bigpull.ts) measures real answers: on 100 k ticks, without the peer,
// every format's row count and first/last time_msc read back from the bodies equal what the
// simulator exported, a wrong expectation is caught, and the floor sends exactly the bytes asked.
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { tableFromArrays, tableToIPC } from 'apache-arrow';
import t from 'tap';

import { expectedFor, measure, rangePath, ratios, table, targets, type Format, type Measurement } from '../../bench/bigpull.js';
import { exportTicks, npyHeader, TICK_ITEMSIZE } from '../../bench/export-ticks.js';
import { startFloorServer } from '../../bench/floor-server.js';
import { ArrowSink, JsonSink, pull } from '../../bench/pull.js';
import { readRss } from '../../bench/rss-probe.js';
import { availableAdapters } from '../../src/http/adapters/index.js';
import { openSimTerminal, type SimConfig } from '../../src/terminal/index.js';
import { serve } from '../helpers/server.js';

const SIM: SimConfig = { seed: 42, nowMs: Date.UTC(2024, 0, 10, 12), accountAnchor: Date.UTC(2024, 0, 10) / 1000 };
const FROM_MS = Date.UTC(2024, 0, 8);
const N = 100_000;

const dir = t.testdir({});
const npy = path.join(dir, 'eurusd.npy');
const meta = await exportTicks({ path: npy, fromMs: FROM_MS, sizes: [1000, N], sim: SIM });
const range = meta.ranges.find((r) => r.count === N)!;

t.test('the .npy has the MetaTrader5 tick dtype and the exported rows', async (t) => {
  const file = readFileSync(npy);
  const header = npyHeader(meta.rows);
  t.equal(file.subarray(0, 6).toString('latin1'), '\x93NUMPY');
  t.equal(header.length % 64, 0, 'data starts on a 64-byte boundary');
  t.same(file.subarray(0, header.length), header, 'header holds the final row count');
  t.match(header.toString('latin1'), /'descr': \[\('time', '<i8'\), \('bid', '<f8'\), .*\('flags', '<u4'\), \('volume_real', '<f8'\)\]/);
  t.equal(file.length, header.length + meta.rows * TICK_ITEMSIZE);
  t.ok(meta.rows >= N + 1000, 'a margin past the largest size');
  t.ok(range.rows >= N, 'the range holds at least N ticks');
  const row = (i: number): { time: bigint; timeMsc: bigint; bid: number; flags: number } => {
    const at = header.length + i * TICK_ITEMSIZE;
    return { time: file.readBigInt64LE(at), timeMsc: file.readBigInt64LE(at + 40), bid: file.readDoubleLE(at + 8), flags: file.readUInt32LE(at + 48) };
  };
  const first = row(0);
  t.equal(Number(first.timeMsc), range.firstTimeMsc);
  t.equal(first.time, first.timeMsc / 1000n, 'time = time_msc // 1000');
  t.ok(first.bid > 0.5 && first.bid < 2, 'a EURUSD bid');
  t.equal(Number(row(N - 1).timeMsc), range.toMs, 'tick N ends the range');
});

t.test('tradeapi answers are measured and checked', async (t) => {
  const adapter = availableAdapters().find((a) => a.name === 'node') ?? availableAdapters()[0]!;
  const terminal = openSimTerminal(SIM);
  t.teardown(() => terminal.close());
  const s = await serve(t, adapter, terminal);
  const results: Measurement[] = [];
  for (const format of ['json', 'parquet', 'arrow'] as const satisfies readonly Format[]) {
    const url = s.base + rangePath('EURUSD', range.fromMs, range.toMs, format);
    const m = await measure({ server: 'tradeapi', variant: adapter.name, pid: process.pid, url, kind: format, envelope: false }, expectedFor(range, format));
    t.equal(m.status, 'ok', `${format}: ${m.note ?? 'ok'}`);
    t.equal(m.rows, range.rows, `${format}: rows read back`);
    t.ok((m.bytes ?? 0) > 0 && (m.totalMs ?? 0) > 0 && (m.ttfbMs ?? Infinity) <= (m.totalMs ?? 0), `${format}: timings`);
    t.ok((m.rssBeforeMiB ?? 0) > 0, `${format}: RSS read`);
    results.push(m);

    // A wrong expectation must not pass: the harness really reads the rows.
    const wrong = await measure({ server: 'tradeapi', variant: adapter.name, pid: undefined, url, kind: format, envelope: false }, { ...expectedFor(range, format), rows: range.rows + 1 });
    t.equal(wrong.status, 'invalid', `${format}: a wrong row count is reported`);
  }

  // The brace count agrees with a full parse of the JSON body.
  const json = await fetch(s.base + rangePath('EURUSD', range.fromMs, range.toMs, 'json'));
  const rows = (await json.json()) as unknown[];
  t.equal(rows.length, range.rows, 'JSON.parse agrees');

  // The floor sends exactly the bytes of each answer.
  const floor = await startFloorServer();
  t.teardown(() => floor.close());
  for (const ours of results.slice()) {
    await fetch(`${floor.url}/prepare?bytes=${ours.bytes}`, { method: 'POST' });
    const m = await measure({ server: 'floor', variant: `= ${ours.format}`, pid: process.pid, url: `${floor.url}/bytes?n=${ours.bytes}`, kind: 'opaque', envelope: false }, { size: N, format: ours.format, rows: range.rows });
    t.equal(m.status, 'ok');
    t.equal(m.bytes, ours.bytes, `floor ${ours.format}: same byte count`);
    results.push(m);
  }

  // A row of the bridge path (here the same server, this process standing in for the bridge):
  // the second process's RSS and CPU are read, and bridge/sim is among the ratios.
  const viaBridge = await measure(
    { server: 'bridge', variant: 'node + bridge', pid: process.pid, sidePid: process.pid, url: s.base + rangePath('EURUSD', range.fromMs, range.toMs, 'parquet'), kind: 'parquet', envelope: false },
    expectedFor(range, 'parquet'),
  );
  t.equal(viaBridge.status, 'ok', viaBridge.note ?? 'ok');
  t.ok((viaBridge.sideRssPeakMiB ?? 0) > 0 && (viaBridge.sideRssAnonPeakMiB ?? 0) > 0 && viaBridge.sideCpuS !== undefined, 'the bridge process is probed');
  results.push(viaBridge);

  const rs = ratios(results);
  t.equal(rs.length, 3);
  t.ok(rs.every((r) => r.timesFloor !== undefined && r.timesFloor > 0), 'ratios against the floor');
  const parquetRatio = rs.find((r) => r.format === 'parquet')!;
  t.ok(parquetRatio.bridgeVsSim !== undefined && parquetRatio.bridgeVsSim > 0 && parquetRatio.bridgeRssPeakMiB !== undefined, 'bridge/sim ratio');
  t.equal(rs.filter((r) => r.bridgeVsSim !== undefined).length, 1, 'only where the bridge path was measured');
  t.match(table(results), /100k\s+parquet\s+tradeapi/);
  t.match(table(results), /100k\s+parquet\s+bridge/);
  t.ok(targets(results).every((x) => x.pass === undefined), 'no 10 M figures, no verdicts');
});

t.test("mt5api's JSON envelope is counted without its wrapper", async (t) => {
  const body = Buffer.from('{"data":[{"time":"2024-01-08T00:00:00","time_msc":"2024-01-08T00:00:00.049000","bid":1.1},{"time":"2024-01-08T00:00:01","time_msc":"2024-01-08T00:00:01.221000","bid":1.2}],"count":2,"format":"json"}');
  const sink = new JsonSink(true);
  // Arrives in pieces, as from a socket.
  for (let at = 0; at < body.length; at += 7) sink.write(body.subarray(at, at + 7));
  const check = await sink.check();
  t.equal(check.rows, 2);
  t.equal(check.firstTimeMsc, Date.UTC(2024, 0, 8, 0, 0, 0, 49));
  t.equal(check.lastTimeMsc, Date.UTC(2024, 0, 8, 0, 0, 1, 221));
  sink.braces++;
  await t.rejects(sink.check(), /count 2/, 'a count that disagrees with the rows is caught');
});

t.test('an Arrow stream of several batches is followed message by message', async (t) => {
  const part = (from: number, n: number) => tableFromArrays({ time_msc: BigInt64Array.from({ length: n }, (_, i) => BigInt(from + i)), bid: Float64Array.from({ length: n }, () => 1.1) });
  const table = part(1000, 5).concat(part(2000, 7), part(3000, 11));
  t.equal(table.batches.length, 3);
  const stream = Buffer.from(tableToIPC(table, 'stream'));
  for (const step of [1, 3, 64, stream.length]) {
    const sink = new ArrowSink();
    for (let at = 0; at < stream.length; at += step) sink.write(stream.subarray(at, at + step));
    t.same(await sink.check(), { rows: 23, firstTimeMsc: 1000, lastTimeMsc: 3010 }, `pieces of ${step} bytes`);
  }
  const cut = new ArrowSink();
  cut.write(stream.subarray(0, stream.length - 20));
  await t.rejects(cut.check(), /cut short/);
});

t.test('the sinks keep nothing of a chunk after write(): the client reuses its read buffer', async (t) => {
  /** Writes `body` in pieces of `step` bytes through one scratch buffer, scribbled over after every write. */
  const throughScratch = (sink: { write(chunk: Buffer): void }, body: Buffer, step: number): void => {
    const scratch = Buffer.alloc(step);
    for (let at = 0; at < body.length; at += step) {
      const n = body.copy(scratch, 0, at, Math.min(body.length, at + step));
      sink.write(scratch.subarray(0, n));
      scratch.fill(0xee);
    }
  };
  const part = (from: number, n: number) => tableFromArrays({ bid: Float64Array.from({ length: n }, () => 1.1), time_msc: BigInt64Array.from({ length: n }, (_, i) => BigInt(from + i)) });
  const stream = Buffer.from(tableToIPC(part(1000, 5).concat(part(2000, 7), part(3000, 11)), 'stream'));
  for (const step of [5, 13, 4096]) {
    const arrow = new ArrowSink();
    throughScratch(arrow, stream, step);
    t.same(await arrow.check(), { rows: 23, firstTimeMsc: 1000, lastTimeMsc: 3010 }, `Arrow, pieces of ${step} bytes`);
  }
  const rows = Array.from({ length: 3000 }, (_, i) => ({ time_msc: Date.UTC(2024, 0, 8) + i, bid: 1.1 }));
  const json = Buffer.from(JSON.stringify(rows));
  for (const step of [7, 1000, 70_000]) {
    const sink = new JsonSink(false);
    throughScratch(sink, json, step);
    t.same(await sink.check(), { rows: 3000, firstTimeMsc: Date.UTC(2024, 0, 8), lastTimeMsc: Date.UTC(2024, 0, 8) + 2999 }, `JSON, pieces of ${step} bytes`);
  }
});

t.test('a failed request is a failed measurement, not a crash', async (t) => {
  const floor = await startFloorServer();
  await floor.close();
  const m = await measure({ server: 'floor', variant: '-', pid: undefined, url: `${floor.url}/bytes?n=1`, kind: 'opaque', envelope: false }, { size: 1, format: 'json', rows: 1 });
  t.equal(m.status, 'failed');
  t.ok(readRss(process.pid)!.rss > 0);
  await t.rejects(pull(`${floor.url}/x`, 'opaque', 1000));
});

t.test("the benches' HTTP/1.1 reader: chunked, Content-Length and read-to-close bodies, whole; a bad chunk is an error", async (t) => {
  const net = await import('node:net');
  const { rawGet } = await import('../../bench/raw-get.js');
  const body = Buffer.from(Array.from({ length: 5000 }, (_, i) => `row ${i};`).join(''));
  // Answers written as raw bytes, in awkward pieces, so that every parser state meets a boundary.
  const answers: Record<string, Buffer[]> = {
    chunked: [Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n'), ...[1, 7, 300, 4096, body.length].reduce<{ at: number; out: Buffer[] }>((acc, n) => {
      const piece = body.subarray(acc.at, Math.min(body.length, acc.at + n));
      if (piece.length) acc.out.push(Buffer.from(`${piece.length.toString(16)};ext=1\r\n`), piece, Buffer.from('\r\n'));
      acc.at += piece.length;
      return acc;
    }, { at: 0, out: [] }).out, Buffer.from('0\r\nX-Trailer: 1\r\n\r\n')],
    length: [Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`), body],
    close: [Buffer.from('HTTP/1.0 200 OK\r\n\r\n'), body],
    bad: [Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n')],
  };
  const server = net.createServer((socket) => {
    socket.once('data', (req) => {
      const which = /GET \/(\w+)/.exec(req.toString('latin1'))![1]!;
      const bytes = Buffer.concat(answers[which]!);
      // Three bytes at a time for the first 200, then the rest: the head and the chunk lines split.
      let at = 0;
      const step = (): void => {
        if (at >= bytes.length) {
          socket.end();
          return;
        }
        const n = at < 200 ? 3 : bytes.length;
        socket.write(bytes.subarray(at, at + n), step);
        at += n;
      };
      step();
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as { port: number }).port;
  for (const which of ['chunked', 'length', 'close']) {
    const parts: Buffer[] = [];
    let status = 0;
    let type = '';
    await rawGet(`http://127.0.0.1:${port}/${which}`, {}, { onHead: (h) => ((status = h.status), (type = h.headers['content-type'] ?? '')), onBody: (c) => parts.push(Buffer.from(c)) }, 10_000);
    t.equal(status, 200, `${which}: status`);
    t.ok(Buffer.concat(parts).equals(body), `${which}: the body, whole (${body.length} bytes)`);
    if (which === 'chunked') t.equal(type, 'text/plain', 'headers read');
  }
  await t.rejects(rawGet(`http://127.0.0.1:${port}/bad`, {}, { onHead: () => undefined, onBody: () => undefined }, 10_000), /bad chunk size/);
});

t.test('the small-request load generator counts whole answers, Content-Length or chunked, and non-200s as errors', async (t) => {
  const http = await import('node:http');
  const { leanLoadFor } = await import('../../bench/lean-load.js');
  let served = 0;
  const server = http.createServer((req, res) => {
    served++;
    if (req.url === '/fixed') res.end('x'.repeat(5000));
    else if (req.url === '/chunked') {
      // Three chunks written apart, so answers arrive in several reads.
      res.write('a'.repeat(3000));
      setImmediate(() => {
        res.write('b'.repeat(70_000));
        res.end('c');
      });
    } else {
      res.statusCode = 404;
      res.end('no');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as { port: number }).port;
  for (const path of ['/fixed', '/chunked']) {
    served = 0;
    const r = await leanLoadFor(port, path, 4, 0.3);
    t.equal(r.errors, 0, `${path}: no errors`);
    t.ok(r.rps > 0, `${path}: ${r.rps} req/s`);
    // Every answer counted was served; at most one per connection was cut by the deadline. (Counted
    // answers, not rps × the nominal 0.3 s: on a loaded machine the run lasts longer than that.)
    t.ok(served >= r.answers && served <= r.answers + 4, `${path}: ${served} served, ${r.answers} counted`);
  }
  const missing = await leanLoadFor(port, '/missing', 2, 0.2);
  t.ok(missing.errors > 0 && missing.rps > 0, `non-200 answers are errors (${missing.errors})`);
});
