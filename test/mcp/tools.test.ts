// Issue 27: the MCP tools are the route table's, never hand-written. Every data route has exactly
// one tool, named after the MetaTrader5 function it mirrors (its OpenAPI operationId too), with the
// route's own schemas as input; operational routes are no tools; and a route that MCP code has
// never heard of becomes a tool, served over /mcp, by being in the table.
import { Type } from '@sinclair/typebox';
import t from 'tap';

import { loadConfig } from '../../src/config/index.js';
import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import { createDispatcher } from '../../src/http/dispatch.js';
import { openApiDocument } from '../../src/http/openapi.js';
import { Param } from '../../src/http/params.js';
import { defineRoute, operationName, type Route, type Services } from '../../src/http/route.js';
import { Router } from '../../src/http/router.js';
import { createLogger } from '../../src/log.js';
import { ServiceMetrics } from '../../src/metrics.js';
import { apiRoutes, routeTable } from '../../src/routes/index.js';
import { mcpRoutes } from '../../src/routes/mcp.js';
import { isDataRoute, isToolRoute, MAX_INLINE_ROWS, routeTools } from '../../src/routes/mcp-tools.js';
import type { Series, TickChunk } from '../../src/terminal/series.js';
import { callTool, mcpClient } from './mcp-client.js';

const table = (readOnly: boolean): Route[] => routeTable({ prefix: '', version: '0', authRequired: false, readOnly });

t.test('every data route has its tool, named after its MetaTrader5 function, with its own schemas', async (t) => {
  for (const readOnly of [false, true]) {
    const routes = table(readOnly);
    const data = routes.filter(isToolRoute);
    const tools = routeTools(routes, '/p');
    t.equal(tools.length, data.length, `${readOnly ? 'read-only' : 'full'}: ${tools.length} tools for ${data.length} data and flagged routes`);
    t.same(data.filter((r) => !isDataRoute(r)).map((r) => r.path).sort(), ['/account/changes', '/server-time'], 'flagged in the table: /server-time, /account/changes (/store/coverage with a store)');
    for (const route of data) {
      const matching = tools.filter((tool) => tool.route === route);
      t.equal(matching.length, 1, `${route.method} ${route.path}: one tool`);
      const tool = matching[0];
      if (!tool) continue;
      // Named after the MetaTrader5 function it mirrors, else after its method and path.
      t.equal(tool.name, route.mt5 ?? operationName(route.method, route.path), `${route.method} ${route.path} → ${tool.name}`);
      t.equal(tool.name, route.operationId);
      const expected = [
        ...Object.keys(route.params.properties),
        ...Object.keys(route.query.properties).filter((n) => n !== 'format'),
        ...Object.keys((route.body?.properties as Record<string, unknown> | undefined) ?? {}),
      ];
      t.same(Object.keys(tool.definition.inputSchema.properties).sort(), expected.sort(), `${tool.name}: the route's parameters and body members`);
      for (const name of Object.keys(route.params.properties)) t.ok(tool.definition.inputSchema.required?.includes(name), `${tool.name}: path parameter ${name} required`);
      for (const name of route.query.required ?? []) t.ok(tool.definition.inputSchema.required?.includes(name), `${tool.name}: query parameter ${name} required`);
      t.equal(tool.definition.annotations.readOnlyHint, !route.operational, `${tool.name}: read-only hint`);
      t.ok(tool.definition.description.startsWith(route.summary), `${tool.name}: described by the route's docs`);
    }
    const names = new Set(tools.map((tool) => tool.name));
    const mirrors: Record<string, string> = {
      '/account': 'account_info',
      '/symbols/{symbol}/tick': 'symbol_info_tick',
      '/ticks/range': 'copy_ticks_range',
      '/rates/from-pos': 'copy_rates_from_pos',
      '/positions': 'positions_get',
      '/history/deals': 'history_deals_get',
      '/order/check': 'order_check',
      '/calc/margin': 'order_calc_margin',
      '/symbols/{symbol}/select': 'symbol_select',
      '/market-book/{symbol}': 'market_book_get',
    };
    for (const [path, mt5] of Object.entries(mirrors)) {
      const route = data.find((r) => r.path === path);
      if (route) t.equal(route.mt5, mt5, `${path} mirrors ${mt5}`);
      else t.ok(readOnly, `${path} is missing only in read-only`);
    }
    t.equal(names.size, tools.length, 'names are unique');
    // What the read-only variant lists is exactly its read-only data routes.
    if (readOnly) t.notOk(names.has('order_check') || names.has('symbol_select'), 'no operational tool in read-only');
  }
});

t.test('operational routes are no tools', async (t) => {
  const routes = table(false);
  const names = new Set(routeTools(routes, '').map((tool) => tool.route.path));
  for (const path of ['/health', '/metrics', '/docs', '/docs/{asset}', '/openapi.json', '/events', '/ws', '/mcp']) {
    t.ok(routes.some((r) => r.path === path), `${path} is a route`);
    t.notOk(names.has(path), `${path} is no tool`);
  }
});

t.test('one name for OpenAPI and MCP: the operationId is the tool name', async (t) => {
  const doc = openApiDocument(apiRoutes, { prefix: '', version: '0', authRequired: false }) as { paths: Record<string, Record<string, { operationId: string }>> };
  const tools = new Map(routeTools(apiRoutes, '').map((tool) => [`${tool.route.method} ${tool.route.path}`, tool.name]));
  const ids: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      ids.push(op.operationId);
      const tool = tools.get(`${method.toUpperCase()} ${path}`);
      if (tool !== undefined) t.equal(op.operationId, tool, `${method.toUpperCase()} ${path}`);
    }
  }
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  t.ok(ids.includes('symbol_info_tick') && ids.includes('get_health') && ids.includes('get_events'), 'MT5 names, and derived ones for the rest');
  t.equal(operationName('GET', '/symbols/{symbol}/tick'), 'get_symbols_symbol_tick');
  t.equal(operationName('POST', '/market-book/{symbol}/subscribe'), 'post_market_book_symbol_subscribe');
});

// A route nobody wrote MCP code for: a list longer than the inline bound, a path parameter, a
// constant and a date, no MetaTrader5 twin.
const widgets = defineRoute({
  method: 'GET',
  path: '/widgets/{widget}/spin-rates',
  summary: 'Spin rates of a widget',
  tags: ['widgets'],
  operational: false,
  terminal: false,
  params: { widget: Param.symbol('Widget name') },
  query: { since: Param.date('First spin'), timeframe: Param.constant('TIMEFRAME', 'Spin bucket'), count: Param.count(5000) },
  response: { kind: 'records', description: 'spin rates', schema: Type.Array(Type.Object({ i: Type.Integer(), widget: Type.String() })) },
  async handler({ params, query }) {
    const rows = Array.from({ length: query.count }, (_, i) => ({ i, widget: params.widget, since: query.since, timeframe: query.timeframe }));
    return { kind: 'records', rows, columns: [['i', 'int64'], ['widget', 'string'], ['since', 'int64'], ['timeframe', 'int64']] };
  },
});

t.test('a new route gets its tool without touching MCP code', async (t) => {
  const tools = routeTools([...apiRoutes, widgets], '/p');
  const tool = tools.find((x) => x.route === widgets);
  t.equal(tool?.name, 'get_widgets_widget_spin_rates', 'named from its path');
  t.same(tool?.definition.inputSchema.required, ['widget', 'since', 'timeframe', 'count']);

  // Served end to end: the MCP route over a table holding it, through the real pipeline.
  const config = loadConfig({ TRADEAPI_HOST: '127.0.0.1', TRADEAPI_PORT: '0' });
  const metrics = new ServiceMetrics({ version: '0', terminal: 'none', mode: 'full' }, { processMetrics: false });
  const services = { config, metrics } as unknown as Services; // the widget route calls no terminal
  const router = new Router([widgets, ...mcpRoutes([widgets], { prefix: '', version: '0' })]);
  const handler = createDispatcher({ router, prefix: '', services, keyCheck: undefined, logger: createLogger('silent') });
  const listening = await nodeAdapter.listen('127.0.0.1', 0, handler, { ...config.connections, methods: ['GET', 'POST'] });
  t.teardown(() => listening.close(100));
  const base = `http://127.0.0.1:${listening.port}`;
  const s = { base, adapter: 'node', server: undefined as never, get: (p: string, i?: RequestInit) => fetch(base + p, i), post: (p: string, i?: RequestInit) => fetch(base + p, { method: 'POST', ...i }) };
  const client = await mcpClient(t, s, '');
  t.same((await client.listTools()).tools.map((x) => x.name), ['get_widgets_widget_spin_rates']);
  const r = await callTool(client, 'get_widgets_widget_spin_rates', { widget: 'w/1', since: '2024-01-10T00:00:00Z', timeframe: 'TIMEFRAME_H1', count: 1500 });
  t.notOk(r.isError);
  const answer = r.structuredContent as { rows: { i: number; widget: string; since: number; timeframe: number }[]; returned: number; more: boolean; parquet: string };
  t.equal(answer.returned, MAX_INLINE_ROWS);
  t.equal(answer.more, true);
  t.same(answer.rows[0], { i: 0, widget: 'w/1', since: Date.UTC(2024, 0, 10), timeframe: 16385 }, 'parsed by the route\'s own parameters');
  t.equal(answer.parquet, '/widgets/w%2F1/spin-rates?since=2024-01-10T00%3A00%3A00Z&timeframe=TIMEFRAME_H1&count=1500&format=parquet');
  const parquet = await fetch(base + answer.parquet);
  t.equal(parquet.status, 200, 'and its Parquet path is served');
  t.equal(parquet.headers.get('content-type'), 'application/parquet');
  await parquet.arrayBuffer();
  const bad = await callTool(client, 'get_widgets_widget_spin_rates', { widget: 'w', since: '2024-01-10', timeframe: 'TIMEFRAME_H1', count: 1 });
  t.match(bad, { isError: true, structuredContent: { status: 400, detail: /'since' must be an ISO 8601/, instance: '/widgets/w/spin-rates' } });
});

t.test('a series is bounded without being read to its end', async (t) => {
  // An endless series: the tool must stop one row past the bound and close it.
  let produced = 0;
  let closed = false;
  let chunkRows = 64 * 1024;
  const chunk = (rows: number): TickChunk => {
    const start = produced;
    produced += rows;
    const ints = (f: (i: number) => number) => BigInt64Array.from({ length: rows }, (_, i) => BigInt(f(start + i)));
    return {
      rows,
      time: ints((i) => i),
      bid: new Float64Array(rows).fill(1.1),
      ask: new Float64Array(rows).fill(1.2),
      last: new Float64Array(rows),
      volume: new BigUint64Array(rows),
      time_msc: ints((i) => i * 1000),
      flags: new Uint32Array(rows).fill(6),
      volume_real: new Float64Array(rows),
    };
  };
  const endless: Series<TickChunk> = {
    next: () => Promise.resolve(closed ? null : chunk(Math.min(chunkRows, 300))),
    close: () => void (closed = true),
    setChunkRows: (rows) => void (chunkRows = rows),
    async *[Symbol.asyncIterator]() {
      for (let c = await endless.next(); c !== null; c = await endless.next()) yield c;
    },
  };
  const route = defineRoute({
    method: 'GET',
    path: '/endless',
    summary: 'Ticks without end',
    tags: ['test'],
    operational: false,
    response: { kind: 'series', description: 'ticks' },
    handler: () => Promise.resolve({ kind: 'series', which: 'ticks', series: endless }),
  });
  const [tool] = routeTools([route], '');
  const r = await tool?.call({}, {} as Services);
  const answer = r?.structuredContent as { rows: { time_msc: number }[]; returned: number; more: boolean; parquet: string };
  t.equal(answer.returned, MAX_INLINE_ROWS);
  t.equal(answer.more, true);
  t.equal(answer.rows.at(-1)?.time_msc, (MAX_INLINE_ROWS - 1) * 1000, 'the first 1000 rows, in order');
  t.equal(answer.parquet, '/endless?format=parquet');
  t.ok(closed, 'the series was closed');
  t.ok(produced <= MAX_INLINE_ROWS + 300, `${produced} rows produced: one chunk past the bound at most`);
});
