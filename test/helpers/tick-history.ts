// What the event suites compare ticks with: a tick's fields as /ticks/range gives them, and that
// route's rows for a span (the history a stream's ticks must equal).
import type { TickData } from './sse.js';
import type { TestServer } from './server.js';

export const TICK_FIELDS = ['time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'flags', 'volume_real'] as const;

/** The tick's fields alone (without `symbol` or an id). */
export const fieldsOf = (tick: TickData): Record<string, number> => Object.fromEntries(TICK_FIELDS.map((f) => [f, tick[f]]));

export const iso = (ms: number): string => new Date(ms).toISOString();

/** /ticks/range of `symbol` from `fromMs` to `toMs` (inclusive), each row's fields. */
export async function rangeRows(srv: Pick<TestServer, 'get'>, symbol: string, fromMs: number, toMs: number): Promise<Array<Record<string, number>>> {
  const res = await srv.get(`/ticks/range?symbol=${symbol}&date_from=${iso(fromMs)}&date_to=${iso(toMs)}`);
  return ((await res.json()) as Array<Record<string, number>>).map((r) => Object.fromEntries(TICK_FIELDS.map((f) => [f, r[f] as number])));
}

/**
 * For a replay at speed 1 from `startMs`, asked at `opened` (performance.now()): `until` is a
 * waitFor predicate (run on every batch the client reads) that counts the ticks seen ahead of real
 * time (stamped t, yet seen less than t - start ms after the request) until `n` ticks have come.
 */
export function realTimeCheck(ticks: () => ReadonlyArray<{ time_msc: number }>, startMs: number, opened: number, n: number): { until: () => boolean; ahead: () => number } {
  let ahead = 0;
  let seen = 0;
  return {
    until: () => {
      const all = ticks();
      const elapsed = performance.now() - opened;
      for (const k of all.slice(seen)) if (k.time_msc - startMs > elapsed) ahead++;
      seen = all.length;
      return seen >= n;
    },
    ahead: () => ahead,
  };
}
