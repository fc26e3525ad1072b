// Big pulls through a real server process (`tradeapi serve`, as deployed), its memory and CPU read
// from /proc/<pid>: issue 5's list.
//   1. 20 M ticks as Arrow and as Parquet: every row arrives (counted by the client without holding
//      the body, checked against the terminal façade) while the server's RSS stays bounded.
//   2. A slow reader pauses production: server RSS stays flat while a client reads 1 MB, sleeps.
//   3. A client that disconnects mid-stream stops the work: the server's CPU time stops growing,
//      and it still answers.
//   4. A series failing mid-stream aborts the connection: test/http/errors.test.ts ("a series
//      failing after the headers") covers it in-process with a faulty terminal.
// Bounds are generous (hundreds of MB against GBs of payload) and nothing is timed, so that a
// loaded 2-core machine does not make this flaky. Linux only (/proc).
import { createWriteStream, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';

import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import t from 'tap';

import { freePort, ServerProcess } from '../../bench/processes.js';
import { ArrowSink, pull, toEpochMs } from '../../bench/pull.js';
import { cpuSeconds, readRss, RssProbe } from '../../bench/rss-probe.js';
import { testAdapters } from '../helpers/server.js';
import { openSimTerminal } from '../../src/terminal/index.js';
import { cliCommand } from '../helpers/cli.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MiB = 1024 * 1024;

/** ~20.2 M EURUSD ticks: historical, so the server's wall clock does not matter. */
const BIG = { from: '2024-01-02T00:00:00Z', to: '2024-05-25T00:00:00Z' };
/** ~5 M ticks (about 300 MB of Arrow, 600 MB of JSON). */
const MEDIUM = { from: '2024-01-02T00:00:00Z', to: '2024-02-02T00:00:00Z' };

const BIG_GROWTH_BOUND = 400 * MiB;
const SLOW_GROWTH_BOUND = 150 * MiB;
const IDLE_CPU_BOUND_S = 0.2;

const ticksPath = (range: { from: string; to: string }, format: string): string =>
  `/ticks/range?${new URLSearchParams({ symbol: 'EURUSD', date_from: range.from, date_to: range.to, flags: 'COPY_TICKS_ALL', format }).toString()}`;

/** GET and hand the response to `onResponse`; resolves when the body ends or `stop()` cuts it. */
function get(url: string, onResponse: (res: http.IncomingMessage, stop: () => void) => void): Promise<{ status: number; complete: boolean }> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let stopped = false;
    const req = http.get(url, { agent: false }, (res) => {
      status = res.statusCode ?? 0;
      let ended = false;
      res.on('end', () => {
        ended = true;
        resolve({ status, complete: true });
      });
      // A body the server cuts short is a failure (unless we cut it).
      res.on('error', (e) => (stopped ? undefined : reject(e)));
      res.on('close', () => (ended || stopped ? undefined : reject(new Error(`the body was cut short (HTTP ${status})`))));
      onResponse(res, () => {
        stopped = true;
        req.destroy();
        resolve({ status, complete: false });
      });
    });
    req.on('error', (e) => (stopped ? undefined : reject(e)));
  });
}

/** Sleeps `ms` while the event loop (and the RSS probe's timer) keeps running. */
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Reads a body slowly: `pauseMs` of pause after every `everyBytes`, for `durationMs` (or to the
 * end), then disconnects. Returns the bytes read and whether the body ended.
 */
async function slowRead(url: string, everyBytes: number, pauseMs: number, durationMs: number): Promise<{ status: number; bytes: number; complete: boolean }> {
  let bytes = 0;
  const r = await get(url, (res, stop) => {
    const deadline = Date.now() + durationMs;
    let sincePause = 0;
    res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      sincePause += chunk.length;
      if (Date.now() >= deadline) return stop();
      if (sincePause >= everyBytes) {
        sincePause = 0;
        res.pause();
        setTimeout(() => res.resume(), pauseMs);
      }
    });
  });
  return { ...r, bytes };
}

const mib = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`;

const procReadable = process.platform === 'linux' && readRss(process.pid) !== undefined;
if (!procReadable) t.plan(0, 'needs /proc/<pid>/status and /proc/<pid>/stat (Linux)');
else await main();

async function main(): Promise<void> {
  // What the server must send: counted with the terminal façade, opened as the CLI opens it
  // (openSimTerminal() with the defaults), so both derive the ticks from the same seed.
  const expected = await (async () => {
    const terminal = openSimTerminal();
    try {
      const series = await terminal.copyTicksRange('EURUSD', Date.parse(BIG.from), Date.parse(BIG.to), -1);
      let rows = 0;
      let first = Number.NaN;
      let last = Number.NaN;
      for await (const chunk of series) {
        if (chunk.rows === 0) continue;
        if (rows === 0) first = Number(chunk.time_msc[0]);
        last = Number(chunk.time_msc[chunk.rows - 1]);
        rows += chunk.rows;
      }
      return { rows, first, last };
    } finally {
      await terminal.close();
    }
  })();
  t.ok(expected.rows > 20_000_000, `the big range holds ${expected.rows} ticks (> 20 M)`);

  for (const adapter of testAdapters()) {
    await t.test(`adapter ${adapter.name}`, async (t) => {
      const cli = cliCommand();
      t.comment(`server: node ${cli.join(' ')} (TRADEAPI_HTTP=${adapter.name})`);
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const server = await ServerProcess.start({
        name: `bigpull-${adapter.name}`,
        command: process.execPath,
        args: [...cli, 'serve', '--host', '127.0.0.1', '--port', String(port)],
        env: { ...process.env, TRADEAPI_HTTP: adapter.name, TRADEAPI_SECRET_KEY: '', TRADEAPI_LOG_LEVEL: 'WARNING', TRADEAPI_ROUTER_PREFIX: '' },
        cwd: root,
        logDir: t.testdir({}),
        readyUrl: `${base}/health`,
        readyTimeoutMs: 60_000,
      });
      t.teardown(() => server.stop());
      const pid = server.pid;

      // Warm-up: every encoder and code path once, so that the baselines below hold them.
      for (const format of ['json', 'arrow', 'parquet']) {
        const res = await fetch(`${base}/ticks/from?symbol=EURUSD&date_from=2024-01-09T00:00:00Z&count=200000&format=${format}`);
        t.equal(res.status, 200, `warm-up ${format}`);
        await res.arrayBuffer();
      }

      await t.test('20 M ticks as Arrow: every row, bounded server memory', async (t) => {
        const probe = new RssProbe(pid);
        probe.start();
        const result = await pull(base + ticksPath(BIG, 'arrow'), 'arrow', 300_000);
        const rss = probe.stop();
        t.equal(result.status, 200);
        t.equal(result.contentType, 'application/vnd.apache.arrow.stream');
        const sink = result.sink;
        if (!(sink instanceof ArrowSink)) throw new Error('expected the Arrow sink');
        const check = await sink.check(); // rejects unless the end-of-stream marker arrived
        t.equal(check.rows, expected.rows, 'rows summed over the record batches');
        t.equal(check.firstTimeMsc, expected.first, 'first time_msc');
        t.equal(check.lastTimeMsc, expected.last, 'last time_msc');
        t.comment(`arrow: ${mib(result.bytes)} in ${sink.batches} batches; server RSS ${mib(rss.before)} -> peak ${mib(rss.peak)} (${rss.exactPeak ? 'VmHWM' : 'sampled'})`);
        t.ok(rss.growth < BIG_GROWTH_BOUND, `server RSS grew ${mib(rss.growth)} (< ${mib(BIG_GROWTH_BOUND)}) for ${mib(result.bytes)} sent`);
      });

      await t.test('20 M ticks as Parquet: every row, bounded server memory', async (t) => {
        const file = path.join(t.testdir({}), 'ticks.parquet');
        const probe = new RssProbe(pid);
        probe.start();
        let written: Promise<void> = Promise.resolve();
        const r = await get(base + ticksPath(BIG, 'parquet'), (res) => {
          written = pipeline(res, createWriteStream(file));
        });
        await written;
        const rss = probe.stop();
        t.equal(r.status, 200);
        t.ok(r.complete, 'the body ended');
        const buffer = await asyncBufferFromFile(file);
        const metadata = await parquetMetadataAsync(buffer); // reads the footer only
        t.equal(Number(metadata.num_rows), expected.rows, 'rows in the footer');
        const groupRows = metadata.row_groups.map((g) => Number(g.num_rows));
        t.equal(groupRows.reduce((a, b) => a + b, 0), expected.rows, 'row groups add up');
        t.ok(Math.max(...groupRows) <= 128 * 1024, `row groups of at most 128 K rows (${metadata.row_groups.length} groups)`);
        const timeAt = async (row: number): Promise<number> =>
          toEpochMs((await parquetReadObjects({ file: buffer, metadata, compressors, columns: ['time_msc'], rowStart: row, rowEnd: row + 1 }))[0]?.time_msc);
        t.equal(await timeAt(0), expected.first, 'first time_msc');
        t.equal(await timeAt(expected.rows - 1), expected.last, 'last time_msc');
        t.comment(`parquet: ${mib(statSync(file).size)}; server RSS ${mib(rss.before)} -> peak ${mib(rss.peak)} (${rss.exactPeak ? 'VmHWM' : 'sampled'})`);
        t.ok(rss.growth < BIG_GROWTH_BOUND, `server RSS grew ${mib(rss.growth)} (< ${mib(BIG_GROWTH_BOUND)})`);
      });

      for (const format of ['arrow', 'json'] as const) {
        await t.test(`a slow reader pauses production (${format}, 5 M ticks)`, async (t) => {
          const probe = new RssProbe(pid);
          probe.start();
          // 50 ms of pause after every MB: at most ~20 MB/s, far below what the server produces.
          const r = await slowRead(base + ticksPath(MEDIUM, format), MiB, 50, 4000);
          const rss = probe.stop();
          t.equal(r.status, 200);
          t.notOk(r.complete, `the reader was slower than the server (${mib(r.bytes)} read in 4 s)`);
          t.comment(`${format}: server RSS ${mib(rss.before)} -> peak ${mib(rss.peak)} over ${rss.samples} samples`);
          t.ok(rss.growth < SLOW_GROWTH_BOUND, `server RSS grew ${mib(rss.growth)} (< ${mib(SLOW_GROWTH_BOUND)}) while the client lagged`);
        });
      }

      await t.test('a disconnect mid-stream stops production', async (t) => {
        const cpuStart = cpuSeconds(pid);
        let atAbort = Number.NaN;
        const r = await get(base + ticksPath(BIG, 'json'), (res, stop) => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (bytes >= MiB) {
              atAbort = cpuSeconds(pid);
              stop();
            }
          });
        });
        t.equal(r.status, 200);
        t.notOk(r.complete, 'cut after 1 MB');
        const before = cpuSeconds(pid);
        await sleep(1500);
        const used = cpuSeconds(pid) - before;
        t.comment(`server CPU: ${(atAbort - cpuStart).toFixed(2)} s until the abort, ${used.toFixed(2)} s in the 1.5 s after`);
        t.ok(used < IDLE_CPU_BOUND_S, `the server used ${used.toFixed(2)} s of CPU in the 1.5 s after the client left (< ${IDLE_CPU_BOUND_S} s; the whole answer would take many seconds)`);

        const health = await fetch(`${base}/health`);
        t.equal(health.status, 200, 'still serving /health');
        await health.arrayBuffer();
        const ticks = await fetch(`${base}/ticks/from?symbol=EURUSD&date_from=2024-01-09T00:00:00Z&count=10`);
        t.equal(ticks.status, 200, 'and the terminal still produces series');
        t.equal(((await ticks.json()) as unknown[]).length, 10);
      });
    });
  }
}
