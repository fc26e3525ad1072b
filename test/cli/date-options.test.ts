// One date syntax for every command (issue 35 §3.3): export, sync, verify and store gaps read
// --from and --to through one parser (src/export/args.ts parseDateOption). A bare UTC day
// YYYY-MM-DD is its first millisecond in --from and its last (23:59:59.999) in --to; an ISO 8601
// UTC timestamp ending in Z is that instant; anything else is refused with the same words.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t from 'tap';

import { parseExportArgs } from '../../src/export/args.js';
import { parseGapsArgs, parseSyncArgs, UsageError } from '../../src/sync/args.js';
import { runStore } from '../../src/sync/gaps.js';
import { runSync } from '../../src/sync/run.js';
import { parseVerifyArgs } from '../../src/verify/args.js';
import { runVerify } from '../../src/verify/run.js';
import { cliCommand } from '../helpers/cli.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-dates-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const DAY_START = Date.UTC(2024, 0, 9);
const DAY_END = Date.UTC(2024, 0, 10) - 1;
const env = { TRADEAPI_STORE: dir };

/** Each command's --from/--to as its own parser reads them. */
const commands: Record<string, (from: string, to: string) => { fromMs: number | undefined; toMs: number | undefined } | undefined> = {
  export: (from, to) => parseExportArgs(['ticks', 'EURUSD', '--from', from, '--to', to, '-o', 'x.parquet'], dir),
  sync: (from, to) => parseSyncArgs(['--symbols', 'EURUSD', '--from', from, '--to', to], env, dir),
  verify: (from, to) => parseVerifyArgs(['--from', from, '--to', to], env, dir),
  'store gaps': (from, to) => parseGapsArgs(['EURUSD', '--from', from, '--to', to], env, dir),
};

t.test('a bare day: its start in --from, through its end in --to, in every command', async (t) => {
  for (const [name, parse] of Object.entries(commands)) {
    const r = parse('2024-01-09', '2024-01-09');
    t.equal(r?.fromMs, DAY_START, `${name} --from 2024-01-09: 00:00:00.000`);
    t.equal(r?.toMs, DAY_END, `${name} --to 2024-01-09: 23:59:59.999`);
  }
});

t.test('an ISO 8601 UTC timestamp is that instant, in every command', async (t) => {
  for (const [name, parse] of Object.entries(commands)) {
    const r = parse('2024-01-09T10:00:00Z', '2024-01-09T11:30:00.250Z');
    t.equal(r?.fromMs, Date.UTC(2024, 0, 9, 10), `${name} --from`);
    t.equal(r?.toMs, Date.UTC(2024, 0, 9, 11, 30, 0, 250), `${name} --to`);
    const mixed = parse('2024-01-09', '2024-01-09T12:00:00Z');
    t.same([mixed?.fromMs, mixed?.toMs], [DAY_START, Date.UTC(2024, 0, 9, 12)], `${name}: a day and a timestamp together`);
  }
});

t.test('every command refuses the same forms with the same words', async (t) => {
  const refusal = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      if (e instanceof UsageError) return e.message;
      throw e;
    }
    return 'accepted';
  };
  for (const [name, parse] of Object.entries(commands)) {
    for (const bad of ['2024-13-05', '2024-01-09T10:00', '2024-01-09T10:00:00+02:00', '09/01/2024', 'yesterday']) {
      t.equal(
        refusal(() => parse(bad, '2024-01-10')),
        `--from must be YYYY-MM-DD or an ISO 8601 UTC timestamp ending in Z, e.g. 2024-01-08T00:00:00Z; received ${JSON.stringify(bad)}`,
        `${name} --from ${bad}`,
      );
    }
    t.match(refusal(() => parse('2024-01-10', '2024-01-09')), /^--from \(2024-01-10T00:00:00.000Z\) must not be later than --to \(2024-01-09T23:59:59.999Z\)$/, `${name}: an upside-down range`);
    t.equal(refusal(() => parse('2024-01-09', '2024-01-09')), 'accepted', `${name}: one day from and to`);
  }
});

t.test('tradeapi export --from DAY --to DAY exports that whole day', async (t) => {
  const file = path.join(dir, 'h1.json');
  const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...cliCommand(), 'export', 'rates', 'EURUSD', '--timeframe', 'TIMEFRAME_H1', '--from', '2024-01-09', '--to', '2024-01-09', '-o', file], {
      cwd: dir,
      // tap's TypeScript loader finds the project through the caller's environment; no terminal settings.
      env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TRADEAPI_'))),
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stderr }));
  });
  t.equal(r.code, 0, 'accepted', { stderr: r.stderr });
  const bars = JSON.parse(readFileSync(file, 'utf8')) as Array<{ time: number }>;
  t.equal(bars.length, 24, 'the 24 H1 bars of the day');
  t.equal(bars[0]?.time, DAY_START / 1000, 'from 00:00');
  t.equal(bars.at(-1)?.time, DAY_START / 1000 + 23 * 3600, 'through 23:00');
});

t.test('sync, store gaps and verify take bare days as they run', async (t) => {
  const io = (): { env: Record<string, string>; out: string[]; stdout: { write(s: string): boolean }; stderr: { write(s: string): boolean } } => {
    const out: string[] = [];
    return { env: { PATH: process.env.PATH ?? '' }, out, stdout: { write: (s) => (out.push(s), true) }, stderr: { write: (s) => (out.push(s), true) } };
  };
  const store = path.join(dir, 'store');
  // A Saturday and a Sunday: two days fetched, few ticks (the week opens Sunday evening), nothing heavy.
  const s = io();
  t.equal(await runSync(['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-06', '--to', '2024-01-07', '--only', 'ticks'], s), 0, 'sync', { out: s.out });
  const g = io();
  t.equal(await runStore(['gaps', 'EURUSD', '--store', store, '--from', '2024-01-06', '--to', '2024-01-07', '--json'], g), 0, 'store gaps', { out: g.out });
  const report = JSON.parse(g.out.join('')) as { from: string; to: string; days: Array<{ date: string; status: string }> };
  t.same([report.from, report.to], ['2024-01-06', '2024-01-07'], 'the range of both days');
  t.same(report.days.map((d) => d.date), ['2024-01-06', '2024-01-07'], 'both days reported');
  t.notOk(report.days.some((d) => d.status === 'missing' || d.status === 'partial'), 'both fetched whole by sync', { days: report.days });
  const v = io();
  t.equal(await runVerify(['--store', store, '--from', '2024-01-06', '--to', '2024-01-07', '--only', 'ticks', '--json'], v), 0, 'verify', { out: v.out });
});
