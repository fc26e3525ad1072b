// TRADEAPI_SERVER_TZ end to end through a real gateway. The simulator stamps in UTC; a gateway told
// that its terminal's server time is UTC+02:00 must then report every time exactly 2 h earlier than
// a plain gateway over the same terminal, and move every request date 2 h later on the way in:
// the same rows come back, shifted, in JSON and in Parquet.
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { tableFromIPC } from 'apache-arrow';
import t, { type Test } from 'tap';

import { withServerTime } from '../../src/terminal/with-server-time.js';
import { parseServerZone } from '../../src/config/server-zone.js';
import type { Terminal, TradeRequest } from '../../src/terminal/index.js';
import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

type Row = Record<string, unknown>;
const OFF_S = 7200;
const OFF_MS = OFF_S * 1000;

const SECONDS = new Set(['time', 'time_update', 'time_setup', 'time_done', 'time_expiration', 'start_time', 'expiration_time']);
const MILLIS = new Set(['time_msc', 'time_update_msc', 'time_setup_msc', 'time_done_msc']);

/** A plain row as the zoned gateway must show it: time fields 2 h earlier, 0 left alone. */
function shifted(row: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) {
    if (typeof v === 'number' && v !== 0 && SECONDS.has(k)) out[k] = v - OFF_S;
    else if (typeof v === 'number' && v !== 0 && MILLIS.has(k)) out[k] = v - OFF_MS;
    else out[k] = v;
  }
  return out;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const norm = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.getTime() : v);
/** `time` is a timestamp column in seconds; both readers hand it back in ms. */
const seconds = (v: unknown): unknown => (norm(v) as number) / 1000;

async function json<T>(res: Response): Promise<T> {
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

await forEachAdapter(t, async (t, adapter) => {
  const plain = await serve(t, adapter, terminal);
  const zoned = await serve(t, adapter, terminal, { TRADEAPI_SERVER_TZ: '+02:00' });

  /** zoned(path with UTC dates) must equal plain(path with dates + 2 h), shifted. */
  async function same(t: Test, label: string, path: (from: number, to: number) => string, from: number, to: number, minRows = 1): Promise<Row[]> {
    const want = await json<Row[] | Row>(await plain.get(path(from + OFF_MS, to + OFF_MS)));
    const got = await json<Row[] | Row>(await zoned.get(path(from, to)));
    const wantRows = (Array.isArray(want) ? want : [want]).map(shifted);
    const gotRows = Array.isArray(got) ? got : [got];
    t.ok(gotRows.length >= minRows, `${label}: ${gotRows.length} rows`);
    t.same(gotRows, wantRows, `${label}: every time field 2 h earlier, the rest unchanged`);
    return gotRows;
  }

  await t.test('series: ticks and bars, dates in and times out', async (t) => {
    const from = Date.UTC(2024, 0, 9, 8), to = Date.UTC(2024, 0, 9, 8, 10);
    const ticks = await same(t, 'ticks/range', (f, e) => `/ticks/range?symbol=EURUSD&date_from=${iso(f)}&date_to=${iso(e)}&flags=-1`, from, to, 10);
    t.ok(ticks.every((r) => (r.time_msc as number) >= from && (r.time_msc as number) <= to), 'ticks inside the UTC range asked for');
    t.ok(ticks.every((r) => r.time === Math.floor((r.time_msc as number) / 1000)), 'time and time_msc agree');
    await same(t, 'ticks/from', (f) => `/ticks/from?symbol=EURUSD&date_from=${iso(f)}&count=500&flags=-1`, from, from, 500);
    const bars = await same(t, 'rates/range', (f, e) => `/rates/range?symbol=EURUSD&timeframe=TIMEFRAME_M5&date_from=${iso(f)}&date_to=${iso(e)}`, from, from + 6 * 3_600_000, 50);
    t.equal(bars[0]?.time, from / 1000, 'first bar at the UTC date_from');
    await same(t, 'rates/from', (f) => `/rates/from?symbol=EURUSD&timeframe=TIMEFRAME_H1&date_from=${iso(f)}&count=30`, from, from, 30);
    await same(t, 'rates/from-pos', () => '/rates/from-pos?symbol=EURUSD&timeframe=TIMEFRAME_M15&start_pos=0&count=40', 0, 0, 40);
  });

  await t.test('records: symbol, symbol tick, positions, orders, history', async (t) => {
    const sym = await same(t, 'symbols/EURUSD', () => '/symbols/EURUSD', 0, 0);
    t.not(sym[0]?.time, 0, 'symbol time set');
    await same(t, 'symbols', () => '/symbols?group=*USD*', 0, 0, 2);
    await same(t, 'symbols/EURUSD/tick', () => '/symbols/EURUSD/tick', 0, 0);
    await same(t, 'positions', () => '/positions', 0, 0);
    await same(t, 'orders', () => '/orders', 0, 0);
    const from = Date.UTC(2023, 11, 1), to = Date.UTC(2024, 0, 10);
    await same(t, 'history/deals', (f, e) => `/history/deals?date_from=${iso(f)}&date_to=${iso(e)}`, from, to, 2);
    await same(t, 'history/orders', (f, e) => `/history/orders?date_from=${iso(f)}&date_to=${iso(e)}`, from, to, 2);
    // Totals over a range cut inside the history: the same count as the plain range 2 h later.
    const cut = Date.UTC(2024, 0, 5, 13);
    for (const kind of ['deals', 'orders']) {
      const want = await json<Row>(await plain.get(`/history/${kind}/total?date_from=${iso(from + OFF_MS)}&date_to=${iso(cut + OFF_MS)}`));
      const got = await json<Row>(await zoned.get(`/history/${kind}/total?date_from=${iso(from)}&date_to=${iso(cut)}`));
      t.same(got, want, `history/${kind}/total`);
    }
  });

  await t.test('Parquet and Arrow carry the same UTC as JSON', async (t) => {
    const path = `/ticks/range?symbol=EURUSD&date_from=${iso(Date.UTC(2024, 0, 9, 8))}&date_to=${iso(Date.UTC(2024, 0, 9, 8, 5))}&flags=-1`;
    const rows = await json<Row[]>(await zoned.get(path));
    const pqRes = await zoned.get(path, { headers: { accept: 'application/parquet' } });
    t.equal(pqRes.status, 200);
    const pq = (await parquetReadObjects({ file: await pqRes.arrayBuffer(), compressors })) as Row[];
    t.same(pq.map((r) => [seconds(r.time), norm(r.time_msc)]), rows.map((r) => [r.time, r.time_msc]), 'parquet time, time_msc');
    const arRes = await zoned.get(path, { headers: { accept: 'application/vnd.apache.arrow.stream' } });
    t.equal(arRes.status, 200);
    const table = tableFromIPC(new Uint8Array(await arRes.arrayBuffer()));
    const col = (name: string, f = norm): unknown[] => Array.from(table.getChild(name) ?? [], f);
    t.same(col('time_msc'), rows.map((r) => r.time_msc), 'arrow time_msc');
    t.same(col('time', seconds), rows.map((r) => r.time), 'arrow time');
  });
});

t.test('decorator: request dates go in as server time, the order check echoes UTC', async (t) => {
  const calls: Array<[string, unknown[]]> = [];
  const spy = new Proxy(terminal, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        calls.push([String(prop), args]);
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as Terminal;
  const z = withServerTime(spy, parseServerZone('+02:00'));
  const exp = Date.UTC(2024, 0, 11) / 1000;
  const req: Partial<TradeRequest> = { action: 5, symbol: 'EURUSD', volume: 0.1, type: 2, price: 1.0, type_time: 2, expiration: exp };
  const result = await z.orderCheck(req);
  t.equal(result.request.expiration, exp, 'echo in UTC');
  t.equal((calls.at(-1)?.[1][0] as TradeRequest).expiration, exp + OFF_S, 'terminal got server time');
  await z.historyDealsGet({ date_from: 1_000, date_to: 2_000, group: '*' });
  t.same(calls.at(-1), ['historyDealsGet', [{ date_from: 1_000 + OFF_S, date_to: 2_000 + OFF_S, group: '*' }]]);
  await z.historyOrdersTotal(10, 20);
  t.same(calls.at(-1), ['historyOrdersTotal', [10 + OFF_S, 20 + OFF_S]]);
  const s = await z.copyTicksRange('EURUSD', 5, 6, -1);
  s.close();
  t.same(calls.at(-1), ['copyTicksRange', ['EURUSD', 5 + OFF_MS, 6 + OFF_MS, -1, undefined]]);
  t.equal(z.kind, 'sim');
});
