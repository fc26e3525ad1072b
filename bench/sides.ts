// Side by side: this tree against a baseline build (by default commit 4a63a6d, issue 24's "today"),
// on both HTTP adapters, in one run, interleaved, so that whatever else the machine does weighs on
// both alike. uWebSockets.js needs glibc >= 2.38: where it does not load on the host, its servers
// run inside the Debian 13 root that scripts/uws-chroot-test.sh builds (bench/uws-root.sh, in a
// private mount namespace: the repository trees are bind-mounted at their own paths, the client
// stays on the host and talks to it over loopback).
//
//   npm run build:ts && node dist/bench/sides.js [--baseline DIR] [--adapters node,uws]
//       [--sizes 1e7] [--formats parquet,arrow,json] [--repeat 3] [--no-small] [--small-seconds 8]
//       [--connections 100] [--encodings gzip,br] [--out FILE]
//
// Big pulls: for every (size, format) and repetition, each (adapter, build) gets a fresh server,
// one warm-up request, then the range (bench/bigpull.ts's measure(): rows and edges checked); the
// order of the builds alternates between repetitions; the best run of each is kept (the noise on
// a shared 2-core machine is one-sided: other work only ever slows a run down). Small requests:
// the repository's own load generator (bench/lean-load.ts: keep-alive TCP connections from this
// process parsed just enough, nothing installed or fetched at run time; node's http client was the
// ceiling near 25 k req/s) against each (adapter, build), on the same two cores as the server. Prints a markdown table with the ratios and issue 24's targets
// and writes it (and every run, as JSON) to bench/results/sides-<date>.{md,json}.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { expectedFor, measure, parseFormats, rangePath, repoRoot, type Format, type Measurement } from './bigpull.js';
import { exportTicks, parseCount, type ExportMeta } from './export-ticks.js';
import { isMain } from './is-main.js';
import { leanLoadFor } from './lean-load.js';
import { freePort, ServerProcess } from './processes.js';
import { pull } from './pull.js';
import { cpuSeconds } from './rss-probe.js';

export const BASELINE_COMMIT = '4a63a6d';

export type AdapterName = 'node' | 'uws';
export type BuildName = 'baseline' | 'new';

interface Build {
  readonly name: BuildName;
  readonly root: string;
  readonly commit: string;
}

/** Issue 24's targets. */
export const TARGETS = {
  speedup: { parquet: 1.8, arrow: 1.8, json: 1.6 } as Record<Format, number>,
  rowsPerS: { parquet: 20e6, arrow: 25e6, json: 4e6 } as Record<Format, number>,
  ttfbMs: 50,
  rssGrowthMiB: 128,
  healthUwsOverNode: 1.5,
};

// ---------------------------------------------------------------------------------------------
// Servers

const here = path.dirname(fileURLToPath(import.meta.url));
/** bench/uws-root.sh (this file runs from bench/ or dist/bench/). */
function uwsRootScript(root: string): string {
  return path.join(root, 'bench', 'uws-root.sh');
}

/** Whether uWebSockets.js loads on this host (with the given build's node_modules). */
export function uwsLoadsHere(root: string): boolean {
  return spawnSync(process.execPath, ['-e', "require('uWebSockets.js')"], { cwd: root, stdio: 'ignore' }).status === 0;
}

export interface ServerOptions {
  readonly build: Build;
  readonly adapter: AdapterName;
  /** uWS runs inside the Debian 13 root. */
  readonly inRoot: boolean;
  /** Directories to bind-mount into the root. */
  readonly mounts: readonly string[];
  readonly port: number;
  readonly env: NodeJS.ProcessEnv;
  readonly logDir: string;
  readonly name: string;
}

export function startServer(o: ServerOptions): Promise<ServerProcess> {
  const cli = path.join(o.build.root, 'bin', 'tradeapi.js');
  const serve = [cli, 'serve', '--host', '127.0.0.1', '--port', String(o.port)];
  const env = { ...process.env, TRADEAPI_HTTP: o.adapter, TRADEAPI_SECRET_KEY: '', ...o.env };
  return ServerProcess.start({
    name: o.name,
    command: o.inRoot ? 'unshare' : process.execPath,
    args: o.inRoot ? ['--mount', '--propagation', 'private', uwsRootScript(repoRoot()), ...o.mounts, '--', 'env', '-C', o.build.root, 'node', ...serve] : serve,
    env,
    cwd: o.build.root,
    logDir: o.logDir,
    readyUrl: `http://127.0.0.1:${o.port}/health`,
  });
}

// ---------------------------------------------------------------------------------------------
// Baseline

/** The baseline tree: DIR if it holds a build; else `git archive <commit>` into DIR, `npm ci`, tsc. */
export function ensureBaseline(dir: string, commit: string, log: (line: string) => void): Build {
  const root = repoRoot();
  const built = (): boolean => existsSync(path.join(dir, 'dist', 'src', 'cli.js')) && existsSync(path.join(dir, 'node_modules'));
  if (!built()) {
    log(`building the baseline ${commit} in ${dir} (git archive, npm ci, tsc) ...`);
    mkdirSync(dir, { recursive: true });
    const run = (cmd: string, args: string[], cwd: string): void => {
      const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
      if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}`);
    };
    run('sh', ['-c', `git -C '${root}' archive ${commit} | tar -x -C '${dir}'`], root);
    run('npm', ['ci', '--no-audit', '--no-fund'], dir);
    run(process.execPath, [path.join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], dir);
  }
  // A `git archive` tree has no .git of its own: git would answer for the repository around it
  // (bench/.cache is inside this one), so only a directory that is its own work tree names its commit.
  const top = spawnSync('git', ['-C', dir, 'rev-parse', '--show-toplevel'], { encoding: 'utf8' });
  const own = top.status === 0 && path.resolve(top.stdout.trim()) === path.resolve(dir);
  const rev = own ? spawnSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }) : undefined;
  return { name: 'baseline', root: dir, commit: rev?.status === 0 ? rev.stdout.trim() : commit };
}

// ---------------------------------------------------------------------------------------------
// Small requests (bench/lean-load.ts)

export interface SmallResult {
  readonly build: BuildName;
  readonly adapter: AdapterName;
  readonly path: string;
  readonly label: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  readonly non2xx: number;
}

/** `connections` keep-alive connections issuing `path` back to back for `seconds` (bench/lean-load.ts). */
async function smallLoad(port: number, urlPath: string, connections: number, seconds: number): Promise<{ rps: number; p50: number; p99: number; errors: number; non2xx: number }> {
  const r = await leanLoadFor(port, urlPath, connections, seconds);
  return { rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors, non2xx: 0 };
}

// ---------------------------------------------------------------------------------------------
// Report

export interface PullSummary {
  readonly adapter: AdapterName;
  readonly size: number;
  readonly format: Format;
  readonly baseline?: Measurement;
  readonly new?: Measurement;
  /** baseline total / new total, best runs. */
  readonly speedup?: number;
}

const fmtSize = (n: number): string => (n % 1_000_000 === 0 ? `${n / 1_000_000} M` : n % 1000 === 0 ? `${n / 1000} k` : String(n));
const s3 = (ms: number | undefined): string => (ms === undefined ? '-' : (ms / 1000).toFixed(3));
const mrows = (m: Measurement | undefined): string => (m?.rowsPerS === undefined ? '-' : (m.rowsPerS / 1e6).toFixed(1));
const okM = (m: Measurement | undefined): boolean => m !== undefined && m.status === 'ok' && m.totalMs !== undefined;
const mark = (pass: boolean | undefined): string => (pass === undefined ? '–' : pass ? 'met' : '**missed**');

export function bestOf(runs: readonly Measurement[]): Measurement | undefined {
  const good = runs.filter(okM);
  if (!good.length) return runs[0];
  const best = good.reduce((a, b) => (b.totalMs! < a.totalMs! ? b : a));
  // Memory: the largest growth of any run (not the best run's).
  const growth = Math.max(...good.map((m) => m.rssGrowthMiB ?? 0));
  return { ...best, rssGrowthMiB: growth };
}

/** One pull timed by curl (a C client: the body goes to /dev/null), with the server's CPU over it. */
export interface CurlRun {
  readonly build: BuildName;
  readonly adapter: AdapterName;
  readonly size: number;
  readonly format: Format;
  readonly status: 'ok' | 'failed';
  readonly totalMs?: number;
  readonly ttfbMs?: number;
  readonly bytes?: number;
  readonly serverCpuS?: number;
  readonly note?: string;
}

/** Whether curl is on the PATH. */
export function hasCurl(): boolean {
  return spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * GETs `url` with curl, discarding the body: what the server can deliver when the client costs
 * next to nothing (~0.12 CPU-s for 600 MB of Arrow; the node client, bench/raw-get.ts, ~0.2). The
 * body is not checked here: the node-client pull of the same range on the same
 * server checked its rows, and the sizes must agree.
 */
export function curlPull(url: string, pid: number): Promise<{ status: number; totalMs: number; ttfbMs: number; bytes: number; serverCpuS: number }> {
  return new Promise((resolve, reject) => {
    const before = cpuSeconds(pid);
    const child = spawn('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code} %{time_starttransfer} %{time_total} %{size_download}', url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const [status, ttfb, total, bytes] = out.trim().split(' ').map(Number);
      if (code !== 0 || status === undefined || total === undefined) return reject(new Error(`curl exited ${code}: ${out}`));
      resolve({ status, ttfbMs: ttfb! * 1000, totalMs: total * 1000, bytes: bytes!, serverCpuS: cpuSeconds(pid) - before });
    });
  });
}

export function curlTable(runs: readonly CurlRun[], sizes: readonly number[], formats: readonly Format[], adapters: readonly AdapterName[]): string {
  const lines = [
    '| ticks | format | adapter | baseline s | new s | new M rows/s | speed-up (target) | new TTFB ms | new srv CPU s | MB |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  const best = (b: BuildName, size: number, format: Format, adapter: AdapterName): CurlRun | undefined =>
    runs.filter((r) => r.build === b && r.size === size && r.format === format && r.adapter === adapter && r.status === 'ok').reduce<CurlRun | undefined>((a, r) => (a === undefined || r.totalMs! < a.totalMs! ? r : a), undefined);
  for (const size of sizes) {
    for (const format of formats) {
      for (const adapter of adapters) {
        const b = best('baseline', size, format, adapter);
        const n = best('new', size, format, adapter);
        if (!b && !n) continue;
        const speedup = b && n ? b.totalMs! / n.totalMs! : undefined;
        const target = TARGETS.speedup[format];
        lines.push(
          `| ${fmtSize(size)} | ${format} | ${adapter === 'uws' ? 'uWS' : 'node:http'} | ${b ? s3(b.totalMs) : '-'} | ${n ? s3(n.totalMs) : '-'} | ${n ? (size / (n.totalMs! / 1000) / 1e6).toFixed(1) : '-'} | ` +
            `${speedup === undefined ? '-' : `${speedup.toFixed(2)}× (≥ ${target}×: ${mark(speedup >= target)})`} | ${n?.ttfbMs?.toFixed(1) ?? '-'} | ${n?.serverCpuS?.toFixed(2) ?? '-'} | ${n?.bytes === undefined ? '-' : (n.bytes / 1e6).toFixed(1)} |`,
        );
      }
    }
  }
  return lines.join('\n');
}

export function pullTable(sums: readonly PullSummary[]): string {
  const lines = [
    '| ticks | format | adapter | baseline s | new s | new M rows/s | speed-up (target) | new TTFB ms (< 50) | new RSS+ MiB (< 128) | new srv CPU s | rows/s target |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of sums) {
    const target = TARGETS.speedup[s.format];
    const rowsTarget = TARGETS.rowsPerS[s.format];
    const n = s.new;
    lines.push(
      `| ${fmtSize(s.size)} | ${s.format} | ${s.adapter === 'uws' ? 'uWS' : 'node:http'} | ${okM(s.baseline) ? s3(s.baseline!.totalMs) : (s.baseline?.status ?? '-')} | ${okM(n) ? s3(n!.totalMs) : (n?.status ?? '-')} | ${mrows(n)} | ` +
        `${s.speedup === undefined ? '-' : `${s.speedup.toFixed(2)}× (≥ ${target}×: ${mark(s.speedup >= target)})`} | ` +
        `${n?.ttfbMs === undefined ? '-' : `${n.ttfbMs.toFixed(1)} ${mark(n.ttfbMs < TARGETS.ttfbMs)}`} | ` +
        `${n?.rssGrowthMiB === undefined ? '-' : `${n.rssGrowthMiB.toFixed(0)} ${mark(n.rssGrowthMiB < TARGETS.rssGrowthMiB)}`} | ${n?.serverCpuS === undefined ? '-' : n.serverCpuS.toFixed(2)} | ` +
        `≥ ${rowsTarget / 1e6} M: ${okM(n) ? mark(n!.rowsPerS! >= rowsTarget) : '–'} |`,
    );
  }
  return lines.join('\n');
}

export function smallTable(results: readonly SmallResult[]): string {
  const labels = [...new Set(results.map((r) => r.label))];
  const get = (build: BuildName, adapter: AdapterName, label: string): SmallResult | undefined => results.find((r) => r.build === build && r.adapter === adapter && r.label === label);
  const cell = (r: SmallResult | undefined): string => (r === undefined ? '-' : `${Math.round(r.rps).toLocaleString('en-US').replace(/,/g, ' ')} (p99 ${r.p99} ms${r.errors + r.non2xx ? `, ${r.errors + r.non2xx} errors` : ''})`);
  const lines = [
    '| request | baseline node:http | baseline uWS | new node:http | new uWS | new uWS / node:http (target) | new / baseline (node:http, uWS) |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const label of labels) {
    const bn = get('baseline', 'node', label);
    const bu = get('baseline', 'uws', label);
    const nn = get('new', 'node', label);
    const nu = get('new', 'uws', label);
    const target = label === '/health' ? TARGETS.healthUwsOverNode : 1;
    const ratio = nn && nu ? nu.rps / nn.rps : undefined;
    const r = (a?: SmallResult, b?: SmallResult): string => (a && b ? `${(b.rps / a.rps).toFixed(2)}×` : '-');
    lines.push(`| ${label} | ${cell(bn)} | ${cell(bu)} | ${cell(nn)} | ${cell(nu)} | ${ratio === undefined ? '-' : `${ratio.toFixed(2)}× (≥ ${target}×: ${mark(ratio >= target)})`} | ${r(bn, nn)}, ${r(bu, nu)} |`);
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The run

async function ticksMeta(cacheDir: string, sizes: readonly number[], symbol: string, fromMs: number, log: (l: string) => void): Promise<ExportMeta> {
  mkdirSync(cacheDir, { recursive: true });
  const largest = Math.max(...sizes);
  // The same cache file as bench/bigpull.ts.
  const file = path.join(cacheDir, `${symbol}-${new Date(fromMs).toISOString().replace(/[:.]/g, '')}-${largest}.npy`);
  if (existsSync(file) && existsSync(`${file}.json`)) {
    const meta = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as ExportMeta;
    if (sizes.every((n) => meta.ranges.some((r) => r.count === n))) return meta;
  }
  log(`exporting ${largest} ${symbol} ticks (the ranges and their edges) ...`);
  return exportTicks({ path: file, symbol, fromMs, sizes });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      baseline: { type: 'string' },
      'baseline-commit': { type: 'string', default: BASELINE_COMMIT },
      adapters: { type: 'string', default: 'node,uws' },
      sizes: { type: 'string', default: '1e7' },
      formats: { type: 'string', default: 'parquet,arrow,json' },
      repeat: { type: 'string', default: '3' },
      'no-pulls': { type: 'boolean', default: false },
      'no-small': { type: 'boolean', default: false },
      'small-seconds': { type: 'string', default: '8' },
      connections: { type: 'string', default: '100' },
      encodings: { type: 'string', default: 'gzip,br' },
      only: { type: 'string' },
      client: { type: 'string', default: 'both' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      'usage: node dist/bench/sides.js [--baseline DIR] [--baseline-commit 4a63a6d] [--adapters node,uws] [--sizes 1e7]\n' +
        '         [--formats parquet,arrow,json] [--repeat 3] [--no-pulls] [--no-small] [--small-seconds 8] [--connections 100]\n' +
        '         [--encodings gzip,br] [--only new|baseline] [--client node|curl|both] [--out FILE.md]\n',
    );
    return;
  }
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const root = repoRoot();
  const cacheDir = path.join(root, 'bench', '.cache');
  const logDir = path.join(cacheDir, 'logs');
  const fresh: Build = { name: 'new', root, commit: `${spawnSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()}+worktree` };
  const builds: Build[] = [];
  if (values.only !== 'new') builds.push(ensureBaseline(values.baseline ?? path.join(cacheDir, `baseline-${values['baseline-commit']}`), values['baseline-commit'], log));
  if (values.only !== 'baseline') builds.push(fresh);
  const adapters = values.adapters.split(',').map((a) => a.trim()) as AdapterName[];
  const uwsInRoot = adapters.includes('uws') && !uwsLoadsHere(root);
  if (uwsInRoot) log('uWebSockets.js does not load on this host: its servers run in the Debian 13 root (bench/uws-root.sh)');
  const mounts = [...new Set(builds.map((b) => b.root))];
  const sizes = values.sizes.split(',').map(parseCount);
  const formats = parseFormats(values.formats);
  const repeat = Math.max(1, Number(values.repeat) || 1);
  const symbol = 'EURUSD';
  const fromMs = Date.parse('2024-01-08T00:00:00Z');
  const started = new Date();
  const server = (build: Build, adapter: AdapterName, port: number, name: string, env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> =>
    startServer({ build, adapter, inRoot: adapter === 'uws' && uwsInRoot, mounts, port, env, logDir, name });

  // --- big pulls
  const runs: { build: BuildName; adapter: AdapterName; rep: number; m: Measurement }[] = [];
  // The same range again on the same server, timed by curl (--client both|curl; node-only without curl).
  const useCurl = values.client !== 'node' && hasCurl();
  const curlRuns: CurlRun[] = [];
  if (!values['no-pulls']) {
    const meta = await ticksMeta(cacheDir, sizes, symbol, fromMs, log);
    for (let rep = 0; rep < repeat; rep++) {
      for (const count of sizes) {
        const range = meta.ranges.find((r) => r.count === count)!;
        for (const format of formats) {
          for (const adapter of adapters) {
            const order = rep % 2 === 0 ? builds : [...builds].reverse();
            for (const build of order) {
              const port = await freePort();
              const base = `http://127.0.0.1:${port}`;
              let child: ServerProcess | undefined;
              try {
                child = await server(build, adapter, port, `sides-${build.name}-${adapter}-${format}`);
                await pull(base + rangePath(symbol, fromMs, fromMs + 5 * 60_000, format), 'opaque', 60_000);
                const m = await measure(
                  { server: 'tradeapi', variant: `${build.name} ${adapter}`, pid: child.pid, url: base + rangePath(symbol, range.fromMs, range.toMs, format), kind: format, envelope: false },
                  expectedFor(range, format),
                  1,
                  600_000,
                );
                runs.push({ build: build.name, adapter, rep, m });
                log(`  [${rep + 1}/${repeat}] ${fmtSize(count)} ${format} ${adapter} ${build.name}: ${m.status} ${s3(m.totalMs)} s, TTFB ${m.ttfbMs?.toFixed(1)} ms, +${m.rssGrowthMiB?.toFixed(0)} MiB, CPU ${m.serverCpuS?.toFixed(2)} s${m.note ? ` (${m.note})` : ''}`);
                if (useCurl && m.status === 'ok') {
                  const url = base + rangePath(symbol, range.fromMs, range.toMs, format);
                  try {
                    const c = await curlPull(url, child.pid!);
                    const ok = c.status === 200 && c.bytes === m.bytes;
                    curlRuns.push({ build: build.name, adapter, size: count, format, status: ok ? 'ok' : 'failed', totalMs: c.totalMs, ttfbMs: c.ttfbMs, bytes: c.bytes, serverCpuS: c.serverCpuS, ...(ok ? {} : { note: `HTTP ${c.status}, ${c.bytes} bytes (node client: ${m.bytes})` }) });
                    log(`      curl: ${ok ? 'ok' : 'FAILED'} ${s3(c.totalMs)} s, TTFB ${c.ttfbMs.toFixed(1)} ms, CPU ${c.serverCpuS.toFixed(2)} s, ${c.bytes} bytes`);
                  } catch (e) {
                    log(`      curl: failed: ${e instanceof Error ? e.message : String(e)}`);
                  }
                }
              } catch (e) {
                log(`  ${format} ${adapter} ${build.name}: failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
              } finally {
                await child?.stop();
              }
            }
          }
        }
      }
    }
  }
  const sums: PullSummary[] = [];
  for (const size of sizes) {
    for (const format of formats) {
      for (const adapter of adapters) {
        const pick = (b: BuildName): Measurement | undefined => bestOf(runs.filter((r) => r.build === b && r.adapter === adapter && r.m.size === size && r.m.format === format).map((r) => r.m));
        const baseline = pick('baseline');
        const neu = pick('new');
        if (!baseline && !neu) continue;
        sums.push({
          adapter,
          size,
          format,
          ...(baseline ? { baseline } : {}),
          ...(neu ? { new: neu } : {}),
          ...(okM(baseline) && okM(neu) ? { speedup: baseline!.totalMs! / neu!.totalMs! } : {}),
        });
      }
    }
  }

  // --- Accept-Encoding: JSON bytes and rows/s per encoding, new build only (the baseline has none)
  const encodings = values.encodings ? values.encodings.split(',').filter(Boolean) : [];
  const encodingRows: { adapter: AdapterName; encoding: string; m: Measurement }[] = [];
  if (!values['no-pulls'] && encodings.length && builds.some((b) => b.name === 'new') && formats.includes('json')) {
    const meta = await ticksMeta(cacheDir, sizes, symbol, fromMs, log);
    const range = meta.ranges.find((r) => r.count === Math.max(...sizes))!;
    for (const adapter of adapters) {
      for (const encoding of encodings) {
        const port = await freePort();
        const base = `http://127.0.0.1:${port}`;
        let child: ServerProcess | undefined;
        try {
          child = await server(fresh, adapter, port, `sides-enc-${adapter}-${encoding}`);
          const m = await measure(
            { server: 'tradeapi', variant: `new ${adapter} ${encoding}`, pid: child.pid, url: base + rangePath(symbol, range.fromMs, range.toMs, 'json'), kind: 'json', envelope: false, acceptEncoding: encoding },
            expectedFor(range, 'json'),
            1,
            600_000,
          );
          encodingRows.push({ adapter, encoding, m });
          log(`  json ${encoding} ${adapter}: ${m.status} ${s3(m.totalMs)} s, ${((m.bytes ?? 0) / 1e6).toFixed(1)} MB${m.note ? ` (${m.note})` : ''}`);
        } catch (e) {
          log(`  json ${encoding} ${adapter}: failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
        } finally {
          await child?.stop();
        }
      }
    }
  }

  // --- small requests
  const small: SmallResult[] = [];
  if (!values['no-small']) {
    {
      const seconds = Number(values['small-seconds']);
      const connections = Number(values.connections);
      const q = (format: string): string => `/ticks/from?symbol=EURUSD&date_from=2024-01-08T00:00:00Z&count=999&flags=COPY_TICKS_ALL&format=${format}`;
      const paths = [
        { label: '/health', path: '/health' },
        { label: '999 ticks JSON', path: q('json') },
        { label: '999 ticks Parquet', path: q('parquet') },
      ];
      for (const adapter of adapters) {
        for (const [i, build] of builds.entries()) {
          void i;
          const port = await freePort();
          let child: ServerProcess | undefined;
          try {
            child = await server(build, adapter, port, `sides-small-${build.name}-${adapter}`, { TRADEAPI_LOG_LEVEL: 'WARNING' });
            for (const p of paths) {
              await smallLoad(port, p.path, connections, 1); // warm-up
              const r = await smallLoad(port, p.path, connections, seconds);
              small.push({ build: build.name, adapter, path: p.path, label: p.label, ...r });
              log(`  small ${p.label} ${adapter} ${build.name}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms`);
            }
          } catch (e) {
            log(`  small ${adapter} ${build.name}: failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
          } finally {
            await child?.stop();
          }
        }
      }
    }
  }

  // --- report
  const cpus = os.cpus();
  const machine = `${cpus.length} × ${cpus[0]?.model ?? '?'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${os.release()}, node ${process.version}; uWS ${uwsInRoot ? 'in the Debian 13 root (bench/uws-root.sh)' : 'on the host'}`;
  const head = [
    `# Side by side: baseline ${builds.find((b) => b.name === 'baseline')?.commit ?? '-'} vs new ${fresh.commit}`,
    '',
    `Run ${started.toISOString()} → ${new Date().toISOString()} on ${machine}; load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (the machine is shared: compare ratios, not absolute figures).`,
    `Big pulls: each (adapter, build) a fresh server per pull, ${repeat} interleaved repetitions, best kept (memory: the largest growth of any run). Client: one node process on the same 2 cores.`,
    '',
  ];
  const encTable = encodingRows.length
    ? [
        '',
        `JSON with Accept-Encoding (new build, ${fmtSize(Math.max(...sizes))} ticks; the uncompressed row is above):`,
        '',
        '| adapter | encoding | status | MB on the wire | s | M rows/s | TTFB ms | RSS+ MiB | srv CPU s |',
        '|---|---|---|---|---|---|---|---|---|',
        ...encodingRows.map(
          ({ adapter, encoding, m }) =>
            `| ${adapter === 'uws' ? 'uWS' : 'node:http'} | ${encoding} | ${m.status} | ${((m.bytes ?? 0) / 1e6).toFixed(1)} | ${s3(m.totalMs)} | ${mrows(m)} | ${m.ttfbMs?.toFixed(1) ?? '-'} | ${m.rssGrowthMiB?.toFixed(0) ?? '-'} | ${m.serverCpuS?.toFixed(2) ?? '-'} |`,
        ),
      ]
    : [];
  const smallText = small.length
    ? ['', `Small requests: bench/lean-load.ts (keep-alive TCP connections from the bench process, answers parsed just enough; errors: non-200 answers and failed requests), ${values.connections} connections × ${values['small-seconds']} s per cell, servers at log level WARNING; the load generator shares the 2 cores with the server. req/s (p99):`, '', smallTable(small)]
    : [];
  const curlText = curlRuns.length
    ? [
        '',
        'The same pulls timed by curl (`curl -s -o /dev/null`, right after the checked node-client pull on the same server; sizes equal to it), best of the repetitions. The node client (bench/raw-get.ts: its own HTTP/1.1 reader into one reused buffer) spends ~0.2 CPU-s receiving 600 MB of Arrow on the same two cores as the server, curl ~0.12 CPU-s; node\'s http client, which the benches used before, ~0.5:',
        '',
        curlTable(curlRuns, sizes, formats, adapters),
      ]
    : [];
  const text = [...head, sums.length ? pullTable(sums) : '(no big pulls)', ...curlText, ...encTable, ...smallText, ''].join('\n');
  process.stdout.write(`\n${text}\n`);
  const resultsDir = path.join(root, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const day = started.toISOString().slice(0, 10);
  let out = values.out;
  for (let i = 1; out === undefined; i++) {
    const f = path.join(resultsDir, `sides-${day}${i === 1 ? '' : `-${i}`}.md`);
    if (!existsSync(f)) out = f;
  }
  writeFileSync(out, text);
  writeFileSync(out.replace(/\.md$/, '') + '.json', `${JSON.stringify({ harness: 'bench/sides.ts', startedAt: started.toISOString(), machine, builds, adapters, sizes, formats, repeat, runs, summary: sums, curl: curlRuns, encodings: encodingRows, small }, null, 2)}\n`);
  process.stdout.write(`written: ${path.relative(process.cwd(), out)} (+ .json)\n`);
  void here;
}

if (isMain(import.meta.url)) {
  main().catch((e: unknown) => {
    process.stderr.write(`sides: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
