// TRADEAPI_SERVER_TZ end to end over the bridge: the MetaTrader5 stand-in stamps in an EU broker's
// server time (UTC+2 in winter, UTC+3 in summer, changing on the last Sundays of March and October
// at 01:00 UTC), the gateway is told TRADEAPI_SERVER_TZ=Europe/Athens, and everything must come
// out in true UTC on both sides of each change, identically in JSON, Parquet and Arrow, with the
// request dates converted on the way in. Expected rows are what the stand-in itself returns for
// the server-time range, converted here by the EU rule written out independently of both sides.
import { spawnSync } from 'node:child_process';

import { tableFromIPC } from 'apache-arrow';
import t, { type Test } from 'tap';

import { readParquet } from '../encode/fixtures/index.js';
import { Bridge, PY, SECRET, STAND_IN, freePort, plain, prepareVenv, startGateway, waitFor, type Get } from '../helpers/bridge.js';

type Row = Record<string, unknown>;

// The 2024 changes, true UTC seconds; the stand-in's zone is 'EU+2' (its own rule, not zoneinfo).
const MARCH = Date.UTC(2024, 2, 31, 1) / 1000;
const OCTOBER = Date.UTC(2024, 9, 27, 1) / 1000;
const H = 3600;
const offset = (utc: number): number => (utc >= MARCH && utc < OCTOBER ? 3 * H : 2 * H);
const toServer = (utc: number): number => utc + offset(utc);
/** Server wall clock -> UTC (the repeated October hour never holds data here: it is a Sunday). */
const toUtc = (server: number): number => (server - 3 * H >= MARCH && server - 3 * H < OCTOBER ? server - 3 * H : server - 2 * H);
const toUtcMs = (ms: number): number => ms - (Math.floor(ms / 1000) - toUtc(Math.floor(ms / 1000))) * 1000;

const SECONDS = new Set(['time', 'time_update', 'time_setup', 'time_done', 'time_expiration', 'start_time', 'expiration_time']);
const MILLIS = new Set(['time_msc', 'time_update_msc', 'time_setup_msc', 'time_done_msc']);
function utcRow(row: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) {
    if (typeof v === 'number' && v !== 0 && SECONDS.has(k)) out[k] = toUtc(v);
    else if (typeof v === 'number' && v !== 0 && MILLIS.has(k)) out[k] = toUtcMs(v);
    else out[k] = v;
  }
  return out;
}

const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');

// FX trades Monday to Friday in server time, and both changes fall on a Sunday: each range runs
// from the last minutes of Friday (old offset) to the first minutes of Monday (new offset).
const CASES = [
  {
    name: 'March (+2 -> +3)',
    ticks: [Date.UTC(2024, 2, 29, 21, 55) / 1000, Date.UTC(2024, 2, 31, 21, 5) / 1000],
    rates: [Date.UTC(2024, 2, 29, 19) / 1000, Date.UTC(2024, 2, 31, 23) / 1000],
    change: MARCH,
  },
  {
    name: 'October (+3 -> +2)',
    ticks: [Date.UTC(2024, 9, 25, 20, 55) / 1000, Date.UTC(2024, 9, 27, 22, 5) / 1000],
    rates: [Date.UTC(2024, 9, 25, 18) / 1000, Date.UTC(2024, 9, 27, 23) / 1000],
    change: OCTOBER,
  },
] as const;
const HISTORY: readonly [number, number] = [Date.UTC(2024, 0, 1) / 1000, Date.UTC(2024, 11, 20) / 1000];

interface Reference {
  ticks: Row[][];
  rates: Row[][];
  positions: Row[];
  deals: Row[];
}

/** The stand-in at the EU zone, asked for the server-time ranges, in a Python process of its own. */
function reference(): Reference {
  const ticks = CASES.map((c) => `rows(mt5.copy_ticks_range("EURUSD", ${toServer(c.ticks[0])}, ${toServer(c.ticks[1])}, mt5.COPY_TICKS_ALL))`);
  const rates = CASES.map((c) => `rows(mt5.copy_rates_range("EURUSD", mt5.TIMEFRAME_M1, ${toServer(c.rates[0])}, ${toServer(c.rates[1])}))`);
  const script = `
import json, MetaTrader5 as mt5
mt5._configure(server_tz="EU+2")
mt5.initialize()
rows = lambda a: [dict(zip(a.dtype.names, r.tolist())) for r in a]
print(json.dumps({
  "ticks": [${ticks.join(', ')}],
  "rates": [${rates.join(', ')}],
  "positions": [p._asdict() for p in mt5.positions_get()],
  "deals": [d._asdict() for d in mt5.history_deals_get(${toServer(HISTORY[0])}, ${toServer(HISTORY[1])})],
}))`;
  const r = spawnSync(PY, ['-c', script], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: STAND_IN }, maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`reference script failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Reference;
}

async function json<T>(get: Get, p: string): Promise<T> {
  const res = await get(p);
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** JSON, Parquet and Arrow of one series path: all three must be `want`. */
async function sameInEveryFormat(tt: Test, get: Get, p: string, want: Row[], label: string): Promise<void> {
  tt.same(await json<Row[]>(get, p), want, `${label}: JSON`);
  const pq = await get(p, { headers: { accept: 'application/parquet' } });
  tt.equal(pq.status, 200);
  tt.same((await readParquet(new Uint8Array(await pq.arrayBuffer()))).rows.map(plain), want, `${label}: Parquet`);
  const ar = await get(p, { headers: { accept: 'application/vnd.apache.arrow.stream' } });
  tt.equal(ar.status, 200);
  const table = tableFromIPC(new Uint8Array(await ar.arrayBuffer()));
  const n = (v: unknown) => (typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.getTime() : v);
  const time = Array.from(table.getChild('time') ?? [], (v) => (n(v) as number) / 1000);
  tt.same(time, want.map((r) => r.time), `${label}: Arrow time`);
  if ('time_msc' in (want[0] ?? {})) {
    tt.same(Array.from(table.getChild('time_msc') ?? [], n), want.map((r) => r.time_msc), `${label}: Arrow time_msc`);
  }
}

const skip = prepareVenv();
if (skip) {
  t.plan(0, `bridge server-time tests need Python 3 with venv: ${skip}`);
} else {
  const ref = reference();

  t.test('a broker at UTC+2/+3 through the bridge: true UTC across the March and October changes', async (tt) => {
    const port = await freePort();
    const bridge = await Bridge.start(port, SECRET, { hooked: true, args: ['--probe-interval', '0.2', '--reconnect-min', '0.1', '--reconnect-max', '0.3'] });
    tt.teardown(() => bridge.kill());
    // The stand-in restarts in the EU zone; the bridge notices the dropped connection and re-initializes.
    await bridge.hook('_configure', [], { server_tz: 'EU+2' });
    const { get } = await startGateway(tt, port, SECRET, { env: { TRADEAPI_SERVER_TZ: 'Europe/Athens' } });
    tt.ok(await waitFor(async () => ((await get('/account')).status === 200 ? true : undefined), 5000), 'bridge back at the EU zone');

    CASES.forEach((c, i) => {
      tt.test(c.name, async (ct) => {
        const ticks = ref.ticks[i]!.map(utcRow);
        ct.ok(ticks.length > 500, `${ticks.length} ticks`);
        ct.ok(ticks.some((r) => (r.time as number) < c.change) && ticks.some((r) => (r.time as number) >= c.change), 'ticks on both sides of the change');
        ct.ok(ticks.every((r) => (r.time_msc as number) >= c.ticks[0] * 1000 && (r.time_msc as number) <= c.ticks[1] * 1000), 'inside the UTC range asked for');
        ct.ok(ticks.every((r) => r.time === Math.floor((r.time_msc as number) / 1000)), 'time and time_msc agree');
        await sameInEveryFormat(ct, get, `/ticks/range?symbol=EURUSD&date_from=${iso(c.ticks[0])}&date_to=${iso(c.ticks[1])}`, ticks, 'ticks/range');

        const bars = ref.rates[i]!.map(utcRow);
        ct.ok(bars.length > 200, `${bars.length} M1 bars`);
        ct.equal(bars[0]!.time, c.rates[0], 'first bar at the UTC date_from');
        const gap = bars.findIndex((b, k) => k > 0 && (b.time as number) - (bars[k - 1]!.time as number) > 60);
        // Friday's close and Monday's open, in UTC: 22:00Z / 21:00Z (+2 / +3) on the change's side.
        ct.same([bars[gap - 1]!.time, bars[gap]!.time].map((s) => iso(s as number).slice(11, 16)),
          i === 0 ? ['21:59', '21:00'] : ['20:59', '22:00'], 'the weekend gap ends at server midnight, in UTC');
        await sameInEveryFormat(ct, get, `/rates/range?symbol=EURUSD&timeframe=TIMEFRAME_M1&date_from=${iso(c.rates[0])}&date_to=${iso(c.rates[1])}`, bars, 'rates/range');
      });
    });

    tt.test('positions and deals: the instants the stand-in booked, in UTC', async (ct) => {
      const positions = await json<Row[]>(get, '/positions');
      ct.same(positions, ref.positions.map(utcRow), '/positions = positions_get(), converted');
      // Opened 3 days and 1 day before the stand-in's now (2024-12-20 16:00Z), at .500.
      ct.same(positions.map((p) => p.time_msc), [Date.UTC(2024, 11, 17, 16, 0, 0, 500), Date.UTC(2024, 11, 19, 16, 0, 0, 500)]);
      const deals = await json<Row[]>(get, `/history/deals?date_from=${iso(HISTORY[0])}&date_to=${iso(HISTORY[1])}`);
      ct.same(deals, ref.deals.map(utcRow), '/history/deals = history_deals_get(), converted');
      // The USDJPY trade across the March change: in at 2024-03-29 12:00Z (+2), out 2024-04-02 12:00Z (+3).
      const usdjpy = deals.filter((d) => d.symbol === 'USDJPY').map((d) => [d.time, d.time_msc]);
      ct.same(usdjpy, [
        [Date.UTC(2024, 2, 29, 12) / 1000, Date.UTC(2024, 2, 29, 12, 0, 0, 250)],
        [Date.UTC(2024, 3, 2, 12) / 1000, Date.UTC(2024, 3, 2, 12, 0, 0, 250)],
      ], 'USDJPY deals at their true UTC instants on both sides of the change');
      // Request dates go in converted: a range ending between the two deals holds only the first.
      const cut = await json<Row[]>(get, `/history/deals?symbol=USDJPY&date_from=${iso(Date.UTC(2024, 2, 29, 12) / 1000)}&date_to=${iso(Date.UTC(2024, 3, 2, 11, 59, 59) / 1000)}`);
      ct.same(cut.map((d) => d.ticket), [ref.deals.find((d) => d.symbol === 'USDJPY')!.ticket], 'UTC bounds select by true time');
      const total = await json<{ total: number }>(get, `/history/deals/total?date_from=${iso(Date.UTC(2024, 3, 2, 12) / 1000)}&date_to=${iso(HISTORY[1])}`);
      ct.equal(total.total, ref.deals.filter((d) => toUtc(d.time as number) >= Date.UTC(2024, 3, 2, 12) / 1000).length, 'history/deals/total over a UTC range');
    });
  });
}
