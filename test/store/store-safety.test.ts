// The store's writers stay inside it and prove what they write (issue 33, findings 4 and 5): a sync
// never writes through a symlink planted below the store's root; each partition's manifest entry
// and Parquet footer carry its proof (rows, first/last time_msc, size, the XXH3-128 of the rows as
// the terminal gives them); a sync reads and rewrites only the manifests of the symbols it touches;
// a format-1 store is served (unproven) and rewritten as format 2 by the next sync.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

import t from 'tap';

import { loadNativeParquetReader } from '../../src/encode/parquet-native-reader.js';
import { hashRows } from '../../src/encode/row-hash.js';
import { partitionFile } from '../../src/store/layout.js';
import { symbolManifestFile } from '../../src/store/manifest.js';
import { FOOTER } from '../../src/store/proof.js';
import { withStore } from '../../src/store/store-terminal.js';
import { runStore } from '../../src/sync/gaps.js';
import { runSync } from '../../src/sync/run.js';
import { openSimTerminal } from '../../src/terminal/index.js';
import type { TickChunk } from '../../src/terminal/series.js';
import { manifestOf } from '../helpers/store.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-store-safety-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const terminal = openSimTerminal();
t.teardown(() => terminal.close());

async function sync(store: string, symbols: string, from: string, to: string, only = 'ticks'): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await runSync(['--store', store, '--symbols', symbols, '--from', from, '--to', to, ...(only === 'both' ? [] : ['--only', only])], {
    env: { TRADEAPI_SIM_CLOCK: '2024-01-10T12:00:00Z' },
    stdout: { write: () => true },
    stderr: { write: (s: string) => ((stderr += s), true) },
  });
  return { code, stderr };
}

const walk = (root: string): string[] => (readdirSync(root, { recursive: true }) as string[]).map((f) => path.join(root, f));

await t.test('every partition carries its proof, in the manifest and in its footer', async (t) => {
  const store = path.join(dir, 'proofs');
  t.equal((await sync(store, 'EURUSD', '2024-01-08', '2024-01-08', 'both')).code, 0);
  const m = manifestOf(store);
  t.equal(m.format, 'tradeapi-store/2');
  const entry = m.symbols.EURUSD?.ticks['2024-01-08'];
  const file = partitionFile(store, 'ticks', 'EURUSD', '2024-01-08');
  const chunks: TickChunk[] = [];
  for await (const c of await terminal.copyTicksRange('EURUSD', Date.parse('2024-01-08T00:00:00Z'), Date.parse('2024-01-08T23:59:59.999Z'), -1)) {
    chunks.push({ ...c, time: c.time.slice(), bid: c.bid.slice(), ask: c.ask.slice(), last: c.last.slice(), volume: c.volume.slice(), time_msc: c.time_msc.slice(), flags: c.flags.slice(), volume_real: c.volume_real.slice() });
  }
  const want = hashRows('ticks', chunks);
  t.match(entry, {
    rows: want.rows,
    bytes: statSync(file).size,
    first_msc: Number(chunks[0]!.time_msc[0]),
    last_msc: Number(chunks.at(-1)!.time_msc[chunks.at(-1)!.rows - 1]),
    xxh3_128: want.digest,
  }, 'the manifest: rows, size, first and last time_msc, the hash of the terminal\'s rows');
  const pq = await loadNativeParquetReader();
  if (!pq) throw new Error('the native reader is needed');
  const footer = new pq.ParquetReader(readFileSync(file)).metadata;
  t.same(
    [footer[FOOTER.symbol], footer[FOOTER.dataset], footer[FOOTER.partition], footer[FOOTER.rows], footer[FOOTER.hash]],
    ['EURUSD', 'ticks', '2024-01-08', String(want.rows), want.digest],
    'the footer: the same proof, with the symbol, dataset and day it belongs to',
  );
  const month = m.symbols.EURUSD?.bars_m1['2024-01'];
  t.match(month, { bytes: statSync(partitionFile(store, 'bars_m1', 'EURUSD', '2024-01')).size, xxh3_128: /^[0-9a-f]{32}$/ }, 'a month of bars too');
});

await t.test('sync never writes through a symlink planted below the store', async (t) => {
  const store = path.join(dir, 'planted');
  t.equal((await sync(store, 'USDJPY', '2024-01-08', '2024-01-08')).code, 0);
  const elsewhere = path.join(dir, 'elsewhere');
  mkdirSync(elsewhere);
  symlinkSync(elsewhere, path.join(store, 'ticks', 'symbol=EURUSD'));
  const run = await sync(store, 'EURUSD', '2024-01-08', '2024-01-08');
  t.equal(run.code, 1, 'refused');
  t.match(run.stderr, /refusing to write into the store: .*symbol=EURUSD.* is a symbolic link/);
  t.same(readdirSync(elsewhere), [], 'nothing written outside the store');
  t.notOk(manifestOf(store).symbols.EURUSD?.ticks['2024-01-08'], 'nothing recorded');

  // The manifests' directory, and manifest.json itself.
  rmSync(path.join(store, 'ticks', 'symbol=EURUSD'));
  rmSync(path.join(store, 'manifests'), { recursive: true });
  symlinkSync(elsewhere, path.join(store, 'manifests'));
  const again = await sync(store, 'EURUSD', '2024-01-08', '2024-01-08');
  t.not(again.code, 0, `a symlinked manifests/ directory: refused (${again.stderr.trim()})`);
  t.same(readdirSync(elsewhere), [], 'nothing written outside the store');
  rmSync(path.join(store, 'manifests'));
  const real = path.join(dir, 'real-manifest.json');
  writeFileSync(real, readFileSync(path.join(store, 'manifest.json')));
  rmSync(path.join(store, 'manifest.json'));
  symlinkSync(real, path.join(store, 'manifest.json'));
  const third = await sync(store, 'EURUSD', '2024-01-08', '2024-01-08');
  t.equal(third.code, 2, 'a symlinked manifest.json: refused as not a store manifest');
  t.match(third.stderr, /manifest\.json: a symbolic link/);
  t.ok(lstatSync(path.join(store, 'manifest.json')).isSymbolicLink(), 'left as it was');
});

await t.test('a sync reads and rewrites only the manifests of the symbols it touches', async (t) => {
  const store = path.join(dir, 'per-symbol');
  t.equal((await sync(store, 'EURUSD,USDJPY', '2024-01-08', '2024-01-08')).code, 0);
  const other = symbolManifestFile(store, 'USDJPY');
  const before = { text: readFileSync(other, 'utf8'), mtimeMs: statSync(other).mtimeMs };
  // Unreadable if it were read: a sync of EURUSD must not need it.
  writeFileSync(other, `${before.text.slice(0, 20)}`);
  t.equal((await sync(store, 'EURUSD', '2024-01-09', '2024-01-09')).code, 0, "EURUSD's sync does not read USDJPY's manifest");
  t.equal(readFileSync(other, 'utf8'), before.text.slice(0, 20), "USDJPY's manifest untouched");
  writeFileSync(other, before.text);
  t.ok(manifestOf(store).symbols.EURUSD?.ticks['2024-01-09']?.xxh3_128, "EURUSD's new day recorded");
});

await t.test('a format-1 store: served as unproven, rewritten as format 2 by the next sync', async (t) => {
  const store = path.join(dir, 'v1');
  t.equal((await sync(store, 'EURUSD', '2024-01-08', '2024-01-08')).code, 0);
  // Format 1: every symbol in manifest.json, no proofs.
  const m = manifestOf(store);
  for (const e of Object.values(m.symbols.EURUSD!.ticks)) for (const k of ['bytes', 'first_msc', 'last_msc', 'xxh3_128'] as const) delete e[k];
  writeFileSync(path.join(store, 'manifest.json'), JSON.stringify({ ...m, format: 'tradeapi-store/1' }));
  rmSync(path.join(store, 'manifests'), { recursive: true });

  const stored = withStore(terminal, { root: store, zone: 'UTC' });
  const series = await stored.copyTicksRange('EURUSD', Date.parse('2024-01-08T10:00:00Z'), Date.parse('2024-01-08T11:00:00Z'), -1);
  t.match(series.source, /^store=/, 'a format-1 store is served');
  let rows = 0;
  for await (const c of series) rows += c.rows;
  t.ok(rows > 1000, `${rows} ticks`);
  let out = '';
  t.equal(await runStore(['gaps', 'EURUSD', '--store', store], { env: {}, stdout: { write: (s: string) => (out += s) }, stderr: { write: () => true } }), 0);
  t.match(out, /1 day stored without a proof/, 'gaps says which days are unproven');

  t.equal((await sync(store, 'EURUSD', '2024-01-09', '2024-01-09')).code, 0, 'the next sync');
  const head = JSON.parse(readFileSync(path.join(store, 'manifest.json'), 'utf8')) as { format: string; symbols?: unknown };
  t.equal(head.format, 'tradeapi-store/2', 'format 2 now');
  t.equal(head.symbols, undefined, 'manifest.json holds the identity alone');
  const after = manifestOf(store);
  t.notOk(after.symbols.EURUSD?.ticks['2024-01-08']?.xxh3_128, 'the old day stays unproven (verify --repair proves it)');
  t.ok(after.symbols.EURUSD?.ticks['2024-01-09']?.xxh3_128, 'the new day is proven');
  t.notOk(walk(store).some((f) => f.includes('.tmp-')), 'no temp file left');
});

await t.test('a FIFO planted as manifest.json, a symbol manifest or the lock: refused, never waited on', async (t) => {
  for (const name of ['manifest.json', 'manifests/symbol=EURUSD.json', '.sync.lock']) {
    const store = path.join(dir, `fifo-${name.replace(/\W/g, '-')}`);
    t.equal((await sync(store, 'EURUSD', '2024-01-08', '2024-01-08')).code, 0);
    rmSync(path.join(store, name), { force: true });
    execFileSync('mkfifo', [path.join(store, name)]);
    const run = await sync(store, 'EURUSD', '2024-01-09', '2024-01-09');
    t.not(run.code, 0, `${name}: refused (${run.stderr.trim()})`);
    t.match(run.stderr, name === '.sync.lock' ? /locked by another sync/ : /a FIFO, not a regular file/);
  }
});
