// Market-depth subscriptions: the cap holds under concurrent requests; subscribe is idempotent.
import t from 'tap';

import { SubscriptionRegistry } from '../../src/terminal/subscriptions.js';
import { expectProblem, forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const SYMBOLS = ['EURUSD', 'GBPUSD', 'USDCHF', 'USDJPY', 'USDCAD', 'AUDUSD', 'NZDUSD', 'EURJPY', 'EURGBP', 'EURCHF',
  'EURCAD', 'EURAUD', 'GBPJPY', 'GBPCHF', 'AUDJPY', 'CHFJPY', 'CADJPY', 'AUDCAD', 'NZDJPY', 'AUDNZD'];

await forEachAdapter(t, async (t, adapter) => {
  await t.test('cap 3, 20 concurrent different symbols: exactly 3 succeed', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS: '3' });
    const responses = await Promise.all(SYMBOLS.map((sym) => s.post(`/market-book/${sym}/subscribe`)));
    const statuses = responses.map((r) => r.status);
    t.equal(statuses.filter((x) => x === 200).length, 3, 'three 200');
    t.equal(statuses.filter((x) => x === 429).length, 17, 'seventeen 429');
    const limited = responses.find((r) => r.status === 429) as Response;
    const p = await expectProblem(t, limited, 429, '/errors/subscription-limit');
    t.match(p.instance, /^\/market-book\/\w+\/subscribe$/);
    for (const r of responses) if (!r.bodyUsed) await r.arrayBuffer();
    t.equal(s.server.subscriptions.active, 3);

    const winners = SYMBOLS.filter((_, i) => statuses[i] === 200);
    const loser = SYMBOLS.find((_, i) => statuses[i] === 429) as string;
    // Re-subscribing a winner at the cap is fine and takes no slot.
    const again = await s.post(`/market-book/${winners[0]}/subscribe`);
    t.match(await again.json(), { subscribed: true, active: 3, limit: 3 });
    // The book of a subscribed symbol is readable, a loser's is not.
    t.equal((await s.get(`/market-book/${winners[1]}`)).status, 200);
    await expectProblem(t, await s.get(`/market-book/${loser}`), 409, '/errors/not-subscribed');
    // Unsubscribe frees a slot; the loser now gets it.
    t.equal((await s.post(`/market-book/${winners[2]}/unsubscribe`)).status, 200);
    t.equal((await s.post(`/market-book/${loser}/subscribe`)).status, 200);
    await expectProblem(t, await s.post(`/market-book/${winners[2]}/subscribe`), 429, '/errors/subscription-limit');
    // Shutdown releases everything (teardown closes the server; check the registry directly).
    await s.server.subscriptions.releaseAll();
    t.equal(s.server.subscriptions.active, 0);
    await expectProblem(t, await s.get(`/market-book/${loser}`), 409, '/errors/not-subscribed', `/market-book/${loser}`);
  });

  await t.test('concurrent subscribes of one symbol take one slot', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS: '2' });
    const responses = await Promise.all(Array.from({ length: 10 }, () => s.post('/market-book/XAUUSD/subscribe')));
    t.same(responses.map((r) => r.status), Array(10).fill(200));
    t.equal(s.server.subscriptions.active, 1);
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    const un = await Promise.all(Array.from({ length: 3 }, () => s.post('/market-book/XAUUSD/unsubscribe')));
    t.ok(un.every((r) => r.status === 200 || r.status === 404), 'concurrent unsubscribes: 200 or 404, never 500');
    t.equal(s.server.subscriptions.active, 0);
    await s.server.subscriptions.releaseAll();
  });
});

t.test('registry rolls the slot back when the terminal refuses', async (t) => {
  const registry = new SubscriptionRegistry(terminal, 1);
  await t.rejects(registry.subscribe('NOPE'), { name: 'TerminalError' });
  t.equal(registry.active, 0);
  t.match(await registry.subscribe('EURUSD'), { subscribed: true, active: 1 });
  await t.rejects(registry.subscribe('GBPUSD'), { name: 'SubscriptionLimitError' });
  await t.rejects(registry.unsubscribe('GBPUSD'), { name: 'NoSubscriptionError' });
  await registry.releaseAll();
  t.equal(registry.active, 0);
});
