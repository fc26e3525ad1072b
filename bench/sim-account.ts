// The living simulated account's cost (issue 37 §1): opening the simulator (the generated year of
// history, its levels checked against the prices up to the anchor) against an empty account, and
// the first account read, which plays the account from the anchor to the clock (triggers, SL/TP,
// stop-out, the trading schedule), for clocks 1, 12 and 24 hours after the anchor at the default
// schedule and at 60 actions an hour; then reads of a running clock at 3600x (an hour of trading
// a second), each continuing from the previous one. Medians of --repeat runs, in one process.
//   npm run build:ts && node dist/bench/sim-account.js [--repeat 5]
// For the figure before the living account, run the same with TRADEAPI_ADDON naming an older
// build (e.g. the committed prebuild): the 'open' rows then show the old generator's cost.
import { openSimTerminal, type SimConfig } from '../src/terminal/index.js';
import { isMain } from './is-main.js';

const ANCHOR_S = Date.UTC(2024, 0, 10) / 1000;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timeOpen(config: SimConfig): Promise<{ openMs: number; firstReadMs: number; deals: number }> {
  const t0 = performance.now();
  const term = openSimTerminal(config);
  await term.version();
  const t1 = performance.now();
  await term.accountInfo();
  const deals = (await term.historyDealsTotal(0, ANCHOR_S + 3 * 86_400)) as number;
  const t2 = performance.now();
  await term.close();
  return { openMs: t1 - t0, firstReadMs: t2 - t1, deals };
}

export async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log('usage: node dist/bench/sim-account.js [--repeat N (5)]');
    return;
  }
  const repeat = Math.max(1, Number(arg('repeat', '5')));
  const rows: Array<[string, SimConfig]> = [['empty account (demoTrades: false)', { demoTrades: false }]];
  for (const hours of [1, 12, 24]) {
    for (const perHour of [0, 4, 60]) {
      rows.push([`clock anchor+${hours} h, ${perHour}/h`, { nowMs: (ANCHOR_S + hours * 3600) * 1000, tradesPerHour: perHour }]);
    }
  }
  console.log(`| case | open ms | first account read ms | deals | (median of ${repeat}) |`);
  console.log('|---|---|---|---|---|');
  let emptyOpen = 0;
  for (const [name, extra] of rows) {
    const runs = [];
    for (let i = 0; i < repeat; i++) runs.push(await timeOpen({ seed: 42, accountAnchor: ANCHOR_S, ...extra }));
    const open = median(runs.map((r) => r.openMs));
    if (emptyOpen === 0) emptyOpen = open;
    console.log(`| ${name} | ${open.toFixed(1)} (${(open / emptyOpen).toFixed(1)}x empty) | ${median(runs.map((r) => r.firstReadMs)).toFixed(1)} | ${runs[0]!.deals} | |`);
  }
  // A running clock at 3600x: each read continues from the previous one.
  const term = openSimTerminal({ seed: 42, accountAnchor: ANCHOR_S, clockStartMs: (ANCHOR_S + 9 * 3600) * 1000, clockRate: 3600, tradesPerHour: 60 });
  await term.accountInfo();
  const reads: number[] = [];
  const end = performance.now() + 5_000;
  while (performance.now() < end) {
    const t = performance.now();
    await term.accountInfo();
    await term.positionsGet();
    reads.push(performance.now() - t);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await term.close();
  console.log(`running clock at 3600x, 60/h: ${reads.length} reads 100 ms apart (6 simulated minutes each), median ${median(reads).toFixed(2)} ms, max ${Math.max(...reads).toFixed(2)} ms`);
}

if (isMain(import.meta.url)) await main();
