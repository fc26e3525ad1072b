// The simulated account's money model through the façade (issue 14 items 2-4): hedged margin,
// margin fixed at the positions' open prices, swaps in positions, closing deals and the balance.
// The rules themselves are tested to the cent in binding/tests/account_model_test.cpp.
import t from 'tap';

import { openSimTerminal, type TradePosition, type TradeRequest } from '../../src/terminal/index.js';

const NOW = Date.UTC(2025, 10, 19, 12); // Wednesday noon
const ANCHOR = Date.UTC(2025, 10, 19) / 1000;
// The generated account without its trading schedule: these are checks of the money model on a
// fixed set of positions (the account's life is test/http/sim-account-life.test.ts's).
const config = (nowMs: number) => ({ seed: 20240101, nowMs, accountAnchor: ANCHOR, balance: 10000.17, tradesPerHour: 0 });
const cents = (v: number) => Math.round(v * 100);

t.test('account margin stays put across ticks while equity moves', async (t) => {
  // The account lives (a pending order may trigger, a level close a position): compared while its
  // positions are the ones it started with.
  const margins = new Set<number>();
  const equities = new Set<number>();
  let first: string | undefined;
  let compared = 0;
  for (const offset of [0, 61_000, 2 * 3600_000, 4 * 3600_000, 7 * 3600_000]) {
    const term = openSimTerminal(config(NOW + offset));
    const a = await term.accountInfo();
    const held = JSON.stringify((await term.positionsGet()).map((p) => [p.ticket, p.volume]));
    await term.close();
    first ??= held;
    if (held !== first) continue;
    compared++;
    margins.add(a.margin);
    equities.add(a.equity);
  }
  t.ok(compared >= 3, `${compared} instants with the same positions`);
  t.equal(margins.size, 1, `one margin: ${[...margins].join(', ')}`);
  t.ok([...margins][0]! > 0);
  t.ok(equities.size > 1, 'equity follows the quotes');
});

t.test('an opposite deal on a hedged symbol does not add a full margin', async (t) => {
  const term = openSimTerminal(config(NOW));
  t.teardown(() => term.close());
  const before = (await term.accountInfo()).margin;
  const positions = await term.positionsGet();
  const volumes = new Map<string, { buy: number; sell: number }>();
  for (const p of positions) {
    const v = volumes.get(p.symbol) ?? { buy: 0, sell: 0 };
    if (p.type === 0) v.buy += p.volume;
    else v.sell += p.volume;
    volumes.set(p.symbol, v);
  }
  // A symbol with more volume on one side: a deal on the other side of the excess volume covers it.
  const entry = [...volumes.entries()].find(([, v]) => cents(v.buy) !== cents(v.sell));
  if (!entry) return t.fail('no symbol with uncovered volume');
  const [symbol, v] = entry;
  const sellMore = v.buy > v.sell;
  const volume = Math.abs(cents(v.buy) - cents(v.sell)) / 100;
  const tick = await term.symbolInfoTick(symbol);
  const request: Partial<TradeRequest> = { action: 1, symbol, volume, type: sellMore ? 1 : 0, type_filling: 1 };
  const opposite = await term.orderCheck(request);
  t.equal(opposite.retcode, 0);
  const full = await term.orderCalcMargin(sellMore ? 1 : 0, symbol, volume, sellMore ? tick.bid : tick.ask);
  t.ok(opposite.margin < before + full - 0.01, `${opposite.margin} < ${before} + ${full}`);
  const same = await term.orderCheck({ ...request, type: sellMore ? 0 : 1 });
  t.ok(same.margin > opposite.margin, 'the same direction adds margin');
});

t.test('swaps: positions over rollovers carry them, history sums to the balance', async (t) => {
  const term = openSimTerminal(config(NOW));
  t.teardown(() => term.close());
  const positions: TradePosition[] = await term.positionsGet();
  t.ok(positions.some((p) => p.swap !== 0), 'open positions held over a rollover carry a swap');
  const a = await term.accountInfo();
  t.equal(cents(a.profit), positions.reduce((s, p) => s + cents(p.profit) + cents(p.swap), 0), 'profit includes swaps');
  const deals = await term.historyDealsGet({});
  let sum = 0;
  let withSwap = 0;
  for (const d of deals) {
    sum += cents(d.profit) + cents(d.commission) + cents(d.swap) + cents(d.fee);
    if (d.swap !== 0) {
      withSwap++;
      t.ok(d.entry === 1 || d.entry === 3, 'only closing deals (out, out by) book swaps');
    }
  }
  t.equal(sum, cents(a.balance), 'deposit + results = balance to the cent');
  t.ok(withSwap >= 30, `${withSwap} closing deals with a swap`);
});
