// An MCP client without a key learns how to send one (issue 35 §3.8): the 401 of /mcp carries
// `WWW-Authenticate: Bearer realm="tradeapi", error="invalid_token", error_description=…`, fixed
// text that never echoes the key presented, and no OAuth metadata (no resource_metadata, no
// well-known documents). Other routes' 401s carry no challenge. Through the real server.
import { readFileSync } from 'node:fs';
import path from 'node:path';

import t from 'tap';

import { ROOT } from '../helpers/doc-blocks.js';
import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';
import { INITIALIZE, mcpClient, postMcp, rpc } from './mcp-client.js';

const KEY = 'mcp-401-test-key';
const GUESS = 'guessed-key-0123456789';
const CHALLENGE = 'Bearer realm="tradeapi", error="invalid_token", error_description="send X-API-Key or Authorization: Bearer"';

const terminal = simTerminal();
t.teardown(() => terminal.close());

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal, { TRADEAPI_SECRET_KEY: KEY });

  await t.test('POST /mcp without a key, or with a wrong one: 401 with the Bearer challenge, never the key', async (t) => {
    const cases: Array<[string, Record<string, string>]> = [
      ['no key', {}],
      ['a wrong bearer token', { authorization: `Bearer ${GUESS}` }],
      ['a wrong X-API-Key', { 'x-api-key': GUESS }],
      ['another scheme', { authorization: `Basic ${Buffer.from(`u:${GUESS}`).toString('base64')}` }],
    ];
    for (const [name, headers] of cases) {
      const res = await postMcp(s, '', INITIALIZE(), headers);
      t.equal(res.status, 401, `${name}: 401`);
      t.equal(res.headers.get('www-authenticate'), CHALLENGE, `${name}: the challenge`);
      t.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      const body = await res.text();
      t.match(JSON.parse(body), { type: '/errors/unauthorized', status: 401, detail: 'a valid X-API-Key header (or Authorization: Bearer <key>) is required' });
      const all = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n') + body;
      t.notMatch(all, GUESS, `${name}: the key sent is not echoed`);
      t.notMatch(all, KEY, `${name}: nor the server's`);
      t.notMatch(res.headers.get('www-authenticate') ?? '', /resource_metadata|scope=|authorization_uri/, `${name}: no OAuth metadata`);
    }
    const ok = await postMcp(s, '', rpc('tools/list'), { authorization: `Bearer ${KEY}` });
    t.equal(ok.status, 200, 'the right key passes');
    t.equal(ok.headers.get('www-authenticate'), null, 'with no challenge');
  });

  await t.test('GET /mcp without a key: the same challenge; other routes: none', async (t) => {
    const get = await s.get('/mcp', { headers: { accept: 'text/event-stream' } });
    t.equal(get.status, 401);
    t.equal(get.headers.get('www-authenticate'), CHALLENGE, 'the MCP path, whatever the method');
    for (const p of ['/account', '/metrics', '/symbols/EURUSD/tick']) {
      const res = await s.get(p);
      t.equal(res.status, 401, `${p}: 401`);
      t.equal(res.headers.get('www-authenticate'), null, `${p}: no Bearer challenge (X-API-Key only)`);
    }
  });

  await t.test('no OAuth metadata is served', async (t) => {
    for (const p of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const anonymous = await s.get(p);
      t.equal(anonymous.status, 401, `${p} without the key: 401`);
      const keyed = await s.get(p, { headers: { 'x-api-key': KEY } });
      t.equal(keyed.status, 404, `${p} with the key: 404`);
    }
  });

  await t.test("the SDK's client without a key fails on the 401, not on a parse error", async (t) => {
    const failed = await mcpClient(t, s, '').then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(failed, 'refused');
    t.match(String(failed), /401/, String(failed));
    const client = await mcpClient(t, s, '', { authorization: `Bearer ${KEY}` });
    t.ok((await client.listTools()).tools.length > 0, 'with the bearer key it connects');
  });
});

t.test('docs/mcp.md documents the challenge and the absence of OAuth metadata', async (t) => {
  const page = readFileSync(path.join(ROOT, 'docs/mcp.md'), 'utf8');
  t.ok(page.includes(`WWW-Authenticate: ${CHALLENGE}`), 'the header as sent');
  t.match(page, /no OAuth metadata/);
});
