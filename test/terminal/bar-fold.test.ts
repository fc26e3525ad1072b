// The bar fold on ticks made up for it: both folders (the addon's BarFolder on the thread pool and
// BarBuilder on the JS thread) give the same bars, and those are the bars the rules say, where the
// simulator cannot go: the second pass of an hour repeated when clocks go back (the simulator's
// market is silent then) and a day cut of tick bars.
import t from 'tap';

import { BarBuilder } from '../../src/terminal/bar-builder.js';
import type { BarPeriod, BarPrice } from '../../src/terminal/bar-period.js';
import { addon } from '../../src/terminal/native.js';
import type { BarChunk, TickChunk } from '../../src/terminal/series.js';

type Row = Record<string, number>;
const MIN_MS = 60_000;
/** Clocks go back at T (UTC): server time UTC+3, then UTC+2; server 03:00-04:00 happens twice. */
const T_S = Date.UTC(2024, 9, 27, 1) / 1000;
const TRANSITIONS: Array<[number, number]> = [[T_S - 86_400, 10_800], [T_S, 7_200]];

function ticksOf(times: number[], price: (i: number) => number): TickChunk {
  const n = times.length;
  const bid = Float64Array.from(times, (_, i) => price(i));
  return {
    rows: n,
    time: BigInt64Array.from(times, (ms) => BigInt(Math.floor(ms / 1000))),
    bid,
    ask: Float64Array.from(bid, (b) => Math.round((b + 0.0002) * 1e5) / 1e5),
    last: new Float64Array(n),
    volume: new BigUint64Array(n),
    time_msc: BigInt64Array.from(times, (ms) => BigInt(ms)),
    flags: new Uint32Array(n).fill(6),
    volume_real: new Float64Array(n),
  };
}

function rowsOf(chunks: BarChunk[]): Row[] {
  const out: Row[] = [];
  for (const c of chunks) {
    for (let i = 0; i < c.rows; i++) {
      out.push({
        time: Number(c.time[i]), open: c.open[i]!, high: c.high[i]!, low: c.low[i]!, close: c.close[i]!, tick_volume: Number(c.tick_volume[i]),
        spread: c.spread[i]!, real_volume: Number(c.real_volume[i]), time_close_msc: Number(c.time_close_msc[i]),
      });
    }
  }
  return out;
}

/** The earlier instant of a server second (the zone of TRANSITIONS). */
const toUtcSeconds = (s: number): number => {
  const summer = s - 10_800;
  return summer < T_S ? summer : s - 7_200;
};

async function fold(engine: 'js' | 'native', period: BarPeriod, chunks: TickChunk[], nowServerMs: number, price: BarPrice = 'bid'): Promise<Row[]> {
  const options = { price, digits: 5, fromS: 0, toS: 4_000_000_000 };
  const out: BarChunk[] = [];
  if (engine === 'js') {
    const b = new BarBuilder({ ...options, period, transitions: TRANSITIONS, toUtcSeconds, chunkRows: 3 });
    for (const c of chunks) {
      b.push(c);
      for (let r = b.take(3); r; r = b.take(3)) out.push(r);
    }
    b.finish(nowServerMs, false);
    for (let r = b.take(1); r; r = b.take(1)) out.push(r);
    return rowsOf(out);
  }
  const Folder = addon.BarFolder!;
  const f = new Folder({
    ...options,
    kind: period.kind,
    seconds: period.kind === 'time' ? period.seconds : 0,
    count: period.kind === 'ticks' ? period.count : 0,
    size: period.kind === 'volume' ? period.size : 0,
    transitions: TRANSITIONS.flat(),
  });
  for (const c of chunks) {
    await f.push(c);
    const r = f.take(3);
    if (r) out.push(r);
  }
  f.finish(nowServerMs, false);
  const r = f.take(1);
  if (r) out.push(r);
  return rowsOf(out);
}

const engines = typeof addon.BarFolder === 'function' ? (['js', 'native'] as const) : (['js'] as const);
if (engines.length === 1) t.comment('the loaded addon has no BarFolder (a prebuild from before it): the JS folder alone');

// A tick every 10 minutes (UTC) from 2 h before the change to 2 h after, prices 1.1000, 1.1001, ...
const times = Array.from({ length: 25 }, (_, i) => T_S * 1000 - 120 * MIN_MS + i * 10 * MIN_MS);
const chunks = [ticksOf(times.slice(0, 7), (i) => 1.1 + i / 1e4), ticksOf(times.slice(7), (i) => 1.1007 + i / 1e4)];
const serverNow = (T_S + 7_200) * 1000 + 3 * 3_600_000;

for (const engine of engines) {
  t.test(`${engine}: both passes of the repeated hour in one bar`, async (t) => {
    const bars = await fold(engine, { kind: 'time', seconds: 1800 }, chunks, serverNow);
    // Server 02:00 (UTC T-2h) ... the first pass runs to 03:50, the second from 03:00 (UTC T) to 03:50, then 04:00 on.
    const at = (h: number, m: number): number => Date.UTC(2024, 9, 27, h, m) / 1000;
    t.same(bars.map((b) => b.time), [at(2, 0), at(2, 30), at(3, 0), at(3, 30), at(4, 0), at(4, 30), at(5, 0)].map(toUtcSeconds), 'bars on the server clock, by the earlier instant');
    t.same(bars.map((b) => b.tick_volume), [3, 3, 6, 6, 3, 3, 1], 'the repeated hour\'s bars hold both passes');
    const third = bars[2]!;
    t.equal(third.open, 1.1006, 'open: the first pass\'s first tick');
    t.equal(third.close, 1.1014, 'close: the second pass\'s last tick');
    t.equal(third.time_close_msc, (T_S + 20 * 60) * 1000);
    t.ok(bars.every((b) => b.spread === 20), 'spread in points');
  });

  t.test(`${engine}: a 2-hour bar takes the whole repeated hour, a day bar the 25-hour day`, async (t) => {
    const bars = await fold(engine, { kind: 'time', seconds: 7200 }, chunks, serverNow);
    t.same(bars.map((b) => b.tick_volume), [18, 7], 'server 02:00-04:00: 12 first-pass and 6 second-pass ticks; 04:00-06:00: the rest');
    const day = await fold(engine, { kind: 'time', seconds: 86_400 }, chunks, serverNow + 86_400_000);
    t.same(day.map((b) => b.tick_volume), [25]);
    t.same(await fold(engine, { kind: 'time', seconds: 86_400 }, chunks, serverNow), [], 'the day still forming is left out');
  });

  t.test(`${engine}: tick bars count ticks and restart at the server day start`, async (t) => {
    // Ticks every 7 minutes across server midnight (21:00 UTC on UTC+3).
    const night = Array.from({ length: 20 }, (_, i) => Date.UTC(2024, 9, 20, 20, 0) + i * 7 * MIN_MS);
    const bars = await fold(engine, { kind: 'ticks', count: 4 }, [ticksOf(night, (i) => 1.2 + i / 1e4)], Date.UTC(2024, 9, 22));
    const before = night.filter((ms) => ms < Date.UTC(2024, 9, 20, 21)).length;
    t.equal(before, 9);
    t.same(bars.map((b) => b.tick_volume), [4, 4, 1, 4, 4, 3], 'four a bar, cut at server midnight');
    t.same(bars.map((b) => b.time), [0, 4, 8, 9, 13, 17].map((i) => Math.floor(night[i]! / 1000)), 'stamped with their first tick');
    t.same(bars.map((b) => b.time_close_msc), [3, 7, 8, 12, 16, 19].map((i) => night[i]));
  });
}

t.test('the two folders agree on every period and price', async (t) => {
  if (engines.length === 1) return;
  const many = Array.from({ length: 5000 }, (_, i) => T_S * 1000 - 5 * 3_600_000 + i * 4_321);
  const price = (i: number): number => Math.round((1.1 + Math.sin(i / 50) / 100) * 1e5) / 1e5;
  const parts = [ticksOf(many.slice(0, 1234), price), ticksOf(many.slice(1234), (i) => price(i + 1234))];
  // Every third tick a trade (TICK_FLAG_LAST | TICK_FLAG_VOLUME) of 1 to 7 lots at the bid.
  for (const c of parts) {
    for (let i = 0; i < c.rows; i += 3) {
      c.flags[i] = 6 | 8 | 16;
      c.last[i] = c.bid[i]!;
      c.volume[i] = BigInt((i % 7) + 1);
      c.volume_real[i] = (i % 7) + 1;
    }
  }
  const periods: BarPeriod[] = [{ kind: 'time', seconds: 90 }, { kind: 'time', seconds: 3600 }, { kind: 'week' }, { kind: 'ticks', count: 37 }, { kind: 'volume', size: 50 }];
  for (const period of periods) {
    for (const p of ['bid', 'ask', 'mid', 'last'] as const) {
      const js = await fold('js', period, parts, serverNow, p);
      const native = await fold('native', period, parts, serverNow, p);
      t.ok(js.length > 0, `${JSON.stringify(period)} ${p}: ${js.length} bars`);
      t.same(native, js, `${JSON.stringify(period)} ${p}`);
    }
  }
});

t.test('js: closeDue, a live fold\'s clock, closes bars at their end and gives the bars a whole fold gives', async (t) => {
  const period: BarPeriod = { kind: 'time', seconds: 3600 };
  const b = new BarBuilder({ price: 'bid', digits: 5, fromS: 0, toS: 4_000_000_000, period, transitions: TRANSITIONS, toUtcSeconds, chunkRows: 3 });
  const out: BarChunk[] = [];
  const drain = (): number => {
    let n = 0;
    for (let r = b.take(1); r; r = b.take(1)) {
      out.push(r);
      n += r.rows;
    }
    return n;
  };
  // The same ticks as `chunks`, cut after server 02:50: the 02:00 bar's six ticks, then the rest.
  b.push(ticksOf(times.slice(0, 6), (i) => 1.1 + i / 1e4));
  t.equal(drain(), 0, 'no bar closed by ticks yet');
  const serverTwo = T_S * 1000 + 3_600_000; // server 02:00 (UTC+3), an hour before the change
  b.closeDue(serverTwo + 3_600_000 - 1);
  t.equal(drain(), 0, 'the 02:00 bar is open until 03:00');
  b.closeDue(serverTwo + 3_600_000);
  t.equal(drain(), 1, 'closed at its end without a closing tick');
  b.push(ticksOf(times.slice(6, 7), () => 1.1006));
  b.closeDue(serverTwo + 2 * 3_600_000 - 1);
  t.equal(drain(), 0, 'the 03:00 bar (the repeated hour) stays open');
  b.push(ticksOf(times.slice(7), (i) => 1.1007 + i / 1e4));
  b.finish(serverNow, false);
  drain();
  t.same(rowsOf(out), await fold('js', period, chunks, serverNow), 'the same bars as a fold closed by ticks and finish');
});
