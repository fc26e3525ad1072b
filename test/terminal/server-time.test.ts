// TRADEAPI_SERVER_TZ conversions (src/config/server-zone.ts) across the EU changes of 2024:
// 31 March 01:00 UTC (server 03:00 EET -> 04:00 EEST) and 27 October 01:00 UTC (server 04:00
// EEST -> 03:00 EET, the hour 03:00-04:00 server time happening twice).
import t from 'tap';

import { loadConfig } from '../../src/config/index.js';
import { parseServerZone } from '../../src/config/server-zone.js';

const H = 3_600_000;
const utc = (...a: [number, number, number, number?, number?, number?]): number => Date.UTC(...a);

t.test('parsing', async (t) => {
  t.equal(parseServerZone('Europe/Athens').name, 'Europe/Athens');
  t.equal(parseServerZone(' +02:00 ').name, '+02:00');
  t.equal(parseServerZone('-05:30').offsetMs(0), -(5 * H + 30 * 60_000));
  t.equal(parseServerZone('+0300').offsetMs(0), 3 * H);
  for (const bad of ['Mars/Olympus', '+15:00', '+02:60', '2', 'UTC+2', '../etc', '']) {
    t.throws(() => parseServerZone(bad), RangeError, bad);
  }
  t.equal(loadConfig({}).serverTz, undefined, 'unset: no conversion');
  t.equal(loadConfig({ TRADEAPI_SERVER_TZ: '' }).serverTz, undefined);
  t.equal(loadConfig({ TRADEAPI_SERVER_TZ: 'Europe/Athens' }).serverTz?.name, 'Europe/Athens');
  t.equal(JSON.stringify({ z: loadConfig({ TRADEAPI_SERVER_TZ: '+02:00' }).serverTz }), '{"z":"+02:00"}');
  t.throws(() => loadConfig({ TRADEAPI_SERVER_TZ: 'Nowhere/Land' }), { name: 'ConfigError', message: /TRADEAPI_SERVER_TZ/ });
  t.throws(() => loadConfig({ TRADEAPI_SERVER_TZ: '+2' }), { name: 'ConfigError' });
  t.throws(() => loadConfig({ TRADEAPI_SERVER_TZ: 'Europe/Athens' }, { readOnly: true }), { message: /TRADE_API_KEY/ }, 'read-only mode reads it too (then fails on its key)');
  t.equal(loadConfig({ TRADEAPI_SERVER_TZ: '+01:00', TRADE_API_KEY: 'k' }, { readOnly: true }).serverTz?.name, '+01:00', 'both modes');
});

t.test('Europe/Athens offsets around the changes', async (t) => {
  const z = parseServerZone('Europe/Athens');
  t.equal(z.offsetMs(utc(2024, 0, 10)), 2 * H, 'winter');
  t.equal(z.offsetMs(utc(2024, 6, 10)), 3 * H, 'summer');
  t.equal(z.offsetMs(utc(2024, 2, 31, 1) - 1), 2 * H, 'March: the last ms before 01:00 UTC');
  t.equal(z.offsetMs(utc(2024, 2, 31, 1)), 3 * H, 'March: from 01:00 UTC');
  t.equal(z.offsetMs(utc(2024, 9, 27, 1) - 1), 3 * H, 'October: the last ms before 01:00 UTC');
  t.equal(z.offsetMs(utc(2024, 9, 27, 1)), 2 * H, 'October: from 01:00 UTC');
});

t.test('Europe/Athens: UTC -> server -> UTC', async (t) => {
  const z = parseServerZone('Europe/Athens');
  // March: 00:59:59.999 UTC = 02:59:59.999 server; 01:00 UTC = 04:00 server (03:xx never happens).
  t.equal(z.toServerMs(utc(2024, 2, 31, 0, 59, 59) + 999), utc(2024, 2, 31, 2, 59, 59) + 999);
  t.equal(z.toServerMs(utc(2024, 2, 31, 1)), utc(2024, 2, 31, 4));
  t.equal(z.toUtcMs(utc(2024, 2, 31, 4)), utc(2024, 2, 31, 1));
  t.equal(z.toUtcMs(utc(2024, 2, 31, 2, 30)), utc(2024, 2, 31, 0, 30));
  t.equal(z.toUtcMs(utc(2024, 2, 31, 3, 30)), utc(2024, 2, 31, 1, 30), 'skipped hour: the offset before the change');
  // October: 00:30 UTC = 03:30 EEST and 01:30 UTC = 03:30 EET: the earlier instant wins.
  t.equal(z.toServerMs(utc(2024, 9, 27, 0, 30)), utc(2024, 9, 27, 3, 30));
  t.equal(z.toServerMs(utc(2024, 9, 27, 1, 30)), utc(2024, 9, 27, 3, 30));
  t.equal(z.toUtcMs(utc(2024, 9, 27, 3, 30)), utc(2024, 9, 27, 0, 30), 'repeated hour: the earlier UTC instant');
  t.equal(z.toUtcMs(utc(2024, 9, 27, 2, 59)), utc(2024, 9, 26, 23, 59));
  t.equal(z.toUtcMs(utc(2024, 9, 27, 4)), utc(2024, 9, 27, 2));
  t.equal(z.toUtcSeconds(utc(2024, 9, 27, 4) / 1000), utc(2024, 9, 27, 2) / 1000, 'seconds');
  t.equal(z.toServerSeconds(utc(2024, 2, 31, 1) / 1000), utc(2024, 2, 31, 4) / 1000, 'seconds');
  // Every minute of both days round-trips, except UTC instants of the repeated hour's second pass.
  for (const day of [utc(2024, 2, 30, 12), utc(2024, 9, 26, 12)]) {
    let bad = 0;
    for (let u = day; u < day + 24 * H; u += 60_000) {
      const back = z.toUtcMs(z.toServerMs(u));
      const secondPass = u >= utc(2024, 9, 27, 1) && u < utc(2024, 9, 27, 2);
      if (secondPass ? back !== u - H : back !== u) bad++;
    }
    t.equal(bad, 0, `round trip over ${new Date(day).toISOString()}`);
  }
});

t.test('fixed offsets', async (t) => {
  const z = parseServerZone('+02:00');
  for (const u of [utc(2024, 2, 31, 1), utc(2024, 9, 27, 1), utc(2024, 0, 1)]) {
    t.equal(z.toServerMs(u), u + 2 * H);
    t.equal(z.toUtcMs(u + 2 * H), u);
  }
  const w = parseServerZone('-05:30');
  t.equal(w.toServerSeconds(utc(2024, 9, 27) / 1000), (utc(2024, 9, 27) - 5.5 * H) / 1000);
  t.equal(w.toUtcSeconds((utc(2024, 9, 27) - 5.5 * H) / 1000), utc(2024, 9, 27) / 1000);
  const col = BigInt64Array.from([0n, BigInt(utc(2024, 9, 27, 3)), BigInt(utc(2024, 2, 31, 3))]);
  z.columnToUtc(col, 1);
  t.same(Array.from(col, Number), [0, utc(2024, 9, 27, 1), utc(2024, 2, 31, 1)], '0 stays 0');
});

t.test('columns: the fast path agrees with the scalar one, in place', async (t) => {
  const z = parseServerZone('Europe/Athens');
  for (const start of [utc(2024, 2, 30, 20), utc(2024, 9, 26, 20)]) {
    // Server stamps every 7.3 s over 12 hours around the change (about 6 000 rows), in ms and s.
    const ms: number[] = [];
    for (let s = start; s < start + 12 * H; s += 7_300) ms.push(s);
    const colMs = BigInt64Array.from(ms, BigInt);
    const colS = BigInt64Array.from(ms, (v) => BigInt(Math.floor(v / 1000)));
    z.columnToUtc(colMs, 1);
    z.columnToUtc(colS, 1000);
    t.same(Array.from(colMs, Number), ms.map((v) => z.toUtcMs(v)), `ms from ${new Date(start).toISOString()}`);
    t.same(Array.from(colS, Number), ms.map((v) => z.toUtcSeconds(Math.floor(v / 1000))), 'seconds');
  }
  const zero = BigInt64Array.from([0n]);
  z.columnToUtc(zero, 1000);
  t.equal(zero[0], 0n, '0 stays 0');
});

t.test('a 16 K-row chunk costs no Intl call per row', async (t) => {
  // Counted, not timed (a speed belongs in bench/, issue 35): the zone asks Intl for offsets per
  // hour it meets at most, never per row. 16 384 rows 0.5 s apart span ~2.3 hours.
  const z = parseServerZone('America/New_York');
  const col = new BigInt64Array(16_384);
  const base = utc(2024, 10, 3, 4);
  for (let i = 0; i < col.length; i++) col[i] = BigInt(base + i * 500);
  const proto = Intl.DateTimeFormat.prototype;
  const original = proto.formatToParts;
  let calls = 0;
  proto.formatToParts = function (this: Intl.DateTimeFormat, date?: Date | number) {
    calls++;
    return original.call(this, date);
  };
  try {
    const converted = col.slice();
    z.columnToUtc(converted, 1);
    t.equal(converted[100], BigInt(z.toUtcMs(base + 100 * 500)), 'converted');
  } finally {
    proto.formatToParts = original;
  }
  t.ok(calls > 0, `Intl was asked (${calls} times): the count is real`);
  t.ok(calls <= 64, `${calls} Intl calls for 16 384 rows`);
});
