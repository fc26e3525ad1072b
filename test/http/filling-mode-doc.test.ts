// clients/python/README.md tells why the MetaQuotes order_check example answers 10030 here
// (issue 35 §3.6): its ORDER_FILLING_RETURN is not among the simulated FX symbols' filling modes.
// The page's claims are checked against the simulator through the HTTP server.
import { readFileSync } from 'node:fs';
import path from 'node:path';

import t from 'tap';

import { ROOT } from '../helpers/doc-blocks.js';
import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const page = readFileSync(path.join(ROOT, 'clients/python/README.md'), 'utf8');
const differs = page.slice(page.indexOf('## What differs'), page.indexOf('\n## ', page.indexOf('## What differs') + 1));

/** MetaQuotes' order_check example (MetaTrader5 package documentation), its request as it is. */
const example = (symbol: string, ask: number, point: number, filling: number): Record<string, unknown> => ({
  action: 1, // TRADE_ACTION_DEAL
  symbol,
  volume: 1.0,
  type: 0, // ORDER_TYPE_BUY
  price: ask,
  sl: ask - 100 * point,
  tp: ask + 100 * point,
  deviation: 10,
  magic: 234000,
  comment: 'python script',
  type_time: 0, // ORDER_TIME_GTC
  type_filling: filling,
});

const FOK = 0;
const RETURN = 2;

t.test('the page says what differs: RETURN is refused with 10030, FOK works', async (t) => {
  t.match(differs, /ORDER_FILLING_RETURN/);
  t.match(differs, /10030/);
  t.match(differs, /mt5\.ORDER_FILLING_FOK/);
  t.match(differs, /filling_mode == 3/);
});

t.test("the simulator does what the page says", async (t) => {
  await forEachAdapter(t, async (t, adapter) => {
    const s = await serve(t, adapter, simTerminal());
    const symbols = (await (await s.get('/symbols')).json()) as Array<{ name: string; path: string; filling_mode: number; trade_exemode: number; point: number }>;
    const fx = symbols.filter((x) => x.path.startsWith('Forex\\'));
    t.ok(fx.length >= 7, `${fx.length} FX symbols`);
    t.same([...new Set(fx.map((x) => x.filling_mode))], [3], 'every FX symbol: filling_mode 3 (FOK | IOC)');
    for (const symbol of ['USDJPY', 'EURUSD']) {
      const info = fx.find((x) => x.name === symbol);
      const tick = (await (await s.get(`/symbols/${symbol}/tick`)).json()) as { ask: number };
      const check = async (filling: number): Promise<number> => {
        const res = await s.post('/order/check', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ request: example(symbol, tick.ask, info?.point ?? 0.001, filling) }) });
        t.equal(res.status, 200);
        return ((await res.json()) as { retcode: number }).retcode;
      };
      t.equal(await check(RETURN), 10030, `${symbol}: the example as it is (ORDER_FILLING_RETURN): 10030`);
      t.equal(await check(FOK), 0, `${symbol}: with ORDER_FILLING_FOK: 0`);
    }
  });
});
