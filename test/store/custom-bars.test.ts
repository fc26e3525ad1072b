// Custom bars (GET /ticks/bars) from the store (TRADEAPI_STORE): built from the stored ticks where
// the store holds them and the terminal's elsewhere, in one answer, and equal to the bars built
// from the terminal alone, at the seam too.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t from 'tap';

import { availableAdapters } from '../../src/http/adapters/index.js';
import { runSync } from '../../src/sync/run.js';
import { openSimTerminal } from '../../src/terminal/index.js';
import { serve } from '../helpers/server.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-store-bars-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store = path.join(dir, 'store');

// Days 8 and 9 complete, the 10th synced through ~12:00.
const code = await runSync(['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-08', '--only', 'ticks'], {
  env: { TRADEAPI_SIM_CLOCK: '2024-01-10T12:00:00Z' },
  stdout: { write: () => true },
  stderr: { write: () => true },
});
t.equal(code, 0, 'the store is filled');

const terminal = openSimTerminal();
t.teardown(() => terminal.close());
const adapter = availableAdapters()[0]!;
const withStore = await serve(t, adapter, terminal, { TRADEAPI_STORE: store });
const plain = await serve(t, adapter, terminal);

for (const period of ['1m', '90s', '1h', 'ticks:300']) {
  t.test(`${period}: the store's bars are the terminal's`, async (t) => {
    const q = `/ticks/bars?symbol=EURUSD&period=${period}&date_from=2024-01-08T06:00:00Z&date_to=2024-01-10T16:00:00Z`;
    const stored = await withStore.get(q);
    t.equal(stored.status, 200);
    t.match(stored.headers.get('tradeapi-source') ?? '', /^store=2024-01-08T\S+, terminal=2024-01-10T/, 'from the store, then the terminal');
    const want = (await (await plain.get(q)).json()) as unknown[];
    t.ok(want.length > 20, `${want.length} bars`);
    t.same(await stored.json(), want, 'field for field');
  });
}
