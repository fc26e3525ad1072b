// Custom bars (GET /ticks/bars) through the bridge: the gateway folds the ticks it pages from the
// bridge (the MetaTrader5 stand-in's), and a period equal to a timeframe gives the stand-in's own
// bars of that timeframe (built from the same ticks by its M1 aggregation), field for field.
import t from 'tap';

import { bridgedGateway, prepareVenv } from '../helpers/bridge.js';

type Row = Record<string, number>;
const RATE_FIELDS = ['time', 'open', 'high', 'low', 'close', 'tick_volume', 'spread', 'real_volume'] as const;

const skip = prepareVenv();
if (skip) {
  t.plan(0, `bridge tests need Python 3 with venv: ${skip}`);
} else {
  const { get, json } = await bridgedGateway(t);
  // The stand-in's clock reads 2024-12-20 16:00 UTC: these days are complete.
  const range = 'date_from=2024-12-16T00:00:00Z&date_to=2024-12-18T23:59:59Z';
  for (const [period, timeframe] of [['1m', 'TIMEFRAME_M1'], ['5m', 'TIMEFRAME_M5'], ['1h', 'TIMEFRAME_H1'], ['4h', 'TIMEFRAME_H4'], ['1d', 'TIMEFRAME_D1']] as const) {
    t.test(`${period} over the bridge = the bridge's ${timeframe}`, async (t) => {
      const rates = await json<Row[]>(`/rates/range?symbol=EURUSD&timeframe=${timeframe}&${range}`);
      const bars = await json<Row[]>(`/ticks/bars?symbol=EURUSD&period=${period}&${range}`);
      t.ok(rates.length > 2, `${rates.length} bars`);
      t.same(bars.map((b) => Object.fromEntries(RATE_FIELDS.map((f) => [f, b[f]]))), rates, 'field for field');
    });
  }
  t.test('tick bars over the bridge hold every tick of the day once', async (t) => {
    const day = 'date_from=2024-12-17T00:00:00Z&date_to=2024-12-17T23:59:59.999Z';
    // The day's ticks as packed rows (the package's 60-byte tick records; time_msc at byte 40):
    // a whole day as JSON is ~100 MB to parse in the process that also runs the gateway.
    const res = await get(`/ticks/range?symbol=EURUSD&${day}&flags=COPY_TICKS_ALL&format=packed`);
    t.equal(res.status, 200);
    const packed = Buffer.from(await res.arrayBuffer());
    t.equal(packed.length % 60, 0, 'whole tick records');
    const count = packed.length / 60;
    const timeMsc = (i: number): number => Number(packed.readBigInt64LE(i * 60 + 40));
    const bars = await json<Row[]>(`/ticks/bars?symbol=EURUSD&period=ticks:500&${day}`);
    t.ok(bars.length > 10, `${bars.length} bars`);
    t.equal(bars.reduce((n, b) => n + b.tick_volume!, 0), count, `${count} ticks`);
    t.ok(bars.slice(0, -1).every((b) => b.tick_volume === 500), 'five hundred a bar, the day\'s last one short');
    t.equal(bars[0]!.time, Math.floor(timeMsc(0) / 1000), 'the first opens on the day\'s first tick');
    t.equal(bars.at(-1)!.time_close_msc, timeMsc(count - 1), 'the last closes on its last');
  });
}
