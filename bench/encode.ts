// Encoder figures: synthetic ticks in 256 K-row chunks encoded to a sink that discards the bytes,
// for each format (and each Parquet compression); rows/s, output MB/s, output size, time to first
// byte, and memory after the run. No terminal involved: the chunks are prepared up front (a pool of
// four distinct chunks, served in turn), so the figures are the encoders' alone.
// Parquet runs through both writers: the addon's native one (row groups encoded in parallel on the
// libuv pool; 'parquet-native') and parquet-wasm (one thread; 'parquet-wasm').
// With --source sim the chunks come from the simulated terminal instead (EURUSD ticks from
// 2024-01-01, 64 K-row chunks, produced on the terminal's thread while the encoder runs): the
// figures then include producing the ticks, as a big pull does (minus HTTP).
// Run: npm run build:ts && node dist/bench/encode.js [--only <label-substring>] [--source pool|sim] [rows ...]
import { encodeSeries, type Format, type ParquetCompression, type SeriesEncodeOptions } from '../src/encode/index.js';
import { loadParquetWasm } from '../src/encode/parquet-wasm.js';
import type { Series, TickChunk } from '../src/terminal/series.js';
import { isMain } from './is-main.js';

const CHUNK_ROWS = 262_144;

/** A random-walk tick chunk: irregular ms times, 5-digit prices, FX-like (last/volume 0). */
function syntheticTicks(rows: number, startMs: number, seed: number): TickChunk {
  let x = seed >>> 0 || 1;
  const rand = (): number => {
    // xorshift32: deterministic and cheap.
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
  const time = new BigInt64Array(rows);
  const time_msc = new BigInt64Array(rows);
  const bid = new Float64Array(rows);
  const ask = new Float64Array(rows);
  const last = new Float64Array(rows);
  const volume = new BigUint64Array(rows);
  const flags = new Uint32Array(rows);
  const volume_real = new Float64Array(rows);
  let ms = startMs;
  let p = 110_000;
  for (let i = 0; i < rows; i++) {
    ms += 1 + Math.floor(-Math.log(1 - rand()) * 300);
    p += Math.floor(rand() * 5) - 2;
    time_msc[i] = BigInt(ms);
    time[i] = BigInt(Math.floor(ms / 1000));
    bid[i] = p / 1e5;
    ask[i] = (p + 8 + Math.floor(rand() * 6)) / 1e5;
    flags[i] = rand() < 0.5 ? 6 : rand() < 0.5 ? 2 : 4;
  }
  return { rows, time, bid, ask, last, volume, time_msc, flags, volume_real };
}

function slice(c: TickChunk, rows: number): TickChunk {
  return {
    rows,
    time: c.time.subarray(0, rows),
    bid: c.bid.subarray(0, rows),
    ask: c.ask.subarray(0, rows),
    last: c.last.subarray(0, rows),
    volume: c.volume.subarray(0, rows),
    time_msc: c.time_msc.subarray(0, rows),
    flags: c.flags.subarray(0, rows),
    volume_real: c.volume_real.subarray(0, rows),
  };
}

function poolSeries(pool: readonly TickChunk[], total: number): Series<TickChunk> {
  let served = 0;
  let k = 0;
  const series: Series<TickChunk> = {
    next(): Promise<TickChunk | null> {
      if (served >= total) return Promise.resolve(null);
      const rows = Math.min(CHUNK_ROWS, total - served);
      served += rows;
      const c = pool[k++ % pool.length]!;
      return Promise.resolve(rows === c.rows ? c : slice(c, rows));
    },
    close(): void {},
    async *[Symbol.asyncIterator]() {
      for (let c = await series.next(); c !== null; c = await series.next()) yield c;
    },
  };
  return series;
}

export interface EncodeFigure {
  format: Format;
  /** e.g. 'parquet-native/zstd-1', 'parquet-wasm/zstd', 'json'. */
  label: string;
  compression?: ParquetCompression;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  bytes: number;
  mbPerSecond: number;
  firstByteMs: number;
  rssMiB: number;
  /** parquet-wasm's memory (it never shrinks: the peak so far). */
  wasmMiB: number;
}

interface EncodeCase {
  label: string;
  format: Format;
  options: SeriesEncodeOptions;
}

const native = (compression: ParquetCompression, level?: number, parallelism?: number): EncodeCase => ({
  label: `parquet-native/${compression}${level !== undefined ? `-${level}` : ''}${parallelism !== undefined ? ` x${parallelism}` : ''}`,
  format: 'parquet',
  options: {
    compression,
    parquetEngine: 'native',
    ...(level !== undefined ? { compressionLevel: level } : {}),
    ...(parallelism !== undefined ? { parallelism } : {}),
  },
});
const wasm = (compression: ParquetCompression): EncodeCase => ({
  label: `parquet-wasm/${compression}`,
  format: 'parquet',
  options: { compression, parquetEngine: 'wasm' },
});

export const ENCODE_CASES: readonly EncodeCase[] = [
  { label: 'json', format: 'json', options: {} },
  { label: 'arrow', format: 'arrow', options: {} },
  { label: 'parquet (default)', format: 'parquet', options: {} },
  native('zstd', 1),
  native('zstd', 3),
  native('zstd', 1, 1),
  native('lz4'),
  native('none'),
  wasm('zstd'),
  wasm('snappy'),
  wasm('none'),
];

export type TickSource = 'pool' | 'sim';

export async function benchEncode(sizes: readonly number[] = [1_000_000, 10_000_000], only?: string, source: TickSource = 'pool'): Promise<EncodeFigure[]> {
  const t0 = Date.UTC(2024, 0, 8);
  const pool = [0, 1, 2, 3].map((k) => syntheticTicks(CHUNK_ROWS, t0 + k * 86_400_000, 12345 + k));
  const terminal = source === 'sim' ? (await import('../src/terminal/index.js')).openSimTerminal({ seed: 1, nowMs: Date.UTC(2025, 0, 1) }) : undefined;
  const seriesOf = async (rows: number): Promise<Series<TickChunk>> =>
    terminal ? terminal.copyTicksFrom('EURUSD', Date.UTC(2024, 0, 1), rows, -1, { chunkRows: 65_536 }) : poolSeries(pool, rows);
  const cases = ENCODE_CASES.filter((c) => only === undefined || c.label.includes(only));
  const figures: EncodeFigure[] = [];
  const pw = await loadParquetWasm();
  // Warm-up: load parquet-wasm and let V8 optimise the row encoders.
  for (const c of cases) {
    await encodeSeries(c.format, 'ticks', await seriesOf(300_000), c.options).writeTo({ write: () => Promise.resolve() });
  }
  for (const rows of sizes) {
    for (const c of cases) {
      let bytes = 0;
      let firstByte = 0n;
      const start = process.hrtime.bigint();
      await encodeSeries(c.format, 'ticks', await seriesOf(rows), c.options).writeTo({
        write(chunk: Uint8Array): Promise<void> {
          if (bytes === 0) firstByte = process.hrtime.bigint();
          bytes += chunk.byteLength;
          return Promise.resolve();
        },
      });
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const f: EncodeFigure = {
        format: c.format,
        label: c.label,
        ...(c.options.compression ? { compression: c.options.compression } : {}),
        rows,
        seconds,
        rowsPerSecond: Math.round(rows / seconds),
        bytes,
        mbPerSecond: bytes / 1e6 / seconds,
        firstByteMs: Number(firstByte - start) / 1e6,
        rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
        wasmMiB: Math.round(pw.wasmMemory().buffer.byteLength / 2 ** 20),
      };
      figures.push(f);
      const label = c.label.padEnd(26);
      console.log(
        `${label} ${String(rows).padStart(9)} rows  ${seconds.toFixed(2).padStart(6)} s  ${(f.rowsPerSecond / 1e6).toFixed(2).padStart(5)} M rows/s  ` +
          `${f.mbPerSecond.toFixed(0).padStart(5)} MB/s  ${(bytes / 1e6).toFixed(1).padStart(7)} MB  first byte ${f.firstByteMs.toFixed(0).padStart(4)} ms  rss ${f.rssMiB} MiB  wasm ${f.wasmMiB} MiB`,
      );
      (globalThis as { gc?: () => void }).gc?.();
    }
  }
  await terminal?.close();
  return figures;
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const args = [...argv];
  let only: string | undefined;
  const at = args.indexOf('--only');
  if (at >= 0) {
    only = args[at + 1];
    args.splice(at, 2);
  }
  let source: TickSource = 'pool';
  const src = args.indexOf('--source');
  if (src >= 0) {
    const value = args[src + 1];
    if (value !== 'pool' && value !== 'sim') throw new Error('--source pool|sim');
    source = value;
    args.splice(src, 2);
  }
  const sizes = args.length > 0 ? args.map((a) => Number(a)) : undefined;
  if (only === undefined && at >= 0) throw new Error('--only needs a label substring');
  if (sizes?.some((n) => !Number.isSafeInteger(n) || n < 0)) throw new Error(`usage: node dist/bench/encode.js [--only <label-substring>] [rows ...]`);
  await benchEncode(sizes, only, source);
}

if (isMain(import.meta.url)) {
  await main();
}
