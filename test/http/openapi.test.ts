// /openapi.json describes exactly the route table; /docs serves Swagger UI locally.
import t from 'tap';

import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

interface Operation {
  parameters: Array<{ name: string; in: string; required: boolean; schema: Record<string, unknown> }>;
  responses: Record<string, { content?: Record<string, unknown> }>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  description?: string;
}
interface Doc {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
}

const SERIES = ['/rates/from', '/rates/from-pos', '/rates/range', '/ticks/from', '/ticks/range', '/ticks/bars'];

const ops = (doc: Doc) => Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal);

  await t.test('openapi.json', async (t) => {
    const res = await s.get('/openapi.json');
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /application\/json/);
    const doc = (await res.json()) as Doc;
    t.equal(doc.openapi, '3.1.0');
    // OpenAPI 3.1 is JSON Schema 2020-12: a tuple is prefixItems, never draft-07's `items: [...]`
    // (schemathesis refuses the whole document for one such schema).
    const arrayItems: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) node.forEach((x, i) => walk(x, `${where}/${i}`));
      else if (node !== null && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === 'items' && Array.isArray(v)) arrayItems.push(where);
          walk(v, `${where}/${k}`);
        }
      }
    };
    walk(doc, '#');
    t.same(arrayItems, [], 'no schema writes items as an array');
    const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([m, op]) => ({ path, method: m, op })));
    t.equal(ops.length, 35, 'the 29 Variant A endpoints, /ticks/bars, /account/changes, /server-time, /events, /ws and /metrics (/store/coverage only with a store)');
    t.notOk(doc.paths['/docs'] ?? doc.paths['/openapi.json'], 'docs routes are not API endpoints');

    for (const { path, op } of ops) {
      if (path === '/health') continue;
      const content = op.responses['200']?.content ?? {};
      if (path === '/ws') {
        t.same(Object.keys(op.responses).filter((s) => s < '400'), ['101'], '/ws: Switching Protocols, no 200');
        t.ok(op.responses['426'] && op.responses['503'] && op.responses['500'], '/ws: its refusals documented');
        t.match(op.description, /"op":"subscribe"/, '/ws: the protocol is described');
        continue;
      }
      if (path === '/metrics') {
        t.same(Object.keys(content), ['text/plain'], '/metrics: the Prometheus text format');
        t.ok(op.responses['500'], '/metrics: 500 documented');
        t.notOk(op.responses['502'] ?? op.responses['503'], '/metrics: no terminal problems (it calls no terminal)');
        continue;
      }
      if (path === '/store/coverage') {
        t.same(Object.keys(content), ['application/json'], '/store/coverage: a JSON report');
        continue;
      }
      if (path === '/server-time' || path === '/account/changes') {
        t.same(Object.keys(content), ['application/json'], `${path}: a JSON answer (one object of several parts)`);
        continue;
      }
      if (path === '/events') {
        t.same(Object.keys(content), ['text/event-stream'], '/events: an event stream only');
        t.ok(op.responses['503'] && op.responses['404'] && op.responses['406'], '/events: its refusals documented');
        const lastEventId = op.parameters.find((p) => p.name === 'Last-Event-ID');
        t.match(lastEventId, { in: 'header', required: false, schema: { type: 'string', maxLength: 4096 } }, '/events: Last-Event-ID is a header parameter');
        continue;
      }
      t.ok(content['application/json'] && content['application/parquet'], `${path}: json and parquet`);
      t.equal(Boolean(content['application/vnd.apache.arrow.stream']), SERIES.includes(path), `${path}: arrow only for series`);
      t.equal(Boolean(content['application/vnd.tradeapi.packed']), SERIES.includes(path), `${path}: packed rows only for series`);
      t.ok(op.responses['500'], `${path}: 500 documented`);
    }
    const param = (path: string, name: string) => doc.paths[path]?.get?.parameters.find((p) => p.name === name);
    const timeframe = JSON.stringify(param('/rates/from', 'timeframe')?.schema);
    t.match(timeframe, /TIMEFRAME_M1/);
    t.match(timeframe, /16385/);
    t.match(JSON.stringify(param('/ticks/range', 'flags')?.schema), /COPY_TICKS_ALL/);
    t.match(JSON.stringify(param('/calc/margin', 'action')?.schema), /ORDER_TYPE_BUY/);
    t.match(param('/rates/from', 'count'), { required: true, schema: { type: 'integer', minimum: 1, maximum: 1000000 } });
    t.match(param('/symbols', 'group'), { required: false });
    // The multi-symbol choice, with examples, on the range routes and custom bars alike.
    for (const path of ['/ticks/range', '/rates/range', '/ticks/bars']) {
      t.match(param(path, 'symbol'), { required: false, schema: { examples: ['EURUSD'] } }, `${path}: symbol optional`);
      t.match(param(path, 'symbols'), { required: false, schema: { maxLength: 2048, examples: ['EURUSD,GBPUSD,USDJPY'] } }, `${path}: symbols`);
      t.match(param(path, 'group'), { required: false, schema: { examples: ['*USD*,!EURUSD'] } }, `${path}: group`);
    }
    t.match(param('/rates/from', 'date_from'), { schema: { type: 'string', format: 'date-time' } });
    t.notMatch(JSON.stringify(doc), /x-kind|x-family/, 'private hints stripped');
    t.match(doc.paths['/symbols/{symbol}/select']?.post?.parameters, [{ name: 'symbol', in: 'path', required: true }, { name: 'enable', in: 'query', required: true }]);
    const body = doc.paths['/order/check']?.post?.requestBody?.content['application/json']?.schema;
    t.match(body, { properties: { request: { additionalProperties: false, required: ['action'] } } });
    t.equal(Object.keys((body?.properties as { request: { properties: object } }).request.properties).length, 17);
    t.ok(doc.paths['/market-book/{symbol}/subscribe']?.post?.responses['429'], '429 documented');
    // What the server accepts, found by fuzzing the document against it (schemathesis).
    const profitAction = param('/calc/profit', 'action')?.schema as { enum: unknown[] };
    t.same(profitAction.enum, ['ORDER_TYPE_BUY', 'ORDER_TYPE_SELL', 0, 1], 'profit: BUY and SELL only, by name or integer');
    t.notMatch(JSON.stringify(param('/calc/margin', 'action')?.schema), /CLOSE_BY/, 'margin: no CLOSE_BY');
    t.match(param('/calc/margin', 'volume'), { schema: { type: 'number', exclusiveMinimum: 0, maximum: 1e9 } });
    t.match(param('/calc/profit', 'price_close'), { schema: { type: 'number', minimum: 1e-9, maximum: 1e12 } });
    const request = (body?.properties as { request: { properties: Record<string, object> } }).request.properties;
    t.match(request.comment, { type: 'string', maxLength: 31 });
  });

  await t.test('choices are enums (Swagger UI shows a dropdown, not a text box)', async (t) => {
    const doc = (await (await s.get('/openapi.json')).json()) as Doc;
    const schema = (path: string, name: string, method = 'get') => doc.paths[path]?.[method]?.parameters.find((p) => p.name === name)?.schema;
    t.same(schema('/rates/from', 'format'), { type: 'string', enum: ['json', 'parquet', 'arrow', 'packed'] });
    t.same(schema('/account', 'format'), { type: 'string', enum: ['json', 'parquet'] });
    t.same(schema('/ticks/range', 'compression'), { type: 'string', enum: ['zstd', 'lz4', 'snappy', 'none'] });
    const timeframe = schema('/rates/from', 'timeframe') as { enum: unknown[]; anyOf?: unknown };
    t.notOk(timeframe.anyOf, 'no anyOf left');
    t.equal(timeframe.enum[0], 'TIMEFRAME_M1', 'names first');
    t.ok(timeframe.enum.includes(16385) && timeframe.enum.includes('TIMEFRAME_H1'), 'names and integers (TIMEFRAME_H1 = 16385)');
    t.ok((schema('/ticks/range', 'flags') as { enum: unknown[] }).enum.includes('COPY_TICKS_ALL'));
    t.ok((schema('/calc/margin', 'action') as { enum: unknown[] }).enum.includes('ORDER_TYPE_BUY'));
    const anyOfLeft = ops(doc).flatMap(({ path, op }) => op.parameters.filter((p) => 'anyOf' in p.schema).map((p) => `${path} ${p.name}`));
    t.same(anyOfLeft, [], 'no parameter is left as a free-text anyOf');
  });

  await t.test('docs page and assets, no CDN', async (t) => {
    const page = await s.get('/docs');
    t.equal(page.status, 200);
    t.match(page.headers.get('content-type'), /text\/html/);
    const html = await page.text();
    t.notMatch(html, /https?:\/\//, 'no external URLs');
    for (const src of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
      const res = await s.get(src[1] as string);
      t.equal(res.status, 200, `${src[1]} served`);
      await res.arrayBuffer();
    }
    const init = await (await s.get('/docs/swagger-initializer.js')).text();
    t.match(init, /var url = "\/openapi\.json"/);
    t.match(init, /validatorUrl: null/);
    t.notMatch(init, /petstore/);
    const missing = await s.get('/docs/../package.json');
    t.equal(missing.status, 404);
    await missing.arrayBuffer();
    const secret = await s.get('/docs/%2E%2E%2Fpackage.json');
    t.equal(secret.status, 404, 'only whitelisted files');
    await secret.arrayBuffer();
  });
});
