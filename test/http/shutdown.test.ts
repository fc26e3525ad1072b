// Graceful shutdown: in-flight responses finish, new connections are refused, subscriptions released.
import t from 'tap';

import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal);
  t.equal((await s.post('/market-book/EURUSD/subscribe')).status, 200);
  const res = await s.get('/ticks/from?symbol=EURUSD&date_from=2024-01-02T00:00:00Z&count=300000');
  t.equal(res.status, 200);
  const body = res.text();
  const closed = s.server.close(10_000);
  const rows = JSON.parse(await body) as unknown[];
  t.equal(rows.length, 300000, 'the in-flight response finished whole');
  await closed;
  t.equal(s.server.subscriptions.active, 0, 'subscriptions released');
  await t.rejects(fetch(`${s.base}/health`), 'no longer accepting');
});
