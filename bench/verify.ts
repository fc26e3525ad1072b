// `tradeapi verify` throughput (issue 33: "verify throughput on a year of one symbol's ticks;
// target: at least the sync's own rows/s, since it reads the same rows"), against the simulator:
//
//   sync     `tradeapi sync --only ticks` of --symbol over the range into a fresh store (runSync,
//            in process): its rows/s
//   verify   `tradeapi verify --only ticks` of that store (runVerify, in process): every day's file
//            read, decoded, hashed, and the terminal's rows for the day pulled and hashed; its rows/s
//            (the store's rows over the wall time); target >= sync's rows/s
//   raw      the terminal's raw series throughput over the same range (copy_ticks_range iterated,
//            nothing written), for scale: both commands pull every row from the terminal once
//
// Run: npm run build:ts && node dist/bench/verify.js [--from 2023-01-01] [--to 2023-12-31] [--symbol EURUSD] [--repeat 1] [--keep DIR]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { runSync } from '../src/sync/run.js';
import { openSimTerminal, type Terminal } from '../src/terminal/index.js';
import { runVerify, type VerifyReport } from '../src/verify/run.js';
import { isMain } from './is-main.js';

const quiet = { write: (): boolean => true };

async function rawPull(terminal: Terminal, symbol: string, fromMs: number, toMs: number): Promise<number> {
  let rows = 0;
  const series = await terminal.copyTicksRange(symbol, fromMs, toMs, -1);
  series.readAhead?.(true);
  series.setChunkRows?.(65_536);
  for await (const c of series) {
    rows += c.rows;
    series.release?.(c);
  }
  return rows;
}

/** The value, the wall seconds and the process's CPU seconds (user + system, every thread) it took. */
async function timed<T>(fn: () => Promise<T>): Promise<[T, number, number]> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const v = await fn();
  const c = process.cpuUsage(c0);
  return [v, (performance.now() - t0) / 1000, (c.user + c.system) / 1e6];
}

const mps = (rows: number, s: number): string => `${(rows / s / 1e6).toFixed(2)} M rows/s`;

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { from: { type: 'string' }, to: { type: 'string' }, symbol: { type: 'string' }, repeat: { type: 'string' }, keep: { type: 'string' } },
  });
  const from = values.from ?? '2023-01-01';
  const to = values.to ?? '2023-12-31';
  const symbol = values.symbol ?? 'EURUSD';
  const repeat = Math.max(1, Number(values.repeat ?? '1'));
  const fromMs = Date.parse(`${from}T00:00:00Z`);
  const toMs = Date.parse(`${to}T00:00:00Z`) + 86_400_000 - 1;
  const dir = values.keep ? path.resolve(values.keep) : mkdtempSync(path.join(os.tmpdir(), 'tradeapi-bench-verify-'));
  const store = path.join(dir, 'store');
  const terminal = openSimTerminal();
  try {
    await rawPull(terminal, symbol, fromMs, fromMs + 86_400_000); // warm the simulator
    const [rows, rawS, rawCpu] = await timed(() => rawPull(terminal, symbol, fromMs, toMs));
    console.log(`range ${from} .. ${to}: ${rows.toLocaleString('en-US')} ${symbol} ticks; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`raw       ${rawS.toFixed(2)} s (${mps(rows, rawS)}), ${rawCpu.toFixed(2)} CPU-s: the terminal's series alone`);
    for (let i = 0; i < repeat; i++) {
      rmSync(store, { recursive: true, force: true });
      const [code, syncS, syncCpu] = await timed(() => runSync(['--store', store, '--symbols', symbol, '--from', from, '--to', to, '--only', 'ticks'], { env: {}, stdout: quiet, stderr: quiet }));
      if (code !== 0) throw new Error(`sync failed with ${code}`);
      let out = '';
      const [vcode, verifyS, verifyCpu] = await timed(() => runVerify(['--store', store, '--only', 'ticks', '--json'], { env: {}, stdout: { write: (s: string) => ((out += s), true) }, stderr: quiet }));
      const report = JSON.parse(out) as VerifyReport;
      if (vcode !== 0 || report.totals.rows !== rows) throw new Error(`verify: exit ${vcode}, ${report.totals.rows} rows (expected ${rows}), ${JSON.stringify(report.totals)}`);
      const ratio = syncS / verifyS;
      console.log(`sync      ${syncS.toFixed(2)} s (${mps(rows, syncS)}), ${syncCpu.toFixed(2)} CPU-s`);
      console.log(`verify    ${verifyS.toFixed(2)} s (${mps(rows, verifyS)}), ${verifyCpu.toFixed(2)} CPU-s, ${report.totals.partitions} days all ok: ${ratio.toFixed(2)}x sync's rows/s (target >= 1.00x) ${ratio >= 1 ? 'ok' : 'MISSED'}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    }
  } finally {
    await terminal.close();
    if (!values.keep) rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await main(process.argv.slice(2));
