// Many symbols in one pull (issue 36 §2) through the bridge: /ticks/range, /rates/range and /ticks/bars with
// `symbols=` and `group=` over the MetaTrader5 stand-in equal each symbol's own answer merged by a
// reference here (every row, every field, ties in list order); an unknown symbol is the usual 404
// naming it, before anything is sent. The merge pages each symbol's series from the bridge as bulk
// work, several windows in flight at once.
import t from 'tap';

import { bridgedGateway, prepareVenv } from '../helpers/bridge.js';

type Row = Record<string, unknown>;

const skip = prepareVenv();
if (skip) {
  t.plan(0, `bridge tests need Python 3 with venv: ${skip}`);
} else {
  const { get, json } = await bridgedGateway(t);
  /** Each symbol's own answer, tagged, stably sorted by `key` then list order. */
  const reference = async (route: string, names: readonly string[], query: string, key: string): Promise<Row[]> => {
    const tagged: { row: Row; at: number; n: number }[] = [];
    for (const [at, name] of names.entries()) (await json(`${route}?symbol=${name}&${query}`)).forEach((row, n) => tagged.push({ row: { symbol: name, ...row }, at, n }));
    tagged.sort((a, b) => (a.row[key] as number) - (b.row[key] as number) || a.at - b.at || a.n - b.n);
    return tagged.map((x) => x.row);
  };
  const same = (got: Row[], want: Row[]): number => got.findIndex((r, i) => JSON.stringify(r) !== JSON.stringify(want[i]));

  // The stand-in's clock reads 2024-12-20 16:00 UTC: this hour is history.
  const hour = 'date_from=2024-12-17T10:00:00Z&date_to=2024-12-17T11:00:00Z';

  t.test('ticks: the per-symbol answers merged by time_msc, ties in list order', async (t) => {
    const names = ['GBPUSD', 'EURUSD'];
    const want = await reference('/ticks/range', names, `${hour}&flags=COPY_TICKS_ALL`, 'time_msc');
    t.ok(want.length > 1000, `${want.length} ticks`);
    t.ok(new Set(want.map((r) => r.symbol)).size === 2, 'both symbols have ticks in the hour');
    const res = await get(`/ticks/range?symbols=${names.join(',')}&${hour}&flags=COPY_TICKS_ALL`);
    t.equal(res.status, 200);
    t.equal(res.headers.get('tradeapi-symbols'), names.join(','));
    const got = (await res.json()) as Row[];
    t.equal(got.length, want.length, 'every tick once');
    t.equal(same(got, want), -1, 'every row, every field, in order');
  });

  t.test('bars: /rates/range merged by time', async (t) => {
    const names = ['EURUSD', 'USDJPY'];
    const query = 'timeframe=TIMEFRAME_M5&date_from=2024-12-16T00:00:00Z&date_to=2024-12-18T00:00:00Z';
    const want = await reference('/rates/range', names, query, 'time');
    t.ok(want.length > 100, `${want.length} bars`);
    const got = await json(`/rates/range?symbols=${names.join(',')}&${query}`);
    t.equal(got.length, want.length);
    t.equal(same(got, want), -1, 'every row, every field, in order');
  });

  for (const period of ['90s', 'ticks:50']) {
    t.test(`custom bars (${period}): /ticks/bars merged by time, time_close_msc with each bar`, async (t) => {
      const names = ['GBPUSD', 'EURUSD'];
      const query = `period=${period}&${hour}`;
      const want = await reference('/ticks/bars', names, query, 'time');
      t.ok(new Set(want.map((r) => r.symbol)).size === 2 && want.length > 40, `${want.length} bars of both symbols`);
      const res = await get(`/ticks/bars?symbols=${names.join(',')}&${query}`);
      t.equal(res.status, 200);
      t.equal(res.headers.get('tradeapi-symbols'), names.join(','));
      const got = (await res.json()) as Row[];
      t.equal(got.length, want.length, 'every bar once');
      t.equal(same(got, want), -1, 'every row, every field, in order');
    });
  }

  t.test("group=: the stand-in's symbols that match, in symbols_get order", async (t) => {
    const res = await get(`/ticks/range?group=*USD*,!EURUSD&${hour}&format=packed`);
    t.equal(res.status, 200);
    const names = (res.headers.get('tradeapi-symbols') ?? '').split(',');
    t.ok(names.length >= 2, `symbols: ${names.join(',')}`);
    t.notOk(names.includes('EURUSD'), 'the excluded one is left out');
    t.ok(names.every((n) => n.includes('USD')), 'every one matches *USD*');
    await res.arrayBuffer();
  });

  t.test('an unknown symbol: 404 naming it, before anything is sent', async (t) => {
    const res = await get(`/ticks/range?symbols=EURUSD,NOSUCH&${hour}`);
    t.equal(res.status, 404);
    t.match(res.headers.get('content-type') ?? '', /problem\+json/);
    t.match(((await res.json()) as { detail?: string }).detail ?? '', /NOSUCH/);
    const bars = await get(`/ticks/bars?symbols=EURUSD,NOSUCH&period=90s&${hour}&format=arrow`);
    t.equal(bars.status, 404, 'custom bars alike');
    t.match(((await bars.json()) as { detail?: string }).detail ?? '', /NOSUCH/);
  });
}
