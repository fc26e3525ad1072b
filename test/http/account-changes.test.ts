// GET /account/changes (issue 37 §3): the account's deals after a deal event id or an instant, bounded,
// and its state now, through the real server; going on from `last_event_id` page after page gives the
// deal history exactly (none missed, none twice), the ids are those of deal events, and the MCP tool
// generated from the route answers the same.
import t from 'tap';

import { callTool, mcpClient } from '../mcp/mcp-client.js';
import { expectProblem, forEachAdapter, serve, simTerminal } from '../helpers/server.js';

type Json = Record<string, unknown>;
const HISTORY = '/history/deals?date_from=2000-01-01T00:00:00Z&date_to=2100-01-01T00:00:00Z';

await forEachAdapter(t, async (t, adapter) => {
  const terminal = simTerminal();
  t.teardown(() => terminal.close());
  const s = await serve(t, adapter, terminal);
  const json = async (path: string): Promise<Json> => {
    const res = await s.get(path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Json;
  };
  const history = (await json(HISTORY)) as unknown as Json[];

  await t.test('paged from an instant with last_event_id: exactly the deal history after it', async (t) => {
    const from = history[history.length - 60] as Json;
    const want = history.filter((d) => (d.time_msc as number) >= (from.time_msc as number));
    t.ok(want.length >= 60, `${want.length} deals from ${new Date(from.time_msc as number).toISOString()}`);
    let page = await json(`/account/changes?date_from=${new Date(from.time_msc as number).toISOString()}&limit=25`);
    const got: Json[] = [...(page.deals as Json[])];
    t.equal((page.deals as Json[]).length, 25, 'limit');
    t.equal(page.more, true);
    let pages = 1;
    while (page.more) {
      page = await json(`/account/changes?since=${encodeURIComponent(page.last_event_id as string)}&limit=25`);
      got.push(...(page.deals as Json[]));
      pages++;
    }
    t.same(got, want, `every deal once, in history order, over ${pages} pages`);
    const last = want.at(-1) as Json;
    t.equal(page.last_event_id, `deal:${last.time_msc}-${last.ticket}`, 'the last deal\'s id, as deal events carry it');
    const again = await json(`/account/changes?since=${encodeURIComponent(page.last_event_id as string)}`);
    t.same(again.deals, [], 'nothing after the last deal');
    t.equal(again.more, false);
    t.equal(again.last_event_id, page.last_event_id, 'no deal after it: where it stood');
  });

  await t.test('the state now: positions, orders and the account figures', async (t) => {
    const page = await json(`/account/changes?date_from=2100-01-01T00:00:00Z`);
    t.same(page.deals, []);
    t.equal(page.last_event_id, null, 'no deal from that instant: nothing to go on from');
    t.same(page.positions, await json('/positions'));
    t.same(page.orders, await json('/orders'));
    const account = await json('/account');
    t.same(page.account, { balance: account.balance, credit: account.credit, profit: account.profit, equity: account.equity, margin: account.margin, margin_free: account.margin_free, margin_level: account.margin_level });
  });

  await t.test('refusals', async (t) => {
    for (const [query, detail] of [
      ['', /one of query parameters 'since'/],
      ['?since=deal:1-2&date_from=2024-01-01T00:00:00Z', /one of query parameters 'since'/],
      ['?since=1704880000123-0', /must be a deal event's id/],
      ['?since=deal:x-1', /malformed deal position/],
      ['?date_from=2024-01-01T00:00:00Z&limit=1001', /limit/],
      ['?date_from=2024-01-01T00:00:00Z&limit=0', /limit/],
    ] as const) {
      const body = await expectProblem(t, await s.get(`/account/changes${query}`), 400, '/errors/validation-error');
      t.match(body.detail, detail, `${query || '(none)'}: ${body.detail}`);
    }
  });

  await t.test('the MCP tool generated from the route answers the same', async (t) => {
    const client = await mcpClient(t, s, '');
    const from = history[history.length - 5] as Json;
    const since = `deal:${from.time_msc}-${from.ticket}`;
    const r = await callTool(client, 'get_account_changes', { since });
    t.notOk(r.isError);
    const http = await json(`/account/changes?since=${encodeURIComponent(since)}`);
    t.same((r.structuredContent as Json).deals, http.deals);
    t.equal(((r.structuredContent as Json).deals as Json[]).length, 4, 'the four deals after it');
  });
});
