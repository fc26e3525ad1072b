// Hardening item 9: hiding a symbol that open positions or pending orders use is the caller's own
// condition: 409 /errors/symbol-in-use saying why, not a 502 "Terminal: Call failed".
import t from 'tap';

import { faultyTerminal } from '../helpers/faulty-terminal.js';
import { expectProblem, forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

interface Row {
  symbol: string;
}

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal);
  const rows = async (path: string) => (await (await s.get(path)).json()) as Row[];
  const positions = await rows('/positions');
  const orders = await rows('/orders');
  const withPositions = new Set(positions.map((p) => p.symbol));
  const withOrders = new Set(orders.map((o) => o.symbol));
  const positioned = positions[0]?.symbol as string;
  const onlyOrders = orders.map((o) => o.symbol).find((symbol) => !withPositions.has(symbol));
  t.ok(positioned, `a symbol with open positions: ${positioned}`);
  t.ok(onlyOrders, `a symbol with pending orders and no position: ${onlyOrders}`);

  await t.test('a symbol with open positions', async (t) => {
    const path = `/symbols/${positioned}/select`;
    const p = await expectProblem(t, await s.post(`${path}?enable=false`), 409, '/errors/symbol-in-use', path);
    t.equal(p.title, 'Symbol In Use');
    t.comment(p.detail);
    const count = positions.filter((x) => x.symbol === positioned).length;
    t.match(p.detail, new RegExp(`${positioned}.*${count} open position`), p.detail);
    t.match((await (await s.get(`/symbols/${positioned}`)).json()) as object, { select: true }, 'still shown');
    t.match(await (await s.post(`${path}?enable=true`)).json(), { symbol: positioned, selected: true }, 'showing it is fine');
  });

  await t.test('a symbol with pending orders only', async (t) => {
    const path = `/symbols/${onlyOrders}/select`;
    const p = await expectProblem(t, await s.post(`${path}?enable=0`), 409, '/errors/symbol-in-use', path);
    t.match(p.detail, new RegExp(`${onlyOrders}.*pending order`), p.detail);
    t.notMatch(p.detail, /open position/, 'names only what is there');
  });

  await t.test('a symbol nobody uses can be hidden and shown again', async (t) => {
    const symbols = (await rows('/symbols')) as unknown as { name: string }[];
    const free = symbols.map((x) => x.name).find((n) => !withPositions.has(n) && !withOrders.has(n)) as string;
    t.match(await (await s.post(`/symbols/${free}/select?enable=false`)).json(), { symbol: free, selected: false });
    t.match(await (await s.post(`/symbols/${free}/select?enable=true`)).json(), { symbol: free, selected: true });
    await expectProblem(t, await s.post('/symbols/NOPE/select?enable=false'), 404, '/errors/symbol-not-found');
    t.equal((await s.get('/health')).status, 200, 'healthy afterwards');
  });

  await t.test('the OpenAPI document lists the 409', async (t) => {
    type Op = { description: string; responses: Record<string, { description: string }> };
    const doc = (await (await s.get('/openapi.json')).json()) as { paths: Record<string, { post: Op }> };
    const op = doc.paths['/symbols/{symbol}/select']?.post as Op;
    t.equal(op.responses['409']?.description, 'Symbol In Use (/errors/symbol-in-use)');
    t.match(op.description, /open positions or pending orders.*409 \/errors\/symbol-in-use/);
  });

  await t.test('a refusal for another reason stays a terminal error', async (t) => {
    // A real terminal also refuses to hide a symbol an open chart shows: not ours to explain.
    const refusing = faultyTerminal(terminal, { symbolSelect: () => Promise.resolve(false) });
    const other = await serve(t, adapter, refusing);
    const free = 'EURGBP';
    t.notOk(withPositions.has(free) || withOrders.has(free), `${free} has no trades`);
    const p = await expectProblem(t, await other.post(`/symbols/${free}/select?enable=false`), 502, '/errors/terminal-error');
    t.match(p.detail, /refused symbol_select\(EURGBP, false\)/, p.detail);
    await expectProblem(t, await other.post(`/symbols/${positioned}/select?enable=true`), 502, '/errors/terminal-error');
    await expectProblem(t, await other.post(`/symbols/${positioned}/select?enable=false`), 409, '/errors/symbol-in-use');
  });
});
