// GET /ticks/bars (issue 36 §1): bars of any period built from ticks on the server.
// The strongest check: a period equal to an MT5 timeframe gives exactly /rates/range for that
// timeframe, field for field, on a UTC simulator and on a broker clock across a daylight-saving
// change. Tick and volume bars are checked against the ticks of /ticks/range.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { tableFromIPC } from 'apache-arrow';

import { parseServerZone } from '../../src/config/server-zone.js';
import { openSimTerminal, simServerZone } from '../../src/terminal/index.js';
import { readParquet } from '../encode/fixtures/index.js';
import { runChild } from '../helpers/child.js';
import { curlMissing, curlScript, DOC_SNIPPETS, docBlock } from '../helpers/doc-blocks.js';
import { expectProblem, forEachAdapter, NOW_MS, ANCHOR_S, serve, simTerminal } from '../helpers/server.js';

type Row = Record<string, number>;
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
const RATE_FIELDS = ['time', 'open', 'high', 'low', 'close', 'tick_volume', 'spread', 'real_volume'] as const;

async function json<T>(res: Response): Promise<T> {
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

const rateFields = (rows: Row[]): Row[] => rows.map((r) => Object.fromEntries(RATE_FIELDS.map((f) => [f, r[f]!])));

/** Periods equal to a timeframe, each over a range that holds a few dozen of its bars at least. */
const SAME_AS_TIMEFRAME: ReadonlyArray<readonly [string, string, number]> = [
  ['1m', 'TIMEFRAME_M1', 6],
  ['2m', 'TIMEFRAME_M2', 6],
  ['5m', 'TIMEFRAME_M5', 12],
  ['15m', 'TIMEFRAME_M15', 24],
  ['20m', 'TIMEFRAME_M20', 24],
  ['30m', 'TIMEFRAME_M30', 36],
  ['1h', 'TIMEFRAME_H1', 48],
  ['3h', 'TIMEFRAME_H3', 72],
  ['4h', 'TIMEFRAME_H4', 72],
  ['12h', 'TIMEFRAME_H12', 96],
  ['1d', 'TIMEFRAME_D1', 24 * 8],
  ['1w', 'TIMEFRAME_W1', 24 * 15],
];

// Fall 2024 on the "New York close" clock: clocks go back on Sunday 3 November 06:00 UTC; Bitcoin
// trades through it.
const BROKER = 'America/New_York+07:00';
const zone = parseServerZone(BROKER);
const FALL_NOW_MS = Date.UTC(2024, 10, 6, 12);
const brokerSim = openSimTerminal({ ...simServerZone(zone), nowMs: FALL_NOW_MS + zone.offsetMs(FALL_NOW_MS), accountAnchor: ANCHOR_S, seed: 42 });
const plainSim = simTerminal();
t.teardown(() => Promise.all([plainSim.close(), brokerSim.close()]));

await forEachAdapter(t, async (t, adapter) => {
  const plain = await serve(t, adapter, plainSim);
  const broker = await serve(t, adapter, brokerSim, { TRADEAPI_SERVER_TZ: BROKER });

  await t.test('a period equal to a timeframe is /rates/range, field for field (UTC)', async (t) => {
    // EURUSD up to now (its last bar is forming); AMZN, charted by last, up to the previous evening's close.
    for (const [symbol, end] of [['EURUSD', NOW_MS], ['AMZN', Date.UTC(2024, 0, 9, 21)]] as const) {
      for (const [period, timeframe, hours] of SAME_AS_TIMEFRAME) {
        const range = `date_from=${iso(end - hours * 3_600_000)}&date_to=${iso(end)}`;
        const rates = await json<Row[]>(await plain.get(`/rates/range?symbol=${symbol}&timeframe=${timeframe}&${range}`));
        const bars = await json<Row[]>(await plain.get(`/ticks/bars?symbol=${symbol}&period=${period}&forming=true&${range}`));
        t.ok(rates.length > 0, `${symbol} ${timeframe}: ${rates.length} bars`);
        t.same(rateFields(bars), rates, `${symbol} ${period} = ${timeframe}`);
        const closed = await json<Row[]>(await plain.get(`/ticks/bars?symbol=${symbol}&period=${period}&${range}`));
        // Forming at the terminal's time (its last quote, a moment before NOW_MS): EURUSD's last bar; AMZN's week only.
        const forming = end === NOW_MS || period === '1w' ? 1 : 0;
        t.same(closed, bars.slice(0, bars.length - forming), `${symbol} ${period}: without forming=true, ${forming} forming bar left out`);
      }
    }
  });

  await t.test('the same across a clock change, cut on the server wall clock', async (t) => {
    const from = Date.UTC(2024, 10, 1);
    const to = Date.UTC(2024, 10, 5, 23);
    for (const [period, timeframe] of [['30m', 'TIMEFRAME_M30'], ['1h', 'TIMEFRAME_H1'], ['2h', 'TIMEFRAME_H2'], ['1d', 'TIMEFRAME_D1']] as const) {
      const range = `date_from=${iso(from)}&date_to=${iso(to)}`;
      const rates = await json<Row[]>(await broker.get(`/rates/range?symbol=BTCUSD&timeframe=${timeframe}&${range}`));
      const bars = await json<Row[]>(await broker.get(`/ticks/bars?symbol=BTCUSD&period=${period}&forming=true&${range}`));
      t.ok(rates.length > 4, `${timeframe}: ${rates.length} bars`);
      t.same(rateFields(bars), rates, `BTCUSD ${period} = ${timeframe} on ${BROKER}`);
    }
    // Server midnight (UTC+3, then UTC+2) is 21:00 UTC, then 22:00 UTC; the day of the clock's 06:00 UTC change is 25 hours long.
    const days = await json<Row[]>(await broker.get(`/ticks/bars?symbol=BTCUSD&period=1d&date_from=${iso(from)}&date_to=${iso(to)}`));
    t.same(days.map((b) => iso(b.time! * 1000).slice(5, 16)), ['11-01T21:00', '11-02T21:00', '11-03T22:00', '11-04T22:00'], 'server midnights in UTC, the forming day left out');
  });

  await t.test('boundaries never depend on the request', async (t) => {
    for (const period of ['8m', '90s', 'ticks:77']) {
      const wide = await json<Row[]>(await plain.get(`/ticks/bars?symbol=EURUSD&period=${period}&date_from=2024-01-09T00:00:00Z&date_to=2024-01-09T12:00:00Z`));
      const cut = await json<Row[]>(await plain.get(`/ticks/bars?symbol=EURUSD&period=${period}&date_from=2024-01-09T05:03:17Z&date_to=2024-01-09T08:00:00Z`));
      if (period !== 'ticks:77') t.ok(wide.every((b) => b.time! % (period === '8m' ? 480 : 90) === 0), `${period}: aligned to the day start`);
      t.ok(cut.length > 10, `${period}: ${cut.length} bars`);
      t.same(cut, wide.filter((b) => b.time! >= Date.UTC(2024, 0, 9, 5, 3, 17) / 1000 && b.time! <= Date.UTC(2024, 0, 9, 8) / 1000), `${period}: a mid-day start cuts the wider answer`);
    }
  });

  await t.test('tick bars: every N ticks of /ticks/range, restarting at the day start', async (t) => {
    const from = Date.UTC(2024, 0, 8, 22);
    const to = Date.UTC(2024, 0, 9, 2);
    const ticks = await json<Row[]>(await plain.get(`/ticks/range?symbol=EURUSD&date_from=${iso(Date.UTC(2024, 0, 8))}&date_to=${iso(Date.UTC(2024, 0, 10) - 1)}&flags=COPY_TICKS_ALL`));
    const want: Row[] = [];
    let bar: Row | undefined;
    for (const k of ticks) {
      const day = Math.floor(k.time_msc! / 86_400_000);
      if (bar && (bar.tick_volume === 250 || Math.floor(bar.time_close_msc! / 86_400_000) !== day)) bar = undefined;
      if (!bar) {
        bar = { time: Math.floor(k.time_msc! / 1000), open: k.bid!, high: k.bid!, low: k.bid!, close: k.bid!, tick_volume: 0, spread: Infinity, real_volume: 0, time_close_msc: 0 };
        want.push(bar);
      }
      bar.high = Math.max(bar.high!, k.bid!);
      bar.low = Math.min(bar.low!, k.bid!);
      bar.close = k.bid!;
      bar.tick_volume!++;
      bar.spread = Math.min(bar.spread!, Math.round(k.ask! * 1e5) - Math.round(k.bid! * 1e5));
      bar.time_close_msc = k.time_msc!;
    }
    const expected = want.filter((b) => b.time! >= from / 1000 && b.time! <= to / 1000);
    const got = await json<Row[]>(await plain.get(`/ticks/bars?symbol=EURUSD&period=ticks:250&date_from=${iso(from)}&date_to=${iso(to)}`));
    t.ok(got.length > 10, `${got.length} bars`);
    t.same(got, expected, 'the bars a plain loop over the ticks makes');
    t.ok(got.some((b) => b.tick_volume! < 250), 'the last bar of a day is short');
  });

  await t.test('volume bars: closing where the traded volume reaches the size', async (t) => {
    const range = 'date_from=2024-01-09T14:30:00Z&date_to=2024-01-09T16:00:00Z';
    const bars = await json<Row[]>(await plain.get(`/ticks/bars?symbol=AMZN&period=volume:5000&${range}`));
    t.ok(bars.length > 3, `${bars.length} bars`);
    for (const b of bars.slice(0, -1)) t.ok(b.real_volume! >= 5000, `${b.real_volume} >= 5000`);
    const trades = await json<Row[]>(await plain.get(`/ticks/range?symbol=AMZN&date_from=${iso(bars[0]!.time! * 1000)}&date_to=${iso(bars[0]!.time_close_msc!)}&flags=COPY_TICKS_TRADE`));
    const before = trades.slice(0, -1).reduce((s, k) => s + k.volume!, 0);
    t.ok(before < 5000, `the first bar had ${before} < 5000 before its last trade`);
    await expectProblem(t, await plain.get(`/ticks/bars?symbol=EURUSD&period=volume:10&${range}`), 400, '/errors/validation-error');
    await expectProblem(t, await plain.get(`/ticks/bars?symbol=EURUSD&period=1h&price=last&${range}`), 400, '/errors/validation-error');
  });

  await t.test('prices: ask, mid and last', async (t) => {
    const range = 'date_from=2024-01-09T15:00:00Z&date_to=2024-01-09T16:00:00Z';
    const bid = await json<Row[]>(await plain.get(`/ticks/bars?symbol=AMZN&period=10m&price=bid&${range}`));
    const ask = await json<Row[]>(await plain.get(`/ticks/bars?symbol=AMZN&period=10m&price=ask&${range}`));
    const mid = await json<Row[]>(await plain.get(`/ticks/bars?symbol=AMZN&period=10m&price=mid&${range}`));
    const last = await json<Row[]>(await plain.get(`/ticks/bars?symbol=AMZN&period=10m&${range}`));
    t.equal(bid.length, 7);
    t.same(last, rateFields(await json<Row[]>(await plain.get(`/rates/range?symbol=AMZN&timeframe=TIMEFRAME_M10&${range}`))).map((r, i) => ({ ...r, time_close_msc: last[i]!.time_close_msc })), 'AMZN charts by last');
    for (let i = 0; i < bid.length; i++) {
      t.ok(ask[i]!.open! > bid[i]!.open! && mid[i]!.open! === (ask[i]!.open! + bid[i]!.open!) / 2, `bar ${i}: bid < mid < ask`);
    }
  });

  await t.test('every format', async (t) => {
    const q = '/ticks/bars?symbol=EURUSD&period=ticks:100&date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T11:00:00Z';
    const rows = await json<Row[]>(await plain.get(q));
    const arrow = tableFromIPC(new Uint8Array(await (await plain.get(`${q}&format=arrow`)).arrayBuffer()));
    t.equal(arrow.numRows, rows.length);
    t.same(arrow.schema.fields.map((f) => f.name), [...RATE_FIELDS, 'time_close_msc']);
    t.same([...arrow.getChild('close')!.toArray()], rows.map((r) => r.close));
    const packed = Buffer.from(await (await plain.get(`${q}&format=packed`)).arrayBuffer());
    t.equal(packed.length, rows.length * 68, '68-byte packed rows');
    t.equal(Number(packed.readBigInt64LE(60)), rows[0]!.time_close_msc);
    const parquet = await readParquet(new Uint8Array(await (await plain.get(`${q}&format=parquet`)).arrayBuffer()));
    t.same(parquet.metadata.schema.slice(1).map((c) => c.name), [...RATE_FIELDS, 'time_close_msc'], 'Parquet: the columns');
    const back = parquet.rows as Array<Record<string, unknown>>;
    t.equal(back.length, rows.length, 'Parquet: every bar');
    t.same(
      back.map((r) => [(r.time as Date).getTime(), r.close, Number(r.tick_volume), (r.time_close_msc as Date).getTime()]),
      rows.map((r) => [r.time! * 1000, r.close, r.tick_volume, r.time_close_msc]),
      'Parquet: times as UTC timestamps, values as JSON has them',
    );
  });

  await t.test(`${DOC_SNIPPETS.customBars.page}'s custom bars block, as written`, { skip: curlMissing() }, async (t) => {
    const block = docBlock(DOC_SNIPPETS.customBars);
    if (!block) return t.fail(`no sh block with the custom bars curl in ${DOC_SNIPPETS.customBars.page}`);
    const cwd = mkdtempSync(path.join(tmpdir(), 'tradeapi-bars-doc-'));
    t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
    const script = curlScript(block, plain.base, true);
    // Asynchronous: the server answering the block runs on this process's event loop.
    const r = await runChild('bash', ['-e', '-c', script], { cwd });
    t.equal(r.code, 0, 'every request answered 2xx', { stderr: r.stderr.slice(-2000) });
    const answers = r.stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Row[]);
    t.equal(answers.length, 2, '90-second and volume bars (the Arrow one goes to a file)');
    t.equal(answers[0]!.length, 21, '21 bars of 90 s in half an hour');
    t.ok(answers[0]!.every((b) => b.time! % 90 === 0), 'each on a multiple of 90 s');
    t.ok(answers[1]!.length > 5 && answers[1]!.slice(0, -1).every((b) => b.real_volume! >= 20000), `${answers[1]!.length} volume bars of at least 20000`);
    const arrow = tableFromIPC(readFileSync(path.join(cwd, 'bars.arrow')));
    t.ok(arrow.numRows > 100, `bars.arrow: ${arrow.numRows} bars of 500 ticks`);
  });

  await t.test('clear problems', async (t) => {
    const range = 'date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T11:00:00Z';
    for (const period of ['7m', '0s', '25h', '2d', '5x', 'ticks:0', 'ticks:1.5', 'volume:0', '', '00', '090s', ' 90s', 'ticks:0500']) {
      const body = await expectProblem(t, await plain.get(`/ticks/bars?symbol=EURUSD&period=${encodeURIComponent(period)}&${range}`), 400, '/errors/validation-error');
      t.match(body.detail, /period/, `${JSON.stringify(period)}: ${body.detail}`);
    }
    // The document's pattern lists every accepted period (a client or a fuzzer can tell a valid one
    // from the schema alone): what it admits is served, what it does not is a 400.
    const doc = (await (await plain.get('/openapi.json')).json()) as { paths: Record<string, { get: { parameters: { name: string; schema: { pattern: string } }[] } }> };
    const pattern = new RegExp(doc.paths['/ticks/bars']!.get.parameters.find((p) => p.name === 'period')!.schema.pattern);
    for (const period of ['90s', '86400s', '1440m', '24h', '1d', '1w', 'ticks:1', 'volume:0.5']) t.ok(pattern.test(period), `${period} in the pattern`);
    for (const period of ['7m', '00', '090s', ' 90s', 'ticks:0', 'volume:0']) t.notOk(pattern.test(period), `${JSON.stringify(period)} not in the pattern`);
    for (const period of ['86400s', '1440m', '24h']) t.equal((await plain.get(`/ticks/bars?symbol=EURUSD&period=${period}&${range}`)).status, 200, `${period} served`);
    await expectProblem(t, await plain.get(`/ticks/bars?symbol=EURUSD&period=1h&price=open&${range}`), 400, '/errors/validation-error');
    await expectProblem(t, await plain.get(`/ticks/bars?symbol=EURUSD&period=1h&date_from=2024-01-09T11:00:00Z&date_to=2024-01-09T10:00:00Z`), 400, '/errors/validation-error');
    await expectProblem(t, await plain.get(`/ticks/bars?symbol=NOPE&period=1h&${range}`), 404, '/errors/symbol-not-found');
  });
});
