// Big pulls: one request for 1 M or 10 M EURUSD ticks, timed end to end over loopback, against
// tradeapi (JSON, Parquet, Arrow) on its simulator and on the Python bridge (bridge/, over the
// MetaTrader5 stand-in serving the very same ticks), the physical floor (the same number of bytes
// from a prepared buffer) and mt5api, the public FastAPI gateway (bench/peer), fed the same ticks.
//
//   npm run build && node dist/bench/bigpull.js [--sizes 1e6,1e7] [--formats json,parquet,arrow]
//       [--no-peer] [--no-floor] [--bridge|--no-bridge] [--peer-json-10m] [--quick] [--repeat N]
//       [--http node|uws] [--timeout S] [--out FILE]
//
// Every server runs as a child process, started afresh for each (size, format), warmed up with one
// small request of that format, then asked once (or --repeat times) for the range; its RSS is read
// from /proc/<pid>/status during the request. Every answer is checked: row count, first and last
// time_msc. Prints a table, ratios and the issue's targets; writes bench/results/bigpull-<date>.json.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { exportTicks, parseCount, type ExportedRange, type ExportMeta } from './export-ticks.js';
import { isMain } from './is-main.js';
import { freePort, ServerProcess } from './processes.js';
import { pull, type BodyKind } from './pull.js';
import { cpuSeconds, RssProbe, type RssWindow } from './rss-probe.js';

export type Format = 'json' | 'parquet' | 'arrow';
/** bridge: tradeapi with TRADEAPI_TERMINAL=tcp://… in front of the Python bridge and the stand-in. */
export type ServerName = 'tradeapi' | 'bridge' | 'floor' | 'mt5api';
const FORMATS: readonly Format[] = ['json', 'parquet', 'arrow'];
const MB = 1e6;
const MiB = 1024 * 1024;

/** The repository root: the nearest directory above this file with tradeapi's package.json. */
export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'tradeapi') return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error('cannot find the tradeapi repository root');
    dir = up;
  }
}

/** One measured request: times from the median of --repeat runs (by total time), memory from the run that grew most. */
export interface Measurement {
  readonly server: ServerName;
  /** tradeapi: the HTTP adapter; floor: which answer's size it copies; mt5api: its version. */
  readonly variant: string;
  readonly size: number;
  readonly format: Format;
  readonly expectedRows: number;
  readonly status: 'ok' | 'invalid' | 'failed' | 'skipped';
  readonly note?: string;
  readonly rows?: number;
  readonly bytes?: number;
  readonly headersMs?: number;
  readonly ttfbMs?: number;
  readonly totalMs?: number;
  readonly rowsPerS?: number;
  readonly mbPerS?: number;
  readonly rssBeforeMiB?: number;
  readonly rssPeakMiB?: number;
  readonly rssGrowthMiB?: number;
  readonly rssExactPeak?: boolean;
  readonly serverCpuS?: number;
  /** The bridge path: the bridge process's own RSS before and at its peak, and its CPU seconds. */
  readonly sideRssBeforeMiB?: number;
  readonly sideRssPeakMiB?: number;
  /** Of which anonymous (sampled): VmRSS also counts the stand-in's memory-mapped .npy pages. */
  readonly sideRssAnonPeakMiB?: number;
  readonly sideCpuS?: number;
  readonly load1?: number;
  readonly runs?: readonly RunFigures[];
}

export interface RunFigures {
  readonly headersMs: number;
  readonly ttfbMs: number;
  readonly totalMs: number;
  readonly bytes: number;
  readonly rss: RssWindow | undefined;
  /** CPU seconds the server process used during the request (all its threads). */
  readonly serverCpuS: number;
  /** The second process behind the server (the bridge), when there is one. */
  readonly sideRss?: RssWindow | undefined;
  readonly sideCpuS?: number;
  /** 1-minute load average when the request started (other work on the machine skews figures). */
  readonly load1: number;
}

/** What the harness pulls from: a URL and, for RSS, the pid of the process that answers it. */
export interface Subject {
  readonly server: ServerName;
  readonly variant: string;
  readonly pid: number | undefined;
  /** A second process whose RSS and CPU are read too (the bridge behind the gateway). */
  readonly sidePid?: number;
  /** The URL to GET. */
  readonly url: string;
  readonly kind: BodyKind;
  /** mt5api wraps rows in {"data": [...], "count": N, "format": "json"}. */
  readonly envelope: boolean;
  /** Sent as Accept-Encoding (the body is decoded after the clock stops). */
  readonly acceptEncoding?: string;
}

export interface Expected {
  readonly size: number;
  readonly format: Format;
  readonly rows: number;
  readonly firstTimeMsc?: number;
  readonly lastTimeMsc?: number;
}

const median = <T>(items: readonly T[], key: (t: T) => number): T => [...items].sort((a, b) => key(a) - key(b))[Math.floor((items.length - 1) / 2)]!;

/**
 * Pulls `subject.url` `repeat` times, checks each answer against `expected`, and returns the
 * median run's figures. Never throws: a failed request is a 'failed' measurement with a note.
 */
export async function measure(subject: Subject, expected: Expected, repeat = 1, timeoutMs = 600_000): Promise<Measurement> {
  const base = { server: subject.server, variant: subject.variant, size: expected.size, format: expected.format, expectedRows: expected.rows };
  const runs: RunFigures[] = [];
  let rows: number | undefined;
  const problems: string[] = [];
  for (let i = 0; i < repeat; i++) {
    const probe = subject.pid !== undefined ? new RssProbe(subject.pid) : undefined;
    const sideProbe = subject.sidePid !== undefined ? new RssProbe(subject.sidePid) : undefined;
    const load1 = os.loadavg()[0]!;
    const cpuBefore = subject.pid !== undefined ? cpuSeconds(subject.pid) : Number.NaN;
    const sideCpuBefore = subject.sidePid !== undefined ? cpuSeconds(subject.sidePid) : Number.NaN;
    probe?.start();
    sideProbe?.start();
    let result;
    try {
      result = await pull(subject.url, subject.kind, timeoutMs, subject.envelope, subject.acceptEncoding);
    } catch (e) {
      probe?.stop();
      sideProbe?.stop();
      return { ...base, status: 'failed', note: e instanceof Error ? e.message : String(e) };
    }
    const rss = probe?.stop();
    const sideRss = sideProbe?.stop();
    const serverCpuS = subject.pid !== undefined ? cpuSeconds(subject.pid) - cpuBefore : Number.NaN;
    const sideCpuS = subject.sidePid !== undefined ? cpuSeconds(subject.sidePid) - sideCpuBefore : undefined;
    if (result.status !== 200) return { ...base, status: 'failed', note: `HTTP ${result.status} ${result.errorText.slice(0, 300)}`.trim() };
    runs.push({
      headersMs: result.headersMs,
      ttfbMs: result.ttfbMs,
      totalMs: result.totalMs,
      bytes: result.bytes,
      rss,
      serverCpuS,
      ...(subject.sidePid !== undefined ? { sideRss, sideCpuS } : {}),
      load1,
    });
    if (subject.kind === 'opaque') continue;
    try {
      const check = await result.sink.check();
      rows = check.rows;
      if (check.rows !== expected.rows) problems.push(`${check.rows} rows, expected ${expected.rows}`);
      if (expected.firstTimeMsc !== undefined && check.firstTimeMsc !== expected.firstTimeMsc) {
        problems.push(`first time_msc ${check.firstTimeMsc}, expected ${expected.firstTimeMsc}`);
      }
      if (expected.lastTimeMsc !== undefined && check.lastTimeMsc !== expected.lastTimeMsc) {
        problems.push(`last time_msc ${check.lastTimeMsc}, expected ${expected.lastTimeMsc}`);
      }
    } catch (e) {
      problems.push(`unreadable ${subject.kind}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const run = median(runs, (r) => r.totalMs);
  // Memory: the run that grew most (usually the first; later ones reuse what it left behind).
  const rssRuns = runs.map((r) => r.rss).filter((r): r is RssWindow => r !== undefined);
  const rssRun = rssRuns.length ? rssRuns.reduce((a, b) => (b.growth > a.growth ? b : a)) : undefined;
  const sideRuns = runs.map((r) => r.sideRss).filter((r): r is RssWindow => r !== undefined);
  const sideRun = sideRuns.length ? sideRuns.reduce((a, b) => (b.peak > a.peak ? b : a)) : undefined;
  const seconds = run.totalMs / 1000;
  return {
    ...base,
    status: problems.length ? 'invalid' : 'ok',
    ...(problems.length ? { note: [...new Set(problems)].join('; ') } : {}),
    rows: subject.kind === 'opaque' ? expected.rows : rows,
    bytes: run.bytes,
    headersMs: run.headersMs,
    ttfbMs: run.ttfbMs,
    totalMs: run.totalMs,
    rowsPerS: expected.rows / seconds,
    serverCpuS: run.serverCpuS,
    load1: run.load1,
    mbPerS: run.bytes / MB / seconds,
    ...(rssRun ? { rssBeforeMiB: rssRun.before / MiB, rssPeakMiB: rssRun.peak / MiB, rssGrowthMiB: rssRun.growth / MiB, rssExactPeak: rssRun.exactPeak } : {}),
    ...(sideRun ? { sideRssBeforeMiB: sideRun.before / MiB, sideRssPeakMiB: sideRun.peak / MiB, sideRssAnonPeakMiB: sideRun.anonPeak / MiB } : {}),
    ...(run.sideCpuS !== undefined ? { sideCpuS: run.sideCpuS } : {}),
    runs,
  };
}

// ---------------------------------------------------------------------------------------------
// Requests

export const iso = (ms: number): string => new Date(ms).toISOString();

/** /ticks/range for exactly the exported range (count on /ticks/from is capped by both servers). */
export function rangePath(symbol: string, fromMs: number, toMs: number, format: Format): string {
  const q = new URLSearchParams({ symbol, date_from: iso(fromMs), date_to: iso(toMs), flags: 'COPY_TICKS_ALL', format });
  return `/ticks/range?${q.toString()}`;
}

export function expectedFor(range: ExportedRange, format: Format): Expected {
  return { size: range.count, format, rows: range.rows, firstTimeMsc: range.firstTimeMsc, lastTimeMsc: range.lastTimeMsc };
}

// ---------------------------------------------------------------------------------------------
// Ratios and targets

export interface Ratio {
  readonly size: number;
  readonly format: Format;
  /** mt5api total time / tradeapi total time (> 1: tradeapi is faster). */
  readonly speedupVsPeer?: number;
  /** mt5api TTFB / tradeapi TTFB. */
  readonly ttfbVsPeer?: number;
  /** tradeapi total time / floor total time (1 = at the floor). */
  readonly timesFloor?: number;
  /** tradeapi over the bridge: its total time / tradeapi on the simulator's (target <= 1.5). */
  readonly bridgeVsSim?: number;
  /** The bridge process's peak RSS during that request, MiB, and its anonymous part (sampled). */
  readonly bridgeRssPeakMiB?: number;
  readonly bridgeRssAnonPeakMiB?: number;
}

/** The bridge path's target: at most this many times the simulator path's total time. */
export const BRIDGE_TARGET = 1.5;

export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly pass: boolean | undefined;
}

const ok = (m: Measurement | undefined): m is Measurement & { totalMs: number; ttfbMs: number; rowsPerS: number } =>
  m !== undefined && m.status === 'ok' && m.totalMs !== undefined;

function find(ms: readonly Measurement[], server: ServerName, size: number, format: Format): Measurement | undefined {
  return ms.find((m) => m.server === server && m.size === size && m.format === format);
}

export function ratios(ms: readonly Measurement[]): Ratio[] {
  const out: Ratio[] = [];
  for (const ours of ms.filter((m) => m.server === 'tradeapi')) {
    if (!ok(ours)) continue;
    const peer = find(ms, 'mt5api', ours.size, ours.format);
    const floor = find(ms, 'floor', ours.size, ours.format);
    const bridge = find(ms, 'bridge', ours.size, ours.format);
    out.push({
      size: ours.size,
      format: ours.format,
      ...(ok(peer) ? { speedupVsPeer: peer.totalMs / ours.totalMs, ttfbVsPeer: peer.ttfbMs / ours.ttfbMs } : {}),
      ...(ok(floor) ? { timesFloor: ours.totalMs / floor.totalMs } : {}),
      ...(ok(bridge) ? { bridgeVsSim: bridge.totalMs / ours.totalMs, ...(bridge.sideRssPeakMiB !== undefined ? { bridgeRssPeakMiB: bridge.sideRssPeakMiB } : {}), ...(bridge.sideRssAnonPeakMiB !== undefined ? { bridgeRssAnonPeakMiB: bridge.sideRssAnonPeakMiB } : {}) } : {}),
    });
  }
  return out;
}

/** The issue's targets, at 10 M ticks. */
export function targets(ms: readonly Measurement[], size = 10_000_000): TargetCheck[] {
  const parquet = find(ms, 'tradeapi', size, 'parquet');
  const json = find(ms, 'tradeapi', size, 'json');
  const arrow = find(ms, 'tradeapi', size, 'arrow');
  const peer = find(ms, 'mt5api', size, 'parquet');
  const bridge = find(ms, 'bridge', size, 'parquet');
  const not = 'not measured';
  const rate = (m: Measurement | undefined): string => (ok(m) ? `${(m.rowsPerS / 1e6).toFixed(2)} M rows/s` : (m?.note ?? not));
  return [
    { target: 'parquet 10M: TTFB < 100 ms', measured: ok(parquet) ? `${parquet.ttfbMs.toFixed(1)} ms` : (parquet?.note ?? not), pass: ok(parquet) ? parquet.ttfbMs < 100 : undefined },
    {
      target: 'parquet 10M: server peak RSS growth < 256 MiB',
      measured: ok(parquet) && parquet.rssGrowthMiB !== undefined ? `${parquet.rssGrowthMiB.toFixed(0)} MiB` : not,
      pass: ok(parquet) && parquet.rssGrowthMiB !== undefined ? parquet.rssGrowthMiB < 256 : undefined,
    },
    { target: 'parquet 10M: >= 10 M rows/s end to end', measured: rate(parquet), pass: ok(parquet) ? parquet.rowsPerS >= 10e6 : undefined },
    {
      target: 'parquet 10M: >= 3x faster than mt5api',
      measured: ok(parquet) && ok(peer) ? `${(peer.totalMs / parquet.totalMs).toFixed(2)}x` : not,
      pass: ok(parquet) && ok(peer) ? peer.totalMs / parquet.totalMs >= 3 : undefined,
    },
    { target: 'json 10M: >= 2 M rows/s', measured: rate(json), pass: ok(json) ? json.rowsPerS >= 2e6 : undefined },
    { target: 'arrow 10M: >= 20 M rows/s', measured: rate(arrow), pass: ok(arrow) ? arrow.rowsPerS >= 20e6 : undefined },
    {
      target: `parquet 10M over the bridge: <= ${BRIDGE_TARGET}x the simulator's time`,
      measured: ok(parquet) && ok(bridge) ? `${(bridge.totalMs / parquet.totalMs).toFixed(2)}x` : (bridge?.note ?? not),
      pass: ok(parquet) && ok(bridge) ? bridge.totalMs / parquet.totalMs <= BRIDGE_TARGET : undefined,
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Printing

const fmtSize = (n: number): string => (n % 1_000_000 === 0 ? `${n / 1_000_000}M` : n % 1000 === 0 ? `${n / 1000}k` : String(n));
const num = (v: number | undefined, digits: number): string => (v === undefined || Number.isNaN(v) ? '-' : v.toFixed(digits));

export function table(ms: readonly Measurement[]): string {
  const header = ['size', 'format', 'server', 'variant', 'status', 'rows', 'MB', 'TTFB ms', 'total s', 'M rows/s', 'MB/s', 'RSS0 MiB', 'peak+ MiB', 'srv CPU s', 'br peak MiB', 'br anon MiB', 'br CPU s', 'load'];
  const rows = ms.map((m) => [
    fmtSize(m.size),
    m.format,
    m.server,
    m.variant,
    m.status,
    m.rows === undefined ? '-' : String(m.rows),
    num(m.bytes === undefined ? undefined : m.bytes / MB, 1),
    num(m.ttfbMs, 1),
    num(m.totalMs === undefined ? undefined : m.totalMs / 1000, 3),
    num(m.rowsPerS === undefined ? undefined : m.rowsPerS / 1e6, 2),
    num(m.mbPerS, 0),
    num(m.rssBeforeMiB, 0),
    num(m.rssGrowthMiB, 0),
    num(m.serverCpuS, 2),
    num(m.sideRssPeakMiB, 0),
    num(m.sideRssAnonPeakMiB, 0),
    num(m.sideCpuS, 2),
    num(m.load1, 1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i < 5 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const notes = ms.filter((m) => m.note).map((m) => `  ${fmtSize(m.size)} ${m.format} ${m.server}: ${m.note}`);
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), ...(notes.length ? ['', 'notes:', ...notes] : [])].join('\n');
}

export function ratioLines(rs: readonly Ratio[]): string {
  return rs
    .map((r) => {
      const parts = [`${fmtSize(r.size).padStart(4)} ${r.format.padEnd(7)}`];
      parts.push(`vs mt5api: ${r.speedupVsPeer !== undefined ? `${r.speedupVsPeer.toFixed(2)}x its speed, first byte ${num(r.ttfbVsPeer, 1)}x sooner` : '-'}`.padEnd(52));
      parts.push(`vs floor: ${r.timesFloor !== undefined ? `${r.timesFloor.toFixed(2)}x its time` : '-'}`.padEnd(24));
      parts.push(
        `bridge/sim: ${r.bridgeVsSim !== undefined ? `${r.bridgeVsSim.toFixed(2)}x (target <= ${BRIDGE_TARGET}x${r.bridgeVsSim <= BRIDGE_TARGET ? ', met' : ', missed'})${r.bridgeRssPeakMiB !== undefined ? `, bridge peak RSS ${r.bridgeRssPeakMiB.toFixed(0)} MiB (anonymous ${num(r.bridgeRssAnonPeakMiB, 0)})` : ''}` : '-'}`,
      );
      return parts.join('  ');
    })
    .join('\n');
}

export function targetLines(ts: readonly TargetCheck[]): string {
  return ts.map((t) => `${t.pass === undefined ? '  -  ' : t.pass ? ' PASS' : ' FAIL'}  ${t.target.padEnd(58)} ${t.measured}`).join('\n');
}

// ---------------------------------------------------------------------------------------------
// The run

export interface RunOptions {
  readonly sizes: readonly number[];
  readonly formats: readonly Format[];
  readonly peer: boolean;
  readonly floor: boolean;
  /** The bridge path: true (required), false (left out), undefined (when the venv can be made). */
  readonly bridge: boolean | undefined;
  /** The bridge's Python (a venv with numpy, made from bridge/tests/requirements.txt if missing). */
  readonly bridgePython: string;
  /** The bridge's --window-rows (rows per copy_ticks_from call); undefined: its default (100 000). */
  readonly bridgeWindowRows?: number | undefined;
  readonly peerJsonLarge: boolean;
  readonly repeat: number;
  readonly http: 'node' | 'uws';
  readonly timeoutMs: number;
  readonly symbol: string;
  readonly fromMs: number;
  readonly cacheDir: string;
  readonly peerPython: string;
  readonly peerLogLevel: string;
  readonly log: (line: string) => void;
}

/** Peer JSON answers above this many rows take minutes and ~19 GB (stack-notes): opt-in. */
const PEER_JSON_LIMIT = 1_000_000;

/** The exported ticks for these sizes, from bench/.cache when already there (also bench/bridge-link.ts). */
export async function ticksFile(options: Pick<RunOptions, 'cacheDir' | 'sizes' | 'symbol' | 'fromMs' | 'log'>): Promise<ExportMeta> {
  mkdirSync(options.cacheDir, { recursive: true });
  const largest = Math.max(...options.sizes);
  const file = path.join(options.cacheDir, `${options.symbol}-${iso(options.fromMs).replace(/[:.]/g, '')}-${largest}.npy`);
  const metaFile = `${file}.json`;
  if (existsSync(file) && existsSync(metaFile)) {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as ExportMeta;
    if (options.sizes.every((n) => meta.ranges.some((r) => r.count === n))) return meta;
  }
  options.log(`exporting ${largest} ${options.symbol} ticks from the simulator to ${file} ...`);
  const started = performance.now();
  const meta = await exportTicks({ path: file, symbol: options.symbol, fromMs: options.fromMs, sizes: options.sizes });
  options.log(`  ${meta.rows} ticks in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return meta;
}

/**
 * The bridge's venv (`build/bridge-venv` by default, as test/bridge makes it): made with
 * `python3 -m venv` + `pip install -r bridge/tests/requirements.txt` when missing. Returns why it
 * cannot be used, or undefined.
 */
export function bridgeVenv(root: string, python: string, log: (line: string) => void): string | undefined {
  const numpy = (): boolean => existsSync(python) && spawnSync(python, ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0;
  if (numpy()) return undefined;
  const venv = path.dirname(path.dirname(python));
  if (spawnSync('python3', ['--version'], { stdio: 'ignore' }).status !== 0) return 'python3 is not installed';
  log(`making the bridge's venv in ${venv} ...`);
  let r = spawnSync('python3', ['-m', 'venv', venv], { encoding: 'utf8' });
  if (r.status !== 0) return `python3 -m venv is unavailable: ${(r.stderr || '').trim().split('\n').pop()}`;
  r = spawnSync(python, ['-m', 'pip', 'install', '-q', '-r', path.join(root, 'bridge', 'tests', 'requirements.txt')], { encoding: 'utf8' });
  if (r.status !== 0) return `pip install -r bridge/tests/requirements.txt failed: ${(r.stderr || '').trim().split('\n').pop()}`;
  return numpy() ? undefined : `numpy does not import in ${venv}`;
}

export async function run(options: RunOptions): Promise<{ measurements: Measurement[]; meta: ExportMeta; logDir: string }> {
  const root = repoRoot();
  const log = options.log;
  const logDir = path.join(options.cacheDir, 'logs');
  const meta = await ticksFile(options);
  const ranges = options.sizes.map((n) => meta.ranges.find((r) => r.count === n)!);
  const measurements: Measurement[] = [];
  const add = (m: Measurement): void => {
    measurements.push(m);
    const figures = m.totalMs !== undefined ? `${(m.totalMs / 1000).toFixed(3)} s, TTFB ${m.ttfbMs?.toFixed(1)} ms, ${((m.bytes ?? 0) / MB).toFixed(1)} MB, +${m.rssGrowthMiB?.toFixed(0) ?? '?'} MiB` : '';
    log(`  ${m.server} ${fmtSize(m.size)} ${m.format}: ${m.status} ${figures}${m.note ? ` (${m.note})` : ''}`);
  };
  const warmPath = (format: Format): string => rangePath(options.symbol, options.fromMs, options.fromMs + 5 * 60_000, format);

  const cli = path.join(root, 'bin', 'tradeapi.js');
  if (!existsSync(path.join(root, 'dist', 'src', 'cli.js'))) throw new Error('dist/src/cli.js is missing: run `npm run build` first');
  const python = path.isAbsolute(options.peerPython) ? options.peerPython : path.join(root, options.peerPython);
  const serve = path.join(root, 'bench', 'peer', 'serve.py');
  const bridgePython = path.isAbsolute(options.bridgePython) ? options.bridgePython : path.join(root, options.bridgePython);
  let bridgeSkip: string | undefined;
  if (options.bridge === false) bridgeSkip = undefined;
  else {
    bridgeSkip = bridgeVenv(root, bridgePython, log);
    if (bridgeSkip !== undefined && options.bridge === true) throw new Error(`--bridge: ${bridgeSkip}`);
    if (bridgeSkip !== undefined) log(`bridge path skipped: ${bridgeSkip}`);
  }
  const bridgeSecret = randomBytes(24).toString('hex');

  /** Starts a server, warms it up with a small request of `format`, measures the range, stops it. */
  const measureFresh = async (
    server: ServerName,
    variant: string,
    range: ExportedRange,
    format: Format,
    /** Starts the HTTP server (and any process behind it, pushed onto `children` first). */
    start: (port: number, base: string, children: ServerProcess[]) => Promise<ServerProcess>,
  ): Promise<void> => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    log(`${server} ${fmtSize(range.count)} ${format} ...`);
    const children: ServerProcess[] = [];
    try {
      const child = await start(port, base, children);
      const side = children.find((c) => c !== child);
      await pull(base + warmPath(format), 'opaque', options.timeoutMs);
      const url = base + rangePath(options.symbol, range.fromMs, range.toMs, format);
      const subject: Subject = { server, variant, pid: child.pid, ...(side ? { sidePid: side.pid } : {}), url, kind: format, envelope: server === 'mt5api' && format === 'json' };
      add(await measure(subject, expectedFor(range, format), options.repeat, options.timeoutMs));
    } catch (e) {
      add({ server, variant, size: range.count, format, expectedRows: range.rows, status: 'failed', note: e instanceof Error ? e.message.split('\n')[0] : String(e) });
    } finally {
      // The gateway first, then what is behind it.
      for (const child of children.reverse()) await child.stop();
    }
  };

  // The floor serves every size from one process; its buffers are prepared before each pull.
  let floor: { base: string; process: ServerProcess } | undefined;
  if (options.floor) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const floorScript = fileURLToPath(new URL(`./floor-server${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url));
    const child = await ServerProcess.start({ name: 'floor', command: process.execPath, args: [...process.execArgv, floorScript, '--port', String(port)], logDir, readyUrl: `${base}/bytes?n=0` });
    floor = { base, process: child };
    await fetch(`${base}/prepare?bytes=65536`, { method: 'POST' });
    await pull(`${base}/bytes?n=65536`, 'opaque', options.timeoutMs); // warm-up, like the others
  }

  // For each (size, format): tradeapi, the floor, mt5api, back to back, so that whatever else the
  // machine is doing weighs on the three alike.
  try {
    for (const range of ranges) {
      for (const format of options.formats) {
        const variant = options.http === 'node' ? 'node:http' : 'uWS';
        const gateway = (name: string, port: number, base: string, env: NodeJS.ProcessEnv): Promise<ServerProcess> =>
          ServerProcess.start({
            name,
            command: process.execPath,
            args: [cli, 'serve', '--host', '127.0.0.1', '--port', String(port)],
            env: { ...process.env, TRADEAPI_HTTP: options.http, TRADEAPI_SECRET_KEY: '', ...env },
            cwd: root,
            logDir,
            readyUrl: `${base}/health`,
          });
        await measureFresh('tradeapi', variant, range, format, async (port, base, children) => {
          children.push(await gateway(`tradeapi-${range.count}-${format}`, port, base, {}));
          return children[0]!;
        });
        const ours = measurements[measurements.length - 1]!;

        // The same gateway in front of the bridge, whose stand-in serves the exported ticks.
        if (options.bridge !== false) {
          const bridgeVariant = `${variant} + bridge${options.bridgeWindowRows !== undefined ? ` w${fmtSize(options.bridgeWindowRows)}` : ''}`;
          if (bridgeSkip !== undefined) {
            add({ server: 'bridge', variant: bridgeVariant, size: range.count, format, expectedRows: range.rows, status: 'skipped', note: bridgeSkip });
          } else {
            await measureFresh('bridge', bridgeVariant, range, format, async (port, base, children) => {
              const bridgePort = await freePort();
              const bridge = await ServerProcess.start({
                name: `bridge-${range.count}-${format}`,
                command: bridgePython,
                args: ['-m', 'tradeapi_bridge', '--listen', `127.0.0.1:${bridgePort}`, ...(options.bridgeWindowRows !== undefined ? ['--window-rows', String(options.bridgeWindowRows)] : [])],
                env: {
                  ...process.env,
                  PYTHONPATH: [path.join(root, 'bridge'), path.join(root, 'bridge', 'tests', 'stand_in')].join(path.delimiter),
                  TRADEAPI_BRIDGE_SECRET: bridgeSecret,
                  MT5_STUB_TICKS: `${options.symbol}=${meta.path}`,
                },
                cwd: root,
                logDir,
                readyLog: /"event": ?"listening"/,
              });
              children.push(bridge);
              const env = { TRADEAPI_TERMINAL: `tcp://127.0.0.1:${bridgePort}`, TRADEAPI_BRIDGE_SECRET: bridgeSecret };
              const http = await gateway(`tradeapi-bridge-${range.count}-${format}`, port, base, env);
              children.push(http);
              return http;
            });
          }
        }

        if (floor) {
          const floorVariant = `= tradeapi ${format}`;
          if (ours.bytes === undefined) {
            add({ server: 'floor', variant: floorVariant, size: range.count, format, expectedRows: range.rows, status: 'skipped', note: 'no tradeapi answer to copy the size of' });
          } else {
            log(`floor ${fmtSize(range.count)} ${format} (${ours.bytes} bytes) ...`);
            await fetch(`${floor.base}/prepare?bytes=${ours.bytes}`, { method: 'POST' });
            const subject: Subject = { server: 'floor', variant: floorVariant, pid: floor.process.pid, url: `${floor.base}/bytes?n=${ours.bytes}`, kind: 'opaque', envelope: false };
            add(await measure(subject, { size: range.count, format, rows: range.rows }, options.repeat, options.timeoutMs));
            await fetch(`${floor.base}/prepare?bytes=${ours.bytes}`, { method: 'DELETE' });
          }
        }

        if (options.peer) {
          const peerVariant = 'mt5api 1.0.6';
          const skip = (note: string): void => add({ server: 'mt5api', variant: peerVariant, size: range.count, format, expectedRows: range.rows, status: 'skipped', note });
          if (format === 'arrow') skip('mt5api answers JSON or Parquet only');
          else if (format === 'json' && range.rows > PEER_JSON_LIMIT && !options.peerJsonLarge) skip(`JSON above ${fmtSize(PEER_JSON_LIMIT)} rows is opt-in (--peer-json-10m): ~150 s and ~19 GB RSS`);
          else if (!existsSync(python)) skip(`no peer venv at ${python} (see bench/peer/requirements.txt)`);
          else {
            await measureFresh('mt5api', peerVariant, range, format, (port, base) =>
              ServerProcess.start({
                name: `mt5api-${range.count}-${format}`,
                command: python,
                args: [serve, '--host', '127.0.0.1', '--port', String(port), '--ticks', `${options.symbol}=${meta.path}`, '--log-level', options.peerLogLevel],
                cwd: root,
                logDir,
                readyUrl: `${base}/health`,
                readyTimeoutMs: 60_000,
              }),
            );
          }
        }
      }
    }
  } finally {
    await floor?.process.stop();
  }
  const order: readonly ServerName[] = ['tradeapi', 'bridge', 'floor', 'mt5api'];
  measurements.sort((x, y) => order.indexOf(x.server) - order.indexOf(y.server) || x.size - y.size || FORMATS.indexOf(x.format) - FORMATS.indexOf(y.format));
  return { measurements, meta, logDir };
}

function resultsPath(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const day = new Date().toISOString().slice(0, 10);
  for (let i = 1; ; i++) {
    const file = path.join(dir, `bigpull-${day}${i === 1 ? '' : `-${i}`}.json`);
    if (!existsSync(file)) return file;
  }
}

export function parseFormats(text: string): Format[] {
  const list = text.split(',').map((s) => s.trim().toLowerCase());
  for (const f of list) if (!(FORMATS as readonly string[]).includes(f)) throw new Error(`unknown format ${f} (json, parquet, arrow)`);
  return list as Format[];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string' },
      formats: { type: 'string', default: 'json,parquet,arrow' },
      'no-peer': { type: 'boolean', default: false },
      'no-floor': { type: 'boolean', default: false },
      bridge: { type: 'boolean' },
      'no-bridge': { type: 'boolean', default: false },
      'bridge-python': { type: 'string', default: 'build/bridge-venv/bin/python' },
      'bridge-window-rows': { type: 'string' },
      'peer-json-10m': { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      repeat: { type: 'string', default: '1' },
      http: { type: 'string', default: 'node' },
      timeout: { type: 'string', default: '600' },
      symbol: { type: 'string', default: 'EURUSD' },
      from: { type: 'string', default: '2024-01-08T00:00:00Z' },
      out: { type: 'string' },
      'cache-dir': { type: 'string' },
      'peer-python': { type: 'string', default: 'bench/peer/.venv/bin/python' },
      'peer-log-level': { type: 'string', default: 'warning' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      'usage: node dist/bench/bigpull.js [--sizes 1e6,1e7] [--formats json,parquet,arrow] [--no-peer] [--no-floor]\n' +
        '         [--bridge|--no-bridge] [--bridge-python PATH] [--bridge-window-rows N] [--peer-json-10m] [--quick] [--repeat N] [--http node|uws] [--timeout S] [--out FILE]\n' +
        '         [--symbol EURUSD] [--from 2024-01-08T00:00:00Z] [--cache-dir DIR] [--peer-python PATH] [--peer-log-level warning|info]\n' +
        '--quick: sizes 1e5 unless --sizes is given (a smoke run of every piece in seconds).\n',
    );
    return;
  }
  const root = repoRoot();
  const sizes = (values.sizes ?? (values.quick ? '1e5' : '1e6,1e7')).split(',').map(parseCount);
  const http = values.http === 'uws' ? 'uws' : 'node';
  const fromMs = Date.parse(values.from);
  if (Number.isNaN(fromMs)) throw new Error(`--from: not a date: ${values.from}`);
  const options: RunOptions = {
    sizes,
    formats: parseFormats(values.formats),
    peer: !values['no-peer'],
    floor: !values['no-floor'],
    bridge: values['no-bridge'] ? false : values.bridge === true ? true : undefined,
    bridgePython: values['bridge-python'],
    bridgeWindowRows: values['bridge-window-rows'] !== undefined ? parseCount(values['bridge-window-rows']) : undefined,
    peerJsonLarge: values['peer-json-10m'],
    repeat: Math.max(1, Number(values.repeat) || 1),
    http,
    timeoutMs: Number(values.timeout) * 1000,
    symbol: values.symbol,
    fromMs,
    cacheDir: values['cache-dir'] ?? path.join(root, 'bench', '.cache'),
    peerPython: values['peer-python'],
    peerLogLevel: values['peer-log-level'],
    log: (line) => process.stderr.write(`${line}\n`),
  };
  const started = new Date();
  const { measurements, meta, logDir } = await run(options);
  const rs = ratios(measurements);
  const ts = targets(measurements);
  process.stdout.write(`\n${table(measurements)}\n\nratios (tradeapi against the others, same range; speed = their total time / ours; bridge/sim = over the bridge / on the simulator):\n${ratioLines(rs)}\n\ntargets (issue, 10 M ticks):\n${targetLines(ts)}\n`);
  const out = values.out ?? resultsPath(path.join(root, 'bench', 'results'));
  const cpus = os.cpus();
  const report = {
    harness: 'bench/bigpull.ts',
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { cpus: cpus.length, cpuModel: cpus[0]?.model ?? '', memGiB: os.totalmem() / 2 ** 30, kernel: os.release(), node: process.version, platform: `${process.platform}-${process.arch}` },
    options: { ...options, log: undefined, cacheDir: path.relative(root, options.cacheDir) },
    ticks: { symbol: meta.symbol, seed: meta.seed, from: iso(meta.fromMs), ranges: meta.ranges.filter((r) => sizes.includes(r.count)).map((r) => ({ ...r, to: iso(r.toMs) })) },
    measurements,
    ratios: rs,
    targets: ts,
    serverLogs: path.relative(root, logDir),
  };
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\nwritten: ${path.relative(process.cwd(), out)}\n`);
}

if (isMain(import.meta.url)) {
  main().catch((e: unknown) => {
    process.stderr.write(`bigpull: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
