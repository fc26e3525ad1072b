// Issue 23 item 4, third friction: a range without data answered `200 []` for ticks and a 404 for
// bars, documented nowhere side by side. The answers follow MT5 per series kind (mt5-reference
// §3.1/§3.2: copy_ticks_* return an empty array, copy_rates_range fails with None for a range wholly
// outside the history), and docs/api.md "Empty ranges" states each series route's answer in one
// table: this test asks every series route of the route table for ranges without rows and checks
// that the table names the route and each answer it gave.
import { readFileSync } from 'node:fs';

import t from 'tap';

import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import { apiRoutes } from '../../src/routes/index.js';
import { root } from '../helpers/cli.js';
import { serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal(); // its clock: 2024-01-10 12:00 UTC; history from 2020-01-01
t.teardown(() => terminal.close());
const server = await serve(t, nodeAdapter, terminal);

/** For each series route: requests for ranges that hold no rows (before the history, after now, a weekend). */
const EMPTY: Record<string, string[]> = {
  '/ticks/range': [
    '/ticks/range?symbol=EURUSD&date_from=2019-01-01T00:00:00Z&date_to=2019-02-01T00:00:00Z',
    '/ticks/range?symbol=EURUSD&date_from=2024-02-01T00:00:00Z&date_to=2024-03-01T00:00:00Z',
    '/ticks/range?symbol=EURUSD&date_from=2024-01-06T06:00:00Z&date_to=2024-01-06T18:00:00Z',
  ],
  '/ticks/from': ['/ticks/from?symbol=EURUSD&date_from=2024-02-01T00:00:00Z&count=10'],
  '/rates/range': [
    '/rates/range?symbol=EURUSD&timeframe=TIMEFRAME_H1&date_from=2019-01-01T00:00:00Z&date_to=2019-02-01T00:00:00Z',
    '/rates/range?symbol=EURUSD&timeframe=TIMEFRAME_H1&date_from=2024-02-01T00:00:00Z&date_to=2024-03-01T00:00:00Z',
    '/rates/range?symbol=EURUSD&timeframe=TIMEFRAME_H1&date_from=2024-01-06T06:00:00Z&date_to=2024-01-06T18:00:00Z',
  ],
  '/ticks/bars': [
    '/ticks/bars?symbol=EURUSD&period=1h&date_from=2019-01-01T00:00:00Z&date_to=2019-02-01T00:00:00Z',
    '/ticks/bars?symbol=EURUSD&period=1h&date_from=2024-02-01T00:00:00Z&date_to=2024-03-01T00:00:00Z',
    '/ticks/bars?symbol=EURUSD&period=ticks:100&date_from=2024-01-06T06:00:00Z&date_to=2024-01-06T18:00:00Z',
  ],
  '/rates/from': ['/rates/from?symbol=EURUSD&timeframe=TIMEFRAME_H1&date_from=2019-01-01T00:00:00Z&count=10'],
  '/rates/from-pos': ['/rates/from-pos?symbol=EURUSD&timeframe=TIMEFRAME_H1&start_pos=999999&count=10'],
};

/** The "Empty ranges" section of docs/api.md, or '' when there is none. */
function section(): string {
  const doc = readFileSync(`${root}docs/api.md`, 'utf8');
  const start = doc.indexOf('\n## Empty ranges\n');
  if (start < 0) return '';
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

t.test('every series route is asked', async (t) => {
  const series = apiRoutes.filter((r) => r.response.kind === 'series').map((r) => r.path).sort();
  t.same(Object.keys(EMPTY).sort(), series);
});

t.test('docs/api.md "Empty ranges" states each answer the server gives', async (t) => {
  const text = section();
  t.not(text, '', 'docs/api.md has a section "## Empty ranges"');
  for (const [path, requests] of Object.entries(EMPTY)) {
    const row = text.split('\n').find((l) => l.startsWith(`| \`${path}\` |`)) ?? '';
    t.not(row, '', `a row for ${path}`);
    for (const request of requests) {
      const res = await server.get(request);
      let answer: string;
      if (res.status === 200) {
        t.same(await res.json(), [], `${request}: no rows`);
        answer = '`200 []`';
      } else {
        const p = (await res.json()) as { type: string };
        answer = `\`${res.status} ${p.type}\``;
      }
      t.ok(row.includes(answer), `${path}: the row states ${answer} (${request})`, { row });
    }
  }
  t.match(text, /copy_ticks_range/, 'says why (MT5) for ticks');
  t.match(text, /copy_rates_range/, 'says why (MT5) for bars');
  t.match(text, /tradeapi export/, 'and what the export does');
});
