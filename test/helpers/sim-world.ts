// A "world export": the simulated terminal's answers, written so that the MetaTrader5 stand-in can
// serve them (its world mode, bridge/tests/stand_in/MetaTrader5/_world.py). The contract test then
// asks the same questions of the simulator and of a bridge over the stand-in and compares.
//
// The simulator's clock is frozen (config.nowMs), so everything written is a pure function of the
// config: a fresh simulator with the same config gives the same answers. Written:
//   world.json: records as the package's named tuples hold them (field names and order of the
//     gateway's records.ts, which are the package's), the field list and storage kind of each
//     record (the stand-in types every value by it and checks the names against its own), one tick
//     window per symbol and one bar window per (symbol, timeframe) as .npy files, and the answers of
//     order_calc_margin / order_calc_profit / order_check for the exact requests given.
//   ticks-<SYMBOL>.npy, rates-<SYMBOL>-<TIMEFRAME>.npy: numpy structured arrays with the package's
//     dtypes (mt5-reference §3.1, §3.2), written here directly (the .npy header is a Python literal).
// last_error() is not exported: it is the outcome of the latest call, kept by the stand-in itself.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import {
  AccountInfoColumns,
  BookInfoColumns,
  OrderCheckResultColumns,
  SymbolInfoColumns,
  TerminalInfoColumns,
  TickColumns,
  TradeDealColumns,
  TradeOrderColumns,
  TradePositionColumns,
  TradeRequestColumns,
  constants,
  openSimTerminal,
  type FieldSpec,
  type RateChunk,
  type Series,
  type SimConfig,
  type TickChunk,
  type TradeRequest,
} from '../../src/terminal/index.js';

export const WORLD_FORMAT = 1;

/** The simulator's default start of history (binding/sim/config.h), seconds. */
const DEFAULT_HISTORY_START_S = 1577836800;

export interface MarginQuestion {
  action: number;
  symbol: string;
  volume: number;
  price: number;
}

export interface ProfitQuestion {
  action: number;
  symbol: string;
  volume: number;
  price_open: number;
  price_close: number;
}

export interface WorldSpec {
  /** The simulator's config; nowMs is required (a frozen clock). */
  config: SimConfig & { nowMs: number };
  /** Per symbol: ticks from this time (ms) to now are exported. */
  ticksFromMs: Readonly<Record<string, number>>;
  /** Per timeframe value (e.g. 1 = TIMEFRAME_M1): bars opening from this time (s) to now, for every symbol. */
  ratesFromS: Readonly<Record<number, number>>;
  margin?: readonly MarginQuestion[];
  profit?: readonly ProfitQuestion[];
  check?: readonly Partial<TradeRequest>[];
}

export interface WorldSummary {
  symbols: string[];
  ticks: Record<string, number>;
  rates: Record<string, number>;
}

const RECORD_FIELDS: Readonly<Record<string, readonly FieldSpec[]>> = {
  AccountInfo: AccountInfoColumns,
  TerminalInfo: TerminalInfoColumns,
  SymbolInfo: SymbolInfoColumns,
  Tick: TickColumns,
  BookInfo: BookInfoColumns,
  TradeOrder: TradeOrderColumns,
  TradePosition: TradePositionColumns,
  TradeDeal: TradeDealColumns,
  TradeRequest: TradeRequestColumns,
  OrderCheckResult: OrderCheckResultColumns,
};

// ------------------------------------------------------------------ .npy

type Descr = '<i8' | '<u8' | '<f8' | '<u4' | '<i4';
type Dtype = readonly (readonly [name: string, descr: Descr])[];

/** The package's dtypes (60 bytes a row, packed). */
export const TICK_DTYPE: Dtype = [
  ['time', '<i8'], ['bid', '<f8'], ['ask', '<f8'], ['last', '<f8'],
  ['volume', '<u8'], ['time_msc', '<i8'], ['flags', '<u4'], ['volume_real', '<f8'],
];
export const RATE_DTYPE: Dtype = [
  ['time', '<i8'], ['open', '<f8'], ['high', '<f8'], ['low', '<f8'],
  ['close', '<f8'], ['tick_volume', '<u8'], ['spread', '<i4'], ['real_volume', '<u8'],
];
const SIZE: Readonly<Record<Descr, number>> = { '<i8': 8, '<u8': 8, '<f8': 8, '<u4': 4, '<i4': 4 };

type Column = ArrayLike<number | bigint>;

/** Rows of a series chunk packed as the dtype's records (little-endian, no padding). */
function pack(dtype: Dtype, chunk: { rows: number }): Buffer {
  const width = dtype.reduce((n, [, d]) => n + SIZE[d], 0);
  const buf = Buffer.alloc(chunk.rows * width);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let offset = 0;
  for (const [name, descr] of dtype) {
    const col = (chunk as unknown as Record<string, Column>)[name];
    if (!col) throw new Error(`series chunk has no column ${name}`);
    for (let i = 0, at = offset; i < chunk.rows; i++, at += width) {
      const v = col[i]!;
      if (descr === '<i8') view.setBigInt64(at, BigInt(v), true);
      else if (descr === '<u8') view.setBigUint64(at, BigInt(v), true);
      else if (descr === '<f8') view.setFloat64(at, Number(v), true);
      else if (descr === '<u4') view.setUint32(at, Number(v), true);
      else view.setInt32(at, Number(v), true);
    }
    offset += SIZE[descr];
  }
  return buf;
}

/** A .npy (format 1.0) file of a 1-D structured array: magic, header length, padded header, data. */
export function npyBytes(dtype: Dtype, rows: number, data: readonly Buffer[]): Buffer {
  const descr = dtype.map(([n, d]) => `('${n}', '${d}')`).join(', ');
  let header = `{'descr': [${descr}], 'fortran_order': False, 'shape': (${rows},), }`;
  // Magic (6) + version (2) + length (2) + header, padded with spaces to a multiple of 64, ends in \n.
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, 'latin1'), ...data]);
}

async function seriesNpy<C extends { rows: number }>(dtype: Dtype, series: Series<C>): Promise<{ bytes: Buffer; rows: number }> {
  const parts: Buffer[] = [];
  let rows = 0;
  for await (const chunk of series) {
    parts.push(pack(dtype, chunk)); // copied now: a chunk is a view the next one may reuse
    rows += chunk.rows;
  }
  return { bytes: npyBytes(dtype, rows, parts), rows };
}

// ------------------------------------------------------------------ export

/** Opens a simulator with spec.config, writes its world into `dir` (created), closes it. */
export async function exportWorld(dir: string, spec: WorldSpec): Promise<WorldSummary> {
  mkdirSync(dir, { recursive: true });
  const t = openSimTerminal(spec.config);
  try {
    const nowMs = spec.config.nowMs;
    const nowS = Math.floor(nowMs / 1000);
    const historyStart = spec.config.historyStart ?? DEFAULT_HISTORY_START_S;
    const symbols = await t.symbolsGet(); // before market_book_add, which selects the symbol
    const names = symbols.map((s) => s.name);
    const summary: WorldSummary = { symbols: names, ticks: {}, rates: {} };

    const ticks: Record<string, unknown> = {};
    for (const s of symbols) {
      // The terminal has no tick for a symbol outside Market Watch; the stand-in serves this one
      // once the symbol is selected: shown for the reading, hidden again.
      if (!s.select) await t.symbolSelect(s.name, true);
      ticks[s.name] = await t.symbolInfoTick(s.name);
      if (!s.select) await t.symbolSelect(s.name, false);
    }
    const books: Record<string, unknown> = {};
    for (const s of symbols) {
      if (s.ticks_bookdepth <= 0) continue;
      await t.marketBookAdd(s.name);
      books[s.name] = await t.marketBookGet(s.name);
    }
    // Everything the account ever had: the history ends at the account anchor, before now.
    const allTime = { date_from: 0, date_to: nowS + 366 * 86400 };

    const all = constants('COPY_TICKS').get('COPY_TICKS_ALL')!;
    const tickSeries: Record<string, unknown> = {};
    for (const [name, fromMs] of Object.entries(spec.ticksFromMs)) {
      const file = `ticks-${name}.npy`;
      const { bytes, rows } = await seriesNpy<TickChunk>(TICK_DTYPE, await t.copyTicksRange(name, fromMs, nowMs, all));
      writeFileSync(path.join(dir, file), bytes);
      tickSeries[name] = { from: fromMs, complete: fromMs <= historyStart * 1000, file };
      summary.ticks[name] = rows;
    }
    const rateSeries: Record<string, Record<string, unknown>> = {};
    for (const name of names) {
      rateSeries[name] = {};
      for (const [tf, fromS] of Object.entries(spec.ratesFromS)) {
        const file = `rates-${name}-${tf}.npy`;
        const { bytes, rows } = await seriesNpy<RateChunk>(RATE_DTYPE, await t.copyRatesRange(name, Number(tf), fromS, nowS));
        writeFileSync(path.join(dir, file), bytes);
        rateSeries[name][tf] = { from: fromS, complete: fromS <= historyStart, file };
        summary.rates[`${name}/${tf}`] = rows;
      }
    }

    const world = {
      format: WORLD_FORMAT,
      now_ms: nowMs,
      fields: RECORD_FIELDS,
      version: await t.version(),
      terminal_info: await t.terminalInfo(),
      account_info: await t.accountInfo(),
      symbols,
      ticks,
      books,
      positions: await t.positionsGet(),
      orders: await t.ordersGet(),
      history_orders: await t.historyOrdersGet(allTime),
      history_deals: await t.historyDealsGet(allTime),
      tick_series: tickSeries,
      rate_series: rateSeries,
      answers: {
        order_calc_margin: await Promise.all(
          (spec.margin ?? []).map(async (q) => ({
            args: [q.action, q.symbol, q.volume, q.price],
            value: await t.orderCalcMargin(q.action, q.symbol, q.volume, q.price),
          })),
        ),
        order_calc_profit: await Promise.all(
          (spec.profit ?? []).map(async (q) => ({
            args: [q.action, q.symbol, q.volume, q.price_open, q.price_close],
            value: await t.orderCalcProfit(q.action, q.symbol, q.volume, q.price_open, q.price_close),
          })),
        ),
        order_check: await Promise.all((spec.check ?? []).map(async (request) => ({ request, result: await t.orderCheck(request) }))),
      },
    };
    writeFileSync(path.join(dir, 'world.json'), JSON.stringify(world));
    return summary;
  } finally {
    await t.close();
  }
}
