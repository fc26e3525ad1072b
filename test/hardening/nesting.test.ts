// Hardening item 1: deeply nested JSON bodies are refused with a 400 naming the nesting limit, and
// a detail never renders an unbounded value (both used to overflow the stack into a 500).
import t from 'tap';

import { expectProblem, forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const headers = { 'content-type': 'application/json' };
/** The documented limit (docs/api.md, OpenAPI): a trade request needs 2 levels. */
const MAX_JSON_DEPTH = 32;

/** `{"request":{"action":1,"symbol":` + value + `}}`: the value sits at depth 2. */
const inSymbol = (value: string) => `{"request":{"action":1,"symbol":${value}}}`;
const nestedArrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
const nestedObjects = (n: number) => '{"a":'.repeat(n) + '0' + '}'.repeat(n);

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal);
  const post = (body: string) => s.post('/order/check', { body, headers });
  const tooDeep = async (body: string, what: string) => {
    const p = await expectProblem(t, await post(body), 400, '/errors/validation-error', '/order/check');
    t.match(p.detail, new RegExp(`nested deeper than ${MAX_JSON_DEPTH} levels`), `${what}: ${p.detail}`);
    t.ok(p.detail.length < 200, `${what}: the detail is short (${p.detail.length} characters)`);
  };

  await t.test('deep bodies are a 400 naming the limit', async (t) => {
    await tooDeep(nestedArrays(5000), '5 000 nested arrays');
    await tooDeep('['.repeat(5000), '5 000 unclosed arrays');
    await tooDeep(inSymbol(nestedObjects(10_000)), '10 000 nested objects in request.symbol');
    await tooDeep(inSymbol(nestedArrays(MAX_JSON_DEPTH - 1)), 'one level too deep');
    t.equal((await s.get('/health')).status, 200, 'healthy afterwards');
  });

  await t.test('the limit itself is allowed, and brackets inside strings do not count', async (t) => {
    // Depth exactly 32 parses; the schema then refuses the array with a bounded rendering.
    const p = await expectProblem(t, await post(inSymbol(nestedArrays(MAX_JSON_DEPTH - 2))), 400, '/errors/validation-error');
    t.match(p.detail, /body member 'request\.symbol'.*received \[\[\[/, p.detail);
    t.ok(p.detail.length < 200, `short detail (${p.detail.length})`);
    // 31 brackets (and an escaped quote) inside a string are text, not nesting: a valid request.
    const comment = '\\"' + '['.repeat(15) + '{'.repeat(15);
    const res = await post(`{"request":{"action":1,"symbol":"EURUSD","volume":0.1,"type":0,"comment":"${comment}"}}`);
    t.equal(res.status, 200, 'brackets in a string are fine');
    t.match(await res.json(), { retcode: 0, request: { comment: '"' + '['.repeat(15) + '{'.repeat(15) } });
  });

  await t.test('a wide value is rendered bounded', async (t) => {
    const wide = `[${Array.from({ length: 20_000 }, () => '0').join(',')}]`;
    const p = await expectProblem(t, await post(inSymbol(wide)), 400, '/errors/validation-error');
    t.match(p.detail, /body member 'request\.symbol'.*received \[0,0,0.*…$/, p.detail);
    t.ok(p.detail.length < 200, `short detail (${p.detail.length})`);
    const long = await expectProblem(t, await post(inSymbol(JSON.stringify({ k: 'x'.repeat(50_000) }))), 400, '/errors/validation-error');
    t.ok(long.detail.length < 200, `a long string member: short detail (${long.detail.length})`);
    t.equal((await s.get('/health')).status, 200, 'healthy afterwards');
  });
});
