// Custom bars (GET /ticks/bars) beside the ticks they are built from (GET /ticks/range), in one
// run on one server: the input ticks per second from request to last byte, and their ratio
// (issue 36: at least 20 M input ticks/s and at least 0.8x /ticks/range, Arrow).
//
//   npm run build:ts && node dist/bench/bars.js [--days 72] [--periods 1m,90s,ticks:500] [--formats arrow] [--repeat 3]
//       [--store DIR]
//
// --store DIR: the same from a local store (TRADEAPI_STORE): the days are synced into DIR first
// (`tradeapi sync`, once; a store that has them already is not pulled again), then served from it.
//
// The range is whole UTC days from 2024-01-08 (the simulator's clock is UTC), so a bar request
// reads exactly the ticks /ticks/range returns; 72 days of EURUSD are ~10 M ticks. Requests
// alternate (ticks, then each period) and the best of --repeat runs is kept: on a shared machine
// other work only ever slows a run down.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { repoRoot } from './bigpull.js';
import { isMain } from './is-main.js';
import { freePort, ServerProcess } from './processes.js';
import { pull, type BodyKind } from './pull.js';

const DAY_MS = 86_400_000;
const FROM_MS = Date.UTC(2024, 0, 8);
const iso = (ms: number): string => new Date(ms).toISOString();

interface Run {
  readonly what: string;
  readonly format: string;
  readonly rows: number;
  readonly ms: number;
  readonly bytes: number;
}

async function timed(base: string, what: string, query: string, format: string): Promise<Run> {
  const res = await pull(`${base}${query}&format=${format}`, format as BodyKind);
  if (res.status !== 200) throw new Error(`${what}: status ${res.status}: ${res.errorText}`);
  const check = await res.sink.check();
  return { what, format, rows: check.rows, ms: res.totalMs, bytes: res.bytes };
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      days: { type: 'string', default: '72' },
      periods: { type: 'string', default: '1m,90s,ticks:500' },
      formats: { type: 'string', default: 'arrow' },
      repeat: { type: 'string', default: '3' },
      symbol: { type: 'string', default: 'EURUSD' },
      store: { type: 'string' },
    },
  });
  const root = repoRoot();
  const toMs = FROM_MS + Number(values.days) * DAY_MS - 1;
  const range = `symbol=${values.symbol}&date_from=${iso(FROM_MS)}&date_to=${iso(toMs)}`;
  const cli = path.join(root, 'bin', 'tradeapi.js');
  if (values.store !== undefined) {
    const sync = spawnSync(process.execPath, [cli, 'sync', '--store', values.store, '--symbols', values.symbol, '--from', iso(FROM_MS), '--to', iso(toMs), '--only', 'ticks'], {
      stdio: 'inherit',
    });
    if (sync.status !== 0) throw new Error(`tradeapi sync exited ${sync.status}`);
  }
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await ServerProcess.start({
    name: 'bars-bench',
    command: process.execPath,
    args: [cli, 'serve', '--host', '127.0.0.1', '--port', String(port)],
    env: { ...process.env, TRADEAPI_SECRET_KEY: '', ...(values.store !== undefined ? { TRADEAPI_STORE: values.store } : {}) },
    cwd: root,
    logDir: path.join(os.tmpdir(), 'tradeapi-bench-bars'),
    readyUrl: `${base}/health`,
  });
  try {
    const periods = values.periods.split(',');
    const best = new Map<string, Run>();
    for (const format of values.formats.split(',')) {
      // Warm-up: a small request of each kind (JIT, the Parquet module).
      await timed(base, 'warm', `/ticks/range?${range.replace(iso(toMs), iso(FROM_MS + DAY_MS))}&flags=COPY_TICKS_ALL`, format);
      for (const p of periods) await timed(base, 'warm', `/ticks/bars?${range.replace(iso(toMs), iso(FROM_MS + DAY_MS))}&period=${p}`, format);
      for (let r = 0; r < Number(values.repeat); r++) {
        const runs = [await timed(base, 'ticks', `/ticks/range?${range}&flags=COPY_TICKS_ALL`, format)];
        for (const p of periods) runs.push(await timed(base, `bars ${p}`, `/ticks/bars?${range}&period=${encodeURIComponent(p)}`, format));
        for (const run of runs) {
          const key = `${run.what} ${format}`;
          const prev = best.get(key);
          if (!prev || run.ms < prev.ms) best.set(key, run);
        }
      }
    }
    const lines = [`| request | format | rows | input ticks | ms | input ticks/s | vs /ticks/range |`, '|---|---|---:|---:|---:|---:|---:|'];
    for (const format of values.formats.split(',')) {
      const ticks = best.get(`ticks ${format}`)!;
      for (const what of ['ticks', ...periods.map((p) => `bars ${p}`)]) {
        const run = best.get(`${what} ${format}`)!;
        const rate = ticks.rows / (run.ms / 1000);
        const ratio = ticks.ms / run.ms;
        lines.push(`| ${what} | ${format} | ${run.rows} | ${ticks.rows} | ${run.ms.toFixed(0)} | ${(rate / 1e6).toFixed(1)} M | ${ratio.toFixed(2)}x |`);
      }
    }
    const from = values.store !== undefined ? `the store ${values.store}` : 'the simulator';
    console.log(`${values.symbol}, ${values.days} days from ${iso(FROM_MS)}, from ${from}, best of ${values.repeat}, load ${os.loadavg()[0]!.toFixed(2)}`);
    console.log(lines.join('\n'));
  } finally {
    await server.stop();
  }
}

if (isMain(import.meta.url)) await main();
