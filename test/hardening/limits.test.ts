// Hardening item 6: the documented maximum count (1 000 000) succeeds on the embedded simulator,
// and a request the terminal refuses for its own "Max bars in chart" gets a 400 naming that limit
// (terminal_info().maxbars) and what to do, not the terminal's opaque "Invalid params".
import t from 'tap';

import { openSimTerminal, TerminalError } from '../../src/terminal/index.js';
import { faultyTerminal } from '../helpers/faulty-terminal.js';
import { ANCHOR_S, expectProblem, forEachAdapter, NOW_MS, serve, simTerminal } from '../helpers/server.js';

const embedded = simTerminal();
const small = openSimTerminal({ nowMs: NOW_MS, accountAnchor: ANCHOR_S, seed: 42, maxBars: 1000 });
t.teardown(() => {
  embedded.close();
  small.close();
});

const D1 = 'symbol=EURUSD&timeframe=TIMEFRAME_D1';
const M1 = 'symbol=EURUSD&timeframe=TIMEFRAME_M1';

await forEachAdapter(t, async (t, adapter) => {
  await t.test('count=1000000 (the documented maximum) succeeds', async (t) => {
    const s = await serve(t, adapter, embedded);
    const info = (await (await s.get('/terminal')).json()) as { maxbars: number };
    t.ok(info.maxbars > 1_000_000, `the embedded simulator's maxbars (${info.maxbars}) is above the documented count limit`);
    for (const path of [`/rates/from?${D1}&date_from=2024-01-10T00:00:00Z&count=1000000`, `/rates/from-pos?${D1}&start_pos=0&count=1000000`]) {
      const res = await s.get(path);
      t.equal(res.status, 200, `${path} -> 200`);
      const rows = (await res.json()) as { time: number }[];
      // All the D1 history the simulator has (2020-01-01 to 2024-01-10), oldest first.
      t.ok(rows.length > 1000 && rows.length < 1_000_000, `${rows.length} daily bars`);
      t.equal(rows[0]?.time, Date.UTC(2020, 0, 1) / 1000, 'from the start of history');
    }
    t.equal((await s.get('/health')).status, 200, 'healthy afterwards');
  });

  await t.test("a terminal's maxbars refusal names the limit", async (t) => {
    const s = await serve(t, adapter, small);
    const refused = async (path: string, mention: RegExp) => {
      const p = await expectProblem(t, await s.get(path), 400, '/errors/validation-error', path.split('?')[0]);
      t.match(p.detail, /maxbars = 1000\b/, `${path}: names the limit and its value: ${p.detail}`);
      t.match(p.detail, mention, `${path}: says what to do`);
      t.notMatch(p.detail, /Invalid params/, 'not the opaque terminal message');
    };
    await refused(`/rates/from?${M1}&date_from=2024-01-10T00:00:00Z&count=1000`, /count=1000.*fewer than 1000/);
    await refused(`/rates/from-pos?${M1}&start_pos=0&count=5000`, /count=5000.*fewer than 1000/);
    // A weekday of M1 bars is 1440 of them.
    await refused(`/rates/range?${M1}&date_from=2024-01-08T00:00:00Z&date_to=2024-01-09T00:00:00Z`, /shorter range/);
    // Just below the limit, all three answer.
    const ok = async (path: string, rows: number) => {
      const res = await s.get(path);
      t.equal(res.status, 200, `${path} -> 200`);
      t.equal(((await res.json()) as unknown[]).length, rows, `${rows} bars`);
    };
    // Only the newest maxbars bars are reachable at all, as in MT5 (the clock: 2024-01-10 12:00,
    // so the newest 1000 M1 bars reach back to 2024-01-09 ~19:20).
    await ok(`/rates/from?${M1}&date_from=2024-01-10T12:00:00Z&count=999`, 999);
    await ok(`/rates/from-pos?${M1}&start_pos=0&count=999`, 999);
    await ok(`/rates/range?${M1}&date_from=2024-01-10T00:00:00Z&date_to=2024-01-10T11:00:00Z`, 661);
    const older = await expectProblem(t, await s.get(`/rates/range?${M1}&date_from=2024-01-08T00:00:00Z&date_to=2024-01-08T12:00:00Z`), 404, '/errors/not-found', '/rates/range');
    t.match(older.detail, /outside the history/, 'bars older than the newest maxbars: outside the history');
    t.equal((await s.get('/health')).status, 200, 'healthy afterwards');
  });

  await t.test('a refusal the limit cannot explain keeps the terminal message', async (t) => {
    const refusing = faultyTerminal(small, { copyRatesFrom: () => Promise.reject(new TerminalError('invalid_params', -2, 'Terminal: Invalid params')) });
    const s = await serve(t, adapter, refusing);
    const p = await expectProblem(t, await s.get(`/rates/from?${M1}&date_from=2024-01-10T00:00:00Z&count=10`), 400, '/errors/validation-error');
    t.equal(p.detail, 'the terminal rejected the parameters: Terminal: Invalid params (code -2)');
  });

  await t.test('OpenAPI documents the limit', async (t) => {
    const s = await serve(t, adapter, embedded);
    const doc = (await (await s.get('/openapi.json')).json()) as { paths: Record<string, { get: { description: string } }> };
    for (const path of ['/rates/from', '/rates/from-pos', '/rates/range']) {
      t.match(doc.paths[path]?.get.description, /fewer than terminal_info\(\)\.maxbars bars per request.*10000000.*400 naming the limit/, path);
    }
  });
});
