// GET /ws through the real server on loopback, with the `ws` package's client, once per adapter
// (node:http + ws here; uWebSockets.js where it loads: the Debian 13 root and the Wine run). The
// simulator makes ticks in real time on the busy test clock (test/helpers/live-sim.ts: a Wednesday
// afternoon whatever the machine's day and hour, so EURUSD trades too); every wait for ticks lasts
// as long as the simulator's schedule says they take, plus one poll and the machine's slack.
import http from 'node:http';

import { tableFromIPC } from 'apache-arrow';
import t, { type Test } from 'tap';

import type { TickData } from '../helpers/sse.js';
import { forEachAdapter, READ_ONLY_KEY, serve, serveReadOnly, type TestServer } from '../helpers/server.js';
import { WsClient } from '../helpers/ws.js';
import { liveSimTerminal } from '../helpers/live-sim.js';

const sim = liveSimTerminal();
const live = sim.terminal;
t.teardown(() => sim.close());
// ETHUSD trades around the clock like BTCUSD but is not in a fresh terminal's Market Watch.
await live.symbolSelect('ETHUSD', true);

const FIELDS = ['time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'flags', 'volume_real'] as const;
const fieldsOf = (tick: TickData): Record<string, number> => Object.fromEntries(FIELDS.map((f) => [f, tick[f]]));
const iso = (ms: number): string => new Date(ms).toISOString();
const POLL_MS = 50;
const env = { TRADEAPI_EVENTS_POLL_MS: String(POLL_MS) };
/** How long n new ticks of `symbols` (together, or of each) take to arrive (test/helpers/live-sim.ts). */
const window = (symbols: readonly string[], n: number, each = false): Promise<number> => sim.window(symbols, n, { pollMs: POLL_MS, each });
const KEY = 'sekret-key';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const wsUrl = (srv: TestServer, path = '/ws'): string => `${srv.base.replace(/^http/, 'ws')}${path}`;

async function rangeRows(srv: TestServer, symbol: string, fromMs: number, toMs: number, headers: Record<string, string> = {}): Promise<Array<Record<string, number>>> {
  const res = await srv.get(`/ticks/range?symbol=${symbol}&date_from=${iso(fromMs)}&date_to=${iso(toMs)}`, { headers });
  return ((await res.json()) as Array<Record<string, number>>).map((r) => Object.fromEntries(FIELDS.map((f) => [f, r[f] as number])));
}

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

async function waitStats(srv: TestServer, cond: (s: ReturnType<TestServer['server']['eventStats']>) => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!cond(srv.server.eventStats()) && Date.now() < deadline) await sleep(20);
}

void forEachAdapter(t, async (t, adapter) => {
  t.test('subscribe: ticks of the listed symbols only, in time order, equal to /ticks/range', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    const symbols = ['BTCUSD', 'ETHUSD', 'EURUSD'];
    const reply = c.next('subscribed');
    c.send({ op: 'subscribe', symbols, id: 7 });
    const subscribed = await reply;
    t.same(subscribed, { event: 'subscribed', symbols, kinds: ['tick'], format: 'json', subscriptions: { tick: symbols, book: [] }, id: 7, seq: 1 }, 'the reply echoes the id and says what is subscribed (the first message: seq 1)');
    t.equal(srv.server.eventStats().tickSymbols, 3, 'one poller per symbol');
    await c.waitFor(() => c.ticks.length >= 8, await window(symbols, 8), '8 ticks');
    const ticks = c.ticks;
    t.ok(ticks.every((k) => symbols.includes(k.symbol)), 'only listed symbols');
    checkOrder(t, ticks);
    for (const tick of ticks) t.equal(tick.time, Math.floor(tick.time_msc / 1000), 'time in seconds, time_msc in ms (as /symbols/{symbol}/tick)');
    for (const symbol of symbols) {
      const mine = ticks.filter((k) => k.symbol === symbol);
      if (mine.length === 0) continue;
      const history = await rangeRows(srv, symbol, (mine[0] as TickData).time_msc, (mine.at(-1) as TickData).time_msc);
      t.same(mine.map(fieldsOf), history, `${symbol}: the events are the history of that span`);
    }
  });

  t.test('seq: every JSON message of a connection numbered 1, 2, 3… in the order sent, whatever its kind', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    const symbols = ['BTCUSD', 'EURUSD'];
    const reply = c.next('subscribed');
    c.send({ op: 'subscribe', symbols });
    await reply;
    await c.waitFor(() => c.ticks.length >= 4, await window(symbols, 4), '4 ticks');
    const bad = c.next('error');
    c.send({ op: 'nonsense' });
    await bad;
    const pong = c.next('pong');
    c.send({ op: 'ping' });
    await pong;
    const seqs = c.messages.map((m) => m.seq);
    t.same(seqs, seqs.map((_, i) => i + 1), `${seqs.length} messages (a reply, ticks, an error, a pong): 1..${seqs.length}`);
    t.ok(c.messages.every((m) => Object.keys(m).at(-1) === 'seq'), 'seq is the last member of each message');
    // A second connection counts from 1 again.
    const other = await WsClient.open(wsUrl(srv));
    t.teardown(() => other.close());
    const second = other.next('pong');
    other.send({ op: 'ping' });
    t.equal((await second).seq, 1, 'per connection');
  });

  t.test('format arrow: ticks as Arrow IPC streams in binary frames, the same rows as /ticks/range', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    const reply = c.next('subscribed');
    c.send({ op: 'subscribe', symbols: ['BTCUSD', 'ETHUSD'], format: 'arrow' });
    t.equal((await reply).format, 'arrow');
    await c.waitFor(() => c.of('binary').length >= 4, await window(['BTCUSD', 'ETHUSD'], 4), '4 binary frames');
    t.equal(c.ticks.length, 0, 'no JSON tick events');
    const rows: TickData[] = [];
    for (const frame of c.of('binary')) {
      const table = tableFromIPC(frame.data as Buffer);
      t.same(
        table.schema.fields.map((f) => `${f.name}:${String(f.type)}`),
        ['symbol:Utf8', 'time:Timestamp<SECOND, UTC>', 'bid:Float64', 'ask:Float64', 'last:Float64', 'volume:Uint64', 'time_msc:Timestamp<MILLISECOND, UTC>', 'flags:Uint32', 'volume_real:Float64'],
        'the columns of a tick series in Arrow, behind the symbol',
      );
      t.ok(table.numRows > 0, 'a frame holds ticks');
      for (let i = 0; i < table.numRows; i++) {
        const time_msc = Number(table.getChild('time_msc')?.get(i));
        rows.push({
          symbol: table.getChild('symbol')?.get(i) as string,
          time: Math.floor(time_msc / 1000),
          bid: table.getChild('bid')?.get(i) as number,
          ask: table.getChild('ask')?.get(i) as number,
          last: table.getChild('last')?.get(i) as number,
          volume: Number(table.getChild('volume')?.get(i)),
          time_msc,
          flags: table.getChild('flags')?.get(i) as number,
          volume_real: table.getChild('volume_real')?.get(i) as number,
        });
      }
    }
    checkOrder(t, rows);
    for (const symbol of ['BTCUSD', 'ETHUSD']) {
      const mine = rows.filter((k) => k.symbol === symbol);
      if (mine.length === 0) continue;
      const history = await rangeRows(srv, symbol, (mine[0] as TickData).time_msc, (mine.at(-1) as TickData).time_msc);
      t.same(mine.map(fieldsOf), history, `${symbol}: the rows are the history of that span`);
    }
    const back = c.next('subscribed');
    c.send({ op: 'subscribe', symbols: ['BTCUSD'], format: 'json' });
    t.equal((await back).format, 'json', 'a later subscribe switches back');
    await c.waitFor(() => c.ticks.length > 0, await window(['BTCUSD'], 1), 'a JSON tick');
  });

  t.test('unsubscribe stops a symbol; the others go on without a hole; adding a symbol later', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    let reply = c.next('subscribed');
    c.send({ op: 'subscribe', symbols: ['BTCUSD'] });
    await reply;
    await c.waitFor(() => c.ticks.length >= 2, await window(['BTCUSD'], 2), 'BTCUSD ticks');
    reply = c.next('subscribed');
    c.send({ op: 'subscribe', symbols: ['ETHUSD'] });
    t.same((await reply).subscriptions, { tick: ['BTCUSD', 'ETHUSD'], book: [] }, 'a second subscribe adds');
    await c.waitFor(() => c.ticks.some((k) => k.symbol === 'ETHUSD'), await window(['ETHUSD'], 1), 'ETHUSD ticks');
    const unsubscribed = c.next('unsubscribed');
    c.send({ op: 'unsubscribe', symbols: ['ETHUSD'], id: 'u1' });
    const u = await unsubscribed;
    t.same(u, { event: 'unsubscribed', symbols: ['ETHUSD'], kinds: ['tick', 'book', 'bar'], subscriptions: { tick: ['BTCUSD'], book: [] }, id: 'u1', seq: c.messages.indexOf(u) + 1 });
    const at = c.messages.indexOf(u);
    await waitStats(srv, (s) => s.tickSymbols === 1);
    t.equal(srv.server.eventStats().tickSymbols, 1, 'the ETHUSD poller stopped: nobody else listens');
    await c.waitFor(() => c.messages.slice(at).filter((m) => m.event === 'tick').length >= 3, await window(['BTCUSD'], 3), 'more BTCUSD ticks');
    const after = c.messages.slice(at + 1).filter((m) => m.event === 'tick').map((m) => m.data as TickData);
    t.ok(after.every((k) => k.symbol === 'BTCUSD'), 'no ETHUSD tick after the unsubscribed reply');
    // BTCUSD went through two resubscriptions: still exactly its history.
    const btc = c.ticks.filter((k) => k.symbol === 'BTCUSD');
    checkOrder(t, btc);
    const history = await rangeRows(srv, 'BTCUSD', (btc[0] as TickData).time_msc, (btc.at(-1) as TickData).time_msc);
    t.same(btc.map(fieldsOf), history, 'BTCUSD: neither a hole nor a duplicate across the changes');
    const all = c.next('unsubscribed');
    c.send({ op: 'unsubscribe' });
    t.same((await all).subscriptions, { tick: [], book: [] }, 'unsubscribe without members: everything');
    await waitStats(srv, (s) => s.tickSymbols === 0);
    t.equal(srv.server.eventStats().tickSymbols, 0, 'no poller left');
  });

  t.test('bad messages get error events with problems; the connection stays open', async (t) => {
    const srv = await serve(t, adapter, live, { ...env, TRADEAPI_EVENTS_MAX_SYMBOLS: '2' });
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    const cases: Array<[unknown, number, string, RegExp]> = [
      ['{"op":', 400, '/errors/validation-error', /not valid JSON/],
      ['[1,2]', 400, '/errors/validation-error', /JSON object/],
      [{ op: 'dance' }, 400, '/errors/validation-error', /"op" must be one of/],
      [{ op: 'subscribe' }, 400, '/errors/validation-error', /needs a member "symbols"/],
      [{ op: 'subscribe', symbols: [] }, 400, '/errors/validation-error', /non-empty array/],
      [{ op: 'subscribe', symbols: ['EURUSD'], kinds: ['quote'] }, 400, '/errors/validation-error', /"kinds"/],
      [{ op: 'subscribe', symbols: ['EURUSD', 'EURUSD'] }, 400, '/errors/validation-error', /twice/],
      [{ op: 'subscribe', symbols: ['EURUSD'], extra: 1 }, 400, '/errors/validation-error', /unknown member "extra"/],
      [{ op: 'subscribe', symbols: ['EURUSD', 'USDJPY', 'BTCUSD'] }, 400, '/errors/validation-error', /at most 2/],
      [{ op: 'subscribe', symbols: ['NOPE'] }, 404, '/errors/symbol-not-found', /NOPE/],
      [{ op: 'subscribe', symbols: ['EURUSD'], format: 'xml' }, 400, '/errors/validation-error', /"format"/],
    ];
    for (const [message, status, type, detail] of cases) {
      const error = c.next('error');
      c.send(message);
      const e = await error;
      t.equal(e.problem?.status, status, `${JSON.stringify(message)}: ${status}`);
      t.equal(e.problem?.type, type);
      t.match(e.problem?.detail, detail);
      t.equal(e.problem?.instance, '/ws', 'instance: the endpoint');
    }
    const binary = c.next('error');
    c.ws.send(Buffer.from([1, 2, 3]));
    t.match((await binary).problem?.detail, /text frames/, 'a binary frame is refused');
    const withId = c.next('error');
    c.send({ op: 'subscribe', symbols: ['NOPE'], id: 42 });
    t.equal((await withId).id, 42, 'an error echoes the message id');
    t.equal(srv.server.eventStats().tickSymbols, 0, 'no refused subscribe left a poller behind');
    // Still open and serving.
    const pong = c.next('pong');
    c.send({ op: 'ping', id: 1 });
    const p = await pong;
    t.same(p, { event: 'pong', id: 1, seq: c.messages.indexOf(p) + 1 });
    const two = c.next('subscribed');
    c.send({ op: 'subscribe', symbols: ['EURUSD', 'USDJPY'] });
    t.same((await two).subscriptions, { tick: ['EURUSD', 'USDJPY'], book: [] });
    const third = c.next('error');
    c.send({ op: 'subscribe', symbols: ['BTCUSD'] });
    t.match((await third).problem?.detail, /3 symbols on this connection \(2 already\)/, 'the cap counts the whole connection');
  });

  t.test('a client that keeps sending bad messages is closed (1008)', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    for (let i = 0; i < 30; i++) c.send('nope');
    const { code, reason } = await c.closed;
    t.equal(code, 1008);
    t.equal(reason, 'too many bad messages');
    t.equal(c.of('error').length, 21, 'an error event for each until then');
  });

  t.test('auth: the X-API-Key header, or a first {"op":"auth"} message', async (t) => {
    const srv = await serve(t, adapter, live, { ...env, TRADEAPI_SECRET_KEY: KEY });
    const wrong = await WsClient.refused(wsUrl(srv), { 'x-api-key': 'nope' });
    t.equal(wrong.status, 401, 'a wrong header: the upgrade is refused');
    t.match(String(wrong.headers['content-type']), /^application\/problem\+json/);
    t.equal((JSON.parse(wrong.body) as { type: string }).type, '/errors/unauthorized');

    const byHeader = await WsClient.open(wsUrl(srv), { 'x-api-key': KEY });
    t.teardown(() => byHeader.close());
    let reply = byHeader.next('subscribed');
    byHeader.send({ op: 'subscribe', symbols: ['BTCUSD'] });
    await reply;
    t.pass('the header is enough');

    const byMessage = await WsClient.open(wsUrl(srv));
    t.teardown(() => byMessage.close());
    const ok = byMessage.next('authenticated');
    byMessage.send({ op: 'auth', key: KEY, id: 'a' });
    t.same(await ok, { event: 'authenticated', id: 'a', seq: 1 });
    reply = byMessage.next('subscribed');
    byMessage.send({ op: 'subscribe', symbols: ['BTCUSD'] });
    await reply;
    await byMessage.waitFor(() => byMessage.ticks.length > 0, await window(['BTCUSD'], 1), 'a tick after auth by message');

    const badKey = await WsClient.open(wsUrl(srv));
    badKey.send({ op: 'auth', key: 'nope' });
    const closedBad = await badKey.closed;
    t.equal(closedBad.code, 1008, 'a wrong key closes with 1008');
    t.equal(badKey.of('error')[0]?.problem?.type, '/errors/unauthorized', 'after an error event');
    t.notMatch(JSON.stringify(badKey.messages), /nope/, 'the key is not echoed');

    const noAuth = await WsClient.open(wsUrl(srv));
    noAuth.send({ op: 'subscribe', symbols: ['BTCUSD'] });
    t.equal((await noAuth.closed).code, 1008, 'anything before auth closes');
    t.equal(noAuth.of('error')[0]?.problem?.status, 401);
    t.equal(noAuth.ticks.length, 0, 'and nothing was served');

    const silent = await WsClient.open(wsUrl(srv));
    const started = Date.now();
    const closed = await silent.closed;
    t.equal(closed.code, 1008, 'no auth message: closed');
    t.ok(Date.now() - started >= 4_500, 'after the 5 s deadline');
    t.match(silent.of('error')[0]?.problem?.detail, /within 5000 ms/);
  });

  t.test('the auth deadline is TRADEAPI_EVENTS_AUTH_TIMEOUT_MS', async (t) => {
    const srv = await serve(t, adapter, live, { ...env, TRADEAPI_SECRET_KEY: KEY, TRADEAPI_EVENTS_AUTH_TIMEOUT_MS: '300' });
    const silent = await WsClient.open(wsUrl(srv));
    const started = Date.now();
    const closed = await silent.closed;
    t.equal(closed.code, 1008, 'no auth message: closed');
    t.ok(Date.now() - started < 4_000, `well before the default 5 s (${Date.now() - started} ms)`);
    t.match(silent.of('error')[0]?.problem?.detail, /within 300 ms/);
  });

  t.test('refusals are HTTP answers; a GET without the handshake is 426', async (t) => {
    const srv = await serve(t, adapter, live, { ...env, TRADEAPI_MAX_EVENT_CLIENTS: '1' });
    const plain = await srv.get('/ws');
    t.equal(plain.status, 426);
    t.equal(plain.headers.get('upgrade'), 'websocket');
    t.equal(((await plain.json()) as { type: string }).type, '/errors/upgrade-required');
    const elsewhere = await WsClient.refused(wsUrl(srv, '/nope'));
    t.equal(elsewhere.status, 404, 'an upgrade to another path is an ordinary request: 404');
    const a = await WsClient.open(wsUrl(srv));
    t.teardown(() => a.close());
    const full = await WsClient.refused(wsUrl(srv));
    t.equal(full.status, 503, 'over TRADEAPI_MAX_EVENT_CLIENTS');
    t.equal(full.headers['retry-after'], '5');
    t.equal((JSON.parse(full.body) as { type: string }).type, '/errors/too-many-event-clients');
    a.close();
    await waitStats(srv, (s) => s.clients === 0);
    t.same(srv.server.eventStats(), { clients: 0, tickSymbols: 0, bookSymbols: 0, peakQueuedBytes: 0 }, 'nothing left of the client');
    const b = await WsClient.open(wsUrl(srv));
    t.pass('the slot is free again');
    b.close();
  });

  t.test('other upgrade requests (h2c, or elsewhere) are answered as ordinary requests', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const get = (path: string, upgrade: string): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        const req = http.get(`${srv.base}${path}`, { headers: { connection: 'Upgrade, HTTP2-Settings', upgrade, 'http2-settings': 'AAMAAABkAAQAoAAAAAIAAAAA' } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('upgrade', () => reject(new Error('upgraded')));
        req.on('error', reject);
      });
    const version = await get('/version', 'h2c');
    t.equal(version.status, 200, 'Upgrade: h2c is ignored, as HTTP/1.1 allows');
    t.same(JSON.parse(version.body), await (await srv.get('/version')).json(), 'the same answer as without the header');
    const ws = await get('/ws', 'h2c');
    t.equal(ws.status, 426, 'h2c at /ws: not a WebSocket handshake');
  });

  t.test('depth events for subscribed symbols only; they stop after unsubscribe', async (t) => {
    const srv = await serve(t, adapter, live, env);
    t.equal((await srv.post('/market-book/EURUSD/subscribe')).status, 200);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    const reply = c.next('subscribed');
    c.send({ op: 'subscribe', symbols: ['EURUSD', 'USDJPY'], kinds: ['book'] });
    t.same((await reply).subscriptions, { tick: [], book: ['EURUSD', 'USDJPY'] });
    const books = (): Array<{ symbol: string; time_msc: number; book: Array<Record<string, number>> }> =>
      c.of('book').map((m) => m.data as { symbol: string; time_msc: number; book: Array<Record<string, number>> });
    await c.waitFor(() => books().length >= 1, 10_000, 'a book event');
    const first = books()[0] as { symbol: string; time_msc: number; book: Array<Record<string, number>> };
    t.equal(first.symbol, 'EURUSD');
    t.ok(first.book.length > 0 && 'price' in (first.book[0] as object), 'BookInfo rows');
    t.equal(c.ticks.length, 0, 'kinds book: no ticks');
    const un = c.next('unsubscribed');
    c.send({ op: 'unsubscribe', kinds: ['book'] });
    await un;
    const count = books().length;
    // Quiet while the depth changes: the simulated book follows the last tick (its second and
    // prices), so an EURUSD tick in a later second changes it; then some polls more.
    const quietFrom = sim.now();
    const change = (await sim.ticks('EURUSD', quietFrom, quietFrom + 60_000)).find((k) => k.time > Math.floor(quietFrom / 1000));
    t.ok(change, 'EURUSD ticks on in a later second: its depth changes meanwhile');
    await sim.untilTime((change?.time_msc ?? quietFrom) + 10 * POLL_MS);
    t.equal(books().length, count, 'no depth events after unsubscribe');
    t.ok(books().every((b) => b.symbol === 'EURUSD'), 'never for USDJPY, which has no depth subscription');
    t.equal((await srv.post('/market-book/EURUSD/unsubscribe')).status, 200);
  });

  t.test('subscribe with since: the missed ticks from history, then live; no loss, no repeat', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const symbols = ['BTCUSD', 'ETHUSD'];
    const first = await WsClient.open(wsUrl(srv));
    const on = first.next('subscribed');
    first.send({ op: 'subscribe', symbols });
    await on;
    const count = (c: WsClient, s: string): number => c.ticks.filter((k) => k.symbol === s).length;
    await first.waitFor(() => symbols.every((s) => count(first, s) >= 3), await window(symbols, 3, true), 'three ticks of each symbol');
    first.close();
    const events = first.of('tick').map((m) => ({ tick: m.data as TickData, eventId: m.event_id as string }));
    for (const e of events) t.equal(e.eventId.split('-')[0], String(e.tick.time_msc), 'event_id: the time_msc, then the index in its millisecond');
    // The client kept each symbol's first two ticks only; more happened while it was away.
    const kept = symbols.map((s) => events.filter((e) => e.tick.symbol === s).slice(0, 2));
    const lastIds = kept.map((k) => (k.at(-1) as { eventId: string }).eventId);
    // An SSE id of the subscribe's symbols in order: "<ms>-<seq>,<ms0 - ms1>-<seq>".
    const [ms0, seq0] = (lastIds[0] as string).split('-');
    const [ms1, seq1] = (lastIds[1] as string).split('-');
    const since = `${ms0}-${seq0},${Number(ms0) - Number(ms1)}-${seq1}`;
    await sim.until(symbols, 2, { each: true }); // more ticks happen while it is away

    const second = await WsClient.open(wsUrl(srv));
    t.teardown(() => second.close());
    const again = second.next('subscribed');
    second.send({ op: 'subscribe', symbols, since, id: 'r' });
    t.same((await again).subscriptions, { tick: symbols, book: [] });
    const seenMax = (s: string): number => Math.max(...events.filter((e) => e.tick.symbol === s).map((e) => e.tick.time_msc));
    await second.waitFor(() => symbols.every((s) => second.ticks.some((k) => k.symbol === s && k.time_msc > seenMax(s))), await window(symbols, 1, true), 'live ticks past the first connection');
    await sleep(300);
    t.same(second.of('gap'), [], 'no gap');
    t.same(second.of('error'), [], 'no error');
    for (const [i, symbol] of symbols.entries()) {
      const mine = [...(kept[i] ?? []).map((e) => e.tick), ...second.ticks.filter((k) => k.symbol === symbol)];
      const missed = events.filter((e) => e.tick.symbol === symbol).slice(2).map((e) => fieldsOf(e.tick));
      t.same(second.ticks.filter((k) => k.symbol === symbol).slice(0, missed.length).map(fieldsOf), missed, `${symbol}: what was missed comes first`);
      const history = await rangeRows(srv, symbol, (mine[0] as TickData).time_msc, (mine.at(-1) as TickData).time_msc);
      t.same(mine.map(fieldsOf), history, `${symbol}: the kept ticks and the resumed ones are exactly the history (${mine.length})`);
    }

    // One symbol: its last tick's event_id as it came.
    const one = await WsClient.open(wsUrl(srv));
    t.teardown(() => one.close());
    const ok = one.next('subscribed');
    one.send({ op: 'subscribe', symbols: ['BTCUSD'], since: (kept[0]?.[1] as { eventId: string }).eventId });
    await ok;
    await one.waitFor(() => one.ticks.length >= 2, 10_000, 'the catch-up');
    t.same(fieldsOf(one.ticks[0] as TickData), fieldsOf(events.filter((e) => e.tick.symbol === 'BTCUSD')[2]?.tick as TickData), 'starts right after the given tick');
  });

  t.test('subscribe with a bad since: an error event, nothing subscribed', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    const bad: Array<[unknown, RegExp, string]> = [
      [{ op: 'subscribe', symbols: ['BTCUSD'], since: 'yesterday', id: 1 }, /member "since" has a malformed position/, 'not an id'],
      [{ op: 'subscribe', symbols: ['BTCUSD', 'ETHUSD'], since: '1700000000000-0', id: 2 }, /names 1 position\(s\) for 2 symbol/, 'one position for two symbols'],
      [{ op: 'subscribe', symbols: ['BTCUSD'], since: 1700000000000, id: 3 }, /member "since" must be an event id/, 'a number'],
      [{ op: 'subscribe', symbols: ['BTCUSD'], kinds: ['book'], since: '1700000000000-0', id: 4 }, /needs "tick"/, 'book only'],
    ];
    for (const [msg, detail, what] of bad) {
      const e = c.next('error');
      c.send(msg);
      const got = await e;
      t.equal(got.problem?.status, 400, what);
      t.match(got.problem?.detail, detail, what);
      t.equal(got.id, (msg as { id: number }).id, `${what}: the id comes back`);
    }
    const ping = c.next('pong');
    c.send({ op: 'ping' });
    await ping;
    t.same(srv.server.eventStats().tickSymbols, 0, 'nothing subscribed');
  });

  t.test('an open WebSocket outlives the HTTP request and keep-alive timeouts', async (t) => {
    const srv = await serve(t, adapter, live, { ...env, TRADEAPI_HEADERS_TIMEOUT_MS: '500', TRADEAPI_REQUEST_TIMEOUT_MS: '1000', TRADEAPI_KEEPALIVE_TIMEOUT_MS: '500' });
    const c = await WsClient.open(wsUrl(srv));
    t.teardown(() => c.close());
    let closed = false;
    void c.closed.then(() => (closed = true));
    await sleep(3_000);
    t.notOk(closed, 'still open after three times the request timeout');
    const pong = c.next('pong');
    c.send({ op: 'ping' });
    await pong;
    t.pass('and serving');
  });

  t.test('server close: a close frame (1001)', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const c = await WsClient.open(wsUrl(srv));
    const reply = c.next('subscribed');
    c.send({ op: 'subscribe', symbols: ['BTCUSD'] });
    await reply;
    await srv.server.close(1000);
    const { code, reason } = await c.closed;
    t.equal(code, 1001, 'going away');
    t.equal(reason, 'server closing');
  });

  t.test('read-only mode: /api/v1/ws with the key, ticks only', async (t) => {
    const srv = await serveReadOnly(t, adapter, live, env);
    const none = await WsClient.refused(wsUrl(srv, '/ws'));
    t.equal(none.status, 401, 'outside the prefix: nothing (auth comes first)');
    const wrong = await WsClient.refused(wsUrl(srv, '/api/v1/ws'), { 'x-api-key': 'nope' });
    t.equal(wrong.status, 401);
    const c = await WsClient.open(wsUrl(srv, '/api/v1/ws'), { 'x-api-key': READ_ONLY_KEY });
    t.teardown(() => c.close());
    const refused = c.next('error');
    c.send({ op: 'subscribe', symbols: ['BTCUSD'], kinds: ['tick', 'book'] });
    const e = await refused;
    t.equal(e.problem?.status, 400);
    t.match(e.problem?.detail, /read-only/);
    t.equal(e.problem?.instance, '/api/v1/ws');
    const reply = c.next('subscribed');
    c.send({ op: 'subscribe', symbols: ['BTCUSD', 'ETHUSD'] });
    await reply;
    await c.waitFor(() => c.ticks.length >= 1, await window(['BTCUSD', 'ETHUSD'], 1), 'a tick');
    t.pass('ticks flow in read-only mode');
    const byMessage = await WsClient.open(wsUrl(srv, '/api/v1/ws'));
    t.teardown(() => byMessage.close());
    const ok = byMessage.next('authenticated');
    byMessage.send({ op: 'auth', key: READ_ONLY_KEY });
    await ok;
    t.pass('first-message auth in read-only mode too');
  });
});
