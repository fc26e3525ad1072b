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

t.test('a failed request is a failed measurement, not a crash', async (t) => {
  const floor = await startFloorServer();
  await floor.close();
  const m = await measure({ server: 'floor', variant: '-', pid: undefined, url: `${floor.url}/bytes?n=1`, kind: 'opaque', envelope: false }, { size: 1, format: 'json', rows: 1 });
  t.equal(m.status, 'failed');
  t.ok(readRss(process.pid)!.rss > 0);
  await t.rejects(pull(`${floor.url}/x`, 'opaque', 1000));
});
