// The store as a newcomer meets it (issue 35 §3.4): docs/store.md says where the `duckdb` command
// comes from, the store its commands write inside the clone is git-ignored, `store gaps` counts in
// proper plurals, and `sync --symbols eurusd` suggests EURUSD as the HTTP API does.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t from 'tap';

import { runStore } from '../../src/sync/gaps.js';
import { runSync } from '../../src/sync/run.js';
import { ROOT } from '../helpers/doc-blocks.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-newcomer-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

interface Out {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(command: typeof runSync | typeof runStore, args: string[]): Promise<Out> {
  let stdout = '';
  let stderr = '';
  const code = await command(args, {
    env: { PATH: process.env.PATH ?? '' },
    stdout: { write: (s: string) => ((stdout += s), true) },
    stderr: { write: (s: string) => ((stderr += s), true) },
  });
  return { code, stdout, stderr };
}

t.test('docs/store.md says how to get the duckdb command, or does without it', async (t) => {
  const page = readFileSync(path.join(ROOT, 'docs/store.md'), 'utf8');
  t.match(page, /^duckdb -c /m, 'the page uses the CLI');
  t.match(page, /pip install duckdb-cli/, 'the CLI from pip');
  t.match(page, /install\.duckdb\.org/, 'or its download');
  t.match(page, /pip install duckdb\b[^-]/, 'or the Python package');
  t.match(page, /python3 -c "import duckdb;/, 'and the same query through it');
});

t.test('the store the docs write inside the clone is git-ignored', async (t) => {
  const page = readFileSync(path.join(ROOT, 'docs/store.md'), 'utf8');
  t.match(page, /sync --store store /, 'the docs sync into ./store');
  const ignored = readFileSync(path.join(ROOT, '.gitignore'), 'utf8').split('\n').map((l) => l.trim());
  t.ok(ignored.includes('/store/'), '.gitignore has /store/');
});

t.test('store gaps: one day is a day', async (t) => {
  const store = path.join(dir, 'one-day');
  // A Saturday: fetched, no ticks.
  const synced = await run(runSync, ['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-06', '--to', '2024-01-06', '--only', 'ticks']);
  t.equal(synced.code, 0, 'synced', synced);
  const r = await run(runStore, ['gaps', 'EURUSD', '--store', store]);
  t.equal(r.code, 0);
  t.match(r.stdout, /\n {2}0 days with ticks \(0 rows\), 1 weekend day and 0 weekdays without ticks, /, r.stdout);
  t.match(r.stdout, / 1 day +empty: weekend/, 'the gap line too');
  t.notMatch(r.stdout, /\b1 (weekend )?(days|weekdays|rows)\b/, 'no "1 ... days"');
});

t.test('sync --symbols eurusd: did you mean EURUSD?', async (t) => {
  const r = await run(runSync, ['--store', path.join(dir, 'hint'), '--symbols', 'eurusd', '--from', '2024-01-08']);
  t.equal(r.code, 2, 'bad arguments');
  t.equal(r.stderr, 'tradeapi sync: --symbols: the terminal has no symbol "eurusd"; did you mean EURUSD?\n');
  const none = await run(runSync, ['--store', path.join(dir, 'hint'), '--symbols', 'NOSUCH', '--from', '2024-01-08']);
  t.equal(none.stderr, 'tradeapi sync: --symbols: the terminal has no symbol "NOSUCH"; no symbol matches it case-insensitively\n', 'no guess when none matches');
});
