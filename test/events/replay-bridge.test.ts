// A replay (`start=`) with a real bridge as the source: the MetaTrader5 stand-in behind
// `python -m tradeapi_bridge` (hooked, so that the test moves the terminal's clock on and new ticks
// appear as they would live). The history part is the bridge's paged reads; the seam is proven
// here as on the simulator (test/events/replay.test.ts), over GET /events and GET /ws alike.
import t, { type Test } from 'tap';

import { prepareVenv, steppedBridge, type SteppedBridge } from '../helpers/bridge.js';
import { SseClient, type TickData } from '../helpers/sse.js';
import { WsClient } from '../helpers/ws.js';
import { patience } from '../helpers/patience.js';

const FIELDS = ['time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'flags', 'volume_real'] as const;
const fieldsOf = (tick: Record<string, number> | TickData): Record<string, number> =>
  Object.fromEntries(FIELDS.map((f) => [f, (tick as Record<string, number>)[f] as number]));
const iso = (ms: number): string => new Date(ms).toISOString();
const SYMBOLS = ['EURUSD', 'GBPUSD'];

type Gateway = SteppedBridge['gw'];

/**
 * Each symbol's ticks are exactly its history from `fromMs` to its last tick seen, once each. (Up to
 * its own last: the feed polls the symbols side by side, and a step of the clock can fall between
 * two symbols' polls, so one symbol's live ticks may be a step behind another's when the test looks.)
 */
async function sameAsHistory(t: Test, gw: Gateway, ticks: readonly TickData[], fromMs: number, what: string): Promise<void> {
  for (const symbol of SYMBOLS) {
    const mine = ticks.filter((k) => k.symbol === symbol);
    const last = Math.max(...mine.map((k) => k.time_msc));
    const res = await gw.get(`/ticks/range?symbol=${symbol}&date_from=${iso(fromMs)}&date_to=${iso(last)}`);
    const history = ((await res.json()) as Array<Record<string, number>>).map(fieldsOf);
    t.ok(mine.length > 5, `${what} ${symbol}: ticks (${mine.length})`);
    t.same(mine.map(fieldsOf), history, `${what} ${symbol}: history then live are exactly the history, each tick once`);
  }
}

const skip = prepareVenv();
if (skip) {
  t.plan(0, `bridge tests need Python 3 with venv: ${skip}`);
} else {
  t.test('a replay from a bridge: history, replay-complete, live; SSE and WebSocket', async (t) => {
    const { gw, advance } = await steppedBridge(t, 40);
    await advance(3);
    const now = ((await (await gw.get('/symbols/EURUSD/tick')).json()) as TickData).time_msc;
    const start = now - 2_000;

    const sse = await SseClient.open(`${gw.base}/events?symbols=${SYMBOLS.join(',')}&start=${iso(start)}`);
    t.teardown(() => sse.close());
    t.equal(sse.status, 200);
    const ws = await WsClient.open(`${gw.base.replace(/^http/, 'ws')}/ws`);
    t.teardown(() => ws.close());
    ws.send({ op: 'subscribe', symbols: SYMBOLS, start: iso(start) });
    await sse.waitFor(() => sse.messages.some((m) => m.event === 'replay-complete'), patience(2_000), 'SSE replay-complete');
    await ws.waitFor(() => ws.of('replay-complete').length > 0, patience(2_000), 'WS replay-complete');
    const sseSeam = sse.ticks.length;
    const wsSeam = ws.ticks.length;
    await advance(3);
    await sse.waitFor(() => SYMBOLS.every((s) => sse.ticks.slice(sseSeam).some((k) => k.symbol === s)), patience(2_000), 'SSE live ticks of each symbol');
    await ws.waitFor(() => SYMBOLS.every((s) => ws.ticks.slice(wsSeam).some((k) => k.symbol === s)), patience(2_000), 'WS live ticks of each symbol');
    t.equal(sse.messages.filter((m) => m.event === 'replay-complete').length, 1, 'SSE: one marker');
    t.equal(ws.of('replay-complete').length, 1, 'WS: one marker');
    await sameAsHistory(t, gw, sse.ticks, start, 'SSE');
    await sameAsHistory(t, gw, ws.ticks, start, 'WS');
  });
}
