// What a client that reads is owed by the live feed under a fast generator (fastTicks): every tick,
// in order, except where a `gap` event says how many were dropped, and then exactly that many.
// And when is a gap owed at all: a reading client in the same process as the server is stalled
// whenever the process is (a loaded machine, a GC), and a poll after a stall longer than the
// client's queue holds brings more than the queue may take: dropping and saying so is then the
// gateway's documented behaviour, not a fault. So the "no gap" claim is made only when the event
// loop never stalled for half the queue's span, measured in the same run.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

import type { Test } from 'tap';

import type { TickData } from './sse.js';

/** One event a reading client got, in order. */
export type Delivered = { tick: TickData } | { dropped: number };

/** Watches the event loop's longest stall from now on. */
export function watchStalls(): { stop(): number } {
  const h: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return {
    /** The longest stall seen, in ms. */
    stop: () => {
      h.disable();
      return h.max / 1e6;
    },
  };
}

/**
 * Checks a reading client's stream from fastTicks(…, perMs): no hole where no gap was announced,
 * each announced gap's `dropped` equal to the ticks missing across it; and no gap at all when the
 * longest stall was under half the span the queue holds (`queueBytes` at the stream's bytes per tick).
 */
export function checkReadingClient(t: Test, events: readonly Delivered[], perMs: number, opts: { queueBytes: number; bytesPerTick: number; stallMs: number }): void {
  const position = (k: TickData): number => k.time_msc * perMs + Math.round((k.bid - 1) * 1e5);
  let last: TickData | undefined;
  let announced = 0;
  let unannounced = 0;
  let miscounted = 0;
  let gaps = 0;
  for (const e of events) {
    if ('dropped' in e) {
      announced += e.dropped;
      gaps++;
      continue;
    }
    if (last !== undefined) {
      const missing = position(e.tick) - position(last) - 1;
      if (announced === 0 && missing !== 0) unannounced++;
      if (announced !== 0 && missing !== announced) miscounted++;
    }
    announced = 0;
    last = e.tick;
  }
  t.equal(unannounced, 0, 'not one tick missing where no gap was announced');
  t.equal(miscounted, 0, `each gap says exactly how many ticks it dropped (${gaps} gaps)`);
  const spanMs = opts.queueBytes / (perMs * opts.bytesPerTick);
  if (opts.stallMs < spanMs / 2) {
    t.equal(gaps, 0, `no gap for the reading client (longest stall ${Math.round(opts.stallMs)} ms, the queue holds ~${Math.round(spanMs)} ms)`);
  } else {
    t.pass(`the process stalled ${Math.round(opts.stallMs)} ms, beyond half the ~${Math.round(spanMs)} ms its queue holds: ${gaps} gap(s), each accounted for`);
  }
}
