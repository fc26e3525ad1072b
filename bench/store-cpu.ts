// CPU seconds (the whole process: JS thread and pool threads) of `tradeapi sync` of two months of
// EURUSD ticks (8.2 M) and of serving that range from the store as Parquet (best of 3), for the
// compiled tree at --tree (default: this one). Run it for two trees alternately to compare, e.g. the
// cost of the store's proofs (issue 33) against a build before them:
//
//   git worktree add /tmp/base adf23a2 && (cd /tmp/base && npm ci && npm run build:ts)
//   npm run build:ts && for i in 1 2 3; do node dist/bench/store-cpu.js; node dist/bench/store-cpu.js --tree /tmp/base; done
//
// CPU time rather than wall time: on a loaded 2-core machine wall times swing 2x between runs.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { tree: { type: 'string' } } });
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const root = values.tree ?? here;
const imp = <T>(f: string): Promise<T> => import(pathToFileURL(path.join(root, 'dist', f)).href) as Promise<T>;

type Run = (args: string[], io: { env: Record<string, string>; stdout: { write: () => boolean }; stderr: { write: () => boolean } }) => Promise<number>;
type Sink = { write: () => Promise<void> };
interface Modules {
  runSync: Run;
  withStore: (t: unknown, o: { root: string; zone: string }) => { copyTicksRange: (s: string, a: number, b: number, f: number) => Promise<unknown> };
  openSimTerminal: () => unknown;
  encodeSeries: (f: string, k: string, s: unknown, o: { compression: string }) => { writeTo: (s: Sink) => Promise<void> };
}

const { runSync } = await imp<Pick<Modules, 'runSync'>>('src/sync/run.js');
const { withStore } = await imp<Pick<Modules, 'withStore'>>('src/store/store-terminal.js');
const { openSimTerminal } = await imp<Pick<Modules, 'openSimTerminal'>>('src/terminal/index.js');
const { encodeSeries } = await imp<Pick<Modules, 'encodeSeries'>>('src/encode/index.js');

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-store-cpu-'));
const store = path.join(dir, 'store');
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
try {
  let c0 = cpu();
  const code = await runSync(['--store', store, '--symbols', 'EURUSD', '--from', '2023-12-01', '--to', '2024-01-31', '--only', 'ticks'], {
    env: { TRADEAPI_SIM_CLOCK: '2024-03-01T00:00:00Z' },
    stdout: { write: () => true },
    stderr: { write: () => true },
  });
  const syncCpu = cpu() - c0;
  const stored = withStore(openSimTerminal(), { root: store, zone: 'UTC' });
  let serveCpu = Infinity;
  for (let i = 0; i < 3; i++) {
    c0 = cpu();
    const series = await stored.copyTicksRange('EURUSD', Date.parse('2023-12-01T00:00:00Z'), Date.parse('2024-01-31T23:59:59.999Z'), -1);
    await encodeSeries('parquet', 'ticks', series, { compression: 'zstd' }).writeTo({ write: () => Promise.resolve() });
    serveCpu = Math.min(serveCpu, cpu() - c0);
  }
  process.stdout.write(`${JSON.stringify({ tree: root, exit: code, syncCpuS: +syncCpu.toFixed(2), serveCpuS: +serveCpu.toFixed(2), load: +os.loadavg()[0]!.toFixed(1) })}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
