// Issue 27: the SDK's own client against /mcp on both variants (full: under a prefix, key as
// X-API-Key; read-only: /api/v1/mcp, key as Authorization: Bearer) and every adapter that loads:
// the generated tools listed, symbol_info_tick, copy_ticks_range (bounded, with the Parquet path),
// account_info, order_check (full variant only), problems as tool errors, and no key, no MCP.
import t, { type Test } from 'tap';

import { isToolRoute, MAX_INLINE_ROWS } from '../../src/routes/mcp-tools.js';
import { routeTable } from '../../src/routes/index.js';
import { expectProblem, forEachAdapter, READ_ONLY_KEY, serve, serveReadOnly, simTerminal, type TestServer } from '../helpers/server.js';
import { callTool, INITIALIZE, mcpClient, postMcp } from './mcp-client.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const KEY = 'mcp-test-key';
const DAY = { symbol: 'EURUSD', date_from: '2024-01-09T00:00:00Z', date_to: '2024-01-10T00:00:00Z' };
const TEN_SECONDS = { symbol: 'EURUSD', date_from: '2024-01-09T10:00:00Z', date_to: '2024-01-09T10:00:10Z' };

interface Variant {
  readonly name: string;
  readonly prefix: string;
  readonly readOnly: boolean;
  /** The key as this variant's client sends it. */
  readonly auth: Record<string, string>;
  start(t: Test, adapter: Parameters<typeof serve>[1]): Promise<TestServer>;
}

const VARIANTS: readonly Variant[] = [
  {
    name: 'full variant under a prefix, key as X-API-Key',
    prefix: '/gw',
    readOnly: false,
    auth: { 'x-api-key': KEY },
    start: (t, adapter) => serve(t, adapter, terminal, { TRADEAPI_SECRET_KEY: KEY, TRADEAPI_ROUTER_PREFIX: '/gw' }),
  },
  {
    name: 'read-only variant at /api/v1/mcp, key as Authorization: Bearer',
    prefix: '/api/v1',
    readOnly: true,
    auth: { authorization: `Bearer ${READ_ONLY_KEY}` },
    start: (t, adapter) => serveReadOnly(t, adapter, terminal),
  },
];

const httpKey = (v: Variant): Record<string, string> => ({ 'x-api-key': v.readOnly ? READ_ONLY_KEY : KEY });

await forEachAdapter(t, async (t, adapter) => {
  for (const v of VARIANTS) {
    await t.test(v.name, async (t) => {
      const s = await v.start(t, adapter);
      const client = await mcpClient(t, s, v.prefix, v.auth);
      const http = async (path: string): Promise<unknown> => {
        const res = await s.get(`${v.prefix}${path}`, { headers: httpKey(v) });
        t.equal(res.status, 200, `GET ${path}`);
        return res.json();
      };

      await t.test('lists one tool per data route the variant serves, named after its MetaTrader5 function', async (t) => {
        const { tools } = await client.listTools();
        const names = tools.map((tool) => tool.name);
        const expected = routeTable({ prefix: v.prefix, version: '0', authRequired: true, readOnly: v.readOnly }).filter(isToolRoute).map((r) => r.operationId);
        t.same([...names].sort(), [...expected].sort(), `${names.length} tools`);
        for (const name of ['symbol_info_tick', 'copy_ticks_range', 'copy_rates_from_pos', 'account_info', 'positions_get', 'history_deals_get', 'get_server_time']) t.ok(names.includes(name), name);
        t.notOk(names.includes('get_store_coverage'), 'no store tool without a store');
        for (const name of ['order_check', 'symbol_select', 'order_calc_margin', 'market_book_add', 'market_book_get']) t.equal(names.includes(name), !v.readOnly, `${name} ${v.readOnly ? 'not ' : ''}listed`);
        for (const name of ['get_health', 'get_metrics', 'get_events', 'get_ws', 'get_openapi_json', 'get_docs', 'post_mcp']) t.notOk(names.includes(name), `no tool ${name}`);
        const ticks = tools.find((tool) => tool.name === 'copy_ticks_range');
        // One of symbol, symbols and group (issue 36: many symbols in one pull), so none of them is required by the schema.
        t.match(ticks?.inputSchema, { type: 'object', required: ['date_from', 'date_to'], properties: { symbol: { type: 'string' }, symbols: { type: 'string' }, group: { type: 'string' }, date_from: { type: 'string', format: 'date-time' }, flags: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } });
        t.notOk(ticks?.inputSchema.properties && 'format' in ticks.inputSchema.properties, 'format is the Parquet path\'s, not an argument');
        t.match(ticks?.description, /copy_ticks_range/);
        t.match(ticks?.annotations, { readOnlyHint: true });
      });

      await t.test('symbol_info_tick answers what GET /symbols/{symbol}/tick answers', async (t) => {
        const r = await callTool(client, 'symbol_info_tick', { symbol: 'EURUSD' });
        t.notOk(r.isError);
        t.same(r.structuredContent, await http('/symbols/EURUSD/tick'));
        t.same(JSON.parse(r.content[0]?.text ?? ''), r.structuredContent, 'the same JSON as text');
      });

      await t.test('copy_ticks_range: at most 1000 rows inline, more, and the Parquet path of the whole range', async (t) => {
        const r = await callTool(client, 'copy_ticks_range', { ...DAY, flags: 'COPY_TICKS_ALL' });
        t.notOk(r.isError);
        const answer = r.structuredContent as { rows: { time_msc: number }[]; returned: number; more: boolean; parquet: string };
        t.equal(answer.returned, MAX_INLINE_ROWS);
        t.equal(answer.rows.length, MAX_INLINE_ROWS);
        t.equal(answer.more, true, 'a day has more ticks');
        t.same(answer.rows, await http(`/ticks/from?symbol=EURUSD&date_from=${DAY.date_from}&count=${MAX_INLINE_ROWS}`), 'the first 1000 ticks of the range');
        t.match(answer.parquet, new RegExp(`^${v.prefix}/ticks/range\\?`), 'relative, under the prefix');
        t.notMatch(answer.parquet, /key|bearer/i, 'no key in it');
        const url = new URL(answer.parquet, s.base);
        t.same(Object.fromEntries(url.searchParams), { ...DAY, flags: 'COPY_TICKS_ALL', format: 'parquet' });
        const parquet = await s.get(answer.parquet, { headers: httpKey(v) });
        t.equal(parquet.status, 200, 'the path serves the range');
        t.equal(parquet.headers.get('content-type'), 'application/parquet');
        const bytes = new Uint8Array(await parquet.arrayBuffer());
        t.equal(Buffer.from(bytes.subarray(0, 4)).toString('latin1'), 'PAR1', 'a Parquet file');

        const short = await callTool(client, 'copy_ticks_range', TEN_SECONDS);
        const all = (await http(`/ticks/range?symbol=EURUSD&date_from=${TEN_SECONDS.date_from}&date_to=${TEN_SECONDS.date_to}`)) as unknown[];
        t.ok(all.length > 0 && all.length < MAX_INLINE_ROWS, `${all.length} ticks in ten seconds`);
        t.match(short.structuredContent, { rows: all, returned: all.length, more: false });
      });

      await t.test('issue 36 through MCP: custom bars (get_ticks_bars) and many symbols in one copy_ticks_range and get_ticks_bars', async (t) => {
        const bars = await callTool(client, 'get_ticks_bars', { ...DAY, period: '90s' });
        t.notOk(bars.isError);
        const want = (await http(`/ticks/bars?symbol=EURUSD&period=90s&date_from=${DAY.date_from}&date_to=${DAY.date_to}`)) as unknown[];
        t.ok(want.length > 100 && want.length <= MAX_INLINE_ROWS, `${want.length} bars of 90 s in a day`);
        t.match(bars.structuredContent, { rows: want, returned: want.length, more: false });
        const merged = await callTool(client, 'copy_ticks_range', { symbols: 'GBPUSD,EURUSD', date_from: TEN_SECONDS.date_from, date_to: TEN_SECONDS.date_to });
        t.notOk(merged.isError);
        const all = (await http(`/ticks/range?symbols=GBPUSD,EURUSD&date_from=${TEN_SECONDS.date_from}&date_to=${TEN_SECONDS.date_to}`)) as Array<{ symbol: string }>;
        t.ok(new Set(all.map((r) => r.symbol)).size === 2, 'both symbols tick in those ten seconds');
        t.match(merged.structuredContent, { rows: all, returned: all.length, more: false });
        const hour = { date_from: '2024-01-09T10:00:00Z', date_to: '2024-01-09T11:00:00Z' };
        const mergedBars = await callTool(client, 'get_ticks_bars', { symbols: 'GBPUSD,EURUSD', period: '90s', ...hour });
        t.notOk(mergedBars.isError);
        const bothBars = (await http(`/ticks/bars?symbols=GBPUSD,EURUSD&period=90s&date_from=${hour.date_from}&date_to=${hour.date_to}`)) as Array<{ symbol: string }>;
        t.ok(new Set(bothBars.map((r) => r.symbol)).size === 2 && bothBars.length <= MAX_INLINE_ROWS, `${bothBars.length} bars of both symbols`);
        t.match(mergedBars.structuredContent, { rows: bothBars, returned: bothBars.length, more: false });
      });

      await t.test('account_info answers what GET /account answers', async (t) => {
        const r = await callTool(client, 'account_info');
        t.notOk(r.isError);
        t.same(r.structuredContent, await http('/account'));
        t.match(r.structuredContent, { currency: String, balance: Number });
      });

      await t.test(v.readOnly ? 'order_check is no tool here' : 'order_check checks a trade request', async (t) => {
        const request = { action: 1, symbol: 'USDJPY', volume: 1.0, type: 0, price: 150.0, type_filling: 1 };
        if (v.readOnly) {
          await t.rejects(client.callTool({ name: 'order_check', arguments: { request } }), /no tool named "order_check"/);
          return;
        }
        const r = await callTool(client, 'order_check', { request });
        t.notOk(r.isError);
        t.match(r.structuredContent, { retcode: Number, request: { symbol: 'USDJPY', volume: 1 } });
        const refused = await callTool(client, 'order_check', { request: { action: 1 } });
        t.match(refused.structuredContent, { status: 400, type: '/errors/validation-error', detail: /request\.symbol/ }, 'the route\'s own 400');
      });

      await t.test('a bad symbol is a tool error carrying the problem', async (t) => {
        const r = await callTool(client, 'symbol_info_tick', { symbol: 'NOPE' });
        t.equal(r.isError, true);
        t.match(r.structuredContent, { type: '/errors/symbol-not-found', title: 'Symbol Not Found', status: 404, detail: /NOPE/, instance: `${v.prefix}/symbols/NOPE/tick` });
        t.same(JSON.parse(r.content[0]?.text ?? ''), r.structuredContent, 'the problem as text too');
      });

      await t.test('bad arguments are tool errors with the route\'s own 400 details', async (t) => {
        const cases: [string, Record<string, unknown>, RegExp][] = [
          ['copy_ticks_range', { ...DAY, date_from: 'yesterday' }, /date_from' must be an ISO 8601 UTC timestamp/],
          ['copy_ticks_range', { ...DAY, date_from: DAY.date_to, date_to: DAY.date_from }, /must not be later/],
          ['copy_ticks_range', { symbol: 'EURUSD' }, /'date_from' is required/],
          ['copy_ticks_range', { ...DAY, flags: 'COPY_TICKS_NONE' }, /COPY_TICKS constant/],
          ['copy_ticks_range', { ...DAY, format: 'parquet' }, /takes no argument 'format'/],
          ['copy_rates_from_pos', { symbol: 'EURUSD', timeframe: 'TIMEFRAME_H1', start_pos: 0, count: 0 }, /'count' must be a positive integer/],
          ['copy_rates_from_pos', { symbol: 'EURUSD', timeframe: 'TIMEFRAME_H1', start_pos: 0, count: 1.5 }, /'count' must be/],
          ['copy_rates_from_pos', { symbol: ['EURUSD'], timeframe: 16385, start_pos: 0, count: 5 }, /'symbol' must be a string, a number or a boolean/],
          ['symbol_info_tick', { symbol: '' }, /'symbol'/],
        ];
        for (const [tool, args, detail] of cases) {
          const r = await callTool(client, tool, args);
          t.match(r, { isError: true, structuredContent: { status: 400, type: '/errors/validation-error', detail } }, `${tool} ${JSON.stringify(args)}`);
        }
        const ok = await callTool(client, 'copy_rates_from_pos', { symbol: 'EURUSD', timeframe: 16385, start_pos: 0, count: 5 });
        t.match(ok.structuredContent, { returned: 5, more: false }, 'constants by integer too');
      });

      await t.test('without the key, no MCP', async (t) => {
        await t.rejects(mcpClient(t, s, v.prefix), { code: 401, message: /\/errors\/unauthorized/ }, 'the SDK client cannot connect: a 401 with the problem');
        await expectProblem(t, await postMcp(s, v.prefix, INITIALIZE()), 401, '/errors/unauthorized', `${v.prefix}/mcp`);
        await expectProblem(t, await postMcp(s, v.prefix, INITIALIZE(), { authorization: 'Bearer wrong' }), 401, '/errors/unauthorized');
        await expectProblem(t, await postMcp(s, v.prefix, INITIALIZE(), { authorization: `Basic ${Buffer.from(`x:${KEY}`).toString('base64')}` }), 401, '/errors/unauthorized');
        const bearerElsewhere = await s.get(`${v.prefix}/account`, { headers: { authorization: v.readOnly ? `Bearer ${READ_ONLY_KEY}` : `Bearer ${KEY}` } });
        await expectProblem(t, bearerElsewhere, 401, '/errors/unauthorized');
      });
    });
  }
});
