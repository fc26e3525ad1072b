// The compact bridge link (docs/bridge-protocol.md §7, protocol 2): the same ticks as Parquet from
// the simulator and through the Python bridge (bridge/ over the MetaTrader5 stand-in serving the
// very ticks the simulator makes, exported to a .npy) with each compression, in one run, best of N.
//
//   npm run build && node dist/bench/bridge-link.js [--ticks 1e7] [--repeat 3] [--compressions none,zstd]
//       [--format parquet] [--bridge-arg=--chunk-bytes=4194304 ...] [--http node|uws] [--out FILE]
//
// Each repetition starts every server afresh (the order rotates between repetitions), warms it up
// with a small request, pulls the range once and checks the answer (rows, first and last time_msc:
// bench/pull.ts). Per path it keeps the fastest run and reports: its time against the simulator's,
// the gateway's CPU seconds against the simulator's, the bridge process's CPU seconds and, from the
// bridge's own `series_sent` log line, the bytes it put on the link (every frame, headers included:
// counted at the socket) and the CPU its worker spent inside the package calls (the stand-in's
// copy_ticks_from), so that the bridge's own cost (paging, encoding, sending) is the difference.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { bridgeVenv, expectedFor, iso, measure, rangePath, repoRoot, ticksFile, type Format, type Measurement } from './bigpull.js';
import { parseCount } from './export-ticks.js';
import { isMain } from './is-main.js';
import { freePort, ServerProcess } from './processes.js';

/** Targets (issue 34), at 10 M ticks. */
export const TARGETS = { timeVsSim: 1.5, gatewayCpuVsSim: 1.2, bridgeCpuPer10M: 0.5 } as const;

interface Run {
  readonly path: string;
  readonly repetition: number;
  readonly m: Measurement;
  /** From the bridge's series_sent line: bytes of the series' frames, the compression, package CPU. */
  readonly linkBytes?: number;
  readonly compression?: string;
  readonly packageCpuS?: number;
}

interface SeriesSent {
  event: string;
  rows: number;
  bytes: number;
  compression: string;
  package_cpu_ms: number;
}

function lastSeriesSent(logFile: string, rows: number): SeriesSent | undefined {
  const lines = readFileSync(logFile, 'utf8').split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line.startsWith('{') || !line.includes('series_sent')) continue;
    try {
      const e = JSON.parse(line) as SeriesSent;
      if (e.event === 'series_sent' && e.rows === rows) return e;
    } catch {
      // not a log line of ours
    }
  }
  return undefined;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      ticks: { type: 'string', default: '1e7' },
      repeat: { type: 'string', default: '3' },
      compressions: { type: 'string', default: 'none,zstd' },
      format: { type: 'string', default: 'parquet' },
      'bridge-arg': { type: 'string', multiple: true, default: [] },
      'bridge-python': { type: 'string', default: 'build/bridge-venv/bin/python' },
      http: { type: 'string', default: 'node' },
      symbol: { type: 'string', default: 'EURUSD' },
      from: { type: 'string', default: '2024-01-08T00:00:00Z' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write('usage: node dist/bench/bridge-link.js [--ticks 1e7] [--repeat 3] [--compressions none,zstd] [--format parquet|arrow|json]\n' +
      '         [--bridge-arg=--chunk-bytes=N ...] [--bridge-python PATH] [--http node|uws] [--out FILE]\n');
    return;
  }
  const root = repoRoot();
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const size = parseCount(values.ticks);
  const repeat = Math.max(1, Number(values.repeat) || 1);
  const format = values.format as Format;
  const compressions = values.compressions.split(',').map((c) => c.trim()).filter(Boolean);
  const fromMs = Date.parse(values.from);
  const meta = await ticksFile({ cacheDir: path.join(root, 'bench', '.cache'), sizes: [size], symbol: values.symbol, fromMs, log });
  const range = meta.ranges.find((r) => r.count === size)!;
  const bridgePython = path.isAbsolute(values['bridge-python']) ? values['bridge-python'] : path.join(root, values['bridge-python']);
  const skip = bridgeVenv(root, bridgePython, log);
  if (skip !== undefined) throw new Error(`the bridge's venv: ${skip}`);
  const logDir = path.join(root, 'bench', '.cache', 'logs');
  const cli = path.join(root, 'bin', 'tradeapi.js');
  if (!existsSync(path.join(root, 'dist', 'src', 'cli.js'))) throw new Error('dist/src/cli.js is missing: run `npm run build` first');
  const secret = randomBytes(24).toString('hex');
  const http = values.http === 'uws' ? 'uws' : 'node';
  const warm = rangePath(values.symbol, fromMs, fromMs + 5 * 60_000, format);
  const url = (base: string): string => base + rangePath(values.symbol, range.fromMs, range.toMs, format);

  const gateway = (name: string, port: number, env: NodeJS.ProcessEnv): Promise<ServerProcess> =>
    ServerProcess.start({
      name,
      command: process.execPath,
      args: [cli, 'serve', '--host', '127.0.0.1', '--port', String(port)],
      env: { ...process.env, TRADEAPI_HTTP: http, TRADEAPI_SECRET_KEY: '', TRADEAPI_LOG_LEVEL: 'warn', ...env },
      cwd: root,
      logDir,
      readyUrl: `http://127.0.0.1:${port}/health`,
    });

  const paths = ['simulator', ...compressions.map((c) => `bridge, ${c}`)];
  const runs: Run[] = [];
  for (let rep = 0; rep < repeat; rep++) {
    const order = paths.map((_, i) => paths[(i + rep) % paths.length]!);
    for (const p of order) {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const children: ServerProcess[] = [];
      try {
        let bridge: ServerProcess | undefined;
        let env: NodeJS.ProcessEnv = {};
        if (p !== 'simulator') {
          const compression = p.slice('bridge, '.length);
          const bridgePort = await freePort();
          bridge = await ServerProcess.start({
            name: `link-bridge-${compression}`,
            command: bridgePython,
            args: ['-m', 'tradeapi_bridge', '--listen', `127.0.0.1:${bridgePort}`, ...values['bridge-arg']],
            env: {
              ...process.env,
              PYTHONPATH: [path.join(root, 'bridge'), path.join(root, 'bridge', 'tests', 'stand_in')].join(path.delimiter),
              TRADEAPI_BRIDGE_SECRET: secret,
              MT5_STUB_TICKS: `${values.symbol}=${meta.path}`,
            },
            cwd: root,
            logDir,
            readyLog: /"event": ?"listening"/,
          });
          children.push(bridge);
          env = { TRADEAPI_TERMINAL: `tcp://127.0.0.1:${bridgePort}`, TRADEAPI_BRIDGE_SECRET: secret, TRADEAPI_BRIDGE_COMPRESSION: compression };
        }
        const gw = await gateway(`link-gateway-${p.replace(/\W+/g, '-')}`, port, env);
        children.push(gw);
        await measure({ server: 'tradeapi', variant: p, pid: gw.pid, url: base + warm, kind: format, envelope: false }, { size: 0, format, rows: -1 }, 1).catch(() => undefined);
        log(`${p}, repetition ${rep + 1} ...`);
        const m = await measure({ server: p === 'simulator' ? 'tradeapi' : 'bridge', variant: p, pid: gw.pid, ...(bridge ? { sidePid: bridge.pid } : {}), url: url(base), kind: format, envelope: false }, expectedFor(range, format), 1);
        const sent = bridge ? lastSeriesSent(bridge.logFile, range.rows) : undefined;
        runs.push({ path: p, repetition: rep, m, ...(sent ? { linkBytes: sent.bytes, compression: sent.compression, packageCpuS: sent.package_cpu_ms / 1000 } : {}) });
        log(`  ${m.status} ${((m.totalMs ?? NaN) / 1000).toFixed(3)} s, gateway CPU ${m.serverCpuS?.toFixed(2)} s${bridge ? `, bridge CPU ${m.sideCpuS?.toFixed(2)} s (package ${sent ? (sent.package_cpu_ms / 1000).toFixed(2) : '?'} s), ${sent ? (sent.bytes / range.rows).toFixed(2) : '?'} B/tick (${sent?.compression ?? '?'})` : ''}${m.note ? ` — ${m.note}` : ''}`);
      } finally {
        for (const c of children.reverse()) await c.stop();
      }
    }
  }

  // Per path: the fastest valid run; CPU figures are that run's (and the least seen, for noise).
  const best = new Map<string, Run>();
  for (const r of runs) {
    if (r.m.status !== 'ok') continue;
    const b = best.get(r.path);
    if (!b || r.m.totalMs! < b.m.totalMs!) best.set(r.path, r);
  }
  const minOf = (p: string, f: (r: Run) => number | undefined): number | undefined => {
    const v = runs.filter((r) => r.path === p && r.m.status === 'ok').map(f).filter((x): x is number => x !== undefined && !Number.isNaN(x));
    return v.length ? Math.min(...v) : undefined;
  };
  const sim = best.get('simulator');
  const per10M = 1e7 / range.rows;
  const f = (v: number | undefined, d = 2): string => (v === undefined ? '-' : v.toFixed(d));
  const lines = [
    `| path | best total s | vs simulator | gateway CPU s (least) | vs simulator | bridge CPU s (least) | of which package calls | bridge CPU per 10 M excl. package | link bytes a tick | on the link |`,
    `|---|---|---|---|---|---|---|---|---|---|`,
  ];
  const rows: Record<string, unknown>[] = [];
  for (const p of paths) {
    const b = best.get(p);
    if (!b) {
      lines.push(`| ${p} | failed | | | | | | | | |`);
      continue;
    }
    const gwCpu = minOf(p, (r) => r.m.serverCpuS);
    const brCpu = minOf(p, (r) => r.m.sideCpuS);
    const pkg = minOf(p, (r) => r.packageCpuS);
    const own = minOf(p, (r) => (r.m.sideCpuS !== undefined && r.packageCpuS !== undefined ? r.m.sideCpuS - r.packageCpuS : undefined));
    const simCpu = minOf('simulator', (r) => r.m.serverCpuS);
    const row = {
      path: p,
      totalS: b.m.totalMs! / 1000,
      timeVsSim: sim ? b.m.totalMs! / sim.m.totalMs! : undefined,
      gatewayCpuS: gwCpu,
      gatewayCpuVsSim: gwCpu !== undefined && simCpu ? gwCpu / simCpu : undefined,
      bridgeCpuS: brCpu,
      packageCpuS: pkg,
      bridgeOwnCpuPer10M: own !== undefined ? own * per10M : undefined,
      linkBytesPerTick: b.linkBytes !== undefined ? b.linkBytes / range.rows : undefined,
      linkMB: b.linkBytes !== undefined ? b.linkBytes / 1e6 : undefined,
      compression: b.compression,
    };
    rows.push(row);
    lines.push(`| ${p} | ${f(row.totalS, 3)} | ${p === 'simulator' ? '1' : `${f(row.timeVsSim)}×`} | ${f(gwCpu)} | ${p === 'simulator' ? '1' : `${f(row.gatewayCpuVsSim)}×`} | ${f(brCpu)} | ${f(pkg)} | ${f(row.bridgeOwnCpuPer10M)} | ${f(row.linkBytesPerTick)} | ${row.linkMB !== undefined ? `${f(row.linkMB, 1)} MB` : '-'} |`);
  }
  const targets = rows.filter((r) => r.path !== 'simulator').map((r) => {
    const t = r as { path: string; timeVsSim?: number; gatewayCpuVsSim?: number; bridgeOwnCpuPer10M?: number };
    const mark = (v: number | undefined, limit: number): string => (v === undefined ? '-' : `${v.toFixed(2)} ${v <= limit ? 'met' : 'MISSED'}`);
    return `${t.path}: time ${mark(t.timeVsSim, TARGETS.timeVsSim)} (<= ${TARGETS.timeVsSim}x); gateway CPU ${mark(t.gatewayCpuVsSim, TARGETS.gatewayCpuVsSim)} (<= ${TARGETS.gatewayCpuVsSim}x); bridge CPU excl. package ${mark(t.bridgeOwnCpuPer10M, TARGETS.bridgeCpuPer10M)} s per 10 M (<= ${TARGETS.bridgeCpuPer10M})`;
  });
  const load = os.loadavg()[0]!.toFixed(1);
  process.stdout.write(`\n${range.rows} ${values.symbol} ticks as ${format}, best of ${repeat}, load average now ${load}:\n\n${lines.join('\n')}\n\n${targets.join('\n')}\n`);
  const dir = path.join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const day = new Date().toISOString().slice(0, 10);
  let out = values.out;
  for (let i = 1; !out; i++) {
    const file = path.join(dir, `bridge-link-${day}${i === 1 ? '' : `-${i}`}.json`);
    if (!existsSync(file)) out = file;
  }
  writeFileSync(out, `${JSON.stringify({ harness: 'bench/bridge-link.ts', at: new Date().toISOString(), ticks: { symbol: values.symbol, from: iso(range.fromMs), rows: range.rows }, options: values, table: lines, targets, rows, runs }, null, 2)}\n`);
  process.stdout.write(`\nwritten: ${path.relative(process.cwd(), out)}\n`);
}

if (isMain(import.meta.url)) {
  main().catch((e: unknown) => {
    process.stderr.write(`bridge-link: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
