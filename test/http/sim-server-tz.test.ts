// TRADEAPI_SIM_SERVER_TZ: the simulator keeps a broker's clock (issue 14 item 5). Its market runs
// on true UTC, so a broker zone only relabels the ticks: a gateway told the same zone
// (TRADEAPI_SERVER_TZ) must give exactly what a plain UTC simulator gives. Without that
// conversion the stamps are server time, as from a real terminal: on the "New York close" clock
// (America/New_York+07:00) every FX week is Monday 00:00 to Friday 24:00, five D1 bars.
import t from 'tap';

import { ConfigError, loadConfig } from '../../src/config/index.js';
import { parseServerZone } from '../../src/config/server-zone.js';
import { openSimTerminal, simServerZone } from '../../src/terminal/index.js';
import { readFileSync } from 'node:fs';

import { runCli } from '../helpers/cli.js';
import { startGateway, tempDir } from '../helpers/deploy.js';
import { ANCHOR_S, NOW_MS, forEachAdapter, serve } from '../helpers/server.js';

type Row = Record<string, number>;
const BROKER = 'America/New_York+07:00';
const HOUR_MS = 3_600_000;
const zone = parseServerZone(BROKER);
const iso = (ms: number): string => new Date(ms).toISOString();

async function json<T>(res: Response): Promise<T> {
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

t.test('the shifted-zone form and the setting', async (t) => {
  t.equal(zone.offsetMs(Date.UTC(2024, 0, 10)), 2 * HOUR_MS, 'UTC+2 in winter');
  t.equal(zone.offsetMs(Date.UTC(2024, 6, 10)), 3 * HOUR_MS, 'UTC+3 in summer');
  t.equal(zone.offsetMs(Date.UTC(2024, 2, 10, 7) - 1), 2 * HOUR_MS, 'switches on the US date (10 March 2024 07:00 UTC)...');
  t.equal(zone.offsetMs(Date.UTC(2024, 2, 10, 7)), 3 * HOUR_MS, '...not the EU one');
  t.equal(parseServerZone('Europe/Athens').offsetMs(Date.UTC(2024, 2, 20)), 2 * HOUR_MS, 'Europe/Athens is still UTC+2 on 20 March');
  t.equal(parseServerZone('UTC+02:00').offsetMs(Date.UTC(2024, 6, 1)), 2 * HOUR_MS);
  t.equal(parseServerZone('Etc/GMT+2').offsetMs(Date.UTC(2024, 6, 1)), -2 * HOUR_MS, 'IANA names with a sign stay IANA names');
  for (const bad of ['Nowhere/City+01:00', 'America/New_York+15:00', 'America/New_York+7', '+07:00+01:00']) {
    t.throws(() => parseServerZone(bad), RangeError, bad);
  }

  t.equal(loadConfig({}).simServerTz, undefined, 'default: UTC (no zone)');
  t.equal(loadConfig({ TRADEAPI_SIM_SERVER_TZ: BROKER }).simServerTz?.name, BROKER);
  t.throws(() => loadConfig({ TRADEAPI_SIM_SERVER_TZ: 'Mars/Olympus' }), { name: 'ConfigError', message: /TRADEAPI_SIM_SERVER_TZ must be an IANA time zone/ });
  t.throws(
    () => loadConfig({ TRADEAPI_SIM_SERVER_TZ: BROKER, TRADEAPI_TERMINAL: 'tcp://127.0.0.1:5555', TRADEAPI_BRIDGE_SECRET: 'a-bridge-secret-of-enough-bytes' }),
    ConfigError,
    'a real terminal has its broker\'s clock',
  );
  const cli = await runCli(['serve', '--port', '0'], { ...process.env, TRADEAPI_SIM_SERVER_TZ: 'Mars/Olympus' });
  t.equal(cli.code, 2, 'a bad zone stops the start with status 2');
  t.match(cli.stderr, /TRADEAPI_SIM_SERVER_TZ must be/);
});

t.test('transitions handed to the simulator', async (t) => {
  const { serverZone } = simServerZone(zone, Date.UTC(2026, 0, 1));
  t.ok(serverZone !== undefined && serverZone.length > 60, `${serverZone?.length} entries to 2056`);
  t.same(serverZone?.slice(0, 3), [
    [Date.UTC(2019, 11, 31) / 1000, 7200],
    [Date.UTC(2020, 2, 8, 7) / 1000, 10800],
    [Date.UTC(2020, 10, 1, 6) / 1000, 7200],
  ]);
  t.same(simServerZone(parseServerZone('+03:00')).serverZone, [[Date.UTC(2019, 11, 31) / 1000, 10800]], 'a fixed offset is one entry');
});

// The same instant on both clocks: the broker simulator's frozen clock reads server time.
const plainSim = openSimTerminal({ nowMs: NOW_MS, accountAnchor: ANCHOR_S, seed: 42 });
const brokerSim = openSimTerminal({ ...simServerZone(zone), nowMs: NOW_MS + zone.offsetMs(NOW_MS), accountAnchor: ANCHOR_S, seed: 42 });
t.teardown(() => Promise.all([plainSim.close(), brokerSim.close()]));

await forEachAdapter(t, async (t, adapter) => {
  const plain = await serve(t, adapter, plainSim);
  const broker = await serve(t, adapter, brokerSim);
  const converted = await serve(t, adapter, brokerSim, { TRADEAPI_SERVER_TZ: BROKER });

  await t.test('a broker zone relabels the market, it does not change it', async (t) => {
    for (const [symbol, from] of [
      ['EURUSD', Date.UTC(2023, 11, 20, 9)],
      ['XAUUSD', Date.UTC(2023, 6, 12, 14)],
      ['BTCUSD', Date.UTC(2023, 9, 14, 3)],
    ] as const) {
      const path = `/ticks/range?symbol=${symbol}&date_from=${iso(from)}&date_to=${iso(from + 10 * 60_000)}&flags=COPY_TICKS_ALL`;
      const want = await json<Row[]>(await plain.get(path));
      const got = await json<Row[]>(await converted.get(path));
      t.ok(want.length > 100, `${symbol}: ${want.length} ticks`);
      t.same(got, want, `${symbol}: the converted gateway gives the UTC simulator's ticks`);
      const raw = await json<Row[]>(await broker.get(`/ticks/range?symbol=${symbol}&date_from=${iso(from + zone.offsetMs(from))}&date_to=${iso(from + zone.offsetMs(from) + 10 * 60_000)}&flags=COPY_TICKS_ALL`));
      t.same(raw.map((r) => r.time_msc! - zone.offsetMs(from)), want.map((r) => r.time_msc), `${symbol}: stamped in server time`);
      t.same(raw.map((r) => r.bid), want.map((r) => r.bid), `${symbol}: the same prices`);
    }
    const tick = await json<Row>(await broker.get('/symbols/EURUSD/tick'));
    const plainTick = await json<Row>(await plain.get('/symbols/EURUSD/tick'));
    t.equal(tick.time_msc, plainTick.time_msc! + 2 * HOUR_MS, 'the live tick reads server time (UTC+2 in January)');
  });

  await t.test('five D1 bars a week, Monday to Friday, on the New York close clock', async (t) => {
    const bars = await json<Row[]>(await broker.get(`/rates/range?symbol=EURUSD&timeframe=TIMEFRAME_D1&date_from=2023-01-02T00:00:00Z&date_to=2024-01-05T00:00:00Z`));
    const perWeek = new Map<number, number>();
    for (const b of bars) {
      const day = new Date(b.time! * 1000).getUTCDay();
      t.ok(day >= 1 && day <= 5, `no weekend bar (${iso(b.time! * 1000)})`);
      const monday = b.time! - ((day + 6) % 7) * 86_400;
      perWeek.set(monday, (perWeek.get(monday) ?? 0) + 1);
    }
    const short = [...perWeek].filter(([, n]) => n !== 5).map(([m, n]) => `${iso(m * 1000).slice(0, 10)}:${n}`);
    t.same(short, ['2023-12-25:4', '2024-01-01:4'], 'every week has five, but those of Christmas and New Year');
    t.equal(perWeek.size, 53);
    const utcBars = await json<Row[]>(await plain.get(`/rates/range?symbol=EURUSD&timeframe=TIMEFRAME_D1&date_from=2023-01-02T00:00:00Z&date_to=2023-02-01T00:00:00Z`));
    t.ok(utcBars.some((b) => new Date(b.time! * 1000).getUTCDay() === 0), 'the UTC simulator, like a UTC broker, has Sunday-evening bars');
  });

  await t.test('share sessions in New York time, with holidays', async (t) => {
    for (const [day, utcOpen] of [
      ['2023-01-10', Date.UTC(2023, 0, 10, 14, 30)],
      ['2023-07-11', Date.UTC(2023, 6, 11, 13, 30)],
    ] as const) {
      const path = `/rates/range?symbol=AAPL&timeframe=TIMEFRAME_M1&date_from=${day}T00:00:00Z&date_to=${day}T23:59:00Z`;
      const utcBars = await json<Row[]>(await plain.get(path));
      t.equal(utcBars[0]?.time, utcOpen / 1000, `${day}: 09:30 New York is ${iso(utcOpen).slice(11, 16)} UTC`);
      t.equal(utcBars.length, 390);
      const serverBars = await json<Row[]>(await broker.get(path));
      t.equal(serverBars[0]?.time, Date.parse(`${day}T16:30:00Z`) / 1000, `${day}: 16:30 server time all year`);
    }
    const july4 = await plain.get('/rates/range?symbol=AAPL&timeframe=TIMEFRAME_M1&date_from=2023-07-04T00:00:00Z&date_to=2023-07-04T23:59:00Z');
    t.equal(july4.status, 200);
    t.same(await july4.json(), [], 'no session on Independence Day');
  });
});

t.test('the CLI starts the simulator on the broker clock', async (t) => {
  const { port, process: proc } = await startGateway(t, 'sim-server-tz', tempDir(t, 'sim-server-tz'), { TRADEAPI_SIM_SERVER_TZ: BROKER });
  // Bitcoin trades around the clock, so its last tick is seconds old.
  const before = Date.now();
  const tick = await json<Row>(await fetch(`http://127.0.0.1:${port}/symbols/BTCUSD/tick`));
  const offset = zone.offsetMs(before);
  t.ok(
    tick.time_msc! <= Date.now() + offset && tick.time_msc! > before + offset - 60_000,
    `tick at server time (UTC+${offset / HOUR_MS}), ${before + offset - tick.time_msc!} ms before the server's now`,
  );
  t.match(readFileSync(proc.logFile, 'utf8'), /"simServerTz":"America\/New_York\+07:00"/, 'the start-up line names the clock');
});
