// Account events over a real bridge: the MetaTrader5 stand-in behind `python -m tradeapi_bridge`
// (hooked), trading as scripted (its _script hook: open, modify, partial close, close, pending order
// placed, modified, cancelled, each at a given time on the stand-in's clock, which the test moves
// on). The gateway detects each change by polling positions_get/orders_get/history_deals_get
// through the bridge, and an SSE client gets the events in order, with the records after the change.
import t from 'tap';

import { Bridge, freePort, prepareVenv, startGateway, waitFor } from '../helpers/bridge.js';
import { SseClient, type SseMessage } from '../helpers/sse.js';
import { patience } from '../helpers/patience.js';

type Json = Record<string, unknown>;
const data = (m: SseMessage): Json => JSON.parse(m.data) as Json;

const skip = prepareVenv();
if (skip) {
  t.plan(0, `bridge tests need Python 3 with venv: ${skip}`);
} else {
  t.test('scripted trading on the stand-in reaches an SSE client as account events', async (t) => {
    const port = await freePort();
    const bridge = await Bridge.start(port, undefined, { hooked: true });
    t.teardown(() => bridge.kill());
    const gw = await startGateway(t, port, undefined, { env: { TRADEAPI_EVENTS_TRADE_MS: '20', TRADEAPI_EVENTS_ACCOUNT_MS: '20' } });
    const up = await waitFor(async () => ((await gw.get('/account')).status === 200 ? true : undefined), patience(2_000));
    t.ok(up, 'the bridge has its terminal');
    const now = (await bridge.hook('_advance', [0])) as number;
    const at = (s: number): number => now + s * 1000;
    await bridge.hook('_script', [
      [
        { at: at(1), op: 'open', ticket: 900001, deal: 900101, symbol: 'EURUSD', type: 0, volume: 0.3, price: 1.05 },
        { at: at(2), op: 'modify', ticket: 900001, sl: 1.04, tp: 1.07 },
        { at: at(3), op: 'place', ticket: 900002, symbol: 'GBPUSD', type: 2, volume: 0.2, price: 1.2 },
        { at: at(4), op: 'modify_order', ticket: 900002, price: 1.19 },
        { at: at(5), op: 'close', ticket: 900001, deal: 900102, volume: 0.1, profit: 4.5 },
        { at: at(6), op: 'cancel', ticket: 900002 },
        { at: at(7), op: 'close', ticket: 900001, deal: 900103, profit: 9 },
      ],
    ]);
    const c = await SseClient.open(`${gw.base}/events?kinds=deal,order,position,account`);
    t.teardown(() => c.close());
    t.equal(c.status, 200);
    await c.waitFor(() => c.messages.filter((m) => m.event === 'snapshot').length === 3, patience(5_000), 'the snapshots');
    const changes = (): string[] =>
      c.messages
        .filter((m) => ['deal', 'order', 'position'].includes(m.event))
        .map((m) => (m.event === 'deal' ? `deal ${data(m).ticket as number}` : `${m.event} ${data(m).change as string} ${((data(m).order ?? data(m).position) as Json).ticket as number}`));
    const expected = [
      ['deal 900101', 'position opened 900001'],
      ['position modified 900001'],
      ['order opened 900002'],
      ['order modified 900002'],
      ['deal 900102', 'position modified 900001'],
      ['order cancelled 900002'],
      ['deal 900103', 'position closed 900001'],
    ];
    let want: string[] = [];
    for (const [i, step] of expected.entries()) {
      await bridge.hook('_advance', [1000]);
      want = [...want, ...step];
      await c.waitFor(() => changes().length >= want.length, patience(5_000), `step ${i + 1}: ${step.join(', ')}`);
      t.same(changes(), want, `step ${i + 1}: ${step.join(', ')}`);
    }
    const positions = c.messages.filter((m) => m.event === 'position').map(data);
    t.match(positions[1], { change: 'modified', position: { sl: 1.04, tp: 1.07, volume: 0.3 } }, 'SL/TP as modified');
    t.match(positions[2], { change: 'modified', position: { volume: 0.2 } }, 'the volume left after the partial close');
    const orders = c.messages.filter((m) => m.event === 'order').map(data);
    t.match(orders[1], { change: 'modified', order: { price_open: 1.19 } });
    t.match(orders[2], { change: 'cancelled', order: { ticket: 900002, state: 2 } }, 'the cancelled order as the history has it');
    const deals = c.messages.filter((m) => m.event === 'deal');
    t.match(deals.at(-1)?.id, /^deal:\d+-900103$/);
    // The money followed: the balance after both closes.
    const balance0 = (data(c.messages.find((m) => m.event === 'snapshot' && data(m).kind === 'account') as SseMessage).account as Json).balance as number;
    await c.waitFor(() => c.messages.some((m) => m.event === 'account' && Math.abs((data(m).balance as number) - (balance0 + 13.5)) < 1e-6), patience(5_000), 'the balance after the closes');
    // A reconnect from the first deal gets the two after it from the history, none twice.
    const again = await SseClient.open(`${gw.base}/events?kinds=deal`, { 'last-event-id': deals[0]?.id as string });
    t.teardown(() => again.close());
    await again.waitFor(() => again.messages.filter((m) => m.event === 'deal').length >= 2, patience(5_000), 'the two later deals');
    t.same(again.messages.filter((m) => m.event === 'deal').map((m) => data(m).ticket), [900102, 900103]);
  });
}
