// Exports ticks of one symbol from tradeapi's simulated terminal to a NumPy .npy file with the real
// MetaTrader5 tick dtype (mt5-reference §3.2: packed, 60 bytes a row), so that the stand-in
// MetaTrader5 module behind mt5api (bench/peer) serves the very rows our server serves.
//
//   npm run build:ts && node dist/bench/export-ticks.js --out /tmp/eurusd.npy --count 1e6 \
//     [--symbol EURUSD] [--from 2024-01-08T00:00:00Z] [--sizes 1e5,1e6]
//
// Besides the .npy it writes <out>.json: for each requested size N, the range [from, to] that holds
// the first N ticks (to = time_msc of tick N) and how many ticks that range holds (N, or more when
// ticks share tick N's millisecond), so that a client can ask /ticks/range for exactly that.
import { closeSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { parseArgs } from 'node:util';

import type { SimConfig, TickChunk } from '../src/terminal/index.js';
import { isMain } from './is-main.js';

/** numpy's description of the MetaTrader5 tick dtype; field offsets in 32-bit words. */
const TICK_DESCR =
  "[('time', '<i8'), ('bid', '<f8'), ('ask', '<f8'), ('last', '<f8'), ('volume', '<u8'), ('time_msc', '<i8'), ('flags', '<u4'), ('volume_real', '<f8')]";
export const TICK_ITEMSIZE = 60;
const WORDS = TICK_ITEMSIZE / 4;
const WIDE_FIELDS = [
  ['time', 0],
  ['bid', 2],
  ['ask', 4],
  ['last', 6],
  ['volume', 8],
  ['time_msc', 10],
  ['volume_real', 13],
] as const;
const FLAGS_WORD = 12;

/** How many ticks a range holds, as a client asks /ticks/range for it. */
export interface ExportedRange {
  /** The N asked for. */
  readonly count: number;
  readonly fromMs: number;
  /** time_msc of the N-th tick: the range [fromMs, toMs] holds `rows` ticks (>= N). */
  readonly toMs: number;
  readonly rows: number;
  readonly firstTimeMsc: number;
  readonly lastTimeMsc: number;
}

export interface ExportMeta {
  readonly symbol: string;
  readonly seed: string;
  readonly fromMs: number;
  /** Rows in the .npy (the largest size plus any ties, plus a small margin). */
  readonly rows: number;
  readonly path: string;
  readonly ranges: readonly ExportedRange[];
}

export interface ExportOptions {
  readonly path: string;
  readonly symbol?: string;
  readonly fromMs: number;
  /** Sizes N to describe in the metadata; the file holds at least max(N) ticks. */
  readonly sizes: readonly number[];
  /** Passed to openSimTerminal; `tradeapi serve` uses the defaults ({}), so must this to match it. */
  readonly sim?: SimConfig;
}

/** The NPY v1.0 header for `rows` ticks, padded so that the data starts on a 64-byte boundary. */
export function npyHeader(rows: number): Buffer {
  const dict = `{'descr': ${TICK_DESCR}, 'fortran_order': False, 'shape': (${rows},), }`;
  const unpadded = 10 + dict.length + 1; // magic(6) + version(2) + length(2) + dict + '\n'
  const total = Math.ceil(unpadded / 64) * 64;
  const headerLen = total - 10;
  if (headerLen > 0xffff) throw new Error('npy header too long for format 1.0');
  const out = Buffer.alloc(total, 0x20);
  out.write('\x93NUMPY', 0, 'latin1');
  out[6] = 1;
  out[7] = 0;
  out.writeUInt16LE(headerLen, 8);
  out.write(dict, 10, 'latin1');
  out[total - 1] = 0x0a;
  return out;
}

function words(column: BigInt64Array | BigUint64Array | Float64Array, rows: number): Uint32Array {
  if (column.byteOffset % 4 !== 0) throw new Error('column not 4-byte aligned');
  return new Uint32Array(column.buffer, column.byteOffset, rows * 2);
}

/** Packs one chunk into `out` (row-major, 60-byte rows) starting at row 0. */
export function packTicks(chunk: TickChunk, out: Uint32Array): void {
  const rows = chunk.rows;
  for (const [name, word] of WIDE_FIELDS) {
    const src = words(chunk[name], rows);
    for (let r = 0, o = word; r < rows; r++, o += WORDS) {
      out[o] = src[2 * r]!;
      out[o + 1] = src[2 * r + 1]!;
    }
  }
  const flags = chunk.flags;
  for (let r = 0, o = FLAGS_WORD; r < rows; r++, o += WORDS) out[o] = flags[r]!;
}

/** Writes the .npy and its metadata (<path>.json); returns the metadata. */
export async function exportTicks(options: ExportOptions): Promise<ExportMeta> {
  const symbol = options.symbol ?? 'EURUSD';
  const sizes = [...options.sizes].sort((a, b) => a - b);
  const largest = sizes[sizes.length - 1];
  if (largest === undefined || !sizes.every((n) => Number.isSafeInteger(n) && n > 0)) throw new Error('sizes must be positive integers');
  // A margin past the largest size, so that ticks sharing its last millisecond are in the file.
  const want = largest + 1000;

  const { openSimTerminal } = await import('../src/terminal/index.js');
  const terminal = openSimTerminal(options.sim ?? {});
  const tmp = `${options.path}.partial`;
  const fd = openSync(tmp, 'w');
  let rows = 0;
  // Per size: time_msc of the N-th tick, then how many ticks share or precede it.
  const toMs = new Map<number, number>();
  const rangeRows = new Map<number, number>();
  const settled = new Set<number>();
  let firstTimeMsc = Number.NaN;
  let lastTimeMsc = Number.NaN;
  try {
    writeSync(fd, npyHeader(0)); // placeholder, rewritten with the real row count below
    const series = await terminal.copyTicksFrom(symbol, options.fromMs, want, -1, { chunkRows: 1 << 20 });
    let block = new Uint32Array(0);
    for await (const chunk of series) {
      if (chunk.rows === 0) continue;
      if (block.length < chunk.rows * WORDS) block = new Uint32Array(chunk.rows * WORDS);
      packTicks(chunk, block);
      writeSync(fd, block, 0, chunk.rows * TICK_ITEMSIZE);
      const times = chunk.time_msc;
      if (rows === 0) firstTimeMsc = Number(times[0]);
      for (const n of sizes) {
        if (settled.has(n)) continue;
        if (!toMs.has(n) && n <= rows + chunk.rows) toMs.set(n, Number(times[n - rows - 1]));
        const to = toMs.get(n);
        if (to === undefined) continue;
        // Ticks at or before `to` are a prefix of what is left (times ascend).
        let i = Math.max(0, n - rows - 1);
        while (i < chunk.rows && Number(times[i]) <= to) i++;
        rangeRows.set(n, rows + i);
        if (i < chunk.rows) settled.add(n);
      }
      rows += chunk.rows;
      lastTimeMsc = Number(times[chunk.rows - 1]);
    }
    const header = npyHeader(rows);
    if (header.length !== npyHeader(0).length) throw new Error('npy header length changed');
    writeSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
    await terminal.close();
  }
  if (rows < largest) throw new Error(`the simulator returned ${rows} ticks of ${symbol} from ${new Date(options.fromMs).toISOString()}, fewer than ${largest}`);
  renameSync(tmp, options.path);
  const ranges: ExportedRange[] = sizes.map((n) => ({
    count: n,
    fromMs: options.fromMs,
    toMs: toMs.get(n)!,
    rows: rangeRows.get(n)!,
    firstTimeMsc,
    lastTimeMsc: toMs.get(n)!,
  }));
  const meta: ExportMeta = {
    symbol,
    seed: options.sim?.seed === undefined ? 'default' : String(options.sim.seed),
    fromMs: options.fromMs,
    rows,
    path: options.path,
    ranges,
  };
  writeFileSync(`${options.path}.json`, `${JSON.stringify({ ...meta, lastTimeInFile: lastTimeMsc }, null, 2)}\n`);
  return meta;
}

/** '1e6', '1000000', '1_000_000' → 1000000. */
export function parseCount(text: string): number {
  const n = Number(text.replace(/_/g, ''));
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`not a positive integer: ${text}`);
  return n;
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      symbol: { type: 'string', default: 'EURUSD' },
      from: { type: 'string', default: '2024-01-08T00:00:00Z' },
      count: { type: 'string' },
      sizes: { type: 'string' },
    },
  });
  if (!values.out || (!values.count && !values.sizes)) {
    process.stderr.write('usage: node dist/bench/export-ticks.js --out FILE.npy --count N [--sizes N1,N2] [--symbol EURUSD] [--from ISO]\n');
    process.exit(2);
  }
  const sizes = (values.sizes ?? values.count ?? '').split(',').map(parseCount);
  const started = performance.now();
  const meta = await exportTicks({ path: values.out, symbol: values.symbol, fromMs: Date.parse(values.from), sizes });
  process.stdout.write(`${JSON.stringify(meta, null, 2)}\n${meta.rows} ticks written in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
