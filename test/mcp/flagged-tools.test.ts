// /server-time and /store/coverage as MCP tools (issue 35 §3.7): flagged in the route table, not
// data routes. get_server_time is always listed; get_store_coverage only where the store's route is
// served (TRADEAPI_STORE set). Through the MCP endpoint of a real server: tools/list and tools/call,
// each answer the JSON its HTTP twin answers, a failure the twin's problem.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t, { type Test } from 'tap';

import type { Terminal } from '../../src/terminal/index.js';

import { routeTable } from '../../src/routes/index.js';
import { routeTools } from '../../src/routes/mcp-tools.js';
import { runSync } from '../../src/sync/run.js';
import { ROOT } from '../helpers/doc-blocks.js';
import { forEachAdapter, serve, serveReadOnly, simTerminal, READ_ONLY_KEY, type TestServer } from '../helpers/server.js';
import { callTool, mcpClient } from './mcp-client.js';

const store = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-mcp-store-'));
t.teardown(() => rmSync(store, { recursive: true, force: true }));

t.before(async () => {
  // A store holding one day of EURUSD ticks (a Saturday: fetched, empty).
  const quiet = { write: () => true };
  const code = await runSync(['--store', store, '--symbols', 'EURUSD', '--from', '2024-01-06', '--to', '2024-01-06', '--only', 'ticks'], { env: { PATH: process.env.PATH ?? '' }, stdout: quiet, stderr: quiet });
  if (code !== 0) throw new Error(`sync exited ${code}`);
});

/** A simulated terminal closed when the test ends. */
function terminal(t: Test): Terminal {
  const sim = simTerminal();
  t.teardown(() => sim.close());
  return sim;
}

const json = async (s: TestServer, p: string, headers: Record<string, string> = {}): Promise<unknown> => (await s.get(p, { headers })).json();

await forEachAdapter(t, async (t, adapter) => {
  await t.test('without a store: get_server_time listed and answering, no get_store_coverage', async (t) => {
    const s = await serve(t, adapter, terminal(t));
    const client = await mcpClient(t, s, '');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    t.ok(names.includes('get_server_time'), 'get_server_time listed');
    t.notOk(names.includes('get_store_coverage'), 'get_store_coverage not listed');
    const tool = (await client.listTools()).tools.find((x) => x.name === 'get_server_time');
    t.match(tool?.description, /HTTP twin: GET \/server-time/);
    t.match(tool?.annotations, { readOnlyHint: true });
    const r = await callTool(client, 'get_server_time');
    t.notOk(r.isError);
    t.same(r.structuredContent, await json(s, '/server-time'), 'the JSON of GET /server-time');
    t.same(JSON.parse(r.content[0]?.text ?? ''), r.structuredContent, 'as text too');
    const missing = await callTool(client, 'get_store_coverage', { symbol: 'EURUSD' }).catch((e: unknown) => e);
    t.match(String(missing), /no tool named "get_store_coverage"/, 'an unknown tool without a store');
  });

  await t.test('with TRADEAPI_STORE: get_store_coverage answers what GET /store/coverage does', async (t) => {
    const s = await serve(t, adapter, terminal(t), { TRADEAPI_STORE: store });
    const client = await mcpClient(t, s, '');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    t.ok(names.includes('get_server_time') && names.includes('get_store_coverage'), 'both listed');
    const tool = (await client.listTools()).tools.find((x) => x.name === 'get_store_coverage');
    t.same(Object.keys(tool?.inputSchema.properties ?? {}).sort(), ['date_from', 'date_to', 'symbol'], "the route's parameters");
    t.same(tool?.inputSchema.required, ['symbol']);
    const r = await callTool(client, 'get_store_coverage', { symbol: 'EURUSD' });
    t.notOk(r.isError, 'answered', { r });
    t.same(r.structuredContent, await json(s, '/store/coverage?symbol=EURUSD'), 'the JSON of GET /store/coverage');
    t.match(r.structuredContent, { symbol: 'EURUSD', from: '2024-01-06', to: '2024-01-06' });
    const ranged = await callTool(client, 'get_store_coverage', { symbol: 'EURUSD', date_from: '2024-01-05T00:00:00Z', date_to: '2024-01-06T00:00:00Z' });
    t.same(ranged.structuredContent, await json(s, '/store/coverage?symbol=EURUSD&date_from=2024-01-05T00:00:00Z&date_to=2024-01-06T00:00:00Z'), 'with a range');
    const none = await callTool(client, 'get_store_coverage', { symbol: 'USDJPY' });
    t.ok(none.isError, 'a symbol the store does not hold: a tool error');
    t.match(none.structuredContent, { status: 404, type: '/errors/not-found', detail: 'the store holds nothing of USDJPY', instance: '/store/coverage' });
    const bad = await callTool(client, 'get_store_coverage', { symbol: 'EURUSD', date_from: 'yesterday' });
    t.match(bad.structuredContent, { status: 400 }, "the route's own parser refuses a bad date");
  });

  await t.test('read-only with a store: both tools there too', async (t) => {
    const s = await serveReadOnly(t, adapter, terminal(t), { TRADEAPI_STORE: store });
    const client = await mcpClient(t, s, '/api/v1', { 'x-api-key': READ_ONLY_KEY });
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    t.ok(names.includes('get_server_time') && names.includes('get_store_coverage'), 'both listed');
    const r = await callTool(client, 'get_server_time');
    t.same(r.structuredContent, await json(s, '/api/v1/server-time', { 'x-api-key': READ_ONLY_KEY }));
  });
});

t.test('docs/mcp.md names the tools that exist, and says the list depends on TRADEAPI_STORE', async (t) => {
  const page = readFileSync(path.join(ROOT, 'docs/mcp.md'), 'utf8');
  t.match(page, /`get_server_time`/);
  t.match(page, /`get_store_coverage`[\s\S]{0,200}only when\s+`TRADEAPI_STORE` is set/);
  t.match(page, /the tool list depends on it/);
  // Every tool-like name the page gives (`get_…`, `post_…`) is a tool of a server with a store,
  // but those it names as no tools (operational routes).
  const tools = new Set(routeTools(routeTable({ prefix: '', version: '0', authRequired: false, readOnly: false, store: true }), '').map((tool) => tool.name));
  const named = [...new Set([...page.matchAll(/`((?:get|post)_[a-z_]+)`/g)].map((m) => m[1] as string))];
  t.ok(named.length >= 2, `the page names ${named.join(', ')}`);
  for (const name of named) t.ok(tools.has(name), `${name} is a tool`);
});
