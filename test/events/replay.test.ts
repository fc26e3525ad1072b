// GET /events?start=…: a replay from history that runs into live (or ends at `end`), through the
// real server on loopback, read by a real SSE parser, on the busy test clock (test/helpers/live-
// sim.ts). The history part is compared with /ticks/range over the same span; waits are as long as
// the simulator's schedule says the awaited ticks take, plus one poll and the machine's slack.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import t, { type Test } from 'tap';

import type { TickData } from '../helpers/sse.js';
import { problemOf, SseClient } from '../helpers/sse.js';
import { forEachAdapter, serve, type TestServer } from '../helpers/server.js';
import { liveSimTerminal } from '../helpers/live-sim.js';
import { fieldsOf, iso, rangeRows, realTimeCheck, TICK_FIELDS as FIELDS } from '../helpers/tick-history.js';
import { patience } from '../helpers/patience.js';
import { curlMissing, DOC_SNIPPETS, docBlock } from '../helpers/doc-blocks.js';
import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import { tickJson } from '../../src/events/session.js';

const sim = liveSimTerminal();
const live = sim.terminal;
t.teardown(() => sim.close());

const POLL_MS = 50;
const env = { TRADEAPI_EVENTS_POLL_MS: String(POLL_MS) };
const SYMBOLS = ['BTCUSD', 'EURUSD'];

type Tagged = TickData & { id: string | undefined };

/** The tick events of `c`, and where each marker (replay-complete, replay-end) came among them. */
function split(c: SseClient): { ticks: Tagged[]; markers: Array<{ event: string; at: number; data: Record<string, unknown> }> } {
  const ticks: Tagged[] = [];
  const markers: Array<{ event: string; at: number; data: Record<string, unknown> }> = [];
  for (const m of c.messages) {
    if (m.event === 'tick') ticks.push({ ...(JSON.parse(m.data) as TickData), id: m.id });
    else if (m.event.startsWith('replay-')) markers.push({ event: m.event, at: ticks.length, data: JSON.parse(m.data) as Record<string, unknown> });
  }
  return { ticks, markers };
}

/**
 * Every symbol's ticks are exactly its history from `fromMs` to `toMs` (default: the last tick
 * seen); the history part (before `seamAt`) is merged in time order, each symbol in time order throughout.
 */
async function sameAsHistory(t: Test, srv: TestServer, ticks: readonly Tagged[], fromMs: number, seamAt: number, toMs?: number): Promise<void> {
  for (let i = 1; i < seamAt; i++) {
    if ((ticks[i] as Tagged).time_msc < (ticks[i - 1] as Tagged).time_msc) {
      t.fail(`history tick ${i} (${(ticks[i] as Tagged).symbol}) goes back in time`);
      break;
    }
  }
  // (Live ticks are merged per poll; at the seam a symbol's history may reach a little further than
  // another's, and the feed polls the symbols side by side: each is checked up to its own last tick.)
  for (const symbol of SYMBOLS) {
    const mine = ticks.filter((k) => k.symbol === symbol);
    const last = toMs ?? Math.max(...mine.map((k) => k.time_msc));
    t.same(mine.map(fieldsOf), await rangeRows(srv, symbol, fromMs, last), `${symbol}: each tick of the span once, as /ticks/range has them`);
  }
}

void forEachAdapter(t, async (t, adapter) => {
  t.test('history from start, one replay-complete, then live: no hole, no repeat', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const start = sim.now() - 20_000;
    const c = await SseClient.open(`${srv.base}/events?symbols=${SYMBOLS.join(',')}&start=${iso(start)}`);
    t.teardown(() => c.close());
    t.equal(c.status, 200);
    const complete = () => c.messages.some((m) => m.event === 'replay-complete');
    await c.waitFor(complete, patience(2_000), 'replay-complete');
    const seamAt = split(c).markers[0]?.at as number;
    // Live ticks of both symbols after the seam.
    const liveCount = (s: string) => split(c).ticks.slice(seamAt).filter((k) => k.symbol === s).length;
    await c.waitFor(() => SYMBOLS.every((s) => liveCount(s) >= 2), await sim.window(SYMBOLS, 2, { pollMs: POLL_MS, each: true }), 'live ticks of each symbol');
    const { ticks, markers } = split(c);
    t.same(markers.map((m) => m.event), ['replay-complete'], 'one marker');
    t.ok(seamAt > 20, `history first (${seamAt} ticks)`);
    t.equal(markers[0]?.data.ticks, seamAt, 'the marker counts the history ticks');
    t.equal(markers[0]?.data.id, ticks[seamAt - 1]?.id, "the marker names the last history tick's id");
    t.ok((ticks[0] as Tagged).time_msc >= start, 'nothing before start');
    await sameAsHistory(t, srv, ticks, start, seamAt);
    // Byte for byte the data of a live tick event (history's JSON comes from the series encoder).
    // (Less the connection's seq, the stream's stamp on every event.)
    const datas = c.messages.filter((m) => m.event === 'tick').map((m) => m.data.replace(/,"seq":\d+\}$/, '}'));
    const asLive = datas.map((d) => {
      const { symbol, ...tick } = JSON.parse(d) as TickData;
      const ordered = { symbol, ...Object.fromEntries(FIELDS.map((f) => [f, tick[f]])) };
      t.equal(tickJson(symbol, tick), JSON.stringify(ordered)); // the live events' writer is JSON.stringify's
      return tickJson(symbol, tick);
    });
    t.same(datas, asLive, 'every event data as a live event writes it');
    // The ids are those of a live stream: a history tick's id resumes a plain stream exactly there.
    const k = seamAt - 5;
    const resumed = await SseClient.open(`${srv.base}/events?symbols=${SYMBOLS.join(',')}`, { 'last-event-id': (ticks[k] as Tagged).id as string });
    t.teardown(() => resumed.close());
    const after = ticks.slice(k + 1);
    await resumed.waitFor(() => SYMBOLS.every((s) => resumed.ticks.filter((r) => r.symbol === s).length >= after.filter((r) => r.symbol === s).length), patience(2_000), 'resumed ticks');
    for (const s of SYMBOLS) {
      const expected = after.filter((r) => r.symbol === s);
      t.same(resumed.ticks.filter((r) => r.symbol === s).slice(0, expected.length).map(fieldsOf), expected.map(fieldsOf), `${s}: a replay id resumes a live stream there`);
    }
  });

  t.test('end: a pure replay of the span that closes cleanly after a replay-end', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const end = sim.now() - 5_000;
    const start = end - 30_000;
    const c = await SseClient.open(`${srv.base}/events?symbols=${SYMBOLS.join(',')}&start=${iso(start)}&end=${iso(end)}`);
    t.equal(c.status, 200);
    t.equal(await c.ended, 'end', 'the server ends the stream');
    const { ticks, markers } = split(c);
    t.same(markers.map((m) => m.event), ['replay-end'], 'one replay-end, no replay-complete');
    t.equal(markers[0]?.at, ticks.length, 'last');
    await sameAsHistory(t, srv, ticks, start, ticks.length, end);
    const seqs = c.messages.map((m) => (JSON.parse(m.data) as { seq: unknown }).seq);
    t.same(seqs, seqs.map((_, i) => i + 1), 'history ticks and the marker numbered 1..n (seq)');
    t.equal(srv.server.eventStats().tickSymbols, 0, 'a replay with an end polls nothing live');
  });

  t.test('Last-Event-ID in the middle of a replay resumes it there', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const end = sim.now() - 5_000;
    const start = end - 30_000;
    const url = `${srv.base}/events?symbols=${SYMBOLS.join(',')}&start=${iso(start)}&end=${iso(end)}`;
    const whole = await SseClient.open(url);
    await whole.ended;
    const all = split(whole).ticks;
    const k = Math.floor(all.length / 2);
    const again = await SseClient.open(url, { 'last-event-id': (all[k] as Tagged).id as string });
    t.equal(await again.ended, 'end');
    const rest = split(again).ticks;
    t.same(rest.map(fieldsOf), all.slice(k + 1).map(fieldsOf), 'the ticks after the id, each once');
    t.same(rest.map((r) => r.id), all.slice(k + 1).map((r) => r.id), 'with the same ids');
  });

  t.test('speed 1 never runs ahead of real time and stays in history', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const start = sim.now() - 60_000;
    const opened = performance.now();
    const c = await SseClient.open(`${srv.base}/events?symbols=${SYMBOLS.join(',')}&start=${iso(start)}&speed=1`);
    t.teardown(() => c.close());
    // Checked on every batch the client reads: a tick stamped t may only have come (t - start) ms after the request.
    const check = realTimeCheck(() => split(c).ticks, start, opened, 10);
    await c.waitFor(check.until, (await sim.nthTickAfter(SYMBOLS, 10, { fromMs: start })) - start + patience(1_000), '10 paced ticks');
    t.equal(check.ahead(), 0, 'no tick before its time');
    t.notOk(c.messages.some((m) => m.event === 'replay-complete'), 'still in history');
  });

  t.test('speed 10 catches up with live: one replay-complete and a clean seam', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const start = sim.now() - 2_000;
    const c = await SseClient.open(`${srv.base}/events?symbols=${SYMBOLS.join(',')}&start=${iso(start)}&speed=10`);
    t.teardown(() => c.close());
    // History of 2 s at 10x gains 0.9 s a second on the clock: caught up in about 0.25 s.
    await c.waitFor(() => c.messages.some((m) => m.event === 'replay-complete'), patience(1_000), 'replay-complete');
    const seamAt = split(c).markers[0]?.at as number;
    await c.waitFor(() => split(c).ticks.length >= seamAt + 3, await sim.window(SYMBOLS, 3, { pollMs: POLL_MS }), 'live ticks');
    await sameAsHistory(t, srv, split(c).ticks, start, seamAt);
  });

  t.test('replay refusals are 400 problems before the stream starts', async (t) => {
    const srv = await serve(t, adapter, live, env);
    const now = sim.now();
    const cases: Array<[string, RegExp]> = [
      [`start=2099-01-01T00:00:00Z`, /future/],
      [`start=${iso(now - 10_000)}&end=${iso(now - 20_000)}`, /must not be earlier than 'start'/],
      [`start=${iso(now - 10_000)}&end=2099-01-01T00:00:00Z`, /future/],
      [`start=yesterday`, /ISO 8601/],
      [`start=2024-02-30T00:00:00Z`, /ISO 8601/],
      [`start=${iso(now - 10_000)}&kinds=tick,book`, /depth has no history/],
      [`speed=10`, /needs 'start'/],
      [`end=${iso(now)}`, /needs 'start'/],
      [`start=${iso(now - 10_000)}&speed=-1`, /speed/],
      [`start=${iso(now - 10_000)}&speed=fast`, /speed/],
    ];
    for (const [query, detail] of cases) {
      const c = await SseClient.open(`${srv.base}/events?symbols=EURUSD&${query}`);
      await c.ended;
      t.equal(c.status, 400, query);
      t.equal(problemOf(c).type, '/errors/validation-error');
      t.match(problemOf(c).detail, detail, query);
    }
    t.equal(srv.server.eventStats().tickSymbols, 0, 'no refused request left a poller behind');
  });
});

await t.test(`${DOC_SNIPPETS.replay.page}'s replay block, as written`, { skip: curlMissing() }, async (t) => {
  const srv = await serve(t, nodeAdapter, live, env);
  const block = docBlock(DOC_SNIPPETS.replay);
  if (!block) return t.fail(`no sh block with the replay in ${DOC_SNIPPETS.replay.page}`);
  // Verbatim but for the address: a pure replay ends, and so does curl.
  const { stdout } = await promisify(execFile)('bash', ['-e', '-c', block.replaceAll('http://127.0.0.1:8000', srv.base)], { maxBuffer: 64 << 20 });
  const [, from, to] = /start=([^&]+)&end=([^']+)'/.exec(block) ?? [];
  const events = stdout.split('\n\n').filter((e) => e.includes('event: '));
  const ticks = events.filter((e) => e.includes('event: tick')).map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)) as TickData);
  t.match(events.at(-1), /event: replay-end/, 'ends with replay-end');
  for (const symbol of ['EURUSD', 'BTCUSD']) {
    const mine = ticks.filter((k) => k.symbol === symbol).map(fieldsOf);
    t.ok(mine.length > 0, `${symbol}: ticks`);
    t.same(mine, await rangeRows(srv, symbol, Date.parse(from as string), Date.parse(to as string)), `${symbol}: the span's history`);
  }
});
