// The façade over the addon's terminal object: converts native rejections into TerminalError,
// bounds every call with a timeout, and wraps native cursors as async-iterable series.
import { TerminalError, type TerminalErrorKind } from './errors.js';
import type { NativeSeries, NativeTerminal } from './native.js';
import type {
  AccountInfo, BookInfo, LastError, OrderCheckResult, SymbolInfo, TerminalInfo, Tick, TradeDeal, TradeOrder,
  TradePosition, TradeRequest, Version,
} from './records.js';
import { settleChunk, type RateChunk, type Series, type TickChunk } from './series.js';
import type { BridgeStatus, HistoryFilter, SeriesOptions, Terminal, TradeFilter } from './terminal.js';

// 64 K rows measured fastest end to end (25 M ticks/s vs 17 M at 1 M rows: the chunk stays in cache).
export const DEFAULT_CHUNK_ROWS = 65_536;
export const MAX_CHUNK_ROWS = 1_048_576;
/**
 * Chunks a reading-ahead series keeps in flight (issue 24): with one, the worker idled whenever the
 * JS thread or the encoders were busy; a few let production, encoding and sending overlap on every
 * core. ~1 MB each at the HTTP streams' 16 K-row chunks.
 */
export const READ_AHEAD_CHUNKS = 4;

const KINDS: ReadonlySet<string> = new Set([
  'call_failed', 'invalid_params', 'not_found', 'not_subscribed', 'not_selected', 'unavailable', 'timeout',
]);

/** Native errors carry {kind, code}; anything else is a programming error and stays as it is. */
function toTerminalError(e: unknown): unknown {
  if (e instanceof Error && 'kind' in e && typeof e.kind === 'string' && KINDS.has(e.kind)) {
    const code = 'code' in e && typeof e.code === 'number' ? e.code : -1;
    return new TerminalError(e.kind as TerminalErrorKind, code, e.message);
  }
  return e;
}

export interface NativeTerminalOptions {
  /** Bound on one call, queue wait included (default 30 s): the caller gets kind 'timeout'. */
  callTimeoutMs?: number;
  /** The addon's releaseColumns, which the series' release() calls (Series.release); without it release() does nothing. */
  releaseColumns?: ((chunk: object) => unknown) | undefined;
}

class NativeSeriesIterator<C extends { rows: number }> implements Series<C> {
  private done = false;
  /** Chunks being produced while the consumer handles the previous ones (at most READ_AHEAD_CHUNKS). */
  private readonly ahead: Promise<C | null>[] = [];
  private readingAhead = false;
  /** Set once a produced chunk was null: nothing more is asked of the cursor. */
  private exhausted = false;

  constructor(
    private readonly native: NativeSeries,
    private chunkRows: number,
    private readonly call: <T>(p: () => Promise<unknown>) => Promise<T>,
    private readonly releaseColumns?: (chunk: object) => unknown,
  ) {}

  async next(): Promise<C | null> {
    if (this.done) return null;
    const pending = this.ahead.shift() ?? this.produce();
    const chunk = await settleChunk(pending, () => this.close());
    if (chunk === null) return null;
    // Reading ahead (see Series.readAhead): the worker produces the next chunks while this one is
    // encoded and sent, a bounded queue of READ_AHEAD_CHUNKS in flight (each job is queued on the
    // terminal's bulk lane, so they run in order). Memory stays bounded (that many chunks), and a
    // consumer that stops asking stops production once the queue is full.
    if (this.readingAhead) while (!this.exhausted && this.ahead.length < READ_AHEAD_CHUNKS) this.ahead.push(this.produce());
    return chunk;
  }

  readAhead(enabled: boolean): void {
    this.readingAhead = enabled;
  }

  setChunkRows(rows: number): void {
    this.chunkRows = Math.min(Math.max(1, Math.floor(rows)), MAX_CHUNK_ROWS);
  }

  private produce(): Promise<C | null> {
    const chunk = this.call<C | null>(() => this.native.next(this.chunkRows));
    chunk.then(
      (c) => {
        if (c === null) this.exhausted = true;
      },
      () => undefined, // surfaced by next(); never an unhandled rejection if nobody asks
    );
    return chunk;
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    this.native.close();
  }

  /**
   * Every chunk's columns are buffers of the addon's (columns_js.cpp): detached and back in its pool
   * at once. Also after close(): the chunks outlive the cursor. A chunk of another origin, or one
   * released already, is left as it is.
   */
  release(chunk: C): void {
    this.releaseColumns?.(chunk);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<C> {
    try {
      for (let chunk = await this.next(); chunk !== null; chunk = await this.next()) yield chunk;
    } finally {
      this.close();
    }
  }
}

export class NativeTerminalFacade implements Terminal {
  private readonly timeoutMs: number;
  readonly bridgeStatus?: () => Promise<BridgeStatus>;

  private readonly releaseColumns: ((chunk: object) => unknown) | undefined;

  constructor(
    readonly kind: string,
    private readonly native: NativeTerminal,
    options: NativeTerminalOptions = {},
  ) {
    this.timeoutMs = options.callTimeoutMs ?? 30_000;
    this.releaseColumns = options.releaseColumns;
    if (kind === 'bridge') {
      this.bridgeStatus = () => this.call<BridgeStatus>(() => this.native.bridgeStatus() ?? Promise.reject(new Error('not a bridge terminal')));
    }
  }

  /** Runs one native call with the timeout; native errors become TerminalError. */
  private async call<T>(invoke: () => Promise<unknown>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new TerminalError('timeout', -10005, `IPC timeout: no answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      return (await Promise.race([invoke(), timeout])) as T;
    } catch (e) {
      throw toTerminalError(e);
    } finally {
      clearTimeout(timer);
    }
  }

  private async series<C extends { rows: number }>(open: () => Promise<NativeSeries>, opts?: SeriesOptions): Promise<Series<C>> {
    const chunkRows = Math.min(Math.max(1, Math.floor(opts?.chunkRows ?? DEFAULT_CHUNK_ROWS)), MAX_CHUNK_ROWS);
    const native = await this.call<NativeSeries>(open);
    return new NativeSeriesIterator<C>(native, chunkRows, (p) => this.call(p), this.releaseColumns);
  }

  version(): Promise<Version> { return this.call(() => this.native.version()); }
  lastError(): Promise<LastError> { return this.call(() => this.native.lastError()); }
  terminalInfo(): Promise<TerminalInfo> { return this.call(() => this.native.terminalInfo()); }
  accountInfo(): Promise<AccountInfo> { return this.call(() => this.native.accountInfo()); }
  symbolsTotal(): Promise<number> { return this.call(() => this.native.symbolsTotal()); }
  symbolsGet(group?: string): Promise<SymbolInfo[]> { return this.call(() => this.native.symbolsGet(group)); }
  symbolInfo(symbol: string): Promise<SymbolInfo> { return this.call(() => this.native.symbolInfo(symbol)); }
  symbolInfoTick(symbol: string): Promise<Tick> { return this.call(() => this.native.symbolInfoTick(symbol)); }
  symbolSelect(symbol: string, enable: boolean): Promise<boolean> {
    return this.call(() => this.native.symbolSelect(symbol, enable));
  }
  marketBookAdd(symbol: string): Promise<boolean> { return this.call(() => this.native.marketBookAdd(symbol)); }
  marketBookGet(symbol: string): Promise<BookInfo[]> { return this.call(() => this.native.marketBookGet(symbol)); }
  marketBookRelease(symbol: string): Promise<boolean> {
    return this.call(() => this.native.marketBookRelease(symbol));
  }

  copyRatesFrom(symbol: string, timeframe: number, dateFrom: number, count: number, opts?: SeriesOptions): Promise<Series<RateChunk>> {
    return this.series(() => this.native.copyRatesFrom(symbol, timeframe, dateFrom, count), opts);
  }
  copyRatesFromPos(symbol: string, timeframe: number, startPos: number, count: number, opts?: SeriesOptions): Promise<Series<RateChunk>> {
    return this.series(() => this.native.copyRatesFromPos(symbol, timeframe, startPos, count), opts);
  }
  copyRatesRange(symbol: string, timeframe: number, dateFrom: number, dateTo: number, opts?: SeriesOptions): Promise<Series<RateChunk>> {
    return this.series(() => this.native.copyRatesRange(symbol, timeframe, dateFrom, dateTo), opts);
  }
  copyTicksFrom(symbol: string, dateFromMsc: number, count: number, flags: number, opts?: SeriesOptions): Promise<Series<TickChunk>> {
    return this.series(() => this.native.copyTicksFrom(symbol, dateFromMsc, count, flags), opts);
  }
  copyTicksRange(symbol: string, dateFromMsc: number, dateToMsc: number, flags: number, opts?: SeriesOptions): Promise<Series<TickChunk>> {
    return this.series(() => this.native.copyTicksRange(symbol, dateFromMsc, dateToMsc, flags), opts);
  }

  orderCalcMargin(action: number, symbol: string, volume: number, price: number): Promise<number> {
    return this.call(() => this.native.orderCalcMargin(action, symbol, volume, price));
  }
  orderCalcProfit(action: number, symbol: string, volume: number, priceOpen: number, priceClose: number): Promise<number> {
    return this.call(() => this.native.orderCalcProfit(action, symbol, volume, priceOpen, priceClose));
  }
  orderCheck(request: Partial<TradeRequest>): Promise<OrderCheckResult> {
    return this.call(() => this.native.orderCheck(request));
  }

  positionsTotal(): Promise<number> { return this.call(() => this.native.positionsTotal()); }
  positionsGet(filter: TradeFilter = {}): Promise<TradePosition[]> { return this.call(() => this.native.positionsGet(filter)); }
  ordersTotal(): Promise<number> { return this.call(() => this.native.ordersTotal()); }
  ordersGet(filter: TradeFilter = {}): Promise<TradeOrder[]> { return this.call(() => this.native.ordersGet(filter)); }
  historyOrdersTotal(dateFrom: number, dateTo: number): Promise<number> {
    return this.call(() => this.native.historyOrdersTotal(dateFrom, dateTo));
  }
  historyOrdersGet(filter: HistoryFilter): Promise<TradeOrder[]> {
    return this.call(() => this.native.historyOrdersGet(filter));
  }
  historyDealsTotal(dateFrom: number, dateTo: number): Promise<number> {
    return this.call(() => this.native.historyDealsTotal(dateFrom, dateTo));
  }
  historyDealsGet(filter: HistoryFilter): Promise<TradeDeal[]> {
    return this.call(() => this.native.historyDealsGet(filter));
  }

  async close(): Promise<void> {
    this.native.close();
  }
}
