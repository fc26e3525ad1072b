// `tradeapi sync` (issue 26): ticks and M1 bars of historic ranges into the Hive layout, compared
// with the terminal day by day; resume without pulling again; a partial day and the still-forming
// bar on a simulator whose clock is set; the lock; a store of another server or zone refused; bad
// arguments (exit 2); a SIGKILL in the middle of a sync and the resume after it; the gaps report.
// The simulator serves past ranges deterministically, so this passes on any day and hour.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t from 'tap';
import { tableFromIPC } from 'apache-arrow';

import { runStore } from '../../src/sync/gaps.js';
import { runSync, SETTLE_MS, syncPass, type SyncContext } from '../../src/sync/run.js';
import { Progress } from '../../src/export/progress.js';
import { decodeDay, readTicks } from '../../src/store/reader.js';
import { partitionFile } from '../../src/store/layout.js';
import { ManifestWriter } from '../../src/store/manifest.js';
import { openSimTerminal, type Terminal } from '../../src/terminal/index.js';
import { cliCommand } from '../helpers/cli.js';
import { looseFile, manifestOf, partOf, writeManifestOf } from '../helpers/store.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-store-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const oracle = openSimTerminal();
t.teardown(() => oracle.close());

const DAY = 86_400_000;
const TERMINAL_VARS = ['TRADEAPI_TERMINAL', 'TRADEAPI_BRIDGE_SECRET', 'TRADEAPI_SERVER_TZ', 'TRADEAPI_SIM_SERVER_TZ', 'TRADEAPI_SIM_CLOCK', 'TRADEAPI_STORE'];

function env(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const e: Record<string, string | undefined> = { ...process.env, ...extra };
  for (const n of TERMINAL_VARS) if (!(n in extra)) delete e[n];
  return e;
}

interface Out {
  code: number;
  stderr: string;
  stdout: string;
}

async function sync(args: string[], extra: Record<string, string> = {}, tty = false): Promise<Out> {
  let stderr = '';
  let stdout = '';
  const code = await runSync(args, {
    env: env(extra),
    stdout: { write: (s: string) => ((stdout += s), true) },
    stderr: { isTTY: tty, write: (s: string) => ((stderr += s), true) },
  });
  return { code, stderr, stdout };
}

async function gaps(args: string[], extra: Record<string, string> = {}): Promise<Out> {
  let stderr = '';
  let stdout = '';
  const code = await runStore(args, { env: env(extra), stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } });
  return { code, stderr, stdout };
}


async function terminalTicks(terminal: Terminal, symbol: string, fromMs: number, toMs: number): Promise<bigint[]> {
  const out: bigint[] = [];
  for await (const c of await terminal.copyTicksRange(symbol, fromMs, toMs, -1)) out.push(...c.time_msc);
  return out;
}

async function storedTicks(store: string, symbol: string, day: string, fromMs = 0, toMs = 8.64e15): Promise<bigint[]> {
  const out: bigint[] = [];
  // A file the manifest does not name yet (a sync killed within a second of writing it) read as it is.
  const named = manifestOf(store).symbols[symbol]?.ticks[day] !== undefined;
  const part = named ? partOf(store, 'ticks', symbol, day) : looseFile(partitionFile(store, 'ticks', symbol, day));
  for await (const c of readTicks(decodeDay(part, fromMs, toMs), () => 65_536)) out.push(...c.time_msc);
  return out;
}

async function terminalBars(terminal: Terminal, symbol: string, fromS: number, toS: number): Promise<bigint[]> {
  const out: bigint[] = [];
  for await (const c of await terminal.copyRatesRange(symbol, 1, fromS, toS)) out.push(...c.time);
  return out;
}

/** The `time` column of a stored bars file, in seconds. */
async function storedBarTimes(file: string): Promise<bigint[]> {
  const pw = await import('parquet-wasm');
  const table = tableFromIPC(pw.readParquet(readFileSync(file)).intoIPCStream());
  const time = table.getChild('time');
  t.match(String(time?.type), /Timestamp<MILLISECOND, UTC>/);
  return [...(time?.toArray() as BigInt64Array)].map((v) => v / 1000n);
}

const store = path.join(dir, 'store');

await t.test('a range of days: the Hive layout, the manifest, every tick and bar as the terminal has it', async (t) => {
  const r = await sync(['--store', store, '--symbols', 'EURUSD,USDJPY', '--from', '2024-01-05', '--to', '2024-01-09T12:00:00Z']);
  t.equal(r.code, 0, 'exit 0', { stderr: r.stderr });
  t.match(r.stderr, /rows in \d+ files/, 'a summary off a TTY');
  const m = manifestOf(store);
  t.equal(m.server, 'Tradeapi-Sim');
  t.equal(m.zone, 'UTC');
  for (const symbol of ['EURUSD', 'USDJPY']) {
    for (let d = Date.UTC(2024, 0, 5); d <= Date.UTC(2024, 0, 9); d += DAY) {
      const key = new Date(d).toISOString().slice(0, 10);
      const expected = await terminalTicks(oracle, symbol, d, d + DAY - 1);
      const entry = m.symbols[symbol]?.ticks[key];
      t.same(entry && { rows: entry.rows, complete: entry.complete }, { rows: expected.length, complete: true }, `${symbol} ${key}: ${expected.length} ticks recorded`);
      const file = partitionFile(store, 'ticks', symbol, key);
      if (expected.length === 0) {
        t.notOk(existsSync(path.dirname(file)), `${symbol} ${key}: an empty day has no partition`);
        continue;
      }
      t.ok(file.includes(`ticks/symbol=${symbol}/date=${key}/part-0.parquet`));
      if (symbol === 'EURUSD') t.same(await storedTicks(store, symbol, key), expected, `${symbol} ${key}: the same ticks in the same order`);
    }
    const bars = await terminalBars(oracle, symbol, Date.UTC(2024, 0, 1) / 1000, Date.UTC(2024, 1, 1) / 1000 - 60);
    t.same(m.symbols[symbol]?.bars_m1['2024-01'], { ...m.symbols[symbol]?.bars_m1['2024-01'], rows: bars.length, complete: true }, `${symbol}: the whole month of M1 bars`);
    t.same(await storedBarTimes(partitionFile(store, 'bars_m1', symbol, '2024-01')), bars, `${symbol}: bar times as the terminal's, sorted`);
  }
  t.equal(m.symbols.EURUSD?.ticks['2024-01-06']?.rows, 0, 'Saturday: fetched, and empty');
  t.notOk(m.symbols.EURUSD?.ticks['2024-01-10'], 'a day after --to is not fetched');
  t.notOk(existsSync(path.join(store, '.sync.lock')), 'the lock is released');
});

await t.test('resume: complete days are not pulled again; a day the manifest lacks is', async (t) => {
  const before = manifestOf(store);
  const again = await sync(['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-05', '--to', '2024-01-09']);
  t.equal(again.code, 0);
  const after = manifestOf(store);
  t.same(after.symbols.EURUSD, before.symbols.EURUSD, 'nothing fetched again');
  // As after a kill between a file and the manifest: the day is fetched again and its file replaced.
  delete after.symbols.EURUSD?.ticks['2024-01-08'];
  writeManifestOf(store, after);
  t.equal((await sync(['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-05', '--to', '2024-01-09'])).code, 0);
  const redone = manifestOf(store);
  t.equal(redone.symbols.EURUSD?.ticks['2024-01-08']?.rows, before.symbols.EURUSD?.ticks['2024-01-08']?.rows, 'the day is back');
  t.equal(redone.symbols.EURUSD?.ticks['2024-01-09']?.fetched, before.symbols.EURUSD?.ticks['2024-01-09']?.fetched, 'its neighbours untouched');
  // --refresh reaches only days within DAYS of today: 2024 is years ago, so nothing changes.
  t.equal((await sync(['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-05', '--to', '2024-01-09', '--refresh', '3'])).code, 0);
  t.equal(manifestOf(store).symbols.EURUSD?.ticks['2024-01-09']?.fetched, before.symbols.EURUSD?.ticks['2024-01-09']?.fetched);
});

await t.test('today is partial and the forming bar is never stored (the simulator clock set)', async (t) => {
  const live = path.join(dir, 'live');
  const clock = Date.UTC(2024, 0, 10, 14, 0, 30);
  const r = await sync(['--store', live, '--symbols', 'EURUSD', '--from', '2024-01-09'], { TRADEAPI_SIM_CLOCK: new Date(clock).toISOString() });
  t.equal(r.code, 0, 'exit 0', { stderr: r.stderr });
  const m = manifestOf(live);
  const today = m.symbols.EURUSD?.ticks['2024-01-10'];
  t.equal(today?.complete, false, 'today is partial');
  const through = Date.parse(today?.through ?? '');
  t.ok(through <= clock && through > clock - 60_000, `fetched through ${today?.through}`);
  const expected = await terminalTicks(oracle, 'EURUSD', Date.UTC(2024, 0, 10), through);
  t.same(await storedTicks(live, 'EURUSD', '2024-01-10'), expected, 'the ticks up to then');
  t.equal(m.symbols.EURUSD?.ticks['2024-01-09']?.complete, true, 'yesterday is complete');
  t.notOk(m.symbols.EURUSD?.ticks['2024-01-11'], 'no day after now');
  const bars = await storedBarTimes(partitionFile(live, 'bars_m1', 'EURUSD', '2024-01'));
  t.equal(bars[bars.length - 1], BigInt(Date.UTC(2024, 0, 10, 13, 59) / 1000), 'the last bar stored is 13:59: the 14:00 bar is still forming');
  t.equal(m.symbols.EURUSD?.bars_m1['2024-01']?.complete, false);

  // Later: the day completes, the bars go on.
  const later = Date.UTC(2024, 0, 11, 0, 10);
  t.equal((await sync(['--store', live, '--symbols', 'EURUSD', '--from', '2024-01-09'], { TRADEAPI_SIM_CLOCK: new Date(later).toISOString() })).code, 0);
  const m2 = manifestOf(live);
  t.equal(m2.symbols.EURUSD?.ticks['2024-01-10']?.complete, true, 'the day is complete now');
  t.same(await storedTicks(live, 'EURUSD', '2024-01-10'), await terminalTicks(oracle, 'EURUSD', Date.UTC(2024, 0, 10), Date.UTC(2024, 0, 11) - 1), 'all of its ticks');
  const bars2 = await storedBarTimes(partitionFile(live, 'bars_m1', 'EURUSD', '2024-01'));
  t.equal(bars2[bars2.length - 1], BigInt(Date.UTC(2024, 0, 11, 0, 9) / 1000), 'bars through 00:09 (closed at 00:10; 00:10 is forming)');
  t.same(bars2, await terminalBars(oracle, 'EURUSD', Date.UTC(2024, 0, 1) / 1000, Date.UTC(2024, 0, 11, 0, 9) / 1000), 'the month so far, as the terminal has it');
});

await t.test('--follow: a pass takes today up to its through from the file, only the newer ticks from the terminal', async (t) => {
  const store = path.join(dir, 'follow');
  const first = Date.UTC(2024, 0, 10, 9, 0, 0);
  t.equal((await sync(['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-10', '--only', 'ticks'], { TRADEAPI_SIM_CLOCK: new Date(first).toISOString() })).code, 0);
  const manifest = manifestOf(store);
  const through = Date.parse(manifest.symbols.EURUSD?.ticks['2024-01-10']?.through ?? '');
  t.ok(through > first - 60_000 && through < first, 'today is partial');
  // The next pass, later that day, through a terminal that records what it is asked.
  const now = Date.UTC(2024, 0, 10, 15, 0, 0);
  const sim = openSimTerminal({ clockStartMs: now });
  t.teardown(() => sim.close());
  const asked: Array<[number, number]> = [];
  const terminal = new Proxy(sim, {
    get(target, prop, receiver) {
      if (prop === 'copyTicksRange') {
        return (symbol: string, a: number, b: number, flags: number) => {
          asked.push([a, b]);
          return target.copyTicksRange(symbol, a, b, flags);
        };
      }
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const quiet = { write: () => true };
  const ctx: SyncContext = {
    terminal, root: store, manifest, manifests: new ManifestWriter(store, manifest), now: () => now, stopped: () => undefined, current: undefined,
    progress: (label, range) => new Progress(quiet, label, range),
  };
  const request = { symbols: ['EURUSD'], fromMs: Date.UTC(2024, 0, 10), toMs: undefined, refreshDays: 0, ticks: true, bars: false };
  await syncPass(ctx, request);
  const settled = now - SETTLE_MS;
  t.same(asked, [[through + 1, settled]], 'the terminal was asked only for the ticks after the last pass');
  t.equal(ctx.manifest.symbols.EURUSD?.ticks['2024-01-10']?.through, new Date(settled).toISOString());
  const stored = await storedTicks(store, 'EURUSD', '2024-01-10');
  const expected = await terminalTicks(oracle, 'EURUSD', Date.UTC(2024, 0, 10), settled);
  t.ok(stored.length === expected.length && stored.every((v, i) => v === expected[i]), `the day's ${expected.length} ticks up to then, none lost or doubled`);
  asked.length = 0;
  await syncPass(ctx, { ...request, refreshDays: 1 });
  t.same(asked, [[Date.UTC(2024, 0, 10), settled]], '--refresh: the whole day again');
});

await t.test('progress on a TTY', async (t) => {
  const r = await sync(['--store', path.join(dir, 'tty'), '--symbols', 'EURUSD', '--from', '2024-01-08', '--to', '2024-01-08', '--only', 'ticks'], {}, true);
  t.equal(r.code, 0);
  t.match(r.stderr, /\r\x1b\[KEURUSD ticks: [\d,]+ rows, [\d.]+ MB in [\d.]+ s -> /, 'the final line of each dataset');
});

await t.test('one writer at a time: a live lock refuses, a dead one is taken over', async (t) => {
  const lock = path.join(store, '.sync.lock');
  writeFileSync(lock, JSON.stringify({ pid: process.ppid, host: os.hostname(), started: '2024-01-01T00:00:00Z' }));
  const busy = await sync(['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-05', '--to', '2024-01-05']);
  t.equal(busy.code, 1, 'exit 1');
  t.match(busy.stderr, new RegExp(`being written by another sync \\(pid ${process.ppid}`));
  t.ok(existsSync(lock), 'the other writer keeps its lock');
  writeFileSync(lock, JSON.stringify({ pid: 4_194_000, host: os.hostname(), started: '2024-01-01T00:00:00Z' }));
  const taken = await sync(['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-05', '--to', '2024-01-05']);
  t.equal(taken.code, 0, 'a lock of a process that is gone is taken over', { stderr: taken.stderr });
  t.notOk(existsSync(lock));
});

await t.test('a store of another zone or trade server is refused (exit 2)', async (t) => {
  const zone = await sync(['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-05', '--to', '2024-01-05'], { TRADEAPI_SERVER_TZ: 'Europe/Athens' });
  t.equal(zone.code, 2);
  t.match(zone.stderr, /filled with server time zone UTC, and TRADEAPI_SERVER_TZ now says Europe\/Athens/);
  const other = path.join(dir, 'other');
  t.equal((await sync(['--store', other, '--symbols', 'EURUSD', '--from', '2024-01-06', '--to', '2024-01-06', '--only', 'ticks'])).code, 0);
  const m = manifestOf(other);
  writeManifestOf(other, { ...m, server: 'Broker-Live' });
  const server = await sync(['--store', other, '--symbols', 'EURUSD', '--from', '2024-01-06', '--to', '2024-01-06']);
  t.equal(server.code, 2);
  t.match(server.stderr, /holds history of trade server "Broker-Live", and this terminal is on "Tradeapi-Sim"/);
});

await t.test('bad arguments: a clear message and exit 2, no store touched', async (t) => {
  const file = path.join(dir, 'a-file');
  writeFileSync(file, 'x');
  const cases: Array<[string[], RegExp, Record<string, string>?]> = [
    [['--symbols', 'EURUSD', '--from', '2024-01-05'], /--store DIR is required \(or set TRADEAPI_STORE\)/],
    [['--store', store, '--from', '2024-01-05'], /--symbols is required/],
    [['--store', store, '--symbols', 'EURUSD'], /--from is required/],
    [['--store', store, '--symbols', 'EURUSD', '--from', '2024-13-05'], /--from must be YYYY-MM-DD or an ISO 8601 UTC timestamp/],
    [['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-05T00:00:00+02:00'], /--from must be/],
    [['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-09', '--to', '2024-01-05'], /--from \(2024-01-09T00:00:00.000Z\) must not be later than --to/],
    [['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-05', '--refresh', 'x'], /--refresh must be an integer/],
    [['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-05', '--interval', '5'], /--interval is for --follow/],
    [['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-05', '--only', 'quotes'], /--only must be ticks or bars/],
    [['--store', store, '--symbols', 'EURUSD,,X', '--from', '2024-01-05'], /--symbols: "" is not a symbol name/],
    [['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-05', '--bogus'], /unknown option --bogus/],
    [['--store', store, '--symbols', 'NOSUCH', '--from', '2024-01-05'], /the terminal has no symbol "NOSUCH"/],
    [['--store', file, '--symbols', 'EURUSD', '--from', '2024-01-05'], /is not a directory/],
    [['--symbols', 'EURUSD', '--from', '2024-01-05'], /TRADEAPI_TERMINAL/, { TRADEAPI_STORE: store, TRADEAPI_TERMINAL: 'ftp://x' }],
  ];
  const before = readFileSync(path.join(store, 'manifest.json'), 'utf8');
  for (const [args, message, extra] of cases) {
    const r = await sync(args, extra);
    t.equal(r.code, 2, `${args.join(' ')}: exit 2`);
    t.match(r.stderr, message, args.join(' '));
    t.match(r.stderr, /^tradeapi sync: /);
  }
  t.equal(readFileSync(path.join(store, 'manifest.json'), 'utf8'), before, 'the store is as it was');
  t.notOk(existsSync(path.join(store, '.sync.lock')));
  const help = await sync(['--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /tradeapi sync --store DIR --symbols/);
});

await t.test('killed at any moment (SIGKILL): no partial file is visible, and the next sync resumes', async (t) => {
  const killed = path.join(dir, 'killed');
  const args = ['sync', '--store', killed, '--symbols', 'EURUSD', '--from', '2023-11-01', '--to', '2023-11-24', '--only', 'ticks'];
  const child = spawn(process.execPath, [...cliCommand(), ...args], { env: env() as NodeJS.ProcessEnv, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  // Kill it while a day file is being written (a temp file exists) after a few days' files are done
  // (the manifest names them at most a second later: manifest.ts ManifestWriter).
  const deadline = Date.now() + 60_000;
  const temps = (): string[] => walk(killed).filter((f) => /\.parquet\.tmp-\d+$/.test(f));
  let sawTemp = false;
  while (Date.now() < deadline) {
    const done = existsSync(killed) ? walk(killed).filter((f) => f.endsWith('.parquet')).length : 0;
    if (done >= 3 && temps().length > 0) {
      sawTemp = true;
      break;
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  child.kill('SIGKILL');
  await exited;
  t.ok(sawTemp, 'killed while a day file was being written');
  const m = manifestOf(killed);
  const recorded = Object.keys(m.symbols.EURUSD?.ticks ?? {});
  t.ok(recorded.length < 24, `${recorded.length} days recorded before the kill (a symbol's manifest is written at most once a second)`);
  for (const f of walk(killed).filter((f) => f.endsWith('.parquet'))) {
    const day = /date=(\d{4}-\d{2}-\d{2})/.exec(f)?.[1] as string;
    const d = Date.parse(`${day}T00:00:00Z`);
    t.same(await storedTicks(killed, 'EURUSD', day), await terminalTicks(oracle, 'EURUSD', d, d + DAY - 1), `visible file ${day} is whole`);
  }
  t.ok(existsSync(path.join(killed, '.sync.lock')), 'the dead sync left its lock');

  const resumed = await sync(args.slice(1));
  t.equal(resumed.code, 0, 'the next sync resumes (the dead lock taken over)', { stderr: resumed.stderr });
  const after = manifestOf(killed);
  for (const key of recorded) if (m.symbols.EURUSD?.ticks[key]?.complete) t.equal(after.symbols.EURUSD?.ticks[key]?.fetched, m.symbols.EURUSD?.ticks[key]?.fetched, `${key} not fetched again`);
  t.equal(Object.keys(after.symbols.EURUSD?.ticks ?? {}).length, 24, 'every day recorded');
  for (let d = Date.UTC(2023, 10, 1); d <= Date.UTC(2023, 10, 24); d += DAY) {
    const key = new Date(d).toISOString().slice(0, 10);
    t.equal(after.symbols.EURUSD?.ticks[key]?.rows, (await terminalTicks(oracle, 'EURUSD', d, d + DAY - 1)).length, `${key}: as many ticks as the terminal has`);
  }
  t.same(temps(), [], 'no temp file is left');
});

await t.test('store gaps: missing days, weekends and empty weekdays told apart', async (t) => {
  const r = await gaps(['gaps', 'EURUSD', '--store', store, '--from', '2024-01-03', '--to', '2024-01-11']);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /EURUSD ticks in the store \(server Tradeapi-Sim, zone UTC\): 2024-01-03 \.\. 2024-01-11/);
  t.match(r.stdout, /2024-01-03 \.\. 2024-01-04\s+2 days\s+missing: never fetched/);
  t.match(r.stdout, /2024-01-06\s+1 day\s+empty: weekend/);
  t.match(r.stdout, /2024-01-10 \.\. 2024-01-11\s+2 days\s+missing/);
  const json = await gaps(['gaps', 'EURUSD', '--store', store, '--json']);
  const report = JSON.parse(json.stdout) as { from: string; to: string; totals: Record<string, number>; gaps: unknown[] };
  t.same([report.from, report.to], ['2024-01-05', '2024-01-09'], 'by default: the days fetched');
  t.same(report.totals, { complete: 4, weekend: 1, empty: 0, partial: 0, unavailable: 0, missing: 0, damaged: 0 });
  const bad: Array<[string[], RegExp]> = [
    [['gaps'], /the SYMBOL is missing/],
    [['gaps', 'EURUSD', '--store', path.join(dir, 'none')], /is not a store \(no manifest.json\)/],
    [['gaps', 'GBPUSD', '--store', store], /has nothing of GBPUSD \(it holds EURUSD, USDJPY\)/],
    [['gaps', 'EURUSD', '--store', store, '--from', 'yesterday'], /--from must be/],
    [['holes', 'EURUSD'], /unknown subcommand "holes"/],
  ];
  for (const [args, message] of bad) {
    const b = await gaps(args);
    t.equal(b.code, 2, `${args.join(' ')}: exit 2`);
    t.match(b.stderr, message);
  }
});

function walk(d: string): string[] {
  if (!existsSync(d)) return [];
  return readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
}
