// The store never serves a wrong row (issue 33, findings 1–3): every stored partition proves what it
// holds (its footer and its manifest entry agree: symbol, day, rows, first/last time_msc, XXH3-128,
// size), and a file that does not — copied over from another symbol or day, a FIFO, a symlink to a
// device — is never read as the partition: the terminal answers for that day (the same rows as
// without a store), the damage is logged and counted once in /metrics, /store/coverage shows it,
// and where the terminal does not hold the day either the answer is 503 /errors/store-damaged
// naming the file, never a silent empty answer. Through a real server on each adapter.
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

import t from 'tap';

import { partitionFile } from '../../src/store/layout.js';
import { runSync } from '../../src/sync/run.js';
import { TerminalError } from '../../src/terminal/errors.js';
import { openSimTerminal } from '../../src/terminal/index.js';
import type { Terminal } from '../../src/terminal/terminal.js';
import { expectProblem, forEachAdapter, serve } from '../helpers/server.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-store-proof-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const pristine = path.join(dir, 'pristine');

const quiet = { write: () => true };
const code = await runSync(['--store', pristine, '--symbols', 'EURUSD,USDJPY', '--from', '2024-01-08', '--to', '2024-01-09', '--only', 'ticks'], {
  env: { TRADEAPI_SIM_CLOCK: '2024-01-10T12:00:00Z' },
  stdout: quiet,
  stderr: quiet,
});
t.equal(code, 0, 'EURUSD and USDJPY, 8 and 9 January, synced');

const terminal = openSimTerminal();
t.teardown(() => terminal.close());

/** The simulator, but its EURUSD history lacks 8 January (as a terminal whose history starts later). */
const forgetful: Terminal = new Proxy(terminal, {
  get(target, prop, receiver) {
    if (prop === 'copyTicksRange') {
      return async (symbol: string, fromMs: number, toMs: number, flags: number, opts?: unknown) => {
        if (symbol === 'EURUSD' && fromMs < Date.parse('2024-01-09T00:00:00Z') && toMs >= Date.parse('2024-01-08T00:00:00Z')) {
          throw new TerminalError('not_found', -1, 'no history there');
        }
        return target.copyTicksRange(symbol, fromMs, toMs, flags, opts as never);
      };
    }
    const v: unknown = Reflect.get(target, prop, receiver);
    return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
  },
});

const DAY8 = '/ticks/range?symbol=EURUSD&date_from=2024-01-08T00:00:00Z&date_to=2024-01-08T23:59:59.999Z';
// Across the seam of the two days, at night: both days' files read, few rows to compare (a loaded machine).
const DAYS = '/ticks/range?symbol=EURUSD&date_from=2024-01-08T22:00:00Z&date_to=2024-01-09T02:00:00Z';

/** A copy of the pristine store, damaged by `harm`. */
let n = 0;
function damagedStore(harm: (root: string) => void): string {
  const root = path.join(dir, `store-${n++}`);
  cpSync(pristine, root, { recursive: true });
  harm(root);
  return root;
}

const eurusd8 = (root: string): string => partitionFile(root, 'ticks', 'EURUSD', '2024-01-08');

/** `both`: the harm reaches 9 January too (a whole symbol's directory). `posix`: FIFOs, devices and symlinks (not on Windows). */
const HARMS: { what: string; harm: (root: string) => void; both?: true; posix?: true; range?: string }[] = [
  { what: "USDJPY's day copied over EURUSD's", harm: (root) => copyFileSync(partitionFile(root, 'ticks', 'USDJPY', '2024-01-08'), eurusd8(root)) },
  { what: "EURUSD's 9 January copied into 8 January", harm: (root) => copyFileSync(partitionFile(root, 'ticks', 'EURUSD', '2024-01-09'), eurusd8(root)) },
  {
    // In the first row group's first pages, which a range from midnight decodes (the CRC of a page
    // no request reads is not checked: its rows are not served either).
    what: 'one byte flipped in the first pages of the file',
    harm: (root) => {
      const bytes = readFileSync(eurusd8(root));
      bytes[200] = (bytes[200] ?? 0) ^ 0x40;
      writeFileSync(eurusd8(root), bytes);
    },
    range: '/ticks/range?symbol=EURUSD&date_from=2024-01-08T00:00:00Z&date_to=2024-01-08T01:00:00Z',
  },
  {
    what: 'a FIFO planted as the partition file',
    harm: (root) => {
      unlinkSync(eurusd8(root));
      execFileSync('mkfifo', [eurusd8(root)]);
    },
    posix: true,
  },
  {
    what: 'a symlink to /dev/zero planted as the partition file',
    harm: (root) => {
      unlinkSync(eurusd8(root));
      symlinkSync('/dev/zero', eurusd8(root));
    },
    posix: true,
  },
  {
    what: "the symbol's directory a symlink to another symbol's",
    harm: (root) => {
      const sym = path.dirname(path.dirname(eurusd8(root)));
      rmSync(sym, { recursive: true });
      symlinkSync(path.join(path.dirname(sym), 'symbol=USDJPY'), sym);
    },
    both: true,
    posix: true,
  },
  { what: 'the file removed', harm: (root) => unlinkSync(eurusd8(root)) },
];

const KEEP = { TRADEAPI_KEEPALIVE_TIMEOUT_MS: '120000' };

await forEachAdapter(t, async (t, adapter) => {
  const plain = await serve(t, adapter, terminal, KEEP);
  const expected = await (await plain.get(DAYS)).text();
  t.ok((JSON.parse(expected) as unknown[]).length > 1000, 'a real range');
  const expectedOf = async (range: string | undefined): Promise<string> => (range === undefined ? expected : (await plain.get(range)).text());

  const clean = await serve(t, adapter, terminal, { TRADEAPI_STORE: pristine, ...KEEP });
  const cleanRes = await clean.get(DAYS);
  t.match(cleanRes.headers.get('tradeapi-source') ?? '', /^store=/, 'the pristine store answers');
  t.equal(await cleanRes.text(), expected, 'the pristine store: the terminal\'s rows');

  for (const { what, harm, both, posix, range } of HARMS) {
    await t.test(what, { skip: posix && process.platform === 'win32' ? 'POSIX only (FIFOs, devices, symlinks)' : false }, async (t) => {
      const root = damagedStore(harm);
      const server = await serve(t, adapter, terminal, { TRADEAPI_STORE: root, ...KEEP });
      // Several at once (a FIFO once held the thread pool with six), then the next request still answers.
      const want = await expectedOf(range);
      const answers = await Promise.all([1, 2, 3, 4, 5, 6].map(() => server.get(range ?? DAYS)));
      for (const res of answers) {
        t.equal(res.status, 200);
        t.equal(await res.text(), want, 'the terminal\'s rows, never the planted file\'s');
      }
      const gz = await server.get('/symbols', { headers: { 'accept-encoding': 'gzip' } });
      t.equal(gz.status, 200, 'a compressed answer beside it');
      await gz.arrayBuffer();
      const metrics = await (await server.get('/metrics')).text();
      t.match(metrics, new RegExp(`tradeapi_store_damaged_partitions_total\\{dataset="ticks"\\} ${both ? 2 : 1}\\b`), 'each damaged partition counted once');
      const coverage = (await (await server.get('/store/coverage?symbol=EURUSD')).json()) as { days: { date: string; status: string; damage?: string }[] };
      const day8 = coverage.days.find((d) => d.date === '2024-01-08');
      if (what.includes('flipped')) t.equal(day8?.status, 'complete', 'a flipped bit keeps the size: only a read finds it');
      else t.equal(day8?.status, 'damaged', `/store/coverage: damaged (${day8?.damage ?? ''})`);
      t.equal(coverage.days.find((d) => d.date === '2024-01-09')?.status, both ? 'damaged' : 'complete', both ? 'the next day is damaged too' : 'the next day is fine');

      // Where the terminal does not hold the day either: a problem naming the file, not [] or 200.
      const alone = await serve(t, adapter, forgetful, { TRADEAPI_STORE: root, ...KEEP });
      const body = await expectProblem(t, await alone.get(DAY8), 503, '/errors/store-damaged');
      t.match(body.detail, 'ticks/symbol=EURUSD/date=2024-01-08/part-0.parquet', 'the detail names the file');
    });
  }

  await t.test('a partition the terminal does not hold, intact: served from the store', async (t) => {
    const server = await serve(t, adapter, forgetful, { TRADEAPI_STORE: pristine, ...KEEP });
    const res = await server.get(DAY8);
    t.equal(res.status, 200);
    t.equal(await res.text(), await (await plain.get(DAY8)).text(), 'the stored rows');
  });
});
