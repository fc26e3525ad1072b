// TRADEAPI_STORE_WRITE=1 (issue 26): whole past UTC days of ticks (and whole past UTC months of
// M1 bars) the gateway fetched from the terminal are written into the store (atomically, the manifest after the file), and the next
// request takes them from it; never a partial day, never a day not over on the terminal, never
// while a sync holds the lock, never beyond the row limit, never from a request aborted midway;
// the settings' bad values refused. The simulator's clock is set: passes on any day and hour.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t from 'tap';

import { ConfigError, loadConfig } from '../../src/config/index.js';
import { availableAdapters } from '../../src/http/adapters/index.js';
import { partitionFile } from '../../src/store/layout.js';
import { StoreLock } from '../../src/store/lock.js';
import type { Manifest } from '../../src/store/manifest.js';
import { decodeDay, decodeRates, readTicks } from '../../src/store/reader.js';
import { withStore } from '../../src/store/store-terminal.js';
import type { WriteEvent } from '../../src/store/write-back.js';
import { openSimTerminal, type RateChunk, type Series, type TickChunk } from '../../src/terminal/index.js';
import { serve } from '../helpers/server.js';
import { manifestOf, partOf } from '../helpers/store.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-store-write-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const CLOCK = Date.parse('2024-01-12T12:00:00Z');
const terminal = openSimTerminal({ clockStartMs: CLOCK });
t.teardown(() => terminal.close());
const D = (iso: string): number => Date.parse(iso);

function storeWith(root: string, maxRows = 1_000_000): { stored: ReturnType<typeof withStore>; events: WriteEvent[]; settle: (n: number) => Promise<void> } {
  const events: WriteEvent[] = [];
  const stored = withStore(terminal, { root, zone: 'UTC', write: { maxRows, onEvent: (e) => events.push(e) } });
  const settle = async (n: number): Promise<void> => {
    for (let i = 0; i < 200 && events.length < n; i++) await new Promise((r) => setTimeout(r, 25));
  };
  return { stored, events, settle };
}

async function drain(series: Series<TickChunk>): Promise<bigint[]> {
  const out: bigint[] = [];
  for await (const c of series) out.push(...c.time_msc);
  return out;
}

const equal = (a: bigint[], b: bigint[]): boolean => a.length === b.length && a.every((v, i) => v === b[i]);
const temps = (root: string): string[] => (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.includes('.tmp-'));

await t.test('whole past days are written back, and served from the store after', async (t) => {
  const root = path.join(dir, 'a');
  const { stored, events, settle } = storeWith(root);
  const from = D('2024-01-07T22:00:00Z');
  const to = D('2024-01-09T23:59:59.999Z');
  const first = await stored.copyTicksRange('EURUSD', from, to, -1);
  t.equal(first.source, 'terminal=2024-01-07T22:00:00.000Z/2024-01-09T23:59:59.999Z');
  const ticks = await drain(first);
  await settle(2);
  t.same(events.map((e) => [e.kind, e.day]), [['written', '2024-01-08'], ['written', '2024-01-09']], 'the two whole days; not the part of the 7th');
  const m = manifestOf(root);
  t.equal(m.server, (await terminal.accountInfo()).server, 'the manifest names the trade server');
  t.match(m.symbols.EURUSD?.ticks['2024-01-08'], { complete: true, rows: Number });
  t.notOk(m.symbols.EURUSD?.ticks['2024-01-07'], 'a partial day is not recorded');
  const fromFile: bigint[] = [];
  for await (const c of readTicks(decodeDay(partOf(root, 'ticks', 'EURUSD', '2024-01-08'), 0, 8.64e15), () => 65_536)) fromFile.push(...c.time_msc);
  t.ok(equal(fromFile, await drain(await terminal.copyTicksRange('EURUSD', D('2024-01-08T00:00:00Z'), D('2024-01-08T23:59:59.999Z'), -1))), `the file holds the terminal's ${fromFile.length} ticks of the day`);
  const again = await stored.copyTicksRange('EURUSD', from, to, -1);
  t.equal(again.source, 'terminal=2024-01-07T22:00:00.000Z/2024-01-07T23:59:59.999Z, store=2024-01-08T00:00:00.000Z/2024-01-09T23:59:59.999Z', 'the next request: from the store');
  t.ok(equal(await drain(again), ticks), 'the same ticks');
  await settle(2);
  t.equal(events.length, 2, 'nothing written again');
  t.same(temps(root), [], 'no temp file left');
});

await t.test('not written: a partial day, a day not over, an aborted request, the row limit, a sync holding the lock', async (t) => {
  const root = path.join(dir, 'b');
  mkdirSync(root);
  const { stored, events, settle } = storeWith(root);
  await drain(await stored.copyTicksRange('EURUSD', D('2024-01-08T00:00:01Z'), D('2024-01-09T00:00:00Z'), -1));
  await drain(await stored.copyTicksRange('EURUSD', D('2024-01-12T00:00:00Z'), D('2024-01-12T23:59:59.999Z'), -1));
  await settle(1);
  t.same(events.map((e) => [e.kind, e.day]), [['skipped', '2024-01-12']], 'today: not over on the terminal; a range short of a whole day: nothing');
  const aborted = await stored.copyTicksRange('EURUSD', D('2024-01-10T00:00:00Z'), D('2024-01-10T23:59:59.999Z'), -1);
  aborted.setChunkRows?.(1000);
  t.ok((await aborted.next())?.rows, 'a first chunk');
  aborted.close();

  const small = storeWith(root, 1000);
  const rows = await drain(await small.stored.copyTicksRange('EURUSD', D('2024-01-10T00:00:00Z'), D('2024-01-10T23:59:59.999Z'), -1));
  t.ok(rows.length > 1000, 'the response is whole');
  await small.settle(1);
  t.match(small.events, [{ kind: 'skipped', day: '2024-01-10', why: /TRADEAPI_STORE_WRITE_MAX_ROWS/ }]);

  const lock = await StoreLock.acquire(root);
  await drain(await stored.copyTicksRange('EURUSD', D('2024-01-10T00:00:00Z'), D('2024-01-10T23:59:59.999Z'), -1));
  await settle(2);
  t.match(events[1], { kind: 'skipped', day: '2024-01-10', why: /sync holds/ });
  await lock.release();
  t.notOk(existsSync(path.join(root, 'manifest.json')), 'nothing recorded');
  t.same(readdirSync(root), [], 'no file written');
});

await t.test('whole past UTC months of M1 bars are written back, and served from the store after', async (t) => {
  const root = path.join(dir, 'bars');
  const { stored, events, settle } = storeWith(root);
  const S = (iso: string): number => D(iso) / 1000;
  const bars = async (series: Series<RateChunk>): Promise<string[]> => {
    const out: string[] = [];
    for await (const c of series) for (let i = 0; i < c.rows; i++) out.push(`${c.time[i]} ${c.open[i]} ${c.high[i]} ${c.low[i]} ${c.close[i]} ${c.tick_volume[i]} ${c.spread[i]} ${c.real_volume[i]}`);
    return out;
  };
  // November from its 2nd (not whole), all of December, January up to the clock (not over).
  const from = S('2023-11-02T00:00:00Z');
  const to = S('2024-01-10T00:00:00Z');
  const first = await bars(await stored.copyRatesRange('EURUSD', 1, from, to));
  await settle(3);
  t.same(events.map((e) => [e.kind, e.day, e.dataset]), [['written', '2023-12', 'bars_m1']], 'December only: November is not whole in the request, January not in it');
  const m = manifestOf(root);
  t.match(m.symbols.EURUSD?.bars_m1['2023-12'], { complete: true, rows: Number });
  const file = partitionFile(root, 'bars_m1', 'EURUSD', '2023-12');
  const chunks = (await decodeRates(partOf(root, 'bars_m1', 'EURUSD', '2023-12'))) ?? [];
  const fromFile: string[] = [];
  for (const c of chunks) for (let i = 0; i < c.rows; i++) fromFile.push(`${c.time[i]} ${c.open[i]} ${c.high[i]} ${c.low[i]} ${c.close[i]} ${c.tick_volume[i]} ${c.spread[i]} ${c.real_volume[i]}`);
  const december = await bars(await terminal.copyRatesRange('EURUSD', 1, S('2023-12-01T00:00:00Z'), S('2023-12-31T23:59:00Z')));
  t.ok(december.length > 20_000, `${december.length} bars in December`);
  t.same(fromFile, december, "the file holds the terminal's bars of the month, every field");
  const again = await stored.copyRatesRange('EURUSD', 1, from, to);
  t.match(again.source, /store=/, `the next request takes December from the store (${again.source})`);
  t.same(await bars(again), first, 'the same bars');
  // A month whose last bar has not closed on the terminal is not written; nor a request read halfway.
  const partial = await stored.copyRatesRange('EURUSD', 1, S('2023-10-01T00:00:00Z'), S('2023-10-31T23:59:00Z'));
  await partial.next();
  partial.close();
  await settle(4);
  t.notOk(manifestOf(root).symbols.EURUSD?.bars_m1['2023-10'], 'a request closed before its end writes nothing');
  t.same(temps(root), [], 'no temp file left');
});

await t.test('over HTTP with TRADEAPI_STORE_WRITE=1, and the settings refused', async (t) => {
  const root = path.join(dir, 'c');
  const server = await serve(t, availableAdapters()[0]!, terminal, { TRADEAPI_STORE: root, TRADEAPI_STORE_WRITE: '1' });
  const q = '/ticks/range?symbol=EURUSD&date_from=2024-01-09T00:00:00Z&date_to=2024-01-09T23:59:59.999Z&format=arrow';
  const res = await server.get(q);
  t.equal(res.status, 200);
  await res.arrayBuffer(); // the response read to its end: only then is the day whole
  let m: Manifest | undefined;
  for (let i = 0; i < 200 && !m?.symbols.EURUSD?.ticks['2024-01-09']; i++) {
    await new Promise((r) => setTimeout(r, 25));
    try {
      m = manifestOf(root);
    } catch {
      // not there yet
    }
  }
  t.match(m?.symbols.EURUSD?.ticks['2024-01-09'], { complete: true });
  t.match((await server.get(q)).headers.get('tradeapi-source'), /^store=2024-01-09T00:00:00\.000Z/);
  t.throws(() => loadConfig({ TRADEAPI_STORE: root, TRADEAPI_STORE_WRITE: 'yes' }), ConfigError);
  t.throws(() => loadConfig({ TRADEAPI_STORE_WRITE: '1' }), /needs TRADEAPI_STORE/);
  t.throws(() => loadConfig({ TRADEAPI_STORE: root, TRADEAPI_STORE_WRITE: '1', TRADEAPI_STORE_WRITE_MAX_ROWS: '-5' }), ConfigError);
  t.equal(loadConfig({ TRADEAPI_STORE: root, TRADEAPI_STORE_WRITE: '0' }).storeWrite, undefined);
});
