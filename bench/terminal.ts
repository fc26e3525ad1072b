// Terminal-layer figures: ticks per second produced in C++ and handed to JS through the façade
// (one worker, one core), and the cost of handing a 10 M-row chunk to JS (external buffers).
// Run: npm run build && node --expose-gc dist/bench/terminal.js
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
  await term.close();
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchTerminal();
}
