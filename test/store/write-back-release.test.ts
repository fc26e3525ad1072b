// Write-back (TRADEAPI_STORE_WRITE) under a consumer that releases every chunk as soon as it has
// read it (Series.release, as the encoders do): the held rows are copies, so the days written are
// still the terminal's ticks, and the release reaches the terminal's series through the store's
// wrappers (its buffers are detached). Stored days served again are never released (the reader's).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t from 'tap';

import { partitionFile } from '../../src/store/layout.js';
import { decodeDay, readTicks } from '../../src/store/reader.js';
import { withStore } from '../../src/store/store-terminal.js';
import type { WriteEvent } from '../../src/store/write-back.js';
import { addon } from '../../src/terminal/native.js';
import { openSimTerminal, type Series, type TickChunk } from '../../src/terminal/index.js';
import { partOf } from '../helpers/store.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-store-release-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const terminal = openSimTerminal({ clockStartMs: Date.parse('2024-01-12T12:00:00Z') });
t.teardown(() => terminal.close());
const D = (iso: string): number => Date.parse(iso);
const released = (): number => addon.columnPoolStats!().released;

/** Every tick's time_msc and bid, each chunk released right after it was read. */
async function drainReleasing(series: Series<TickChunk>): Promise<{ rows: string[]; detached: number; chunks: number }> {
  const rows: string[] = [];
  let detached = 0;
  let chunks = 0;
  for (let c = await series.next(); c !== null; c = await series.next()) {
    for (let i = 0; i < c.rows; i++) rows.push(`${c.time_msc[i]} ${c.bid[i]} ${c.ask[i]} ${c.flags[i]}`);
    chunks++;
    series.release?.(c);
    if (c.rows > 0 && c.time_msc.length === 0) detached++;
  }
  series.close();
  return { rows, detached, chunks };
}

const rowsOf = (chunks: TickChunk[]): string[] => chunks.flatMap((c) => Array.from({ length: c.rows }, (_, i) => `${c.time_msc[i]} ${c.bid[i]} ${c.ask[i]} ${c.flags[i]}`));

await t.test('days written back from released chunks hold the terminal ticks; stored days are not released', async (t) => {
  const root = path.join(dir, 'a');
  const events: WriteEvent[] = [];
  const stored = withStore(terminal, { root, zone: 'UTC', write: { maxRows: 1_000_000, onEvent: (e) => events.push(e) } });
  const from = D('2024-01-07T22:00:00Z');
  const to = D('2024-01-09T23:59:59.999Z');
  const series = await stored.copyTicksRange('EURUSD', from, to, -1, { chunkRows: 16_384 });
  t.type(series.release, 'function', 'the store forwards release to the terminal part');
  const before = released();
  const first = await drainReleasing(series);
  t.equal(first.detached, first.chunks, `every chunk was released (${first.chunks})`);
  t.equal(released() - before, first.chunks * 8, 'eight columns each');
  for (let i = 0; i < 200 && events.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
  t.same(events.map((e) => [e.kind, e.day]), [['written', '2024-01-08'], ['written', '2024-01-09']]);
  for (const day of ['2024-01-08', '2024-01-09']) {
    const fromFile: TickChunk[] = [];
    for await (const c of readTicks(decodeDay(partOf(root, 'ticks', 'EURUSD', day), 0, 8.64e15), () => 65_536)) fromFile.push(c);
    const direct: TickChunk[] = [];
    for await (const c of await terminal.copyTicksRange('EURUSD', D(`${day}T00:00:00Z`), D(`${day}T23:59:59.999Z`), -1)) direct.push(c);
    t.same(rowsOf(fromFile), rowsOf(direct), `${day}: the file holds the terminal's ${rowsOf(direct).length} ticks`);
  }
  // Served again: the two days from the store, the evening of the 7th from the terminal.
  const again = await stored.copyTicksRange('EURUSD', from, to, -1, { chunkRows: 16_384 });
  t.match(again.source, /store=/);
  const before2 = released();
  const second = await drainReleasing(again);
  t.same(second.rows, first.rows, 'the same ticks');
  t.ok(second.detached > 0 && second.detached < second.chunks, `only the terminal's chunks were released (${second.detached} of ${second.chunks})`);
  t.equal(released() - before2, second.detached * 8);
});
