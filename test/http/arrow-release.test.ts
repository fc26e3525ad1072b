// An Arrow answer hands the adapter views of the terminal's chunks (no copy). Over HTTP every chunk
// goes back to the addon's pool once the adapter no longer reads it: uWS once write() resolves,
// node:http once its write callbacks ran (afterWritten; test/encode/release.test.ts checks that
// order with a sink that flushes late). Here a real server answers a client that pauses while other
// chunks take what the pool got back: every chunk is released, and the rows that arrive are the
// terminal's, column by column.
import http from 'node:http';

import { tableFromIPC } from 'apache-arrow';
import t from 'tap';

import { addon } from '../../src/terminal/native.js';
import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const FROM = '2024-01-08T06:00:00Z';
const TO = '2024-01-09T18:00:00Z';
const COLUMNS = ['time_msc', 'bid', 'ask', 'flags'] as const;

const released = (): number => addon.columnPoolStats?.().released ?? 0;

/**
 * GETs `url` and reads nothing after the first bytes until `whilePaused` is done, then reads the
 * rest: the server meets a full socket and its writes stay pending.
 */
function slowGet(url: string, whilePaused: () => Promise<unknown>): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      const parts: Buffer[] = [];
      let paused = false;
      res.on('data', (chunk: Buffer) => {
        parts.push(chunk);
        if (!paused) {
          paused = true;
          res.pause();
          setTimeout(() => void whilePaused().then(() => res.resume(), reject), 200);
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

await forEachAdapter(t, async (t, adapter) => {
  t.ok(addon.columnPoolStats, 'the addon counts released columns');
  const terminal = simTerminal();
  t.teardown(() => terminal.close());
  const server = await serve(t, adapter, terminal);

  const before = released();
  const query = new URLSearchParams({ symbol: 'EURUSD', date_from: FROM, date_to: TO, flags: 'COPY_TICKS_ALL', format: 'arrow' });
  // While the client reads nothing, other chunks take whatever the pool got back: a chunk released
  // while its bytes were still queued would then go out as GBPUSD's ticks.
  const held: unknown[] = [];
  const takePool = async (): Promise<void> => {
    const other = await terminal.copyTicksRange('GBPUSD', Date.parse(FROM), Date.parse(TO), -1, { chunkRows: 65_536 });
    for (let c = await other.next(); c !== null; c = await other.next()) held.push(c);
    other.close();
  };
  const res = await slowGet(`${server.base}/ticks/range?${query.toString()}`, takePool);
  t.ok(held.length > 3, `${held.length} GBPUSD chunks made while the client paused`);
  t.equal(res.status, 200);
  const table = tableFromIPC(res.body);
  // The last chunk's callbacks may run a turn after the body ended.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const batches = table.batches.length;
  t.ok(batches >= 3, `${table.numRows} ticks in ${batches} record batches`);
  t.equal(released() - before, batches * 8, 'every chunk released (8 columns each)');

  // The same rows straight from a terminal of the same seed and clock.
  const reference = simTerminal();
  t.teardown(() => reference.close());
  const series = await reference.copyTicksRange('EURUSD', Date.parse(FROM), Date.parse(TO), -1);
  const expected: Record<(typeof COLUMNS)[number], number[]> = { time_msc: [], bid: [], ask: [], flags: [] };
  for (let c = await series.next(); c !== null; c = await series.next()) {
    for (const name of COLUMNS) for (const v of c[name]) expected[name].push(Number(v));
  }
  t.equal(table.numRows, expected.bid.length, 'as many rows as the terminal has');
  for (const name of COLUMNS) {
    const got = Array.from(table.getChild(name)!.toArray() as ArrayLike<number | bigint>, Number);
    const first = got.findIndex((v, i) => v !== expected[name][i]);
    t.equal(first, -1, `${name}: every value as the terminal's${first >= 0 ? ` (row ${first} differs)` : ''}`);
  }
});
