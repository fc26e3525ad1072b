// Many symbols in one pull from the store (issue 36 §2): with TRADEAPI_STORE, a merged /ticks/range
// or /ticks/bars whose symbols the store holds in part answers what the terminal alone answers, byte for byte in
// JSON and Arrow, for ticks and for custom bars: the merge takes the store's chunks as it takes the terminal's.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t from 'tap';

import { availableAdapters } from '../../src/http/adapters/index.js';
import { openSimTerminal } from '../../src/terminal/index.js';
import { curlMissing, curlScript, DOC_SNIPPETS, docBlock } from '../helpers/doc-blocks.js';
import { runChild } from '../helpers/child.js';
import { serve } from '../helpers/server.js';
import { syncTicks } from '../helpers/store.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-store-multi-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store = path.join(dir, 'store');

// EURUSD and GBPUSD for 2024-01-08 in the store; USDJPY only in the terminal.
const code = await syncTicks(store, 'EURUSD,GBPUSD', '2024-01-08', '2024-01-09T00:00:00Z');
t.equal(code, 0, 'the store is filled');

const terminal = openSimTerminal();
t.teardown(() => terminal.close());
const adapter = availableAdapters()[0]!;
const withStore = await serve(t, adapter, terminal, { TRADEAPI_STORE: store });
const plain = await serve(t, adapter, terminal);

const queries = [
  // Ticks, and custom bars (time bars and tick bars, built from the store's ticks as from the terminal's).
  { what: 'ticks', path: '/ticks/range?symbols=GBPUSD,USDJPY,EURUSD&date_from=2024-01-08T10:00:00Z&date_to=2024-01-08T11:00:00Z', bytes: 100_000 },
  { what: '90 s bars', path: '/ticks/bars?symbols=GBPUSD,USDJPY,EURUSD&period=90s&date_from=2024-01-08T10:00:00Z&date_to=2024-01-08T11:00:00Z', bytes: 10_000 },
  { what: 'tick bars', path: '/ticks/bars?symbols=GBPUSD,USDJPY,EURUSD&period=ticks:50&date_from=2024-01-08T10:00:00Z&date_to=2024-01-08T11:00:00Z', bytes: 10_000 },
];

for (const { what, path: query, bytes } of queries) {
  for (const format of ['json', 'arrow'] as const) {
    await t.test(`${what}, ${format}: the store's answer is the terminal's`, async (t) => {
      const a = await withStore.get(`${query}&format=${format}`);
      const b = await plain.get(`${query}&format=${format}`);
      t.equal(a.status, 200);
      t.equal(a.headers.get('tradeapi-symbols'), 'GBPUSD,USDJPY,EURUSD');
      t.match(a.headers.get('tradeapi-source') ?? '', /store=2024-01-08/, 'the store took part');
      t.equal(b.headers.get('tradeapi-source'), null, 'the terminal alone');
      const x = Buffer.from(await a.arrayBuffer());
      const y = Buffer.from(await b.arrayBuffer());
      t.ok(x.byteLength > bytes, `a real answer (${x.byteLength} bytes)`);
      t.ok(x.equals(y), 'byte for byte');
    });
  }
}

await t.test(`${DOC_SNIPPETS.storeSeries.page}'s custom bars and many-symbol block, as written`, { skip: curlMissing() }, async (t) => {
  const block = docBlock(DOC_SNIPPETS.storeSeries);
  if (!block) return t.fail(`no sh block with the store's curl in ${DOC_SNIPPETS.storeSeries.page}`);
  const urls = [...block.matchAll(/'(http:\/\/127\.0\.0\.1:8000[^']+)'/g)].map((m) => m[1]!.replace('http://127.0.0.1:8000', ''));
  const r = await runChild('bash', ['-e', '-c', curlScript(block, withStore.base, true)], { cwd: dir });
  t.equal(r.code, 0, 'every request answered 2xx', { stderr: r.stderr.slice(-2000) });
  const answers = r.stdout.split('\n').filter((l) => l.trim() !== '');
  t.equal(answers.length, 2, 'custom bars, then two symbols merged');
  for (const [i, url] of urls.entries()) {
    const fromStore = await withStore.get(url);
    t.match(fromStore.headers.get('tradeapi-source') ?? '', /store=/, `${url}: the store took part`);
    t.same(JSON.parse(answers[i]!), await (await plain.get(url)).json(), `${url}: the terminal's answer`);
  }
  t.ok((JSON.parse(answers[0]!) as unknown[]).length >= 40, '90-second bars over the hour');
});
