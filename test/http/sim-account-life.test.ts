// The simulated account's life through the HTTP API, as a client sees it (binding/sim/ledger.h;
// the rules themselves are unit-tested in binding/tests/ledger_test.cpp): at arbitrary instants
// /account, /positions, /orders, /history/orders and /history/deals agree with each other and the
// balance is the deposit plus the deals to the cent; the history only grows; and two servers with
// the same seed and clock agree on every deal, with clocks running at 3600x as TRADEAPI_SIM_CLOCK,
// TRADEAPI_SIM_CLOCK_RATE and TRADEAPI_SIM_TRADES_PER_HOUR set them; and docs/simulator.md's
// "living account" block, run as written (it starts its own gateway with those settings).
import { spawn } from 'node:child_process';

import t from 'tap';

import { freePort } from '../../bench/processes.js';
import { curlMissing, DOC_SNIPPETS, docBlock, readPage, ROOT } from '../helpers/doc-blocks.js';

import { forEachAdapter, serve } from '../helpers/server.js';
import { loadTerminalSettings } from '../../src/config/index.js';
import { openConfiguredTerminal, openSimTerminal, type SimConfig } from '../../src/terminal/index.js';

const ANCHOR_S = Date.UTC(2024, 0, 10) / 1000; // Wednesday: the generated history ends here
const SEED = 42;
const HISTORY = 'date_from=2020-01-01T00:00:00Z';

type Row = Record<string, number | string>;
const cents = (v: number | string) => Math.round(Number(v) * 100);
const json = async <T>(res: Response): Promise<T> => {
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
};

const living = (config: SimConfig) => openSimTerminal({ seed: SEED, accountAnchor: ANCHOR_S, tradesPerHour: 20, ...config });

await forEachAdapter(t, async (t, adapter) => {
  await t.test('at arbitrary instants the account is what its history says', async (t) => {
    let before: Row[] = [];
    let sawChange = false;
    for (const hours of [3, 11, 26, 39]) {
      const nowMs = ANCHOR_S * 1000 + hours * 3_600_000 + 4_321;
      const terminal = living({ nowMs });
      t.teardown(() => terminal.close());
      const s = await serve(t, adapter, terminal);
      const until = `date_to=${new Date(nowMs).toISOString()}`;
      const account = await json<Row>(await s.get('/account'));
      const positions = await json<Row[]>(await s.get('/positions'));
      const orders = await json<Row[]>(await s.get('/orders'));
      const deals = await json<Row[]>(await s.get(`/history/deals?${HISTORY}&${until}`));
      const historyOrders = await json<Row[]>(await s.get(`/history/orders?${HISTORY}&${until}`));
      const at = `+${hours} h`;

      const sum = deals.reduce((acc, d) => acc + cents(d.profit!) + cents(d.commission!) + cents(d.swap!) + cents(d.fee!), 0);
      t.equal(cents(account.balance!), sum, `${at}: balance = deposit + deals to the cent`);
      const floating = positions.reduce((acc, p) => acc + cents(p.profit!) + cents(p.swap!), 0);
      t.equal(cents(account.equity!), cents(account.balance!) + floating, `${at}: equity = balance + positions' profit and swap`);
      t.equal((await json<{ total: number }>(await s.get('/positions/total'))).total, positions.length);
      t.equal((await json<{ total: number }>(await s.get('/orders/total'))).total, orders.length);

      // Every open position's volume is its deals' in minus out; every other position is flat.
      const net = new Map<number, number>();
      for (const d of deals) {
        if (Number(d.type) > 1) continue; // balance operations
        const v = Math.round(Number(d.volume) * 1e8);
        net.set(Number(d.position_id), (net.get(Number(d.position_id)) ?? 0) + (Number(d.entry) === 0 ? v : -v));
      }
      for (const p of positions) t.equal(net.get(Number(p.identifier)), Math.round(Number(p.volume) * 1e8), `${at}: position ${p.identifier}`);
      const open = new Set(positions.map((p) => Number(p.identifier)));
      t.ok([...net].every(([id, v]) => open.has(id) || v === 0), `${at}: closed positions are flat`);

      // An order is active or in the history, never both; active ones are placed.
      const done = new Set(historyOrders.map((o) => Number(o.ticket)));
      t.ok(orders.every((o) => !done.has(Number(o.ticket)) && Number(o.state) === 1), `${at}: active orders are not history`);
      t.ok(deals.every((d) => Number(d.time_msc) <= nowMs), `${at}: no deal from the future`);
      for (let i = 1; i < deals.length; i++) {
        if (!(Number(deals[i]!.ticket) > Number(deals[i - 1]!.ticket))) t.fail(`${at}: deal tickets increase`);
      }

      // The history only grows: the deals seen earlier are the start of these.
      t.same(deals.slice(0, before.length), before, `${at}: the earlier history is unchanged`);
      sawChange ||= deals.length > before.length && before.length > 0;
      before = deals;
    }
    t.ok(sawChange, 'the account traded between the instants');
  });

  await t.test('two servers with the same settings and running clock agree on every deal', async (t) => {
    // As `serve` opens them from its settings: the anchor is the start of the clock's day (ANCHOR_S).
    const clockStartMs = Date.UTC(2024, 0, 10, 9);
    const env = { TRADEAPI_SIM_CLOCK: new Date(clockStartMs).toISOString(), TRADEAPI_SIM_CLOCK_RATE: '3600', TRADEAPI_SIM_TRADES_PER_HOUR: '120' };
    const terminals = [openConfiguredTerminal(loadTerminalSettings(env)), openConfiguredTerminal(loadTerminalSettings(env))];
    t.teardown(() => Promise.all(terminals.map((terminal) => terminal.close())));
    const a = await serve(t, adapter, terminals[0]!);
    const b = await serve(t, adapter, terminals[1]!);
    // Both clocks past two simulated hours (two real seconds at 3600x): wait for the quotes to say so.
    const target = clockStartMs + 2 * 3_600_000;
    for (const s of [a, b]) {
      for (;;) {
        const tick = await json<Row>(await s.get('/symbols/EURUSD/tick'));
        if (Number(tick.time_msc) > target) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const range = `${HISTORY}&date_to=${new Date(target).toISOString()}`;
    const [dealsA, dealsB] = await Promise.all([a, b].map(async (s) => json<Row[]>(await s.get(`/history/deals?${range}`))));
    t.same(dealsA, dealsB, 'the same deals up to the instant both have passed');
    t.ok(dealsA!.some((d) => Number(d.time) >= ANCHOR_S + 9 * 3600), 'deals made while the clocks ran');
  });
});

await t.test(`${DOC_SNIPPETS.livingAccount.page}'s living account block, as written`, { skip: curlMissing() }, async (t) => {
  const block = docBlock(DOC_SNIPPETS.livingAccount);
  if (!block) return t.fail(`no sh block with the living account in ${DOC_SNIPPETS.livingAccount.page}`);
  // Verbatim but for the port (a free one, not 8000); the block starts the gateway, asks it, and stops it.
  const port = await freePort();
  const startedAt = Date.now();
  const shell = spawn('bash', ['-e', '-c', block.replaceAll('8000', String(port))], { cwd: ROOT, detached: true });
  t.teardown(() => {
    if (shell.exitCode === null && shell.pid !== undefined) process.kill(-shell.pid);
  });
  let out = '';
  let err = '';
  shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  shell.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => shell.on('close', resolve));
  const elapsedMs = Date.now() - startedAt;
  t.equal(code, 0, `the block ends cleanly (stderr: ${err})`);
  const lines = out.split('\n').filter((l) => l !== '');
  t.equal(lines.length, 2, 'two lines: the tick and the positions', { output: out });
  const tick = JSON.parse(lines[0] ?? 'null') as Row;
  const positions = JSON.parse(lines[1] ?? 'null') as Row[];

  // The shape the page shows (the plain fence after the block): every field of its sample output is in the real one.
  const page = readPage(DOC_SNIPPETS.livingAccount.page);
  const sample = /```\n(.*?)```/s.exec(page.slice(page.indexOf(block) + block.length + 3))?.[1];
  if (!sample) return t.fail('no sample output after the block');
  const [tickSample, positionSample] = sample.split('\n');
  const fields = (text: string | undefined): string[] => [...(text ?? '').matchAll(/"(\w+)":/g)].map((m) => m[1] as string);
  t.same(Object.keys(tick), fields(tickSample), 'the tick: the fields of the sample, in order');
  t.ok(Array.isArray(positions) && positions.length > 0, 'the demo account has open positions');
  for (const p of positions) t.same(fields(positionSample).filter((f) => !(f in p)), [], `position ${p.ticket}: every field of the sample`);

  // The clock the block set: from 09:00 at 60x (at most 60 simulated ms per real ms since the start, and a minute of slack).
  const clockStartMs = Date.UTC(2026, 10, 25, 9);
  const tickMs = Number(tick.time_msc);
  t.ok(tickMs > clockStartMs - 5 * 60_000 && tickMs <= clockStartMs + 60 * elapsedMs + 60_000, `the tick is of the simulated clock: ${new Date(tickMs).toISOString()}`);
  t.ok(positions.every((p) => Number(p.time_msc) <= tickMs + 60_000), 'no position opened after the clock');
});
