// Hardening, item 8: requests for unknown symbols never hold a depth-subscription slot, so they
// cannot starve valid ones; an unknown symbol is a 404 even at the cap; concurrent subscribes and
// subscribe/unsubscribe races leave the registry and the terminal in agreement.
import t from 'tap';

import { SubscriptionRegistry } from '../../src/terminal/subscriptions.js';
import { TerminalError } from '../../src/terminal/errors.js';
import { faultyTerminal } from '../helpers/faulty-terminal.js';
import { expectProblem, forEachAdapter, serve, simTerminal, type TestServer } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const VALID = ['EURUSD', 'GBPUSD', 'USDJPY', 'USDCHF', 'AUDUSD'];
const UNKNOWN = Array.from({ length: 10 }, (_, i) => `NOSUCH${i}`);

/** Whether the terminal itself holds a depth subscription for the symbol (200 vs 409 on the book). */
async function terminalHolds(s: TestServer, symbol: string): Promise<boolean> {
  const res = await s.get(`/market-book/${symbol}`);
  await res.arrayBuffer();
  if (res.status !== 200 && res.status !== 409) throw new Error(`unexpected ${res.status}`);
  return res.status === 200;
}

await forEachAdapter(t, async (t, adapter) => {
  await t.test('cap 5: ten unknown and five valid at once, every valid one succeeds', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS: '5' });
    t.teardown(() => s.server.subscriptions.releaseAll());
    // Unknown ones first, so that they are in flight when the valid ones arrive.
    const symbols = [...UNKNOWN, ...VALID];
    const responses = await Promise.all(symbols.map((sym) => s.post(`/market-book/${sym}/subscribe`)));
    for (const [i, res] of responses.entries()) {
      const sym = symbols[i] as string;
      if (VALID.includes(sym)) {
        t.equal(res.status, 200, `${sym}: 200`);
        t.match(await res.json(), { symbol: sym, subscribed: true, limit: 5 });
      } else {
        await expectProblem(t, res, 404, '/errors/symbol-not-found', `/market-book/${sym}/subscribe`);
      }
    }
    t.equal(s.server.subscriptions.active, 5, 'five active in the end');
    for (const sym of VALID) t.ok(await terminalHolds(s, sym), `${sym} subscribed in the terminal`);

    // At the cap, an unknown symbol is still a 404 (checked before the cap), a new valid one 429.
    await expectProblem(t, await s.post('/market-book/NOSUCH/subscribe'), 404, '/errors/symbol-not-found');
    await expectProblem(t, await s.post('/market-book/NZDUSD/subscribe'), 429, '/errors/subscription-limit');
    t.equal(s.server.subscriptions.active, 5);
    const health = await s.get('/health');
    t.equal(health.status, 200, '/health still 200');
    await health.arrayBuffer();
  });

  await t.test('concurrent subscribes of one symbol mixed with unknowns: one slot, all 200', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS: '1' });
    t.teardown(() => s.server.subscriptions.releaseAll());
    const symbols = [...UNKNOWN.slice(0, 5), ...Array<string>(5).fill('XAUUSD')];
    const statuses = await Promise.all(
      symbols.map(async (sym) => {
        const res = await s.post(`/market-book/${sym}/subscribe`);
        await res.arrayBuffer();
        return res.status;
      }),
    );
    t.same(statuses, [...Array<number>(5).fill(404), ...Array<number>(5).fill(200)]);
    t.equal(s.server.subscriptions.active, 1);
    t.ok(await terminalHolds(s, 'XAUUSD'));
  });

  await t.test('subscribe/unsubscribe races end with registry and terminal in agreement', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS: '2' });
    t.teardown(() => s.server.subscriptions.releaseAll());
    for (let round = 0; round < 10; round++) {
      const ops = ['subscribe', 'unsubscribe', 'subscribe', 'unsubscribe', 'subscribe', 'subscribe', 'unsubscribe'];
      const order = round % 2 === 0 ? ops : [...ops].reverse();
      const responses = await Promise.all(order.map((op) => s.post(`/market-book/EURJPY/${op}`)));
      for (const res of responses) {
        t.ok([200, 404].includes(res.status), `round ${round}: ${res.status} is 200 or 404`);
        await res.arrayBuffer();
      }
      const registry = s.server.subscriptions.active === 1;
      t.equal(await terminalHolds(s, 'EURJPY'), registry, `round ${round}: the terminal agrees with the registry (${registry})`);
    }
  });
});

t.test('registry: a slot in flight that fails frees the cap for a waiting request', async (t) => {
  // The first add is slow and fails; a second symbol that arrives meanwhile at cap 1 gets the slot.
  let failFirst = true;
  const slow = faultyTerminal(terminal, {
    async marketBookAdd(symbol: string) {
      if (failFirst) {
        failFirst = false;
        await new Promise((r) => setTimeout(r, 50));
        throw new TerminalError('call_failed', -1, 'no depth for this symbol');
      }
      return terminal.marketBookAdd(symbol);
    },
  });
  const registry = new SubscriptionRegistry(slow, 1);
  const [first, second] = await Promise.allSettled([registry.subscribe('EURUSD'), registry.subscribe('GBPUSD')]);
  t.match(first, { status: 'rejected', reason: { kind: 'call_failed' } });
  t.match(second, { status: 'fulfilled', value: { symbol: 'GBPUSD', subscribed: true, active: 1 } });
  await registry.releaseAll();
  t.equal(registry.active, 0);
});

t.test('registry: a subscription the terminal dropped on its own can still be unsubscribed', async (t) => {
  const registry = new SubscriptionRegistry(terminal, 1);
  await registry.subscribe('EURUSD');
  await terminal.marketBookRelease('EURUSD'); // behind the registry's back (e.g. symbol hidden)
  t.match(await registry.unsubscribe('EURUSD'), { subscribed: false, active: 0 });
  t.match(await registry.subscribe('GBPUSD'), { subscribed: true, active: 1 }, 'the slot is free again');
  await registry.releaseAll();
});
