// A bars range wholly outside the history a terminal serves fails in MT5 with the same "not found"
// (-4) as an unknown symbol; the gateway tells the two apart (a 404 that names the history, not
// the symbol) by asking for the symbol only after such a failure.
import t from 'tap';

import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import { serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal(); // its clock: 2024-01-10 12:00 UTC; history from 2020-01-01
t.teardown(() => terminal.close());
const server = await serve(t, nodeAdapter, terminal);
const range = (symbol: string, from: string, to: string) =>
  `/rates/range?symbol=${symbol}&timeframe=TIMEFRAME_H1&date_from=${from}&date_to=${to}`;

t.test('before the first bar, and after now: 404 not-found naming the history', async (t) => {
  for (const [from, to] of [
    ['2019-01-01T00:00:00Z', '2019-02-01T00:00:00Z'],
    ['2024-02-01T00:00:00Z', '2024-03-01T00:00:00Z'],
  ] as const) {
    const r = await server.get(range('EURUSD', from, to));
    t.equal(r.status, 404, `${from}..${to}`);
    t.equal(r.headers.get('content-type'), 'application/problem+json');
    const p = (await r.json()) as { type: string; detail: string };
    t.equal(p.type, '/errors/not-found');
    t.match(p.detail, /wholly outside the history/);
    t.notMatch(p.detail, /not known/, 'does not blame the symbol');
  }
});

t.test('an unknown symbol is still symbol-not-found', async (t) => {
  const r = await server.get(range('NOPE', '2019-01-01T00:00:00Z', '2019-02-01T00:00:00Z'));
  t.equal(r.status, 404);
  t.equal(((await r.json()) as { type: string }).type, '/errors/symbol-not-found');
});

t.test('a range that overlaps the history answers its bars', async (t) => {
  const r = await server.get(range('EURUSD', '2019-12-20T00:00:00Z', '2020-01-03T00:00:00Z'));
  t.equal(r.status, 200);
  const bars = (await r.json()) as Array<{ time: number }>;
  t.ok(bars.length > 0, `${bars.length} bars`);
  t.ok(bars.every((b) => b.time >= Date.UTC(2020, 0, 1) / 1000), 'none before the history');
});
