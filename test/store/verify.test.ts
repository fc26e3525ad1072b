// `tradeapi verify` (issue 33): each stored partition against its manifest entry and against the
// terminal. A store of three days of EURUSD and USDJPY ticks and their January of M1 bars, synced
// from the simulator (past ranges: the same rows on any day and hour), then: all ok; a USDJPY day
// file copied over EURUSD's, a byte flipped inside a page, a manifest entry edited (damaged);
// a store short at sync, a tick the broker revised (differs, with both counts and the first
// differing time_msc); a day before the simulator's history (terminal-lost, kept by --repair); a
// terminal that answers short at first (asked again); a format-1 store (unproven, proofs added by
// --repair); bad arguments (exit 2); SIGTERM while waiting (exit 143).
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t from 'tap';

import { partitionFile } from '../../src/store/layout.js';
import { ManifestWriter, type PartitionEntry } from '../../src/store/manifest.js';
import { openManifest, runSync, syncPass, type SyncContext } from '../../src/sync/run.js';
import { Progress } from '../../src/export/progress.js';
import { openSimTerminal, TerminalError, type Series, type Terminal, type TickChunk } from '../../src/terminal/index.js';
import { runVerify, type PartitionReport, type VerifyReport } from '../../src/verify/run.js';
import { cliCommand } from '../helpers/cli.js';
import { manifestOf, writeManifestOf } from '../helpers/store.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-verify-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const TERMINAL_VARS = ['TRADEAPI_TERMINAL', 'TRADEAPI_BRIDGE_SECRET', 'TRADEAPI_SERVER_TZ', 'TRADEAPI_SIM_SERVER_TZ', 'TRADEAPI_SIM_CLOCK', 'TRADEAPI_STORE'];

function env(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const e: Record<string, string | undefined> = { ...process.env, ...extra };
  for (const n of TERMINAL_VARS) if (!(n in extra)) delete e[n];
  return e;
}

interface Out {
  code: number;
  stdout: string;
  stderr: string;
}

async function sync(args: string[], extra: Record<string, string> = {}): Promise<Out> {
  let stdout = '';
  let stderr = '';
  const code = await runSync(args, { env: env(extra), stdout: { write: (s: string) => ((stdout += s), true) }, stderr: { write: (s: string) => ((stderr += s), true) } });
  return { code, stdout, stderr };
}

async function verify(args: string[], options: { extra?: Record<string, string>; terminal?: () => Terminal; tty?: boolean } = {}): Promise<Out> {
  let stdout = '';
  let stderr = '';
  const code = await runVerify(args, {
    env: env(options.extra),
    stdout: { write: (s: string) => ((stdout += s), true) },
    stderr: { isTTY: options.tty === true, write: (s: string) => ((stderr += s), true) },
    ...(options.terminal ? { openTerminal: options.terminal } : {}),
  });
  return { code, stdout, stderr };
}

/** verify --json: the exit status and the report. */
async function report(args: string[], options: { extra?: Record<string, string>; terminal?: () => Terminal } = {}): Promise<{ code: number; r: VerifyReport; stderr: string }> {
  const out = await verify([...args, '--json'], options);
  let r: VerifyReport;
  try {
    r = JSON.parse(out.stdout) as VerifyReport;
  } catch {
    throw new Error(`verify --json printed no report (exit ${out.code}): ${out.stderr}`);
  }
  return { code: out.code, r, stderr: out.stderr };
}

const find = (r: VerifyReport, symbol: string, dataset: string, key: string): PartitionReport | undefined =>
  r.partitions.find((p) => p.symbol === symbol && p.dataset === dataset && p.key === key);
const notOk = (r: VerifyReport): string[] => r.partitions.filter((p) => p.status !== 'ok').map((p) => `${p.symbol} ${p.dataset} ${p.key} ${p.status}`);

/** A terminal in front of the simulator whose copy_ticks_range answers go through `change` (tests' stand-ins). */
function decorated(inner: Terminal, change: (symbol: string, fromMs: number, toMs: number, open: () => Promise<Series<TickChunk>>) => Promise<Series<TickChunk>>): Terminal {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'copyTicksRange') {
        return (symbol: string, a: number, b: number, flags: number) => change(symbol, a, b, () => target.copyTicksRange(symbol, a, b, flags));
      }
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** A series of chunks made by `map` from another's (null: the series ends there). */
function mapped(inner: Series<TickChunk>, map: (c: TickChunk) => TickChunk | null): Series<TickChunk> {
  let ended = false;
  const next = async (): Promise<TickChunk | null> => {
    if (ended) return null;
    const c = await inner.next();
    if (c === null) return null;
    const m = map(c);
    if (m === null) ended = true;
    return m;
  };
  return {
    next,
    close: () => inner.close(),
    async *[Symbol.asyncIterator]() {
      for (let c = await next(); c !== null; c = await next()) yield c;
    },
  };
}

function copyTicks(c: TickChunk, a: number, b: number, shiftMs = 0): TickChunk {
  const s = BigInt(shiftMs);
  return {
    rows: b - a,
    time: c.time.slice(a, b).map((v) => v + s / 1000n),
    bid: c.bid.slice(a, b), ask: c.ask.slice(a, b), last: c.last.slice(a, b), volume: c.volume.slice(a, b),
    time_msc: c.time_msc.slice(a, b).map((v) => v + s),
    flags: c.flags.slice(a, b), volume_real: c.volume_real.slice(a, b),
  };
}

const empty = (): Series<TickChunk> => ({
  next: () => Promise.resolve(null),
  close: () => undefined,
  async *[Symbol.asyncIterator]() {},
});

/** syncPass in process, through `terminal`: ticks of `symbol` for the days [fromMs, toMs]. */
async function syncThrough(terminal: Terminal, root: string, symbol: string, fromMs: number, toMs: number): Promise<void> {
  mkdirSync(root, { recursive: true });
  const manifest = await openManifest(root, 'Tradeapi-Sim', 'UTC', [symbol]);
  const quiet = { write: () => true };
  const ctx: SyncContext = {
    terminal, root, manifest, manifests: new ManifestWriter(root, manifest), now: () => Date.now(), stopped: () => undefined, current: undefined,
    progress: (label, range) => new Progress(quiet, label, range),
  };
  await syncPass(ctx, { symbols: [symbol], fromMs, toMs, refreshDays: 0, ticks: true, bars: false }).finally(() => ctx.manifests.flush());
}

const store = path.join(dir, 'store');
const eurFile = (day: string): string => partitionFile(store, 'ticks', 'EURUSD', day);

await t.test('setup: three days of EURUSD and USDJPY ticks, and January of M1 bars', async (t) => {
  const r = await sync(['--store', store, '--symbols', 'EURUSD,USDJPY', '--from', '2024-01-08', '--to', '2024-01-10']);
  t.equal(r.code, 0, r.stderr);
});

await t.test('a store as sync wrote it: every partition ok, exit 0', async (t) => {
  const { code, r } = await report(['--store', store]);
  t.equal(code, 0);
  t.same(notOk(r), []);
  t.equal(r.totals.partitions, 8, '3 days and a month, of two symbols');
  t.equal(r.totals.ok, 8);
  const m = manifestOf(store);
  const day = find(r, 'EURUSD', 'ticks', '2024-01-08');
  const entry = m.symbols.EURUSD?.ticks['2024-01-08'] as PartitionEntry;
  t.ok(entry.rows > 100_000, `${entry.rows} ticks`);
  t.same(day?.store, { rows: entry.rows, first_msc: entry.first_msc, last_msc: entry.last_msc, xxh3_128: entry.xxh3_128 }, 'the store side: the manifest\'s proof, recomputed from the file');
  t.same(day?.terminal, day?.store, 'the terminal side: the same count, first, last and hash');
  t.equal(find(r, 'USDJPY', 'bars_m1', '2024-01')?.store.rows, m.symbols.USDJPY?.bars_m1['2024-01']?.rows);
  t.equal(day?.file, 'ticks/symbol=EURUSD/date=2024-01-08/part-0.parquet');
  const text = await verify(['--store', store]);
  t.equal(text.code, 0);
  t.match(text.stdout, /^verify: 8 partitions of EURUSD, USDJPY \([\d,]+ rows\) in [\d.]+ s, [\d,]+ rows\/s: 8 ok\n$/, 'one summary line');
  t.equal(text.stderr, '', 'off a TTY: no progress line');
  const tty = await verify(['--store', store], { tty: true });
  t.match(tty.stderr, /^\r\x1b\[Kverify: [\d,]+ rows, [\d.]+ MB, [\d,]+ rows\/s, \d+ %/, 'on a TTY: the progress line');
  t.match(tty.stderr, /\r\x1b\[K$/, 'cleared before the report');
  const some = await report(['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-09', '--to', '2024-01-09']);
  t.same(some.r.partitions.map((p) => `${p.dataset} ${p.key}`), ['ticks 2024-01-09', 'bars_m1 2024-01'], '--symbols, --from, --to: that day and its month');
  const bars = await report(['--store', store, '--only', 'bars']);
  t.same(bars.r.partitions.map((p) => `${p.symbol} ${p.key}`), ['EURUSD 2024-01', 'USDJPY 2024-01'], '--only bars');
});

await t.test("USDJPY's day file copied over EURUSD's: damaged, exit 1; --repair fetches it again", async (t) => {
  const before = readFileSync(eurFile('2024-01-08'));
  copyFileSync(partitionFile(store, 'ticks', 'USDJPY', '2024-01-08'), eurFile('2024-01-08'));
  const { code, r } = await report(['--store', store]);
  t.equal(code, 1);
  t.same(notOk(r), ['EURUSD ticks 2024-01-08 damaged']);
  t.match(find(r, 'EURUSD', 'ticks', '2024-01-08')?.why, /bytes where the manifest recorded|footer says/);
  const text = await verify(['--store', store]);
  t.match(text.stdout, /EURUSD ticks 2024-01-08: damaged: /);
  t.match(text.stdout, /verify --repair fetches the 1 damaged, differing or unproven again/);

  const repair = await verify(['--store', store, '--repair']);
  t.equal(repair.code, 1, 'exit 1: something was found (and repaired)');
  t.match(repair.stdout, /EURUSD ticks 2024-01-08: damaged: .* -> repaired: fetched again \([\d,]+ rows, as the terminal has them\)/);
  t.match(repair.stdout, /repaired 1\n/);
  t.same(readFileSync(eurFile('2024-01-08')), before, 'the file is the one sync wrote');
  const again = await report(['--store', store]);
  t.equal(again.code, 0, 'then all ok');
});

await t.test('a byte flipped inside a page: damaged; --repair restores it', async (t) => {
  const file = eurFile('2024-01-09');
  const bytes = readFileSync(file);
  const at = Math.floor(bytes.length / 3);
  bytes[at] = (bytes[at] as number) ^ 0x10;
  writeFileSync(file, bytes);
  const { code, r } = await report(['--store', store, '--symbols', 'EURUSD']);
  t.equal(code, 1);
  t.same(notOk(r), ['EURUSD ticks 2024-01-09 damaged']);
  t.match(find(r, 'EURUSD', 'ticks', '2024-01-09')?.why, /does not decode|checksum|crc|hash/i);
  t.equal((await verify(['--store', store, '--symbols', 'EURUSD', '--repair'])).code, 1);
  t.equal((await report(['--store', store])).code, 0, 'then all ok');
});

await t.test('a manifest entry edited to claim fewer rows, or another hash: damaged (the file is not what it says)', async (t) => {
  const m = manifestOf(store);
  const entry = m.symbols.EURUSD!.ticks['2024-01-10']!;
  writeManifestOf(store, { ...m, symbols: { ...m.symbols, EURUSD: { ...m.symbols.EURUSD!, ticks: { ...m.symbols.EURUSD!.ticks, '2024-01-10': { ...entry, rows: entry.rows - 1 } } } } });
  let v = await report(['--store', store, '--symbols', 'EURUSD']);
  t.equal(v.code, 1);
  t.same(notOk(v.r), ['EURUSD ticks 2024-01-10 damaged']);
  t.match(find(v.r, 'EURUSD', 'ticks', '2024-01-10')?.why, /rows/);
  const other = `${entry.xxh3_128!.slice(0, 31)}${entry.xxh3_128!.endsWith('0') ? '1' : '0'}`;
  writeManifestOf(store, { ...m, symbols: { ...m.symbols, EURUSD: { ...m.symbols.EURUSD!, ticks: { ...m.symbols.EURUSD!.ticks, '2024-01-10': { ...entry, xxh3_128: other } } } } });
  v = await report(['--store', store, '--symbols', 'EURUSD']);
  t.same(notOk(v.r), ['EURUSD ticks 2024-01-10 damaged']);
  t.match(find(v.r, 'EURUSD', 'ticks', '2024-01-10')?.why, /xxh3_128|hash/);
  t.equal((await verify(['--store', store, '--repair'])).code, 1);
  const after = manifestOf(store).symbols.EURUSD!.ticks['2024-01-10']!;
  t.same({ rows: after.rows, xxh3_128: after.xxh3_128 }, { rows: entry.rows, xxh3_128: entry.xxh3_128 }, 'the entry is the terminal\'s again');
  t.equal((await report(['--store', store])).code, 0);
});

const sim = openSimTerminal();
t.teardown(() => sim.close());

await t.test('a store short at sync (a partial download): differs, both counts and the first missing time_msc; --repair', async (t) => {
  const short = path.join(dir, 'short');
  const day = Date.UTC(2024, 0, 9);
  const cut = BigInt(day + 12 * 3_600_000);
  // A download cut at noon, recorded as the whole day.
  const cutting = decorated(sim, async (_s, _a, _b, open) => mapped(await open(), (c) => {
    let n = 0;
    while (n < c.rows && (c.time_msc[n] as bigint) < cut) n++;
    return n === 0 ? null : copyTicks(c, 0, n);
  }));
  await syncThrough(cutting, short, 'EURUSD', day, day);
  const entry = manifestOf(short).symbols.EURUSD!.ticks['2024-01-09']!;
  t.equal(entry.complete, true);
  const { code, r } = await report(['--store', short, '--wait-s', '0']);
  t.equal(code, 1);
  const p = find(r, 'EURUSD', 'ticks', '2024-01-09')!;
  t.equal(p.status, 'differs');
  t.equal(p.diff, 'store-short');
  t.equal(p.store.rows, entry.rows);
  t.ok(p.terminal!.rows > entry.rows, `the terminal has ${p.terminal!.rows} rows, the store ${entry.rows}`);
  t.ok(p.first_diff_msc! >= Number(cut) && p.first_diff_msc! < Number(cut) + 60_000, `the first missing tick at ${new Date(p.first_diff_msc!).toISOString()}, just after noon`);
  t.match(p.why, /the store was short \(a partial download at sync\)/);
  t.match(p.why, new RegExp(`the store holds ${entry.rows} rows, the terminal ${p.terminal!.rows}`));
  t.equal((await verify(['--store', short, '--repair', '--wait-s', '0'])).code, 1);
  const fixed = await report(['--store', short]);
  t.equal(fixed.code, 0);
  t.equal(manifestOf(short).symbols.EURUSD!.ticks['2024-01-09']!.rows, p.terminal!.rows, 'the whole day now');
});

await t.test('a tick the broker revised: differs, told from a short store', async (t) => {
  // The first tick at or after 2024-01-10 12:00 gets another bid, in whatever range it is asked for.
  const at = BigInt(Date.UTC(2024, 0, 10, 12));
  let revisedAt: number | undefined;
  const revising = decorated(openSimTerminal(), async (symbol, _a, _b, open) => {
    const s = await open();
    if (symbol !== 'EURUSD') return s;
    let done = false;
    return mapped(s, (c) => {
      if (done || c.rows === 0 || (c.time_msc[c.rows - 1] as bigint) < at) return c;
      const copy = copyTicks(c, 0, c.rows);
      let k = 0;
      while ((copy.time_msc[k] as bigint) < at) k++;
      copy.bid[k] = (copy.bid[k] as number) + 0.00001;
      revisedAt = Number(copy.time_msc[k]);
      done = true;
      return copy;
    });
  });
  const { code, r } = await report(['--store', store, '--symbols', 'EURUSD'], { terminal: () => revising });
  t.equal(code, 1);
  t.same(notOk(r), ['EURUSD ticks 2024-01-10 differs']);
  const p = find(r, 'EURUSD', 'ticks', '2024-01-10')!;
  t.equal(p.diff, 'revised');
  t.equal(p.store.rows, p.terminal!.rows, 'the same count');
  t.not(p.store.xxh3_128, p.terminal!.xxh3_128, 'another hash');
  t.equal(p.first_diff_msc, revisedAt, 'the first differing time_msc: the revised tick\'s');
  t.match(p.why, /the broker revised it/);
});

await t.test('a day the terminal no longer holds (before the simulator\'s history): terminal-lost, kept by --repair', async (t) => {
  const lost = path.join(dir, 'lost');
  // 2019-12-31 holds 2024-01-09's ticks moved back in time (the simulator's history starts 2020-01-01).
  const day = Date.UTC(2019, 11, 31);
  const shift = Date.UTC(2024, 0, 9) - day;
  const past = decorated(sim, async (symbol, a, b) => mapped(await sim.copyTicksRange(symbol, a + shift, b + shift, -1), (c) => copyTicks(c, 0, c.rows, -shift)));
  await syncThrough(past, lost, 'EURUSD', day, day);
  const entry = manifestOf(lost).symbols.EURUSD!.ticks['2019-12-31']!;
  t.ok(entry.rows > 0 && entry.xxh3_128 !== undefined, `${entry.rows} rows, proven`);
  const { code, r, stderr } = await report(['--store', lost, '--wait-s', '0']);
  t.equal(code, 1);
  const p = find(r, 'EURUSD', 'ticks', '2019-12-31')!;
  t.equal(p.status, 'terminal-lost');
  t.same(p.terminal, { rows: 0 });
  t.equal(p.store.rows, entry.rows);
  t.match(p.why, /asked twice: the store's \d+ rows are now the only copy; keep them/);
  t.match(stderr, /1 partition: the terminal answered fewer rows than the store holds, or none/, 'asked again');
  const file = partitionFile(lost, 'ticks', 'EURUSD', '2019-12-31');
  const mtime = statSync(file).mtimeMs;
  const repair = await verify(['--store', lost, '--repair', '--wait-s', '0']);
  t.equal(repair.code, 1);
  t.match(repair.stdout, /EURUSD ticks 2019-12-31: terminal-lost: .* -> kept as it is: the terminal no longer holds it/);
  t.match(repair.stdout, /1 terminal-lost: the store holds the only copy; back it up/);
  t.equal(statSync(file).mtimeMs, mtime, 'the file is untouched');
  t.same(manifestOf(lost).symbols.EURUSD!.ticks['2019-12-31'], entry, 'and its entry');
});

await t.test('a terminal that answers short at first (still downloading) is asked again: ok', async (t) => {
  // The first answer for USDJPY's ticks (the three days, asked as one range) is empty.
  let asked = 0;
  const slow = decorated(openSimTerminal(), async (symbol, _a, _b, open) => {
    if (symbol === 'USDJPY' && asked++ === 0) {
      (await open()).close();
      return empty();
    }
    return open();
  });
  const { code, r, stderr } = await report(['--store', store, '--symbols', 'USDJPY', '--wait-s', '0'], { terminal: () => slow });
  t.equal(code, 0, 'ok once asked again');
  t.same(notOk(r), []);
  t.equal(asked, 4, 'the range once, then each day again');
  t.match(stderr, /3 partitions: the terminal answered fewer rows than the store holds, or none; asking again now/);
  // A terminal that refuses a day outright (and so the range starting with it), twice: terminal-lost.
  const refusing = decorated(openSimTerminal(), async (symbol, a, _b, open) => {
    if (symbol === 'USDJPY' && a === Date.UTC(2024, 0, 8)) throw new TerminalError('not_found', -1, 'no history');
    return open();
  });
  const gone = await report(['--store', store, '--symbols', 'USDJPY', '--wait-s', '0'], { terminal: () => refusing });
  t.same(notOk(gone.r), ['USDJPY ticks 2024-01-08 terminal-lost']);
  t.match(find(gone.r, 'USDJPY', 'ticks', '2024-01-08')?.why, /refuses the range \(not found\)/);
});

await t.test('today, partial (the simulator clock set): verified up to the instant it was fetched', async (t) => {
  const live = path.join(dir, 'live');
  const clock = { TRADEAPI_SIM_CLOCK: '2024-01-10T14:00:30Z' };
  t.equal((await sync(['--store', live, '--symbols', 'EURUSD', '--from', '2024-01-10'], clock)).code, 0);
  t.equal(manifestOf(live).symbols.EURUSD!.ticks['2024-01-10']!.complete, false);
  const v = await report(['--store', live], { extra: clock });
  t.equal(v.code, 0);
  t.same(notOk(v.r), []);
  t.equal(v.r.totals.partitions, 2, 'the partial day and the partial month');
});

await t.test('a format-1 store: unproven, exit 1; --repair adds the proofs', async (t) => {
  const old = path.join(dir, 'old');
  t.equal((await sync(['--store', old, '--symbols', 'EURUSD', '--from', '2024-01-08', '--to', '2024-01-08'])).code, 0);
  const m = manifestOf(old);
  const strip = (e: PartitionEntry): PartitionEntry => ({ rows: e.rows, complete: e.complete, fetched: e.fetched, ...(e.through ? { through: e.through } : {}) });
  const symbols = Object.fromEntries(Object.entries(m.symbols).map(([s, c]) => [s, {
    ticks: Object.fromEntries(Object.entries(c.ticks).map(([k, e]) => [k, strip(e)])),
    bars_m1: Object.fromEntries(Object.entries(c.bars_m1).map(([k, e]) => [k, strip(e)])),
  }]));
  rmSync(path.join(old, 'manifests'), { recursive: true });
  writeFileSync(path.join(old, 'manifest.json'), JSON.stringify({ format: 'tradeapi-store/1', server: m.server, zone: m.zone, created: m.created, updated: m.updated, symbols }));
  const { code, r } = await report(['--store', old]);
  t.equal(code, 1);
  t.same(r.partitions.map((p) => p.status), ['unproven', 'unproven']);
  t.match(r.partitions[0]?.why, /no proof .* --repair adds the proof/);
  t.equal((await verify(['--store', old, '--repair'])).code, 1);
  t.equal(JSON.parse(readFileSync(path.join(old, 'manifest.json'), 'utf8')).format, 'tradeapi-store/2');
  const after = await report(['--store', old]);
  t.equal(after.code, 0, 'proven now');
  t.ok(manifestOf(old).symbols.EURUSD!.ticks['2024-01-08']!.xxh3_128);
});

await t.test('bad arguments: a clear message and exit 2', async (t) => {
  const file = path.join(dir, 'a-file');
  writeFileSync(file, 'x');
  const none = path.join(dir, 'not-a-store');
  mkdirSync(none);
  const other = path.join(dir, 'other');
  t.equal((await sync(['--store', other, '--symbols', 'EURUSD', '--from', '2024-01-06', '--to', '2024-01-06', '--only', 'ticks'])).code, 0);
  writeManifestOf(other, { ...manifestOf(other), server: 'Broker-Live' });
  const cases: Array<[string[], RegExp, Record<string, string>?]> = [
    [[], /--store DIR is required \(or set TRADEAPI_STORE\)/],
    [['--store', none], /is not a store \(no manifest.json\)/],
    [['--store', path.join(dir, 'missing')], /does not exist/],
    [['--store', file], /is not a directory/],
    [['--store', store, '--symbols', 'GBPUSD'], /the store has nothing of GBPUSD \(it holds EURUSD, USDJPY\)/],
    [['--store', store, '--symbols', 'EURUSD,,X'], /--symbols: "" is not a symbol name/],
    [['--store', store, '--from', '2024-01-09', '--to', '2024-01-05'], /must not be later than --to/],
    [['--store', store, '--from', 'yesterday'], /--from must be YYYY-MM-DD/],
    [['--store', store, '--wait-s', 'x'], /--wait-s must be an integer from 0 to 3600/],
    [['--store', store, '--only', 'quotes'], /--only must be ticks or bars/],
    [['--store', store, '--bogus'], /unknown option --bogus/],
    [['--store', other], /holds history of trade server "Broker-Live", and this terminal is on "Tradeapi-Sim"/],
    [['--store', store], /filled with server time zone UTC, and TRADEAPI_SERVER_TZ now says Europe\/Athens/, { TRADEAPI_SERVER_TZ: 'Europe/Athens' }],
    [['--store', store], /TRADEAPI_TERMINAL/, { TRADEAPI_TERMINAL: 'ftp://x' }],
  ];
  for (const [args, message, extra] of cases) {
    const r = await verify(args, extra ? { extra } : {});
    t.equal(r.code, 2, `${args.join(' ')}: exit 2`);
    t.match(r.stderr, message, args.join(' '));
    t.match(r.stderr, /^tradeapi verify: /);
  }
  const help = await verify(['--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /tradeapi verify --store DIR/);
});

await t.test('SIGTERM while waiting to ask again: exit 143, the lock released', async (t) => {
  const lost = path.join(dir, 'lost');
  const child = spawn(process.execPath, [...cliCommand(), 'verify', '--store', lost, '--repair', '--wait-s', '600'], { env: env() as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const waiting = new Promise<void>((resolve) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/asking again in 600 s/.test(stderr)) resolve();
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  t.teardown(() => void child.kill('SIGKILL')); // nothing left behind, whatever fails
  await Promise.race([waiting, exited]);
  child.kill('SIGTERM');
  t.equal(await exited, 143, stderr);
  t.match(stderr, /interrupted by SIGTERM/);
  t.notOk(statSync(path.join(lost, '.sync.lock'), { throwIfNoEntry: false }), 'the lock is released');
});
