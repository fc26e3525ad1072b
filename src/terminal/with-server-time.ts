// A Terminal that speaks true UTC in front of one that speaks the broker's server time
// (TRADEAPI_SERVER_TZ; mt5-reference §3.3). Out: every time field of every record and series
// column becomes UTC (0, "not set", stays 0). In: request dates become server time. The HTTP layer
// and its encoders (JSON, Parquet, Arrow) see UTC and need no change.
import type {
  AccountInfo, BookInfo, LastError, OrderCheckResult, SymbolInfo, TerminalInfo, Tick, TradeDeal, TradeOrder,
  TradePosition, TradeRequest, Version,
} from './records.js';
import type { RateChunk, Series, TickChunk } from './series.js';
import type { ServerZone } from '../config/server-zone.js';
import type { BridgeStatus, HistoryFilter, SeriesOptions, Terminal, TradeFilter } from './terminal.js';

/** Record fields in seconds / milliseconds of server time (records.ts). */
export const TIME_FIELDS = {
  symbolInfo: { s: ['time', 'start_time', 'expiration_time'], ms: [] },
  tick: { s: ['time'], ms: ['time_msc'] },
  position: { s: ['time', 'time_update'], ms: ['time_msc', 'time_update_msc'] },
  order: { s: ['time_setup', 'time_done', 'time_expiration'], ms: ['time_setup_msc', 'time_done_msc'] },
  deal: { s: ['time'], ms: ['time_msc'] },
  request: { s: ['expiration'], ms: [] },
} as const satisfies Record<string, { s: readonly string[]; ms: readonly string[] }>;

type Fields = { readonly s: readonly string[]; readonly ms: readonly string[] };

/** A copy of `record` with its time fields converted (0 and absent fields left alone). */
function convert<T extends object>(record: T, fields: Fields, zone: ServerZone, toUtc: boolean): T {
  const out = { ...record } as Record<string, unknown>;
  for (const name of fields.s) {
    const v = out[name];
    if (typeof v === 'number' && v !== 0) out[name] = toUtc ? zone.toUtcSeconds(v) : zone.toServerSeconds(v);
  }
  for (const name of fields.ms) {
    const v = out[name];
    if (typeof v === 'number' && v !== 0) out[name] = toUtc ? zone.toUtcMs(v) : zone.toServerMs(v);
  }
  return out as T;
}

/** Converts each chunk's time columns in place: the addon hands every chunk its own fresh buffers. */
class UtcSeries<C extends { rows: number; time: BigInt64Array; time_msc?: BigInt64Array }> implements Series<C> {
  constructor(private readonly inner: Series<C>, private readonly zone: ServerZone) {}

  async next(): Promise<C | null> {
    const chunk = await this.inner.next();
    if (chunk !== null) {
      this.zone.columnToUtc(chunk.time, 1000);
      if (chunk.time_msc) this.zone.columnToUtc(chunk.time_msc, 1);
    }
    return chunk;
  }

  close(): void {
    this.inner.close();
  }

  readAhead(enabled: boolean): void {
    this.inner.readAhead?.(enabled);
  }

  setChunkRows(rows: number): void {
    this.inner.setChunkRows?.(rows);
  }

  /** Forwarded: the chunk handed on is the inner series' own (converted in place), and none is kept here. */
  release(chunk: C): void {
    this.inner.release?.(chunk);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<C> {
    try {
      for (let chunk = await this.next(); chunk !== null; chunk = await this.next()) yield chunk;
    } finally {
      this.close();
    }
  }
}

class ServerTimeTerminal implements Terminal {
  /** The bridge's own clock (Unix seconds), not server time: passed on as it is. */
  readonly bridgeStatus?: () => Promise<BridgeStatus>;

  constructor(private readonly inner: Terminal, private readonly zone: ServerZone) {
    const status = inner.bridgeStatus?.bind(inner);
    if (status) this.bridgeStatus = status;
  }

  get kind(): string {
    return this.inner.kind;
  }

  private out<T extends object>(record: T, fields: Fields): T {
    return convert(record, fields, this.zone, true);
  }

  private filterIn(filter: HistoryFilter): HistoryFilter {
    const f = { ...filter };
    if (typeof f.date_from === 'number') f.date_from = this.zone.toServerSeconds(f.date_from);
    if (typeof f.date_to === 'number') f.date_to = this.zone.toServerSeconds(f.date_to);
    return f;
  }

  private async series<C extends TickChunk | RateChunk>(open: Promise<Series<C>>): Promise<Series<C>> {
    return new UtcSeries(await open, this.zone);
  }

  version(): Promise<Version> { return this.inner.version(); }
  lastError(): Promise<LastError> { return this.inner.lastError(); }
  terminalInfo(): Promise<TerminalInfo> { return this.inner.terminalInfo(); }
  accountInfo(): Promise<AccountInfo> { return this.inner.accountInfo(); }
  symbolsTotal(): Promise<number> { return this.inner.symbolsTotal(); }

  async symbolsGet(group?: string): Promise<SymbolInfo[]> {
    return (await this.inner.symbolsGet(group)).map((s) => this.out(s, TIME_FIELDS.symbolInfo));
  }
  async symbolInfo(symbol: string): Promise<SymbolInfo> {
    return this.out(await this.inner.symbolInfo(symbol), TIME_FIELDS.symbolInfo);
  }
  async symbolInfoTick(symbol: string): Promise<Tick> {
    return this.out(await this.inner.symbolInfoTick(symbol), TIME_FIELDS.tick);
  }
  symbolSelect(symbol: string, enable: boolean): Promise<boolean> { return this.inner.symbolSelect(symbol, enable); }

  marketBookAdd(symbol: string): Promise<boolean> { return this.inner.marketBookAdd(symbol); }
  marketBookGet(symbol: string): Promise<BookInfo[]> { return this.inner.marketBookGet(symbol); }
  marketBookRelease(symbol: string): Promise<boolean> { return this.inner.marketBookRelease(symbol); }

  copyRatesFrom(symbol: string, timeframe: number, dateFrom: number, count: number, opts?: SeriesOptions): Promise<Series<RateChunk>> {
    return this.series(this.inner.copyRatesFrom(symbol, timeframe, this.zone.toServerSeconds(dateFrom), count, opts));
  }
  copyRatesFromPos(symbol: string, timeframe: number, startPos: number, count: number, opts?: SeriesOptions): Promise<Series<RateChunk>> {
    return this.series(this.inner.copyRatesFromPos(symbol, timeframe, startPos, count, opts));
  }
  copyRatesRange(symbol: string, timeframe: number, dateFrom: number, dateTo: number, opts?: SeriesOptions): Promise<Series<RateChunk>> {
    const z = this.zone;
    return this.series(this.inner.copyRatesRange(symbol, timeframe, z.toServerSeconds(dateFrom), z.toServerSeconds(dateTo), opts));
  }
  copyTicksFrom(symbol: string, dateFromMsc: number, count: number, flags: number, opts?: SeriesOptions): Promise<Series<TickChunk>> {
    return this.series(this.inner.copyTicksFrom(symbol, this.zone.toServerMs(dateFromMsc), count, flags, opts));
  }
  copyTicksRange(symbol: string, dateFromMsc: number, dateToMsc: number, flags: number, opts?: SeriesOptions): Promise<Series<TickChunk>> {
    const z = this.zone;
    return this.series(this.inner.copyTicksRange(symbol, z.toServerMs(dateFromMsc), z.toServerMs(dateToMsc), flags, opts));
  }

  orderCalcMargin(action: number, symbol: string, volume: number, price: number): Promise<number> {
    return this.inner.orderCalcMargin(action, symbol, volume, price);
  }
  orderCalcProfit(action: number, symbol: string, volume: number, priceOpen: number, priceClose: number): Promise<number> {
    return this.inner.orderCalcProfit(action, symbol, volume, priceOpen, priceClose);
  }
  async orderCheck(request: Partial<TradeRequest>): Promise<OrderCheckResult> {
    const result = await this.inner.orderCheck(convert(request, TIME_FIELDS.request, this.zone, false));
    return result.request ? { ...result, request: this.out(result.request, TIME_FIELDS.request) } : result;
  }

  positionsTotal(): Promise<number> { return this.inner.positionsTotal(); }
  async positionsGet(filter?: TradeFilter): Promise<TradePosition[]> {
    return (await this.inner.positionsGet(filter)).map((p) => this.out(p, TIME_FIELDS.position));
  }
  ordersTotal(): Promise<number> { return this.inner.ordersTotal(); }
  async ordersGet(filter?: TradeFilter): Promise<TradeOrder[]> {
    return (await this.inner.ordersGet(filter)).map((o) => this.out(o, TIME_FIELDS.order));
  }
  historyOrdersTotal(dateFrom: number, dateTo: number): Promise<number> {
    return this.inner.historyOrdersTotal(this.zone.toServerSeconds(dateFrom), this.zone.toServerSeconds(dateTo));
  }
  async historyOrdersGet(filter: HistoryFilter): Promise<TradeOrder[]> {
    return (await this.inner.historyOrdersGet(this.filterIn(filter))).map((o) => this.out(o, TIME_FIELDS.order));
  }
  historyDealsTotal(dateFrom: number, dateTo: number): Promise<number> {
    return this.inner.historyDealsTotal(this.zone.toServerSeconds(dateFrom), this.zone.toServerSeconds(dateTo));
  }
  async historyDealsGet(filter: HistoryFilter): Promise<TradeDeal[]> {
    return (await this.inner.historyDealsGet(this.filterIn(filter))).map((d) => this.out(d, TIME_FIELDS.deal));
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** `terminal` with its server-time stamps converted to UTC and request dates to server time. */
export function withServerTime(terminal: Terminal, zone: ServerZone): Terminal {
  return new ServerTimeTerminal(terminal, zone);
}
