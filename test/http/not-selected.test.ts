// The latest tick of a symbol outside Market Watch: MT5 refuses it (mt5-reference §2.3), and the
// remedy is the caller's, so a 409 /errors/symbol-not-selected naming it, not a 502.
import t from 'tap';
import type { Test } from 'tap';

import { expectProblem, forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

interface SymbolRow {
  name: string;
  select: boolean;
  visible: boolean;
}

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal);
  const symbols = (await (await s.get('/symbols')).json()) as SymbolRow[];
  const hidden = symbols.find((x) => !x.select)?.name as string;
  t.ok(hidden, `a symbol outside Market Watch: ${hidden}`);
  const path = `/symbols/${hidden}/tick`;

  const refused = async (t: Test, why: string) => {
    const p = await expectProblem(t, await s.get(path), 409, '/errors/symbol-not-selected', path);
    t.equal(p.title, 'Symbol Not Selected', why);
    t.match(p.detail, new RegExp(`"${hidden}" is not in Market Watch`), p.detail);
    t.match(p.detail, new RegExp(`POST …/symbols/${hidden}/select\\?enable=true`), 'names the remedy');
    t.same(await (await s.get('/last-error')).json(), { code: -1, description: 'Terminal: Call failed' }, 'last_error: the package\'s code');
  };

  await t.test('hidden: 409, shown: 200, hidden again: 409', async (t) => {
    await refused(t, 'hidden from the start');
    t.match(await (await s.get(`/symbols/${hidden}`)).json(), { select: false }, 'its details still answer');
    t.match(await (await s.post(`/symbols/${hidden}/select?enable=true`)).json(), { symbol: hidden, selected: true });
    const res = await s.get(path);
    t.equal(res.status, 200, 'selected: the tick answers');
    t.match(await res.json(), { bid: Number, ask: Number, time_msc: Number });
    t.match(await (await s.post(`/symbols/${hidden}/select?enable=false`)).json(), { symbol: hidden, selected: false });
    await refused(t, 'hidden again');
  });

  await t.test('an unknown symbol is still a 404', async (t) => {
    await expectProblem(t, await s.get('/symbols/NOPE/tick'), 404, '/errors/symbol-not-found', '/symbols/NOPE/tick');
  });

  await t.test('other formats get the same problem', async (t) => {
    const res = await s.get(path, { headers: { accept: 'application/parquet' } });
    t.equal(res.status, 409);
    t.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  });

  await t.test('the OpenAPI document lists the 409', async (t) => {
    type Op = { description: string; responses: Record<string, { description: string }> };
    const doc = (await (await s.get('/openapi.json')).json()) as { paths: Record<string, { get: Op }> };
    const op = doc.paths['/symbols/{symbol}/tick']?.get as Op;
    t.equal(op.responses['409']?.description, 'Symbol Not Selected (/errors/symbol-not-selected)');
    t.match(op.description, /Market Watch.*409 \/errors\/symbol-not-selected.*select\?enable=true/);
  });
});
