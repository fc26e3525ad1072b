// The manifest's cost on a sync (issue 33, finding 5): adding 12 new days of one symbol's ticks to a
// store that already records 210 240 day entries (36 symbols x 16 years, written synthetically as
// format-2 per-symbol manifests), against adding the same 12 days to an empty store. Each sync runs
// in a child process of its own (`--child`), which prints its wall time and peak RSS; best of
// --repeat runs each, side by side, so the machine's load weighs on both alike.
//
//   npm run build:ts && node dist/bench/store-manifest.js [--repeat 3] [--format 1]
//
// (--format 1: the store as a tree before format 2 wrote it; run that tree's build to measure it.)
//
// Target: the big store within 1.3x the empty store's time and peak RSS. Format 1 (one manifest.json
// with every symbol, rewritten after each partition) took 11-24 s and 521 MB here against 1.3-2.9 s
// and 173 MB.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { runSync } from '../src/sync/run.js';

const DAY = 86_400_000;
const SYMBOLS = 36;
const YEARS = 16;
const ARGS = ['--symbols', 'EURUSD', '--from', '2024-01-01', '--to', '2024-01-12', '--only', 'ticks'];
const ENV = { TRADEAPI_SIM_CLOCK: '2024-02-01T00:00:00Z' };

async function child(store: string): Promise<void> {
  const t0 = performance.now();
  const code = await runSync(['--store', store, ...ARGS], { env: ENV, stdout: { write: () => true }, stderr: { write: () => true } });
  const ms = performance.now() - t0;
  process.stdout.write(`${JSON.stringify({ code, ms, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`);
}

/**
 * A store whose manifests record SYMBOLS x YEARS of days (the files are not there: only the
 * manifest's cost is measured), written as JSON directly in either format (`--format 1` for a
 * tree before format 2, to measure the old cost in the same run).
 */
function bigStore(root: string, format: 1 | 2): number {
  mkdirSync(path.join(root, 'manifests'), { recursive: true });
  const head = { format: `tradeapi-store/${format}`, server: 'Tradeapi-Sim', zone: 'UTC', created: '2025-01-01T00:00:00.000Z', updated: '2025-01-01T00:00:00.000Z' };
  const symbols: Record<string, { ticks: Record<string, unknown>; bars_m1: Record<string, unknown> }> = {};
  let entries = 0;
  const start = Date.UTC(2008, 0, 1);
  for (let s = 0; s < SYMBOLS; s++) {
    const symbol = s === 0 ? 'EURUSD' : `SYM${String(s).padStart(3, '0')}`;
    const ticks: Record<string, unknown> = {};
    for (let d = start; d < Date.UTC(2008 + YEARS, 0, 1); d += DAY) {
      if (symbol === 'EURUSD' && d >= Date.UTC(2024, 0, 1)) continue; // the 12 days to add
      const key = new Date(d).toISOString().slice(0, 10);
      const proof = format === 2 ? { bytes: 900_000, first_msc: d + 1, last_msc: d + DAY - 2, xxh3_128: '0123456789abcdef0123456789abcdef' } : {};
      ticks[key] = { rows: 190_000, complete: true, fetched: '2025-01-01T00:00:00.000Z', ...proof };
      entries++;
    }
    if (format === 2) writeFileSync(path.join(root, 'manifests', `symbol=${symbol}.json`), JSON.stringify({ format: head.format, symbol, ticks, bars_m1: {} }, null, 1));
    else symbols[symbol] = { ticks, bars_m1: {} };
  }
  writeFileSync(path.join(root, 'manifest.json'), JSON.stringify(format === 2 ? head : { ...head, symbols }, null, 1));
  return entries;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') return child(argv[1] as string);
  const repeat = argv.includes('--repeat') ? Number(argv[argv.indexOf('--repeat') + 1]) || 3 : 3;
  const format = argv.includes('--format') && argv[argv.indexOf('--format') + 1] === '1' ? 1 : 2;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-bench-manifest-'));
  try {
    const big = path.join(dir, 'big-template');
    const entries = bigStore(big, format);
    const self = fileURLToPath(import.meta.url);
    const run = (store: string): { ms: number; maxRssMiB: number } => {
      const out = execFileSync(process.execPath, [self, '--child', store], { encoding: 'utf8' });
      const r = JSON.parse(out.trim().split('\n').at(-1) as string) as { code: number; ms: number; maxRssMiB: number };
      if (r.code !== 0) throw new Error(`sync exited ${r.code}`);
      return r;
    };
    const best = { empty: { ms: Infinity, maxRssMiB: Infinity }, big: { ms: Infinity, maxRssMiB: Infinity } };
    for (let i = 0; i < repeat; i++) {
      const empty = path.join(dir, `empty-${i}`);
      const full = path.join(dir, `big-${i}`);
      execFileSync('cp', ['-r', big, full]);
      for (const [name, store] of [['empty', empty], ['big', full]] as const) {
        const r = run(store);
        best[name].ms = Math.min(best[name].ms, r.ms);
        best[name].maxRssMiB = Math.min(best[name].maxRssMiB, r.maxRssMiB);
      }
      rmSync(empty, { recursive: true, force: true });
      rmSync(full, { recursive: true, force: true });
    }
    const lines = [
      `adding 12 days of EURUSD ticks, manifest format ${format} (best of ${repeat}, load ${os.loadavg()[0]!.toFixed(1)})`,
      `  empty store:                        ${(best.empty.ms / 1000).toFixed(2)} s, peak RSS ${best.empty.maxRssMiB.toFixed(0)} MiB`,
      `  store of ${entries} day entries: ${(best.big.ms / 1000).toFixed(2)} s, peak RSS ${best.big.maxRssMiB.toFixed(0)} MiB`,
      `  ratio: time ${(best.big.ms / best.empty.ms).toFixed(2)}x, memory ${(best.big.maxRssMiB / best.empty.maxRssMiB).toFixed(2)}x (target <= 1.3x each)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
