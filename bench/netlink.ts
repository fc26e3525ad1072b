// The bridge over a network: 10 M EURUSD ticks as Parquet (a) from the gateway on its simulator
// over loopback, (b) gateway ← bridge over loopback, (c) gateway ← bridge through a link shaped to
// 1 Gbit/s with 0.5 ms RTT, (d) through 100 Mbit/s with 20 ms RTT — in one run.
//
//   npm run build:ts && sudo node dist/bench/netlink.js [--ticks 1e7] [--repeat 3] [--links 1000:0.5,100:20]
//       [--check-bytes 1e8] [--bridge-python PATH] [--timeout S] [--out FILE]
//
// The link: a network namespace (`tradeapi-netbench`) with a veth pair, 10.233.0.1/30 outside and
// 10.233.0.2/30 inside; rate by `tc tbf` on both ends (this kernel has no `netem`), RTT by a
// delaying TCP proxy in this process (bench/delay-proxy.ts: each direction's bytes held RTT/2,
// bounded buffer). The bridge runs inside the namespace, the gateway outside and connects to it
// through the proxy. Before measuring, each shaping is checked: a plain transfer through the link
// (default 100 MB) and one-byte ping-pongs, printed. Bytes on the bridge link are counted by the
// proxy (payload) and by the veth's counters (frames, both directions); the bench does not look at
// what the bytes are. The namespace and links are removed on exit (also on SIGINT); leftovers of a
// killed run are removed first. Needs root; without it prints "not run" and exits 0.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { bridgeVenv, expectedFor, iso, measure, rangePath, repoRoot, type Measurement, type Subject } from './bigpull.js';
import { pingPong, startDelayProxy, timeTransfer, type DelayProxy } from './delay-proxy.js';
import { exportTicks, parseCount, type ExportMeta } from './export-ticks.js';
import { isMain } from './is-main.js';
import { freePort, ServerProcess } from './processes.js';
import { pull } from './pull.js';

export const NETNS = 'tradeapi-netbench';
export const HOST_DEV = 'tnb-host';
export const NS_DEV = 'tnb-ns';
export const HOST_IP = '10.233.0.1';
export const NS_IP = '10.233.0.2';

export interface LinkShape {
  /** Rate, Mbit/s. */
  readonly mbit: number;
  /** Round-trip time added by the proxy, ms. */
  readonly rttMs: number;
}

/** "1000:0.5,100:20" → shapes. */
export function parseLinks(text: string): LinkShape[] {
  return text
    .split(',')
    .filter((s) => s.trim() !== '')
    .map((s) => {
      const [mbit, rtt] = s.split(':').map(Number);
      if (!(mbit! > 0) || !(rtt! >= 0)) throw new Error(`--links: not <Mbit/s>:<RTT ms>: ${s}`);
      return { mbit: mbit!, rttMs: rtt! };
    });
}

export const linkName = (l: LinkShape): string => `${l.mbit >= 1000 ? `${l.mbit / 1000} Gbit/s` : `${l.mbit} Mbit/s`}, ${l.rttMs} ms RTT`;

/**
 * tbf parameters for a rate: the bucket must hold at least one GSO packet (veth sends up to 64 KiB
 * segments; a smaller burst drops them) and a few ms at the rate (timer slack); the queue holds
 * max(5 ms, the RTT) at the rate, about one bandwidth-delay product.
 */
export function tbfParams(l: LinkShape): { rate: string; burstBytes: number; latencyMs: number } {
  const bytesPerMs = (l.mbit * 1e6) / 8 / 1000;
  return { rate: `${l.mbit}mbit`, burstBytes: Math.max(128 * 1024, Math.ceil(bytesPerMs * 2)), latencyMs: Math.max(5, l.rttMs) };
}

// ---------------------------------------------------------------------------------------------
// The namespace

function run(cmd: string, args: readonly string[], ignoreFailure = false): string {
  const r = spawnSync(cmd, [...args], { encoding: 'utf8' });
  if (r.status !== 0 && !ignoreFailure) throw new Error(`${cmd} ${args.join(' ')}: ${(r.stderr || r.error?.message || '').trim()}`);
  return r.stdout ?? '';
}

/** Removes the bench's namespace and veth pair, whatever is left of them (silent when absent). */
export function removeLink(): void {
  run('ip', ['link', 'del', HOST_DEV], true);
  run('ip', ['netns', 'del', NETNS], true);
}

export function makeLink(): void {
  removeLink();
  run('ip', ['netns', 'add', NETNS]);
  run('ip', ['link', 'add', HOST_DEV, 'type', 'veth', 'peer', 'name', NS_DEV]);
  run('ip', ['link', 'set', NS_DEV, 'netns', NETNS]);
  run('ip', ['addr', 'add', `${HOST_IP}/30`, 'dev', HOST_DEV]);
  run('ip', ['link', 'set', HOST_DEV, 'up']);
  run('ip', ['-n', NETNS, 'addr', 'add', `${NS_IP}/30`, 'dev', NS_DEV]);
  run('ip', ['-n', NETNS, 'link', 'set', NS_DEV, 'up']);
  run('ip', ['-n', NETNS, 'link', 'set', 'lo', 'up']);
}

/** Shapes both ends of the veth pair with tbf; returns the qdiscs as tc shows them. */
export function shapeLink(l: LinkShape): string {
  const p = tbfParams(l);
  const tbf = ['root', 'tbf', 'rate', p.rate, 'burst', String(p.burstBytes), 'latency', `${p.latencyMs}ms`];
  run('tc', ['qdisc', 'replace', 'dev', HOST_DEV, ...tbf]);
  run('ip', ['netns', 'exec', NETNS, 'tc', 'qdisc', 'replace', 'dev', NS_DEV, ...tbf]);
  return [run('tc', ['qdisc', 'show', 'dev', HOST_DEV]).trim(), run('ip', ['netns', 'exec', NETNS, 'tc', 'qdisc', 'show', 'dev', NS_DEV]).trim()].join(' | ');
}

/** rx + tx bytes of the host end of the veth (every frame of the bridge link, both directions). */
function vethBytes(): number {
  const read = (what: string): number => Number(readFileSync(`/sys/class/net/${HOST_DEV}/statistics/${what}`, 'utf8'));
  return read('rx_bytes') + read('tx_bytes');
}

// ---------------------------------------------------------------------------------------------
// The run

export interface CaseResult {
  readonly label: string;
  readonly path: string;
  readonly link: string;
  readonly measurement: Measurement;
  readonly bestMs?: number;
  /** Proxy-counted payload bytes per tick, both directions (the bridge link's own bytes). */
  readonly linkBytesPerTick?: number;
  /** veth frames per tick, both directions (TCP/IP headers included). */
  readonly vethBytesPerTick?: number;
  /** CPU seconds of the bench process per pull: the client, plus the delaying proxy on a shaped link. */
  readonly benchCpuS?: number;
}

export interface LinkCheck {
  readonly link: string;
  readonly qdisc: string;
  readonly transferBytes: number;
  readonly transferS: number;
  readonly mbitPerS: number;
  /** The same transfer straight over the veth, without the proxy: what tbf alone lets through. */
  readonly directMbitPerS: number;
  readonly rttMs: { readonly min: number; readonly median: number; readonly max: number };
}

const fmtSize = (n: number): string => (n % 1_000_000 === 0 ? `${n / 1_000_000}M` : n % 1000 === 0 ? `${n / 1000}k` : String(n));
const best = (m: Measurement): number | undefined => (m.status === 'ok' && m.runs?.length ? Math.min(...m.runs.map((r) => r.totalMs)) : undefined);

export function markdownTable(cases: readonly CaseResult[], repeat: number): string {
  const base = cases[0]?.bestMs;
  const lines = [
    `| case | path | link | total s (best of ${repeat}) | M rows/s | × (a) | bytes/tick on the bridge link (payload; veth frames) | gateway CPU s | bridge CPU s | bench CPU s (client + proxy) |`,
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const c of cases) {
    const m = c.measurement;
    const ok = c.bestMs !== undefined;
    lines.push(
      `| ${c.label} | ${c.path} | ${c.link} | ${ok ? (c.bestMs! / 1000).toFixed(3) : `${m.status}${m.note ? `: ${m.note}` : ''}`} | ${ok ? (m.expectedRows / (c.bestMs! / 1000) / 1e6).toFixed(2) : '-'} | ${ok && base !== undefined ? `${(c.bestMs! / base).toFixed(2)}×` : '-'} | ${c.linkBytesPerTick !== undefined ? `${c.linkBytesPerTick.toFixed(1)}; ${c.vethBytesPerTick?.toFixed(1) ?? '-'}` : '-'} | ${m.serverCpuS?.toFixed(2) ?? '-'} | ${m.sideCpuS?.toFixed(2) ?? '-'} | ${c.benchCpuS?.toFixed(2) ?? '-'} |`,
    );
  }
  return lines.join('\n');
}

export interface NetlinkOptions {
  readonly ticks: number;
  readonly repeat: number;
  readonly links: readonly LinkShape[];
  readonly checkBytes: number;
  readonly bridgePython: string;
  readonly timeoutMs: number;
  readonly symbol: string;
  readonly fromMs: number;
  readonly cacheDir: string;
  readonly log: (line: string) => void;
}

async function ticksFile(o: NetlinkOptions): Promise<ExportMeta> {
  mkdirSync(o.cacheDir, { recursive: true });
  // The same cache name as bigpull.ts, so that the two share an export.
  const file = path.join(o.cacheDir, `${o.symbol}-${iso(o.fromMs).replace(/[:.]/g, '')}-${o.ticks}.npy`);
  if (existsSync(file) && existsSync(`${file}.json`)) {
    const meta = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as ExportMeta;
    if (meta.ranges.some((r) => r.count === o.ticks)) return meta;
  }
  o.log(`exporting ${o.ticks} ${o.symbol} ticks from the simulator to ${file} ...`);
  return exportTicks({ path: file, symbol: o.symbol, fromMs: o.fromMs, sizes: [o.ticks] });
}

export async function runNetlink(o: NetlinkOptions): Promise<{ cases: CaseResult[]; checks: LinkCheck[]; meta: ExportMeta }> {
  const root = repoRoot();
  const logDir = path.join(o.cacheDir, 'logs');
  const cli = path.join(root, 'bin', 'tradeapi.js');
  if (!existsSync(path.join(root, 'dist', 'src', 'cli.js'))) throw new Error('dist/src/cli.js is missing: run `npm run build:ts` first');
  const python = path.isAbsolute(o.bridgePython) ? o.bridgePython : path.join(root, o.bridgePython);
  const skip = bridgeVenv(root, python, o.log);
  if (skip !== undefined) throw new Error(`the bridge's venv: ${skip}`);
  const meta = await ticksFile(o);
  const range = meta.ranges.find((r) => r.count === o.ticks)!;
  const secret = randomBytes(24).toString('hex');
  const warm = rangePath(o.symbol, o.fromMs, o.fromMs + 5 * 60_000, 'parquet');
  const url = rangePath(o.symbol, range.fromMs, range.toMs, 'parquet');

  const gateway = (name: string, port: number, env: NodeJS.ProcessEnv): Promise<ServerProcess> =>
    ServerProcess.start({
      name,
      command: process.execPath,
      args: [cli, 'serve', '--host', '127.0.0.1', '--port', String(port)],
      env: { ...process.env, TRADEAPI_HTTP: 'node', TRADEAPI_SECRET_KEY: '', ...env },
      cwd: root,
      logDir,
      readyUrl: `http://127.0.0.1:${port}/health`,
    });
  const bridge = (name: string, host: string, port: number, inNamespace: boolean): Promise<ServerProcess> =>
    ServerProcess.start({
      name,
      command: inNamespace ? 'ip' : python,
      args: [...(inNamespace ? ['netns', 'exec', NETNS, python] : []), '-m', 'tradeapi_bridge', '--listen', `${host}:${port}`],
      env: {
        ...process.env,
        PYTHONPATH: [path.join(root, 'bridge'), path.join(root, 'bridge', 'tests', 'stand_in')].join(path.delimiter),
        TRADEAPI_BRIDGE_SECRET: secret,
        MT5_STUB_TICKS: `${o.symbol}=${meta.path}`,
      },
      cwd: root,
      logDir,
      readyLog: /"event": ?"listening"/,
    });

  const cases: CaseResult[] = [];
  /** Starts the processes, warms up, measures, stops them (the gateway first). */
  const measureCase = async (
    label: string,
    pathName: string,
    link: string,
    start: (port: number, children: ServerProcess[]) => Promise<void>,
    counters?: () => { payload: number; veth: number },
  ): Promise<void> => {
    o.log(`(${label}) ${pathName}, ${link} ...`);
    const children: ServerProcess[] = [];
    const server = pathName === 'simulator' ? 'tradeapi' : 'bridge';
    let result: CaseResult;
    try {
      const port = await freePort();
      await start(port, children);
      const gw = children[children.length - 1]!;
      const side = children.length > 1 ? children[0] : undefined;
      await pull(`http://127.0.0.1:${port}${warm}`, 'opaque', o.timeoutMs);
      const before = counters?.();
      const cpu0 = process.cpuUsage();
      const subject: Subject = { server, variant: pathName, pid: gw.pid, ...(side ? { sidePid: side.pid } : {}), url: `http://127.0.0.1:${port}${url}`, kind: 'parquet', envelope: false };
      const m = await measure(subject, expectedFor(range, 'parquet'), o.repeat, o.timeoutMs);
      const cpu = process.cpuUsage(cpu0);
      const after = counters?.();
      const per = (a: number, b: number): number => (b - a) / o.repeat / range.rows;
      const bestMs = best(m);
      result = {
        label,
        path: pathName,
        link,
        measurement: m,
        ...(bestMs !== undefined ? { bestMs } : {}),
        benchCpuS: (cpu.user + cpu.system) / 1e6 / o.repeat,
        ...(before && after && m.status === 'ok' ? { linkBytesPerTick: per(before.payload, after.payload), vethBytesPerTick: per(before.veth, after.veth) } : {}),
      };
    } catch (e) {
      const note = e instanceof Error ? e.message.split('\n')[0]! : String(e);
      result = { label, path: pathName, link, measurement: { server, variant: pathName, size: range.count, format: 'parquet', expectedRows: range.rows, status: 'failed', note } };
    } finally {
      for (const child of children.reverse()) await child.stop();
    }
    cases.push(result);
    const m = result.measurement;
    o.log(`  ${m.status}${result.bestMs !== undefined ? ` best ${(result.bestMs / 1000).toFixed(3)} s` : ''}${result.linkBytesPerTick !== undefined ? `, ${result.linkBytesPerTick.toFixed(1)} B/tick on the link` : ''}${m.note ? ` (${m.note})` : ''}`);
  };

  // (a) and (b): loopback.
  await measureCase('a', 'simulator', 'loopback', async (port, children) => {
    children.push(await gateway(`netlink-sim-${o.ticks}`, port, {}));
  });
  await measureCase('b', 'bridge', 'loopback', async (port, children) => {
    const bridgePort = await freePort();
    children.push(await bridge(`netlink-bridge-lo-${o.ticks}`, '127.0.0.1', bridgePort, false));
    children.push(await gateway(`netlink-gw-lo-${o.ticks}`, port, { TRADEAPI_TERMINAL: `tcp://127.0.0.1:${bridgePort}`, TRADEAPI_BRIDGE_SECRET: secret }));
  });

  // (c), (d): through the shaped link.
  const checks: LinkCheck[] = [];
  makeLink();
  const peerPort = 18_700;
  const bridgePort = 18_812;
  const script = fileURLToPath(new URL(`./delay-proxy${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url));
  const peer = await ServerProcess.start({
    name: 'netlink-peer',
    command: 'ip',
    args: ['netns', 'exec', NETNS, process.execPath, ...process.execArgv, script, '--link-peer', `${NS_IP}:${peerPort}`],
    logDir,
    readyLog: /"event": ?"listening"/,
  });
  try {
    let label = 'c'.charCodeAt(0);
    for (const l of o.links) {
      const name = linkName(l);
      const qdisc = shapeLink(l);
      o.log(`link ${name}: ${qdisc}`);
      let proxy: DelayProxy | undefined;
      try {
        proxy = await startDelayProxy({ targetHost: NS_IP, targetPort: peerPort, delayMs: l.rttMs / 2 });
        const rtts = (await pingPong('127.0.0.1', proxy.port, 21)).sort((a, b) => a - b);
        const transferS = await timeTransfer('127.0.0.1', proxy.port, o.checkBytes);
        const directS = await timeTransfer(NS_IP, peerPort, o.checkBytes);
        const check: LinkCheck = {
          link: name,
          qdisc,
          transferBytes: o.checkBytes,
          transferS,
          mbitPerS: (o.checkBytes * 8) / transferS / 1e6,
          directMbitPerS: (o.checkBytes * 8) / directS / 1e6,
          rttMs: { min: rtts[0]!, median: rtts[Math.floor(rtts.length / 2)]!, max: rtts[rtts.length - 1]! },
        };
        checks.push(check);
        o.log(`  self-check: ${(o.checkBytes / 1e6).toFixed(0)} MB in ${transferS.toFixed(2)} s = ${check.mbitPerS.toFixed(0)} Mbit/s (${check.directMbitPerS.toFixed(0)} without the proxy); RTT min/median/max ${check.rttMs.min.toFixed(2)}/${check.rttMs.median.toFixed(2)}/${check.rttMs.max.toFixed(2)} ms`);
      } finally {
        await proxy?.close();
      }
      let bridgeProxy: DelayProxy | undefined;
      await measureCase(
        String.fromCharCode(label++),
        'bridge',
        name,
        async (port, children) => {
          children.push(await bridge(`netlink-bridge-${l.mbit}-${o.ticks}`, NS_IP, bridgePort, true));
          bridgeProxy = await startDelayProxy({ targetHost: NS_IP, targetPort: bridgePort, delayMs: l.rttMs / 2 });
          children.push(await gateway(`netlink-gw-${l.mbit}-${o.ticks}`, port, { TRADEAPI_TERMINAL: `tcp://127.0.0.1:${bridgeProxy.port}`, TRADEAPI_BRIDGE_SECRET: secret }));
        },
        () => {
          const b = bridgeProxy?.bytes() ?? { up: 0, down: 0 };
          return { payload: b.up + b.down, veth: vethBytes() };
        },
      );
      await bridgeProxy?.close();
    }
  } finally {
    await peer.stop();
    removeLink();
  }
  return { cases, checks, meta };
}

function resultsPath(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const day = new Date().toISOString().slice(0, 10);
  for (let i = 1; ; i++) {
    const file = path.join(dir, `netlink-${day}${i === 1 ? '' : `-${i}`}.json`);
    if (!existsSync(file)) return file;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      ticks: { type: 'string', default: '1e7' },
      repeat: { type: 'string', default: '3' },
      links: { type: 'string', default: '1000:0.5,100:20' },
      'check-bytes': { type: 'string', default: '1e8' },
      'bridge-python': { type: 'string', default: 'build/bridge-venv/bin/python' },
      timeout: { type: 'string', default: '600' },
      symbol: { type: 'string', default: 'EURUSD' },
      from: { type: 'string', default: '2024-01-08T00:00:00Z' },
      'cache-dir': { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      'usage: node dist/bench/netlink.js [--ticks 1e7] [--repeat 3] [--links 1000:0.5,100:20] [--check-bytes 1e8]\n' +
        '         [--bridge-python PATH] [--timeout S] [--symbol EURUSD] [--from ISO] [--cache-dir DIR] [--out FILE]\n' +
        'Needs root (a network namespace, veth, tc tbf).\n',
    );
    return;
  }
  if (process.getuid?.() !== 0) {
    process.stdout.write('not run: needs root (network namespace)\n');
    return;
  }
  const root = repoRoot();
  const fromMs = Date.parse(values.from);
  if (Number.isNaN(fromMs)) throw new Error(`--from: not a date: ${values.from}`);
  const options: NetlinkOptions = {
    ticks: parseCount(values.ticks),
    repeat: Math.max(1, Number(values.repeat) || 1),
    links: parseLinks(values.links),
    checkBytes: parseCount(values['check-bytes']),
    bridgePython: values['bridge-python'],
    timeoutMs: Number(values.timeout) * 1000,
    symbol: values.symbol,
    fromMs,
    cacheDir: values['cache-dir'] ?? path.join(root, 'bench', '.cache'),
    log: (line) => process.stderr.write(`${line}\n`),
  };
  // The namespace goes whatever happens: normal exit, an error, SIGINT / SIGTERM.
  process.on('exit', removeLink);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      removeLink();
      process.exit(130);
    });
  }
  const command = `node dist/bench/netlink.js ${process.argv.slice(2).join(' ')}`.trim();
  const started = new Date();
  const load0 = os.loadavg()[0]!;
  const { cases, checks, meta } = await runNetlink(options);
  const load1 = os.loadavg()[0]!;
  const shaping = `network namespace ${NETNS} + veth pair (${HOST_IP}/30 ↔ ${NS_IP}/30), rate by tc tbf on both ends, RTT by a delaying TCP proxy in the bench (RTT/2 each way)`;
  const out = [
    '',
    `${fmtSize(options.ticks)} ${options.symbol} ticks as Parquet (${cases[0]?.measurement.expectedRows ?? '?'} rows), best of ${options.repeat}; ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, load ${load0.toFixed(1)} → ${load1.toFixed(1)}, ${os.cpus().length} cores`,
    `shaping: ${shaping}`,
    ...checks.map((c) => `self-check ${c.link}: ${(c.transferBytes / 1e6).toFixed(0)} MB in ${c.transferS.toFixed(2)} s = ${c.mbitPerS.toFixed(0)} Mbit/s through proxy and link (${c.directMbitPerS.toFixed(0)} Mbit/s over the shaped veth alone); ping-pong RTT min/median/max ${c.rttMs.min.toFixed(2)}/${c.rttMs.median.toFixed(2)}/${c.rttMs.max.toFixed(2)} ms`),
    '',
    markdownTable(cases, options.repeat),
    '',
    `command: ${command}`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  const file = values.out ?? resultsPath(path.join(root, 'bench', 'results'));
  writeFileSync(
    file,
    `${JSON.stringify({ harness: 'bench/netlink.ts', command, startedAt: started.toISOString(), finishedAt: new Date().toISOString(), load: [load0, load1], shaping, options: { ...options, log: undefined, cacheDir: path.relative(root, options.cacheDir) }, ticks: { path: path.relative(root, meta.path), ranges: meta.ranges }, checks, cases }, null, 2)}\n`,
  );
  process.stdout.write(`written: ${path.relative(process.cwd(), file)}\n`);
}

if (isMain(import.meta.url)) {
  main().catch((e: unknown) => {
    process.stderr.write(`netlink: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
