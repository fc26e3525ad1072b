// Issue 27: /mcp over the wire, on every adapter that loads. JSON answers unless the client's
// Accept prefers server-sent events; the pipeline's bounds before the SDK parses anything (media
// type, size, nesting, JSON-RPC shape), each a 4xx problem; Host/Origin rules of a keyless server;
// the rate limit counting each tool call, batches included; logs without the key.
import http from 'node:http';
import { Writable } from 'node:stream';

import { pino } from 'pino';
import t from 'tap';

import { MAX_JSON_DEPTH } from '../../src/http/json-depth.js';
import { MAX_BODY_BYTES } from '../../src/http/protocol-problems.js';
import { startServer } from '../../src/server.js';
import { expectProblem, forEachAdapter, READ_ONLY_KEY, serve, serveReadOnly, simTerminal, testConfig, type TestServer } from '../helpers/server.js';
import { callTool, INITIALIZE, mcpClient, postMcp, rpc } from './mcp-client.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const KEY = 'mcp-protocol-key';
const TICK = (): Record<string, unknown> => rpc('tools/call', { name: 'symbol_info_tick', arguments: { symbol: 'EURUSD' } });

/** The JSON-RPC messages of an event stream's `data:` lines. */
function events(text: string): { id?: number; result?: Record<string, unknown> }[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 'data: '.length)
    .map((line) => JSON.parse(line.slice('data: '.length)) as { id?: number; result?: Record<string, unknown> });
}

/** A POST with any Host and Origin (fetch sets Host itself). */
function rawPost(s: TestServer, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; type: string; body: string }> {
  const port = Number(new URL(s.base).port);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

await forEachAdapter(t, async (t, adapter) => {
  await t.test('answers: JSON, server-sent events where the client prefers them, 202 for notifications', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_SECRET_KEY: KEY });
    const key = { 'x-api-key': KEY };

    const json = await postMcp(s, '', INITIALIZE(), key);
    t.equal(json.status, 200);
    t.match(json.headers.get('content-type'), /^application\/json/);
    t.equal(json.headers.get('cache-control'), 'no-store');
    t.ok(json.headers.get('x-request-id'), 'the pipeline\'s headers');
    t.notOk(json.headers.get('mcp-session-id'), 'stateless: no session');
    t.match(await json.json(), { jsonrpc: '2.0', result: { serverInfo: { name: 'tradeapi' }, capabilities: { tools: {} } } });

    for (const accept of [undefined, 'application/json', '*/*', 'text/event-stream;q=0.5, application/json']) {
      const res = await postMcp(s, '', TICK(), accept === undefined ? key : { ...key, accept });
      t.match(res.headers.get('content-type'), /^application\/json/, `Accept ${accept ?? '(none)'}: JSON`);
      t.match(await res.json(), { result: { structuredContent: { bid: Number } } });
    }
    for (const accept of ['text/event-stream', 'application/json;q=0.5, text/event-stream']) {
      const res = await postMcp(s, '', [TICK(), rpc('tools/list'), TICK()], { ...key, accept });
      t.equal(res.status, 200);
      t.match(res.headers.get('content-type'), /^text\/event-stream/, `Accept ${accept}: an event stream`);
      const messages = events(await res.text());
      t.equal(messages.length, 3, 'one event per answer, then the stream ends');
      t.ok(messages.every((m) => m.result !== undefined), 'all answers');
    }
    const batch = await postMcp(s, '', [TICK(), rpc('tools/call', { name: 'account_info', arguments: {} })], key);
    const answers = (await batch.json()) as { result: { structuredContent: Record<string, unknown> } }[];
    t.equal(answers.length, 2, 'a batch answers each call');
    t.match(answers[1]?.result.structuredContent, { currency: String });

    const note = await postMcp(s, '', { jsonrpc: '2.0', method: 'notifications/initialized' }, key);
    t.equal(note.status, 202, 'a notification is accepted with no answer');
    t.equal(await note.text(), '');
    const unknown = await postMcp(s, '', rpc('tools/call', { name: 'order_send', arguments: {} }), key);
    t.match(await unknown.json(), { error: { code: -32602, message: /no tool named "order_send"/ } }, 'an unknown tool is a JSON-RPC error');
  });

  await t.test('bounds and shapes: a 4xx problem before the SDK parses anything', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_SECRET_KEY: KEY, TRADEAPI_ROUTER_PREFIX: '/gw' });
    const key = { 'x-api-key': KEY };
    const post = (body: unknown, headers: Record<string, string> = {}) => postMcp(s, '/gw', body, { ...key, ...headers });

    await expectProblem(t, await post(INITIALIZE(), { accept: 'text/html' }), 406, '/errors/not-acceptable', '/gw/mcp');
    await expectProblem(t, await post(INITIALIZE(), { 'content-type': 'text/plain' }), 415, '/errors/unsupported-media-type');
    const large = await post({ ...INITIALIZE(), padding: 'x'.repeat(MAX_BODY_BYTES) });
    await expectProblem(t, large, 413, '/errors/payload-too-large');
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    t.match((await expectProblem(t, await post(deep), 400, '/errors/validation-error')).detail, /nested deeper than 32/);
    t.match((await expectProblem(t, await post('{"jsonrpc": "2.0",'), 400, '/errors/validation-error')).detail, /not valid JSON/);
    t.match((await expectProblem(t, await post({ hello: 'world' }), 400, '/errors/validation-error')).detail, /the body is not a JSON-RPC 2\.0 message/);
    t.match((await expectProblem(t, await post([TICK(), { jsonrpc: '1.0', id: 1, method: 'x' }]), 400, '/errors/validation-error')).detail, /message 1 is not a JSON-RPC 2\.0 message/);
    t.match((await expectProblem(t, await post([]), 400, '/errors/validation-error')).detail, /1 to 100 JSON-RPC messages; received 0/);
    t.match((await expectProblem(t, await post(Array.from({ length: 101 }, TICK)), 400, '/errors/validation-error')).detail, /received 101/);
    t.match((await expectProblem(t, await post(TICK(), { 'mcp-protocol-version': '1999-01-01' }), 400, '/errors/validation-error')).detail, /MCP-Protocol-Version "1999-01-01"/);

    const get = await s.get('/gw/mcp', { headers: key });
    await expectProblem(t, get, 405, '/errors/method-not-allowed');
    t.equal(get.headers.get('allow'), 'POST', 'no server-to-client stream: POST only');
  });

  await t.test('a keyless server: the Host and Origin rules hold for /mcp too', async (t) => {
    const s = await serve(t, adapter, terminal);
    const body = JSON.stringify(INITIALIZE());
    const rebound = await rawPost(s, '/mcp', { host: 'attacker.example' }, body);
    t.equal(rebound.status, 421, 'a rebound name: 421');
    t.match(rebound.type, /^application\/problem\+json/);
    const foreign = await rawPost(s, '/mcp', { host: `127.0.0.1:${new URL(s.base).port}`, origin: 'http://attacker.example' }, body);
    t.equal(foreign.status, 403, 'a foreign page: 403');
    t.match(JSON.parse(foreign.body), { type: '/errors/origin-not-allowed' });
    const local = await rawPost(s, '/mcp', { host: `localhost:${new URL(s.base).port}` }, body);
    t.equal(local.status, 200, 'localhost is served');
  });

  await t.test('read-only: each tool call counts against the rate limit, batches included', async (t) => {
    const s = await serveReadOnly(t, adapter, terminal, { API_RATE_LIMIT: '6' });
    const key = { 'x-api-key': READ_ONLY_KEY };
    // The request counts once, covering its first tool call; each further one counts once more.
    const five = await postMcp(s, '/api/v1', [TICK(), TICK(), TICK(), TICK(), TICK()], key);
    t.equal(five.status, 200, '1 request + 4 more tool calls = 5 of 6');
    t.equal((await five.json() as unknown[]).length, 5);
    const after = await s.get('/api/v1/version', { headers: key });
    t.equal(after.headers.get('ratelimit-remaining'), '0', 'the 6th request takes the last one');
    await after.arrayBuffer();
    const refused = await postMcp(s, '/api/v1', TICK(), key);
    const p = await expectProblem(t, refused, 429, '/errors/rate-limit-exceeded', '/api/v1/mcp');
    t.match(p.detail, /more than 6 requests/);
    t.ok(refused.headers.get('retry-after'), 'Retry-After');

    const fresh = await serveReadOnly(t, adapter, terminal, { API_RATE_LIMIT: '6' });
    const seven = await postMcp(fresh, '/api/v1', Array.from({ length: 7 }, TICK), key);
    await expectProblem(t, seven, 429, '/errors/rate-limit-exceeded');
    // Refused whole, it cost nothing (batch-rate-limit.test.ts): six calls still fit, and take it all.
    const six = await postMcp(fresh, '/api/v1', Array.from({ length: 6 }, TICK), key);
    t.equal(six.status, 200, 'a batch of 6 fits the untouched allowance');
    await six.arrayBuffer();
    const client = await mcpClient(t, fresh, '/api/v1', key).catch((e: unknown) => e);
    t.match(client, { code: 429 }, 'and the SDK client is refused past the limit');
  });

  await t.test('logs: a line per request and per tool call, never the key', async (t) => {
    let logged = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged += chunk.toString();
        done();
      },
    });
    const config = testConfig({ TRADEAPI_SECRET_KEY: KEY });
    const server = await startServer({ terminal, config, adapter, host: '127.0.0.1', port: 0, logger: pino({ level: 'info' }, sink) });
    t.teardown(() => server.close(1000));
    const base = `http://127.0.0.1:${server.port}`;
    const s: TestServer = { base, server, adapter: adapter.name, get: (p, i) => fetch(base + p, i), post: (p, i) => fetch(base + p, { method: 'POST', ...i }) };
    const client = await mcpClient(t, s, '', { authorization: `Bearer ${KEY}` });
    await callTool(client, 'symbol_info_tick', { symbol: 'EURUSD' });
    await callTool(client, 'symbol_info_tick', { symbol: 'NOPE' });
    await client.close();
    const lines = logged.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    t.ok(lines.some((l) => l.msg === 'request' && l.path === '/mcp' && l.method === 'POST'), 'request lines');
    t.ok(lines.some((l) => l.msg === 'tool call' && l.tool === 'symbol_info_tick' && l.problem === undefined), 'a tool call line');
    t.ok(lines.some((l) => l.msg === 'tool call' && l.problem === '/errors/symbol-not-found'), 'a failed tool call names its problem');
    t.notMatch(logged, KEY, 'the key is never logged');
    t.notMatch(logged, /authorization|bearer/i, 'nor the header');
  });
});
