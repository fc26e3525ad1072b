// Issue 23 item 4, first friction: a MetaTrader5 constant is taken by name wherever the query takes
// one, the JSON body of POST /order/check included (`"action": "TRADE_ACTION_DEAL"` was a 400
// "Expected integer"); an unknown name gets the query's own 400, which lists the names; the
// OpenAPI body schema says both forms are accepted. The calc routes take their constants in the
// query, by name or integer, already: checked here so that they stay so.
import t from 'tap';

import { expectProblem, forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

interface CheckResult {
  retcode: number;
  comment: string;
  margin: number;
  request: Record<string, unknown>;
}

/** The four constant members of MqlTradeRequest and their families. */
const CONSTANT_MEMBERS = { action: 'TRADE_ACTION', type: 'ORDER_TYPE', type_filling: 'ORDER_FILLING', type_time: 'ORDER_TIME' } as const;

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal);
  const check = (request: Record<string, unknown>) =>
    s.post('/order/check', { body: JSON.stringify({ request }), headers: { 'content-type': 'application/json' } });

  await t.test('names in the body are their integers', async (t) => {
    const byNumber = { action: 1, symbol: 'USDJPY', volume: 1, type: 0, price: 150, type_filling: 1, type_time: 0 };
    const byName = { ...byNumber, action: 'TRADE_ACTION_DEAL', type: 'ORDER_TYPE_BUY', type_filling: 'ORDER_FILLING_IOC', type_time: 'ORDER_TIME_GTC' };
    const a = await check(byNumber);
    const b = await check(byName);
    t.equal(b.status, 200, 'names accepted', { body: b.status === 200 ? undefined : await b.clone().text() });
    const [ra, rb] = [(await a.json()) as CheckResult, (await b.json()) as CheckResult];
    t.match(rb, { retcode: 0, comment: 'Done' });
    t.same(rb, ra, 'the same answer as with the integers, the echoed request holding the integers');
    // Names and integers mix freely.
    const mixed = await check({ ...byNumber, action: 'TRADE_ACTION_DEAL' });
    t.equal(mixed.status, 200);
  });

  await t.test('a DEAL named without its symbol is still the 400 that names request.symbol', async (t) => {
    const p = await expectProblem(t, await check({ action: 'TRADE_ACTION_DEAL', volume: 0.1 }), 400, '/errors/validation-error');
    t.match(p.detail, /body member 'request\.symbol' is required for action 1 \(TRADE_ACTION_DEAL\)/);
  });

  await t.test('an unknown name: the 400 the query gives, naming the member and the allowed names', async (t) => {
    // The query's answer to an unknown name, for the shape to compare with.
    const q = await expectProblem(t, await s.get('/calc/margin?action=ORDER_TYPE_NOPE&symbol=EURUSD&volume=1&price=1.1'), 400, '/errors/validation-error');
    t.match(q.detail, /^query parameter 'action' must be an ORDER_TYPE constant name or its integer value \(allowed: ORDER_TYPE_BUY, .*\); received "ORDER_TYPE_NOPE"$/);
    const queryTail = (q.detail.split(' must be ')[1] ?? '').replace(/\(allowed: [^)]*\)/, '(allowed: …)');
    for (const [member, family] of Object.entries(CONSTANT_MEMBERS)) {
      const request = { action: 1, symbol: 'EURUSD', volume: 0.1, type: 0, [member]: `${family}_NOPE` };
      const p = await expectProblem(t, await check(request), 400, '/errors/validation-error');
      const article = family.startsWith('O') ? 'an' : 'a';
      t.match(p.detail, new RegExp(`^body member 'request\\.${member}' must be ${article} ${family} constant name or its integer value \\(allowed: ${family}_\\w+(, ${family}_\\w+)*\\); received "${family}_NOPE"$`), member);
      if (member === 'type') t.equal((p.detail.split(' must be ')[1] ?? '').replace(/\(allowed: [^)]*\)/, '(allowed: …)'), queryTail, 'worded as the query words it');
    }
    // A name of another family is no name of this one.
    const other = await expectProblem(t, await check({ action: 'ORDER_TYPE_BUY', symbol: 'EURUSD' }), 400, '/errors/validation-error');
    t.match(other.detail, /request\.action' must be a TRADE_ACTION constant name .*received "ORDER_TYPE_BUY"/);
    // Exact text only, as in the query: no whitespace, no other case.
    for (const raw of [' TRADE_ACTION_DEAL', 'trade_action_deal', '']) {
      await expectProblem(t, await check({ action: raw, symbol: 'EURUSD' }), 400, '/errors/validation-error');
    }
  });

  await t.test('neither a name nor an integer: a clear 400', async (t) => {
    for (const action of [1.5, true, null, [1], { a: 1 }, -1, 2 ** 31]) {
      const p = await expectProblem(t, await check({ action, symbol: 'EURUSD' }), 400, '/errors/validation-error');
      t.match(p.detail, /^body member 'request\.action' must be a TRADE_ACTION constant name or an integer from 0 to 2147483647; received /, JSON.stringify(action));
    }
    // An integer that is no TRADE_ACTION is the terminal's to judge (a retcode), as before.
    const res = await check({ action: 3, symbol: 'EURUSD' });
    t.equal(res.status, 200, 'an unlisted integer reaches the terminal');
  });

  await t.test('OpenAPI: each constant member takes a name or an integer', async (t) => {
    interface Member {
      anyOf?: Array<{ type: string; enum?: unknown[]; minimum?: number }>;
      description: string;
    }
    const doc = (await (await s.get('/openapi.json')).json()) as {
      paths: Record<string, { post: { requestBody: { content: Record<string, { schema: { properties: { request: { properties: Record<string, Member>; if: unknown } } } }> } } }>;
    };
    const request = doc.paths['/order/check']?.post.requestBody.content['application/json']?.schema.properties.request;
    for (const [member, family] of Object.entries(CONSTANT_MEMBERS)) {
      const m = request?.properties[member];
      const names = m?.anyOf?.find((b) => b.type === 'string')?.enum;
      t.ok(names?.includes(`${family}_${member === 'action' ? 'DEAL' : member === 'type' ? 'BUY' : member === 'type_filling' ? 'IOC' : 'GTC'}`), `${member}: the ${family} names`, { m });
      t.ok(m?.anyOf?.some((b) => b.type === 'integer'), `${member}: or an integer`);
      t.match(m?.description, new RegExp(`${family}_\\* name or (its )?integer`), `${member}: described`);
    }
    t.same(request?.if, { properties: { action: { enum: [1, 5, 'TRADE_ACTION_DEAL', 'TRADE_ACTION_PENDING'] } } }, 'the symbol rule names both forms');
  });

  await t.test('the calc routes: constants by name or integer in the query, unknown names a 400', async (t) => {
    const byName = await s.get('/calc/profit?action=ORDER_TYPE_SELL&symbol=EURUSD&volume=1&price_open=1.1&price_close=1.09');
    const byNumber = await s.get('/calc/profit?action=1&symbol=EURUSD&volume=1&price_open=1.1&price_close=1.09');
    t.equal(byName.status, 200);
    t.same(await byName.json(), await byNumber.json());
    await expectProblem(t, await s.get('/calc/profit?action=ORDER_TYPE_BUY_LIMIT&symbol=EURUSD&volume=1&price_open=1.1&price_close=1.09'), 400, '/errors/validation-error');
  });
});
