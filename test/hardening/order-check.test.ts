// Hardening item 7: /order/check as documented. An unknown symbol is a 404, as on every route; a
// DEAL or PENDING request without a symbol is a 400 naming it (the terminal cannot check such a
// request at all); anything else the terminal can judge is a 200 with its retcode.
import t from 'tap';

import { expectProblem, forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const TRADE_RETCODE_INVALID = 10013;
const TRADE_RETCODE_INVALID_VOLUME = 10014;
const TRADE_RETCODE_INVALID_PRICE = 10015;

interface CheckResult {
  retcode: number;
  comment: string;
  request: Record<string, unknown>;
}

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal);
  const post = (request: Record<string, unknown>) =>
    s.post('/order/check', { body: JSON.stringify({ request }), headers: { 'content-type': 'application/json' } });
  const ok = async (request: Record<string, unknown>): Promise<CheckResult> => {
    const res = await post(request);
    t.equal(res.status, 200, `${JSON.stringify(request)} -> 200`);
    return (await res.json()) as CheckResult;
  };

  await t.test('a missing symbol where the action needs one is a 400 naming it', async (t) => {
    for (const [action, name] of [[1, 'TRADE_ACTION_DEAL'], [5, 'TRADE_ACTION_PENDING']] as const) {
      for (const request of [{ action }, { action, symbol: '' }, { action, volume: 0.1, type: 0 }]) {
        const p = await expectProblem(t, await post(request), 400, '/errors/validation-error', '/order/check');
        t.match(p.detail, new RegExp(`body member 'request\\.symbol' is required for action ${action} \\(${name}\\)`), p.detail);
      }
    }
  });

  await t.test('an unknown symbol is a 404', async (t) => {
    for (const request of [{ action: 1, symbol: 'NOPE' }, { action: 5, symbol: 'NOPE', volume: 0.1, type: 2, price: 1 }, { action: 8, order: 1, symbol: 'NOPE' }]) {
      const p = await expectProblem(t, await post(request), 404, '/errors/symbol-not-found', '/order/check');
      t.match(p.detail, /request\.symbol "NOPE" is not known to the terminal/, p.detail);
    }
  });

  await t.test('missing volume or price is the terminal retcode, as order_check gives it', async (t) => {
    const noVolume = await ok({ action: 1, symbol: 'EURUSD', type: 0 });
    t.match(noVolume, { retcode: TRADE_RETCODE_INVALID_VOLUME, comment: 'Invalid volume', request: { volume: 0, symbol: 'EURUSD' } });
    // A pending order (BUY_LIMIT) needs a price; a market deal takes the market price when it is 0.
    const noPrice = await ok({ action: 5, symbol: 'EURUSD', type: 2, volume: 0.1 });
    t.match(noPrice, { retcode: TRADE_RETCODE_INVALID_PRICE, comment: 'Invalid price', request: { price: 0 } });
    t.match(await ok({ action: 1, symbol: 'EURUSD', type: 0, volume: 0.1 }), { retcode: 0, comment: 'Done' });
    // Only `action` is required: REMOVE names its order, which the terminal judges.
    t.match(await ok({ action: 8, order: 1 }), { retcode: TRADE_RETCODE_INVALID });
  });

  await t.test('the OpenAPI document says the same', async (t) => {
    interface Op {
      description: string;
      responses: Record<string, { description: string }>;
      requestBody: {
        content: Record<string, { schema: { properties: { request: { required: string[]; properties: Record<string, { description: string }>; if: unknown; then: unknown } } } }>;
      };
    }
    const doc = (await (await s.get('/openapi.json')).json()) as { paths: Record<string, { post: Op }> };
    const op = doc.paths['/order/check']?.post as Op;
    t.match(op.responses['404']?.description, /\/errors\/symbol-not-found/);
    t.match(op.responses['400']?.description, /\/errors\/validation-error/);
    t.match(op.description, /DEAL \(1\) or PENDING \(5\) request also needs `symbol` \(400 without it\).*unknown `symbol` is a 404.*still a 200/s);
    const request = op.requestBody.content['application/json']?.schema.properties.request;
    t.same(request?.required, ['action'], 'only action is required by the schema');
    t.match(request?.properties.symbol?.description, /required for TRADE_ACTION_DEAL and TRADE_ACTION_PENDING/);
    // The rule itself, in JSON Schema 2020-12 terms, for clients and fuzzers.
    t.same(request?.if, { properties: { action: { enum: [1, 5, 'TRADE_ACTION_DEAL', 'TRADE_ACTION_PENDING'] } } }, 'by integer or name');
    t.same(request?.then, { required: ['symbol'], properties: { symbol: { minLength: 1 } } });
  });

  await t.test('a valid request', async (t) => {
    const request = { action: 1, symbol: 'USDJPY', volume: 1, type: 0, price: 150, type_filling: 1 };
    const result = await ok(request);
    t.match(result, { retcode: 0, comment: 'Done', request });
    t.equal(Object.keys(result.request).length, 17, 'the whole request is echoed');
    t.equal((await s.get('/health')).status, 200, 'healthy afterwards');
  });
});
