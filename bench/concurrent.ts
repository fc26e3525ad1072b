// Many big pulls at once against one server (issue 24: "< 512 MiB for 100 concurrent 10 M-tick
// pulls"): the server's memory growth while N clients each read the same range, every answer
// read to its end and its size compared with a single pull's. The clients are plain node:http
// GETs in this process that count bytes and keep nothing (so the client's memory is not what
// grows); they share the two cores with the server, so the wall time says little — the server's
// peak RSS, its CPU seconds and that every pull completed are the figures.
//
//   npm run build:ts && node dist/bench/concurrent.js [--clients 100] [--ticks 1e7] [--format parquet]
//       [--adapter node|uws] [--out FILE.json]
import http from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { rangePath, repoRoot } from './bigpull.js';
import { exportTicks, parseCount, type ExportMeta } from './export-ticks.js';
import { isMain } from './is-main.js';
import { freePort, type ServerProcess } from './processes.js';
import { cpuSeconds, RssProbe } from './rss-probe.js';
import { startServer, uwsLoadsHere } from './sides.js';

/** GETs url, counting the body's bytes; resolves with [status, bytes]. */
function count(url: string, agent: http.Agent): Promise<[number, number]> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      let bytes = 0;
      res.on('data', (d: Buffer) => (bytes += d.length));
      res.on('end', () => resolve([res.statusCode ?? 0, bytes]));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '100' },
      ticks: { type: 'string', default: '1e7' },
      format: { type: 'string', default: 'parquet' },
      adapter: { type: 'string', default: 'node' },
      out: { type: 'string' },
    },
  });
  const clients = Math.max(1, Number(values.clients));
  const ticks = parseCount(values.ticks);
  const format = values.format as 'parquet' | 'arrow' | 'json';
  const adapter = values.adapter === 'uws' ? 'uws' : 'node';
  const root = repoRoot();
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const symbol = 'EURUSD';
  const fromMs = Date.parse('2024-01-08T00:00:00Z');
  const cache = `${root}/bench/.cache/${symbol}-${new Date(fromMs).toISOString().replace(/[:.]/g, '')}-${ticks}.npy`;
  const meta: ExportMeta = existsSync(`${cache}.json`)
    ? (JSON.parse(readFileSync(`${cache}.json`, 'utf8')) as ExportMeta)
    : await exportTicks({ path: cache, symbol, fromMs, sizes: [ticks] });
  const range = meta.ranges[0]!;
  const port = await freePort();
  const inRoot = adapter === 'uws' && !uwsLoadsHere(root);
  const server: ServerProcess = await startServer({
    build: { name: 'new', root, commit: 'worktree' },
    adapter,
    inRoot,
    mounts: [root],
    port,
    env: { TRADEAPI_LOG_LEVEL: 'WARNING', TRADEAPI_MAX_STREAMS: String(clients * 2) },
    logDir: `${root}/bench/.cache/logs`,
    name: `concurrent-${adapter}`,
  });
  try {
    const url = `http://127.0.0.1:${port}${rangePath(symbol, range.fromMs, range.toMs, format)}`;
    const agent = new http.Agent({ keepAlive: false, maxSockets: clients * 2 });
    const [status1, single] = await count(url, agent); // warm-up, and the size every pull must have
    if (status1 !== 200) throw new Error(`single pull: HTTP ${status1}`);
    const probe = new RssProbe(server.pid);
    const cpu0 = cpuSeconds(server.pid);
    probe.start();
    const started = performance.now();
    const results = await Promise.allSettled(Array.from({ length: clients }, () => count(url, agent)));
    const seconds = (performance.now() - started) / 1000;
    const rss = probe.stop();
    const cpu = cpuSeconds(server.pid) - cpu0;
    const complete = results.filter((r) => r.status === 'fulfilled' && r.value[0] === 200 && r.value[1] === single).length;
    const failures = results
      .map((r) => (r.status === 'rejected' ? String(r.reason) : r.value[0] !== 200 ? `HTTP ${r.value[0]}` : r.value[1] !== single ? `${r.value[1]} bytes` : ''))
      .filter(Boolean);
    const report = {
      harness: 'bench/concurrent.ts',
      at: new Date().toISOString(),
      adapter,
      format,
      ticks: range.rows,
      clients,
      complete,
      failures: failures.slice(0, 5),
      bytesEach: single,
      seconds,
      serverCpuS: cpu,
      rssBeforeMiB: rss.before / 2 ** 20,
      rssPeakMiB: rss.peak / 2 ** 20,
      rssGrowthMiB: rss.growth / 2 ** 20,
      exactPeak: rss.exactPeak,
      target: { rssGrowthMiB: 512 },
    };
    process.stdout.write(
      `${clients} concurrent ${(range.rows / 1e6).toFixed(0)} M-tick ${format} pulls on ${adapter === 'uws' ? 'uWS' : 'node:http'}: ${complete}/${clients} complete (${(single / 1e6).toFixed(1)} MB each), ` +
        `${seconds.toFixed(1)} s, server CPU ${cpu.toFixed(1)} s, server RSS ${report.rssBeforeMiB.toFixed(0)} -> ${report.rssPeakMiB.toFixed(0)} MiB ` +
        `(+${report.rssGrowthMiB.toFixed(0)} MiB; target < 512: ${report.rssGrowthMiB < 512 ? 'met' : 'MISSED'})${failures.length ? `; failures: ${failures.slice(0, 3).join('; ')}` : ''}\n`,
    );
    if (values.out) writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
    log('(the clients share the two cores with the server: the wall time is not a throughput figure)');
  } finally {
    await server.stop();
  }
}

if (isMain(import.meta.url)) {
  main().catch((e: unknown) => {
    process.stderr.write(`concurrent: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
