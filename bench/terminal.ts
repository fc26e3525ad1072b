// Terminal-layer figures: ticks per second produced in C++ and handed to JS through the façade
// (one worker, one core), the cost of handing a 10 M-row chunk to JS (external buffers), and the
// cost of moving a 16 K-row chunk's times from server time to UTC (TRADEAPI_SERVER_TZ).
// Run: npm run build && node --expose-gc dist/bench/terminal.js
import { parseServerZone } from '../src/config/server-zone.js';
import { openSimTerminal } from '../src/terminal/index.js';
import { addon } from '../src/terminal/native.js';

export async function benchTerminal(totalTicks = 20_000_000): Promise<Record<string, number>> {
  const term = openSimTerminal({ seed: 1, nowMs: Date.UTC(2025, 0, 1) });
  const results: Record<string, number> = {};
  for (const chunkRows of [65_536, 262_144, 1_048_576]) {
    const start = process.hrtime.bigint();
    let rows = 0;
    const series = await term.copyTicksFrom('EURUSD', Date.UTC(2024, 0, 1), totalTicks, -1, { chunkRows });
    for await (const chunk of series) rows += chunk.rows;
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    results[`ticks_per_s_chunk_${chunkRows}`] = Math.round(rows / seconds);
    console.log(`ticks produced and handed to JS: ${rows} in ${seconds.toFixed(2)} s = ${(rows / seconds / 1e6).toFixed(1)} M ticks/s (chunks of ${chunkRows})`);
  }
  for (const rows of [1_000, 1_000_000, 10_000_000]) {
    const samples: number[] = [];
    // With --expose-gc, collect first so that a GC triggered by the previous sample's buffers
    // is not billed to this one.
    const gc = (globalThis as { gc?: () => void }).gc;
    for (let i = 0; i < 5; i++) {
      gc?.();
      samples.push(addon.measureHandoff(rows).ms);
    }
    samples.sort((a, b) => a - b);
    results[`handoff_ms_${rows}`] = samples[2]!;
    console.log(`handing a ${rows}-row tick chunk (8 columns) to JS: median ${samples[2]!.toFixed(3)} ms (no copy)`);
  }
  // Server time to UTC for one 16 K-row chunk (a chunk of a series page) across a DST change; the
  // test (test/terminal/server-time.test.ts) proves it asks Intl per hour, not per row.
  const zone = parseServerZone('America/New_York');
  const col = new BigInt64Array(16_384);
  const base = Date.UTC(2024, 10, 3, 4);
  for (let i = 0; i < col.length; i++) col[i] = BigInt(base + i * 500);
  const perChunk: number[] = [];
  for (let i = 0; i < 21; i++) {
    const copy = col.slice();
    const started = performance.now();
    zone.columnToUtc(copy, 1);
    perChunk.push(performance.now() - started);
  }
  perChunk.sort((a, b) => a - b);
  results.server_zone_ms_per_16k_rows = perChunk[10]!;
  console.log(`server time to UTC (America/New_York, over a DST change): median ${perChunk[10]!.toFixed(3)} ms per 16 384 rows`);
  await term.close();
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchTerminal();
}
