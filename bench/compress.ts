// Compressed JSON (issue 34): one big pull of EURUSD ticks as JSON, identity against zstd, gzip and br,
// through curl (`--compressed -o /dev/null`: the client decompresses, and that is counted) and
// Node's fetch with its default headers (undici offers gzip and deflate, and decompresses in the
// client), on this tree's server under TRADEAPI_COMPRESS=auto (the default: loopback is near, so
// identity) and =always (what every client that offers gzip got before), and, in the same run, on
// the tree before this change (--before: compressed whatever was asked, one compressor per answer)
// and the 4a63a6d build (--baseline: compressed nothing).
//
//   npm run build:ts && node dist/bench/compress.js [--ticks 1e7] [--repeat 3]
//       [--before DIR] [--baseline DIR] [--before-repeat 1] [--coded-fetch-repeat 1] [--addon FILE] [--out FILE]
//
// --before and --baseline are built trees (dist/ and node_modules/: a `git archive <commit>` with
// `npm ci`, or with this tree's node_modules linked when package-lock.json is the same); either
// may be left out. --addon: the tradeapi.node this tree and --before load (TRADEAPI_ADDON), so that
// both encode JSON with the same C++. Each server is a child process (node:http, log level
// WARNING), warmed up with one small request; the pulls run in rounds, every server once per
// round (pairs that are compared next to each other), the best of --repeat kept (other work on a
// shared machine only ever slows a run down); fetch of a compressed answer, 10-50x slower than of
// identity, --coded-fetch-repeat times.
// Per pull: wall time, bytes on the wire, the server's CPU seconds (all threads, /proc) and the
// client's (curl through /usr/bin/time; the fetch client, a child node process, by
// process.cpuUsage() around the request). Prints a markdown table and the issue's targets and
// writes it to bench/results/compress-<date>.md (and .json).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { iso, repoRoot } from './bigpull.js';
import { parseCount } from './export-ticks.js';
import { isMain } from './is-main.js';
import { freePort, ServerProcess } from './processes.js';
import { cpuSeconds } from './rss-probe.js';

const FROM_MS = Date.UTC(2024, 0, 8);
const SYMBOL = 'EURUSD';

/** Issue 34's targets for compressed JSON. */
export const TARGETS = { timeRatio: 1.25, bytesShare: 0.12 };

type Client = 'curl' | 'fetch';

interface Server {
  readonly label: string;
  readonly root: string;
  readonly commit: string;
  readonly env: Readonly<Record<string, string>>;
}

interface Case {
  readonly server: Server;
  readonly client: Client;
  /** What curl sends as Accept-Encoding (--compressed decodes it); undefined: nothing (identity), or fetch's default. */
  readonly acceptEncoding?: string;
  readonly repeat: number;
}

interface Run {
  readonly ok: boolean;
  readonly note?: string;
  readonly seconds: number;
  readonly wireBytes?: number;
  readonly decodedBytes?: number;
  readonly coding: string;
  readonly serverCpuS: number;
  /** Of which the server's main thread (the event loop); the rest ran on the thread pool and V8's threads. */
  readonly serverMainCpuS: number;
  readonly clientCpuS?: number;
  readonly load1: number;
}

export interface Row {
  readonly server: string;
  readonly commit: string;
  readonly client: Client;
  readonly asked: string;
  readonly best?: Run;
  readonly runs: readonly Run[];
}

/** The range of /ticks/range that holds the first `n` ticks from FROM_MS (ties at the last millisecond included). */
export async function rangeFor(n: number): Promise<{ toMs: number; rows: number }> {
  const { openSimTerminal } = await import('../src/terminal/index.js');
  const terminal = openSimTerminal({});
  try {
    const series = await terminal.copyTicksFrom(SYMBOL, FROM_MS, n + 1000, -1, { chunkRows: 1 << 20 });
    let seen = 0;
    let toMs: number | undefined;
    let rows = 0;
    for await (const chunk of series) {
      const times = chunk.time_msc;
      for (let i = 0; i < chunk.rows; i++) {
        const t = Number(times[i]);
        if (seen + i + 1 === n) toMs = t;
        if (toMs === undefined || t <= toMs) rows = seen + i + 1;
      }
      seen += chunk.rows;
    }
    if (toMs === undefined) throw new Error(`the simulator has fewer than ${n} ${SYMBOL} ticks from ${iso(FROM_MS)}`);
    return { toMs, rows };
  } finally {
    await terminal.close();
  }
}

/** Runs a process to its end; resolves with its exit code and output. */
function run(cmd: string, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const TIME = '/usr/bin/time';

/** CPU seconds of a process's main thread (its event loop, for node); NaN if unknown. */
function mainThreadCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

async function curlPull(url: string, acceptEncoding: string | undefined, pid: number): Promise<Run> {
  const load1 = os.loadavg()[0]!;
  const cpu0 = cpuSeconds(pid);
  const main0 = mainThreadCpuSeconds(pid);
  const timeFile = path.join(os.tmpdir(), `compress-bench-time-${process.pid}`);
  const curl = ['curl', '-sS', '-o', '/dev/null', '-w', '%{http_code} %{time_total} %{size_download}', ...(acceptEncoding ? ['--compressed', '-H', `Accept-Encoding: ${acceptEncoding}`, '-D', '-'] : []), url];
  const timed = existsSync(TIME);
  const r = await (timed ? run(TIME, ['-f', '%U %S', '-o', timeFile, ...curl]) : run(curl[0]!, curl.slice(1)));
  const serverCpuS = cpuSeconds(pid) - cpu0;
  const serverMainCpuS = mainThreadCpuSeconds(pid) - main0;
  let clientCpuS: number | undefined;
  if (timed) {
    const [u, s] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).slice(-2).map(Number);
    clientCpuS = u! + s!;
    rmSync(timeFile, { force: true });
  }
  const last = r.stdout.trim().split('\n').pop() ?? '';
  const [status, total, size] = last.split(' ').map(Number);
  const coding = /^content-encoding:\s*(\S+)/im.exec(r.stdout)?.[1]?.toLowerCase() ?? 'identity';
  const ok = r.code === 0 && status === 200;
  return {
    ok,
    ...(ok ? {} : { note: `curl exit ${r.code}, HTTP ${status}: ${r.stderr.trim().slice(0, 200)}` }),
    seconds: total ?? Number.NaN,
    wireBytes: size,
    coding,
    serverCpuS,
    serverMainCpuS,
    ...(clientCpuS !== undefined ? { clientCpuS } : {}),
    load1,
  };
}

async function fetchPull(url: string, pid: number, timeoutS: number): Promise<Run> {
  const load1 = os.loadavg()[0]!;
  const cpu0 = cpuSeconds(pid);
  const main0 = mainThreadCpuSeconds(pid);
  const r = await run('timeout', [String(timeoutS), process.execPath, new URL(import.meta.url).pathname, '--fetch-client', url]);
  const serverCpuS = cpuSeconds(pid) - cpu0;
  const serverMainCpuS = mainThreadCpuSeconds(pid) - main0;
  try {
    const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as { status: number; coding: string; decoded: number; seconds: number; cpuS: number };
    return { ok: out.status === 200, seconds: out.seconds, decodedBytes: out.decoded, coding: out.coding, serverCpuS, serverMainCpuS, clientCpuS: out.cpuS, load1 };
  } catch {
    return { ok: false, note: r.code === 124 ? `over ${timeoutS} s` : `fetch client: exit ${r.code} ${r.stderr.trim().slice(0, 200)}`, seconds: Number.NaN, coding: '?', serverCpuS, serverMainCpuS, load1 };
  }
}

/** The fetch client (a child process): GET with fetch's default headers, read the body, report. */
async function fetchClient(url: string): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await fetch(url);
  let decoded = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) decoded += chunk.byteLength;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(`${JSON.stringify({ status: res.status, coding: res.headers.get('content-encoding') ?? 'identity', decoded, seconds, cpuS: (cpu.user + cpu.system) / 1e6 })}\n`);
}

function commitOf(root: string, fallback: string): string {
  const top = spawnSync('git', ['-C', root, 'rev-parse', '--show-toplevel'], { encoding: 'utf8' });
  if (top.status === 0 && path.resolve(top.stdout.trim()) === path.resolve(root)) {
    const rev = spawnSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
    const dirty = spawnSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).stdout.trim() !== '';
    if (rev.status === 0) return `${rev.stdout.trim()}${dirty ? '+changes' : ''}`;
  }
  return fallback;
}

const f2 = (n: number | undefined): string => (n === undefined || !Number.isFinite(n) ? '–' : n.toFixed(2));

export function report(rows: readonly Row[], ticks: number, identityBytes: number): string {
  const identity = rows.find((r) => r.server.startsWith('this tree') && r.client === 'curl' && r.asked === '(none)')?.best;
  const lines = [
    '| server | client | Accept-Encoding | answered | s (best) | M rows/s | × identity (curl) | MB on the wire | % of identity bytes | server CPU s (event loop) | client CPU s | load |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const b = r.best;
    const wire = b?.wireBytes;
    lines.push(
      `| ${r.server} | ${r.client} | ${r.asked} | ${b ? (b.ok ? b.coding : `failed: ${b.note ?? ''}`) : '–'} | ${f2(b?.seconds)} | ${b ? f2(ticks / b.seconds / 1e6) : '–'} | ${b && identity ? `${(b.seconds / identity.seconds).toFixed(2)}×` : '–'} | ` +
        `${wire !== undefined ? (wire / 1e6).toFixed(1) : '–'} | ${wire !== undefined ? `${((100 * wire) / identityBytes).toFixed(1)} %` : '–'} | ${f2(b?.serverCpuS)} (${f2(b?.serverMainCpuS)}) | ${f2(b?.clientCpuS)} | ${b ? b.load1.toFixed(1) : '–'} |`,
    );
  }
  return lines.join('\n');
}

export function targetLines(rows: readonly Row[], identityBytes: number): string[] {
  const find = (server: string, client: Client, asked: string): Run | undefined => rows.find((r) => r.server === server && r.client === client && r.asked === asked)?.best;
  const identity = find('this tree, auto', 'curl', '(none)');
  const out: string[] = [];
  for (const coding of ['zstd', 'gzip', 'br']) {
    const c = find('this tree, always', 'curl', coding);
    if (!identity || !c?.ok) continue;
    const ratio = c.seconds / identity.seconds;
    const cpu = (c.serverCpuS + (c.clientCpuS ?? 0)) / (identity.serverCpuS + (identity.clientCpuS ?? 0));
    out.push(
      `- ${coding}, curl --compressed: ${ratio.toFixed(2)}× the identity time (target ≤ ${TARGETS.timeRatio}× where a core is spare: ${ratio <= TARGETS.timeRatio ? 'met' : '**missed**'}); ` +
        `server + client CPU ${f2(c.serverCpuS + (c.clientCpuS ?? 0))} s against ${f2(identity.serverCpuS + (identity.clientCpuS ?? 0))} s for identity (${cpu.toFixed(2)}×) on ${os.availableParallelism()} cores; ` +
        `${((100 * (c.wireBytes ?? 0)) / identityBytes).toFixed(1)} % of the identity bytes (target ≤ ${100 * TARGETS.bytesShare} %: ${(c.wireBytes ?? Infinity) <= identityBytes * TARGETS.bytesShare ? 'met' : '**missed**'})`,
    );
  }
  const fetchNew = find('this tree, auto', 'fetch', 'undici default');
  const fetchBase = rows.find((r) => r.server.startsWith('4a63a6d') && r.client === 'fetch')?.best;
  const fetchBefore = rows.find((r) => r.server.startsWith('before') && r.client === 'fetch')?.best;
  if (fetchNew?.ok && fetchBase?.ok) {
    out.push(`- fetch with its default headers against a loopback gateway: ${f2(fetchNew.seconds)} s here against ${f2(fetchBase.seconds)} s for 4a63a6d (${(fetchBase.seconds / fetchNew.seconds).toFixed(2)}× its speed; target ≥ 1×: ${fetchNew.seconds <= fetchBase.seconds * 1.0 ? 'met' : fetchNew.seconds <= fetchBase.seconds * 1.05 ? 'met within 5 % noise' : '**missed**'})${fetchBefore ? `; the tree before this change: ${fetchBefore.ok ? `${f2(fetchBefore.seconds)} s (${fetchBefore.coding})` : `failed: ${fetchBefore.note ?? ''}`}` : ''}`);
  }
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      ticks: { type: 'string', default: '1e7' },
      repeat: { type: 'string', default: '3' },
      'before-repeat': { type: 'string', default: '1' },
      'coded-fetch-repeat': { type: 'string', default: '1' },
      before: { type: 'string' },
      baseline: { type: 'string' },
      addon: { type: 'string' },
      timeout: { type: 'string', default: '300' },
      out: { type: 'string' },
      'fetch-client': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values['fetch-client']) return fetchClient(values['fetch-client']);
  if (values.help) {
    process.stdout.write('usage: node dist/bench/compress.js [--ticks 1e7] [--repeat 3] [--before DIR] [--baseline DIR] [--before-repeat 1] [--coded-fetch-repeat 1] [--addon FILE] [--timeout 300] [--out FILE]\n');
    return;
  }
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const root = repoRoot();
  const ticks = parseCount(values.ticks!);
  const repeat = parseCount(values.repeat!);
  const beforeRepeat = parseCount(values['before-repeat']!);
  const codedFetchRepeat = parseCount(values['coded-fetch-repeat']!);
  const timeoutS = parseCount(values.timeout!);
  const addon: Record<string, string> = values.addon ? { TRADEAPI_ADDON: path.resolve(values.addon) } : {};
  const started = new Date();

  log(`finding the range of the first ${ticks} ${SYMBOL} ticks from ${iso(FROM_MS)} ...`);
  const range = await rangeFor(ticks);
  const q = new URLSearchParams({ symbol: SYMBOL, date_from: iso(FROM_MS), date_to: iso(range.toMs), flags: 'COPY_TICKS_ALL' });
  const urlPath = `/ticks/range?${q.toString()}`;
  log(`  ${range.rows} ticks up to ${iso(range.toMs)}`);

  const here = commitOf(root, 'this tree');
  const servers: Server[] = [
    { label: 'this tree, auto', root, commit: here, env: { ...addon } },
    { label: 'this tree, always', root, commit: here, env: { ...addon, TRADEAPI_COMPRESS: 'always' } },
  ];
  if (values.before) servers.push({ label: 'before (compresses as asked)', root: path.resolve(values.before), commit: commitOf(path.resolve(values.before), path.basename(values.before)), env: { ...addon } });
  if (values.baseline) servers.push({ label: '4a63a6d (compresses nothing)', root: path.resolve(values.baseline), commit: commitOf(path.resolve(values.baseline), '4a63a6d'), env: {} });

  // Pairs that are compared run next to each other in every round, so that what else the machine
  // does weighs on both alike.
  const [auto, always] = servers as [Server, Server];
  const before = servers.find((x) => x.label.startsWith('before'));
  const baseline = servers.find((x) => x.label.startsWith('4a63a6d'));
  const cases: Case[] = [
    { server: auto, client: 'curl', repeat },
    ...(baseline ? [{ server: baseline, client: 'curl' as const, repeat }] : []),
    { server: auto, client: 'fetch', repeat },
    ...(baseline ? [{ server: baseline, client: 'fetch' as const, repeat }] : []),
    { server: always, client: 'curl', acceptEncoding: 'gzip', repeat },
    ...(before ? [{ server: before, client: 'curl' as const, acceptEncoding: 'gzip', repeat: beforeRepeat }] : []),
    { server: always, client: 'curl', acceptEncoding: 'br', repeat },
    { server: always, client: 'curl', acceptEncoding: 'zstd', repeat },
    ...(before ? [{ server: before, client: 'curl' as const, acceptEncoding: 'br', repeat: beforeRepeat }] : []),
    { server: auto, client: 'curl', acceptEncoding: 'gzip', repeat },
    // fetch decompressing gzip is 10-50x slower than identity (undici): once is enough to show it.
    { server: always, client: 'fetch', repeat: codedFetchRepeat },
    ...(before ? [{ server: before, client: 'fetch' as const, repeat: Math.min(beforeRepeat, codedFetchRepeat) }] : []),
  ];

  const logDir = path.join(root, 'bench', '.cache', 'logs');
  const procs = new Map<Server, { proc: ServerProcess; base: string }>();
  const results = new Map<Case, Run[]>(cases.map((c) => [c, []]));
  try {
    for (const s of servers) {
      const port = await freePort();
      const proc = await ServerProcess.start({
        name: `compress-${s.label.replace(/\W+/g, '-')}`,
        command: process.execPath,
        args: [path.join(s.root, 'bin', 'tradeapi.js'), 'serve', '--host', '127.0.0.1', '--port', String(port)],
        env: { ...process.env, TRADEAPI_HTTP: 'node', TRADEAPI_LOG_LEVEL: 'WARNING', TRADEAPI_SECRET_KEY: '', ...s.env },
        cwd: s.root,
        logDir,
        readyUrl: `http://127.0.0.1:${port}/health`,
      });
      const base = `http://127.0.0.1:${port}`;
      // Warm-up: one small JSON answer, coded and not.
      await run('curl', ['-s', '-o', '/dev/null', `${base}/ticks/from?symbol=EURUSD&date_from=2024-01-08T00:00:00Z&count=50000`]);
      await run('curl', ['-s', '--compressed', '-o', '/dev/null', `${base}/ticks/from?symbol=EURUSD&date_from=2024-01-08T00:00:00Z&count=50000`]);
      procs.set(s, { proc, base });
    }
    const rounds = Math.max(...cases.map((c) => c.repeat));
    for (let round = 0; round < rounds; round++) {
      for (const c of cases) {
        if (round >= c.repeat) continue;
        const { proc, base } = procs.get(c.server)!;
        const r = c.client === 'curl' ? await curlPull(base + urlPath, c.acceptEncoding, proc.pid) : await fetchPull(base + urlPath, proc.pid, timeoutS);
        results.get(c)!.push(r);
        log(`  round ${round + 1}: ${c.server.label}, ${c.client} ${c.acceptEncoding ?? ''}: ${r.ok ? `${r.coding} ${r.seconds.toFixed(2)} s` : `failed ${r.note ?? ''}`}, server CPU ${f2(r.serverCpuS)} s, client CPU ${f2(r.clientCpuS)} s, load ${r.load1.toFixed(1)}`);
      }
    }
  } finally {
    for (const { proc } of procs.values()) await proc.stop();
  }

  const order = (c: Case): number => servers.indexOf(c.server);
  const rows: Row[] = [...cases].sort((x, y) => order(x) - order(y)).map((c) => {
    const runs = results.get(c)!;
    const good = runs.filter((r) => r.ok);
    const best = good.length ? good.reduce((a, b) => (b.seconds < a.seconds ? b : a)) : runs[0];
    return { server: c.server.label, commit: c.server.commit, client: c.client, asked: c.client === 'fetch' ? 'undici default' : (c.acceptEncoding ?? '(none)'), ...(best ? { best } : {}), runs };
  });
  const identityBytes = rows.find((r) => r.server === 'this tree, auto' && r.client === 'curl' && r.asked === '(none)')?.best?.wireBytes ?? Number.NaN;
  const cpus = os.cpus();
  const md = [
    `# Compressed JSON: ${range.rows} EURUSD ticks (${(identityBytes / 1e6).toFixed(0)} MB as identity JSON)`,
    '',
    `Run ${started.toISOString()} → ${new Date().toISOString()} on ${cpus.length} × ${cpus[0]?.model ?? '?'}, node ${process.version}, node:http; ` +
      `load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (a shared machine: compare ratios; each row's load is the 1-minute average as its best run started). ` +
      `Best of ${repeat} (${beforeRepeat} for the tree before this change, ${codedFetchRepeat} for fetch of a compressed answer). ` +
      `Servers: ${servers.map((s) => `${s.label} = ${s.commit}`).join('; ')}.`,
    '',
    report(rows, range.rows, identityBytes),
    '',
    ...targetLines(rows, identityBytes),
    '',
  ].join('\n');
  process.stdout.write(`${md}\n`);
  const resultsDir = path.join(root, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const stem = values.out ?? path.join(resultsDir, `compress-${started.toISOString().slice(0, 10)}`);
  let out = stem.replace(/\.md$/, '');
  for (let i = 2; !values.out && existsSync(`${out}.md`); i++) out = `${stem}-${i}`;
  writeFileSync(`${out}.md`, md);
  writeFileSync(`${out}.json`, `${JSON.stringify({ ticks: range.rows, toMs: range.toMs, identityBytes, rows }, null, 2)}\n`);
  log(`written ${out}.md`);
}

if (isMain(import.meta.url)) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
