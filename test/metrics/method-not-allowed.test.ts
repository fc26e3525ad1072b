// /metrics counts a method a known route does not allow (GET /mcp, a 405) under that route's
// template, not as `unmatched` (issue 35 §3.9); an unknown path stays `unmatched`. Through the real
// server, with and without a key (a 401 on a known path is that path's too).
import t from 'tap';

import { forEachAdapter, serve, simTerminal, type TestServer } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

/** tradeapi_http_requests_total by `method route status`. */
async function requests(s: TestServer, headers: Record<string, string> = {}): Promise<Map<string, number>> {
  const res = await s.get('/metrics', { headers });
  const out = new Map<string, number>();
  for (const m of (await res.text()).matchAll(/^tradeapi_http_requests_total\{method="([^"]*)",route="([^"]*)",status="([^"]*)"\} (\S+)$/gm)) {
    out.set(`${m[1]} ${m[2]} ${m[3]}`, Number(m[4]));
  }
  return out;
}

const delta = (before: Map<string, number>, after: Map<string, number>, key: string): number => (after.get(key) ?? 0) - (before.get(key) ?? 0);

await forEachAdapter(t, async (t, adapter) => {
  await t.test('without a key', async (t) => {
    const s = await serve(t, adapter, terminal);
    const before = await requests(s);
    const answers = [
      await s.get('/mcp', { headers: { accept: 'text/event-stream' } }),
      await s.post('/account'),
      await s.get('/symbols/EURUSD/select'),
      await s.get('/no/such/path'),
    ];
    t.same(answers.map((r) => r.status), [405, 405, 405, 404]);
    await Promise.all(answers.map((r) => r.arrayBuffer()));
    const after = await requests(s);
    t.equal(delta(before, after, 'GET /mcp 405'), 1, 'GET /mcp: route="/mcp"');
    t.equal(delta(before, after, 'POST /account 405'), 1, 'POST /account: route="/account"');
    t.equal(delta(before, after, 'GET /symbols/{symbol}/select 405'), 1, 'a template with a parameter');
    t.equal(delta(before, after, 'GET unmatched 405'), 0, 'no 405 is unmatched');
    t.equal(delta(before, after, 'POST unmatched 405'), 0);
    t.equal(delta(before, after, 'GET unmatched 404'), 1, 'an unknown path is');
  });

  await t.test('with a key: a refused GET /mcp is /mcp\'s too', async (t) => {
    const KEY = 'metrics-405-key';
    const s = await serve(t, adapter, terminal, { TRADEAPI_SECRET_KEY: KEY });
    const auth = { 'x-api-key': KEY };
    const before = await requests(s, auth);
    const anonymous = await s.get('/mcp');
    const keyed = await s.get('/mcp', { headers: auth });
    t.same([anonymous.status, keyed.status], [401, 405]);
    await Promise.all([anonymous.arrayBuffer(), keyed.arrayBuffer()]);
    const after = await requests(s, auth);
    t.equal(delta(before, after, 'GET /mcp 401'), 1, 'the 401');
    t.equal(delta(before, after, 'GET /mcp 405'), 1, 'the 405');
    t.equal(delta(before, after, 'GET unmatched 401') + delta(before, after, 'GET unmatched 405'), 0, 'neither unmatched');
  });
});
