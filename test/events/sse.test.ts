// GET /events through the real server on loopback, read by a real SSE parser, with the simulator
// making ticks in real time on the busy test clock (test/helpers/live-sim.ts: a Wednesday afternoon
// whatever the machine's day and hour, so EURUSD trades too). Every wait for ticks lasts as long as
// the simulator's schedule says they take, plus one poll and the machine's slack.
import t, { type Test } from 'tap';

import type { TickData } from '../helpers/sse.js';
import { problemOf, SseClient } from '../helpers/sse.js';
import { forEachAdapter, READ_ONLY_KEY, serve, serveReadOnly, simTerminal, type TestServer } from '../helpers/server.js';
import { liveSimTerminal } from '../helpers/live-sim.js';

const sim = liveSimTerminal();
const live = sim.terminal;
t.teardown(() => sim.close());
// ETHUSD is not in a fresh terminal's Market Watch: its live tick (the feed's baseline) is refused
// until it is shown, as in MetaTrader.
await live.symbolSelect('ETHUSD', true);

const FIELDS = ['time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'flags', 'volume_real'] as const;
const fieldsOf = (tick: TickData): Record<string, number> => Object.fromEntries(FIELDS.map((f) => [f, tick[f]]));
const iso = (ms: number): string => new Date(ms).toISOString();
const POLL_MS = 50;
const env = { TRADEAPI_EVENTS_POLL_MS: String(POLL_MS) };
/** How long n new ticks of `symbols` (together, or of each) take to arrive (test/helpers/live-sim.ts). */
const window = (symbols: readonly string[], n: number, each = false): Promise<number> => sim.window(symbols, n, { pollMs: POLL_MS, each });

async function rangeRows(srv: TestServer, symbol: string, fromMs: number, toMs: number): Promise<Array<Record<string, number>>> {
  const res = await srv.get(`/ticks/range?symbol=${symbol}&date_from=${iso(fromMs)}&date_to=${iso(toMs)}`);
  return ((await res.json()) as Array<Record<string, number>>).map((r) => Object.fromEntries(FIELDS.map((f) => [f, r[f] as number])));
}

/** Each symbol's ticks in (time_msc, position) order, and no tick twice. */
function checkOrder(t: Test, ticks: readonly TickData[]): void {
  const last = new Map<string, number>();
  for (const tick of ticks) {
    const prev = last.get(tick.symbol) ?? -Infinity;
    if (tick.time_msc < prev) t.fail(`${tick.symbol} tick at ${tick.time_msc} after one at ${prev}`);
    last.set(tick.symbol, tick.time_msc);
  }
  const keys = ticks.map((k) => `${k.symbol}@${k.time_msc}/${k.bid}/${k.ask}/${k.flags}`);
  t.equal(new Set(keys).size, keys.length, 'no tick twice');
}

void forEachAdapter(t, async (t, adapter) => {
  t.test('ticks of the listed symbols only, in time order, equal to /ticks/range', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const symbols = ['BTCUSD', 'ETHUSD', 'EURUSD'];
    const c = await SseClient.open(`${srv.base}/events?symbols=${symbols.join(',')}`);
    t.teardown(() => c.close());
    t.equal(c.status, 200);
    t.match(c.res.headers['content-type'], /^text\/event-stream/);
    t.equal(c.res.headers['cache-control'], 'no-store');
    await c.waitFor(() => c.ticks.length >= 8, await window(symbols, 8), '8 ticks');
    const ticks = c.ticks;
    t.ok(ticks.every((k) => symbols.includes(k.symbol)), 'only listed symbols');
    checkOrder(t, ticks);
    for (const tick of ticks) {
      t.match(tick.id, /^\d+-\d+,-?\d+--?\d+,-?\d+--?\d+$/, 'every tick carries the positions of the three symbols');
      t.equal(tick.time, Math.floor(tick.time_msc / 1000), 'time in seconds, time_msc in ms (as /symbols/{symbol}/tick)');
    }
    // Nothing lost between the first and the last tick of each symbol: the history has exactly those.
    for (const symbol of symbols) {
      const mine = ticks.filter((k) => k.symbol === symbol);
      if (mine.length === 0) continue;
      const history = await rangeRows(srv, symbol, (mine[0] as TickData).time_msc, (mine.at(-1) as TickData).time_msc);
      t.same(mine.map(fieldsOf), history, `${symbol}: the events are the history of that span`);
    }
  });

  t.test('seq: every event of a stream carries its number within the connection, 1, 2, 3…', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const symbols = ['BTCUSD', 'EURUSD'];
    const url = `${srv.base}/events?symbols=${symbols.join(',')}`;
    const c = await SseClient.open(url);
    t.teardown(() => c.close());
    await c.waitFor(() => c.ticks.length >= 6, await window(symbols, 6), '6 ticks');
    const seqs = c.messages.map((m) => (JSON.parse(m.data) as { seq: unknown }).seq);
    t.same(seqs, seqs.map((_, i) => i + 1), `${seqs.length} events numbered 1..${seqs.length}`);
    t.ok(c.messages.every((m) => m.data.endsWith(`,"seq":${(JSON.parse(m.data) as { seq: number }).seq}}`)), 'seq is the last member of the data');
    // Another stream in the same position shares the feed's deliveries, yet counts its own events.
    const d = await SseClient.open(url);
    t.teardown(() => d.close());
    await d.waitFor(() => d.ticks.length >= 2, await window(symbols, 2), '2 ticks on the second stream');
    t.equal((JSON.parse((d.messages[0] as { data: string }).data) as { seq: number }).seq, 1, 'each connection counts from 1');
  });

  t.test('Last-Event-ID resumes without loss or duplicates', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const url = `${srv.base}/events?symbols=BTCUSD,ETHUSD,EURUSD`;
    const first = await SseClient.open(url);
    const symbols = ['BTCUSD', 'ETHUSD', 'EURUSD'];
    await first.waitFor(() => first.ticks.length >= 4, await window(symbols, 4), '4 ticks');
    first.close();
    const seen = first.ticks;
    const kept = seen.slice(0, 2); // the client "lost" everything after the second tick
    const lastId = kept[1]?.id as string;
    await sim.until(symbols, 4); // more ticks happen while it is away
    const second = await SseClient.open(url, { 'last-event-id': lastId });
    t.teardown(() => second.close());
    t.equal(second.status, 200);
    // Every symbol the first connection saw, caught up past what it saw of it (a catch-up sends one
    // symbol after the other, so one symbol's ticks past that point prove nothing for the next).
    const lastOf = (symbol: string): number => Math.max(...seen.filter((k) => k.symbol === symbol).map((k) => k.time_msc));
    const symbolsSeen = [...new Set(seen.map((k) => k.symbol))];
    await second.waitFor(
      () => symbolsSeen.every((s) => second.ticks.some((k) => k.symbol === s && k.time_msc > lastOf(s))),
      await window(symbolsSeen, 1, true),
      'every symbol past the first connection',
    );
    const all = [...kept, ...second.ticks];
    checkOrder(t, all);
    for (const symbol of ['BTCUSD', 'ETHUSD', 'EURUSD']) {
      // Per symbol: a catch-up sends one symbol's missed ticks after the other's.
      const missed = seen.slice(2).filter((k) => k.symbol === symbol);
      const again = second.ticks.filter((k) => k.symbol === symbol).slice(0, missed.length);
      t.same(again.map(fieldsOf), missed.map(fieldsOf), `${symbol}: the ticks after the id come again, first`);
    }
    t.notOk(second.messages.some((m) => m.event === 'gap'), 'no gap inside the catch-up window');
    for (const symbol of ['BTCUSD', 'ETHUSD', 'EURUSD']) {
      const mine = all.filter((k) => k.symbol === symbol);
      if (mine.length < 2) continue;
      const history = await rangeRows(srv, symbol, (mine[0] as TickData).time_msc, (mine.at(-1) as TickData).time_msc);
      t.same(mine.map(fieldsOf), history, `${symbol}: first connection + resumed one = the history`);
    }
  });

  t.test('a Last-Event-ID older than the catch-up window: a gap names what was left out', async (t) => {
    const srv = await serve(t, adapter, live, { ...env, TRADEAPI_EVENTS_CATCHUP_MS: '2000' });
    const old = sim.now() - 60_000; // the terminal's clock, not this machine's
    const c = await SseClient.open(`${srv.base}/events?symbols=BTCUSD`, { 'last-event-id': `${old}-0` });
    t.teardown(() => c.close());
    await c.waitFor(() => c.messages.some((m) => m.event === 'gap') && c.ticks.length > 0, await window(['BTCUSD'], 1), 'a gap and ticks');
    const gap = JSON.parse((c.messages[0] as { data: string }).data) as { reason: string; symbol: string; from_msc: number; to_msc: number };
    t.equal(c.messages[0]?.event, 'gap', 'the gap comes first');
    t.equal(gap.reason, 'catch-up-window');
    t.equal(gap.symbol, 'BTCUSD');
    t.equal(gap.from_msc, old);
    t.ok((c.ticks[0] as TickData).time_msc >= gap.to_msc, 'ticks resume at the window');
  });

  t.test('a Last-Event-ID past the latest tick starts live rather than silent', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const c = await SseClient.open(`${srv.base}/events?symbols=BTCUSD,ETHUSD,EURUSD`, { 'last-event-id': '9999999999999-0,0-0,0-0' });
    t.teardown(() => c.close());
    t.equal(c.status, 200);
    await c.waitFor(() => c.ticks.length >= 1, await window(['BTCUSD', 'ETHUSD', 'EURUSD'], 1), 'a live tick');
    t.pass('ticks flow');
  });

  t.test('refusals are problems before the stream starts', async (t) => {
    const srv = await serve(t, adapter, live, { ...env, TRADEAPI_EVENTS_MAX_SYMBOLS: '2' });
    const cases: Array<[string, Record<string, string>, number, string]> = [
      ['/events?symbols=NOPE', {}, 404, '/errors/symbol-not-found'],
      ['/events?symbols=EURUSD,NOPE', {}, 404, '/errors/symbol-not-found'],
      ['/events?symbols=EURUSD,USDJPY,BTCUSD', {}, 400, '/errors/validation-error'],
      ['/events', {}, 400, '/errors/validation-error'],
      ['/events?symbols=', {}, 400, '/errors/validation-error'],
      ['/events?symbols=EURUSD,,USDJPY', {}, 400, '/errors/validation-error'],
      ['/events?symbols=EURUSD,EURUSD', {}, 400, '/errors/validation-error'],
      ['/events?symbols=EURUSD&kinds=quote', {}, 400, '/errors/validation-error'],
      ['/events?symbols=EURUSD', { 'last-event-id': 'garbage' }, 400, '/errors/validation-error'],
      ['/events?symbols=EURUSD', { 'last-event-id': '1700000000000-0,5-0' }, 400, '/errors/validation-error'],
      ['/events?symbols=EURUSD', { accept: 'application/json' }, 406, '/errors/not-acceptable'],
    ];
    for (const [path, headers, status, type] of cases) {
      const c = await SseClient.open(srv.base + path, headers);
      await c.ended;
      t.equal(c.status, status, `${path} ${JSON.stringify(headers)}: ${status}`);
      t.equal(problemOf(c).type, type);
    }
    t.equal(srv.server.eventStats().tickSymbols, 0, 'no refused request left a poller behind');
  });

  t.test('the client cap: 503 with Retry-After; a client that leaves frees its slot and its pollers', async (t) => {
    const srv = await serve(t, adapter, live, { ...env, TRADEAPI_MAX_EVENT_CLIENTS: '1' });
    const a = await SseClient.open(`${srv.base}/events?symbols=EURUSD,BTCUSD`);
    t.equal(a.status, 200);
    t.same(srv.server.eventStats().tickSymbols, 2, 'one poller per symbol');
    const b = await SseClient.open(`${srv.base}/events?symbols=EURUSD`);
    await b.ended;
    t.equal(b.status, 503);
    t.equal(b.res.headers['retry-after'], '5');
    t.equal(problemOf(b).type, '/errors/too-many-event-clients');
    a.close();
    const deadline = Date.now() + 5000;
    while (srv.server.eventStats().clients > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    t.same(srv.server.eventStats(), { clients: 0, tickSymbols: 0, bookSymbols: 0, peakQueuedBytes: 0 }, 'nothing left of the client');
    const c = await SseClient.open(`${srv.base}/events?symbols=EURUSD`);
    t.equal(c.status, 200, 'the slot is free again');
    c.close();
  });

  t.test('two clients on one symbol share one poller and get the same ticks', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const a = await SseClient.open(`${srv.base}/events?symbols=BTCUSD,EURUSD`);
    const b = await SseClient.open(`${srv.base}/events?symbols=BTCUSD,EURUSD`);
    t.teardown(() => (a.close(), b.close()));
    t.equal(srv.server.eventStats().tickSymbols, 2);
    await a.waitFor(() => a.ticks.length >= 3, await window(['BTCUSD', 'EURUSD'], 3), '3 ticks');
    await b.waitFor(() => b.ticks.length >= 3, await window(['BTCUSD', 'EURUSD'], 3), '3 ticks');
    const key = (k: TickData): string => `${k.symbol}@${k.time_msc}`;
    const common = b.ticks.map(key).filter((k) => a.ticks.map(key).includes(k));
    t.ok(common.length >= 2, 'both saw the same ticks');
  });

  t.test('auth: 401 without the key, the stream with it', async (t) => {
    const srv = await serve(t, adapter, live, { ...env, TRADEAPI_SECRET_KEY: 'sekret-key' });
    const none = await SseClient.open(`${srv.base}/events?symbols=EURUSD`);
    await none.ended;
    t.equal(none.status, 401);
    t.equal(problemOf(none).type, '/errors/unauthorized');
    const ok = await SseClient.open(`${srv.base}/events?symbols=EURUSD`, { 'x-api-key': 'sekret-key' });
    t.equal(ok.status, 200);
    ok.close();
  });

  t.test('read-only mode: ticks under /api/v1 with the key, no depth', async (t) => {
    const srv = await serveReadOnly(t, adapter, live, env);
    const none = await SseClient.open(`${srv.base}/api/v1/events?symbols=BTCUSD`);
    await none.ended;
    t.equal(none.status, 401);
    const book = await SseClient.open(`${srv.base}/api/v1/events?symbols=BTCUSD&kinds=book`, { 'x-api-key': READ_ONLY_KEY });
    await book.ended;
    t.equal(book.status, 400);
    t.match(problemOf(book).detail, /read-only/);
    const ok = await SseClient.open(`${srv.base}/api/v1/events?symbols=BTCUSD,ETHUSD`, { 'x-api-key': READ_ONLY_KEY });
    t.teardown(() => ok.close());
    t.equal(ok.status, 200);
    await ok.waitFor(() => ok.ticks.length >= 1, await window(['BTCUSD', 'ETHUSD'], 1), 'a tick');
    t.pass('ticks flow in read-only mode');
  });

  t.test('depth events only for subscribed symbols, and they stop after unsubscribe', async (t) => {
    const srv = await serve(t, adapter, live, env);
    t.equal((await srv.post('/market-book/EURUSD/subscribe')).status, 200);
    const c = await SseClient.open(`${srv.base}/events?symbols=EURUSD,USDJPY&kinds=book`);
    t.teardown(() => c.close());
    const books = () => c.messages.filter((m) => m.event === 'book').map((m) => JSON.parse(m.data) as { symbol: string; time_msc: number; book: unknown[] });
    await c.waitFor(() => books().length >= 1, 10_000, 'a book event');
    const first = books()[0] as { symbol: string; time_msc: number; book: Array<Record<string, number>> };
    t.equal(first.symbol, 'EURUSD');
    t.type(first.time_msc, 'number');
    t.ok(first.book.length > 0 && 'price' in (first.book[0] as object) && 'volume_dbl' in (first.book[0] as object), 'BookInfo rows');
    t.notOk(c.messages.some((m) => m.event === 'tick'), 'kinds=book: no ticks');
    t.equal((await srv.post('/market-book/EURUSD/unsubscribe')).status, 200);
    await new Promise((r) => setTimeout(r, 200)); // a poll in flight may still publish
    const count = books().length;
    // Quiet while the depth changes: the simulated book follows the last tick (its second and
    // prices), so an EURUSD tick in a later second changes it; then some polls more.
    const quietFrom = sim.now();
    const change = (await sim.ticks('EURUSD', quietFrom, quietFrom + 60_000)).find((k) => k.time > Math.floor(quietFrom / 1000));
    t.ok(change, 'EURUSD ticks on in a later second: its depth changes meanwhile');
    await sim.untilTime((change?.time_msc ?? quietFrom) + 10 * POLL_MS);
    t.equal(books().length, count, 'no depth events after unsubscribe');
    t.ok(books().every((b) => b.symbol === 'EURUSD'), 'never for the unsubscribed USDJPY');
  });

  t.test('an idle stream lives on to its first default heartbeat (15 s)', async (t) => {
    // An HTTP library may time out a response that sends nothing for a while (uWS has a 10 s HTTP
    // timeout in its sources): the stream must outlive the default heartbeat interval.
    const frozen = simTerminal();
    t.teardown(() => frozen.close());
    const srv = await serve(t, adapter, frozen, env);
    const c = await SseClient.open(`${srv.base}/events?symbols=EURUSD`);
    t.teardown(() => c.close());
    const opened = Date.now();
    let ended = false;
    void c.ended.then(() => (ended = true));
    await c.waitFor(() => c.comments.length >= 2 || ended, 20_000, 'the first heartbeat');
    t.notOk(ended, 'the connection is still open');
    t.ok(Date.now() - opened >= 14_000, 'after about 15 s');
    t.same(c.comments, ['connected', ''], 'the opening comment, then one heartbeat');
  });

  t.test('heartbeat comments while nothing happens; the stream ends cleanly on server close', async (t) => {
    // A frozen clock: no new ticks at all.
    const frozen = simTerminal();
    t.teardown(() => frozen.close());
    const srv = await serve(t, adapter, frozen, { ...env, TRADEAPI_EVENTS_HEARTBEAT_MS: '100' });
    const c = await SseClient.open(`${srv.base}/events?symbols=EURUSD`);
    await c.waitFor(() => c.comments.length >= 3, 5_000, 'heartbeats');
    t.equal(c.ticks.length, 0);
    const started = Date.now();
    await srv.server.close(5_000);
    t.equal(await c.ended, 'end', 'a clean end of the response, not a broken connection');
    t.ok(Date.now() - started < 2_000, 'shutdown does not wait for the grace period');
  });
});
