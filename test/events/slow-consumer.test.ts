// A client that stops reading: its queue stays bounded, later events are dropped and one `gap`
// event says how many once it reads again, while a client that reads keeps getting every tick.
// The feed is a fast generator (several ticks every millisecond), so that socket buffers fill in a
// second rather than minutes.
import t from 'tap';

import { fastTicks } from '../helpers/scripted-ticks.js';
import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';
import { checkReadingClient, watchStalls } from '../helpers/reading-client.js';
import { SseClient, type TickData } from '../helpers/sse.js';

const sim = simTerminal();
t.teardown(() => sim.close());
const PER_MS = 2;
const QUEUE = 64 * 1024;

/** The generator's ticks are every (millisecond, k < PER_MS): a stream without a hole has them all in order. */
function holes(ticks: readonly TickData[]): number {
  let missing = 0;
  for (let i = 1; i < ticks.length; i++) {
    const a = ticks[i - 1] as TickData;
    const b = ticks[i] as TickData;
    const ka = Math.round((a.bid - 1) * 1e5);
    const kb = Math.round((b.bid - 1) * 1e5);
    const expected = ka === PER_MS - 1 ? [a.time_msc + 1, 0] : [a.time_msc, ka + 1];
    if (b.time_msc !== expected[0] || kb !== expected[1]) missing++;
  }
  return missing;
}

void forEachAdapter(t, async (t, adapter) => {
  t.test('a stalled client gets a gap, a reading one every tick, and the queue stays bounded', async (t) => {
    const terminal = fastTicks(sim, PER_MS);
    const srv = await serve(t, adapter, terminal, { TRADEAPI_EVENTS_POLL_MS: '20', TRADEAPI_EVENTS_QUEUE_BYTES: String(QUEUE) });
    const slow = await SseClient.open(`${srv.base}/events?symbols=EURUSD`);
    slow.pause();
    const fast = await SseClient.open(`${srv.base}/events?symbols=EURUSD`);
    t.teardown(() => (slow.close(), fast.close()));
    const rss0 = process.memoryUsage().rss;
    const stalls = watchStalls();
    // Long enough for the stalled socket's buffers to fill and its queue to overflow.
    const deadline = Date.now() + 20_000;
    let peak = 0;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      peak = Math.max(peak, srv.server.eventStats().peakQueuedBytes);
      if (peak >= QUEUE - 1024 && fast.ticks.length > 3_000) break;
    }
    t.ok(peak >= QUEUE - 1024, `the stalled client's queue filled (${peak} bytes)`);
    t.ok(peak <= QUEUE + 512, `and never grew past its bound (${peak} <= ${QUEUE} + one event)`);
    const rssGrowth = process.memoryUsage().rss - rss0;
    t.ok(rssGrowth < 64 * 1024 * 1024, `memory stays bounded (RSS grew ${Math.round(rssGrowth / 1e6)} MB)`);
    const fastTicksSeen = fast.ticks;
    t.ok(fastTicksSeen.length > 3_000, `the reading client kept receiving (${fastTicksSeen.length} ticks)`);
    const delivered = fast.messages.filter((m) => m.event === 'tick' || m.event === 'gap');
    const bytesPerTick = delivered.reduce((n, m) => n + m.data.length, 0) / Math.max(1, delivered.length) + 30; // + "event: tick\ndata: …\nid: …\n\n"
    checkReadingClient(
      t,
      delivered.map((m) => (m.event === 'gap' ? { dropped: (JSON.parse(m.data) as { dropped: number }).dropped } : { tick: JSON.parse(m.data) as TickData })),
      PER_MS,
      { queueBytes: QUEUE, bytesPerTick, stallMs: stalls.stop() },
    );

    slow.resume();
    await slow.waitFor(() => slow.messages.some((m) => m.event === 'gap'), 10_000, 'the gap event');
    const at = slow.messages.findIndex((m) => m.event === 'gap');
    const gap = JSON.parse((slow.messages[at] as { data: string }).data) as { reason: string; dropped: number };
    t.equal(gap.reason, 'slow-consumer');
    t.ok(gap.dropped > 0, `it says how many were dropped (${gap.dropped})`);
    const next = slow.messages.slice(at + 1).findIndex((m) => m.event === 'gap');
    t.ok(next === -1 || next > 0, 'a gap is followed by events before any further gap');
    await slow.waitFor(() => slow.messages.length > at + 10, 10_000, 'events after the gap');
    const before = slow.messages.slice(0, at).filter((m) => m.event === 'tick');
    const after = slow.messages.slice(at + 1).filter((m) => m.event === 'tick');
    t.equal(holes(before.map((m) => JSON.parse(m.data) as TickData)), 0, 'no hole before the gap');
    t.ok(after.length > 0, 'delivery resumed after the gap');
  });

  t.test('a client that takes nothing for the send timeout is disconnected and freed', async (t) => {
    const terminal = fastTicks(sim, PER_MS);
    const srv = await serve(t, adapter, terminal, {
      TRADEAPI_EVENTS_POLL_MS: '20',
      TRADEAPI_EVENTS_QUEUE_BYTES: String(QUEUE),
      TRADEAPI_SEND_TIMEOUT_MS: '1000',
    });
    const slow = await SseClient.open(`${srv.base}/events?symbols=EURUSD`);
    slow.pause();
    const deadline = Date.now() + 30_000;
    while (srv.server.eventStats().clients > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    t.same(srv.server.eventStats(), { clients: 0, tickSymbols: 0, bookSymbols: 0, peakQueuedBytes: 0 }, 'the stream and its poller are gone');
    slow.close();
  });
});
