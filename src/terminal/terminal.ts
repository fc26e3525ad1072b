// The terminal façade: one Promise-returning method per MetaTrader5 operation (mt5-reference §2).
// Implemented by the native addon (simulated terminal now, bridge client later); the HTTP layer
// depends on this interface only.
import type {
  AccountInfo,
  BookInfo,
  LastError,
  OrderCheckResult,
  SymbolInfo,
  TerminalInfo,
  Tick,
  TradeDeal,
  TradeOrder,
  TradePosition,
  TradeRequest,
  Version,
} from './records.js';
import type { RateChunk, Series, TickChunk } from './series.js';

/** orders_get / positions_get selectors: `symbol` wins over `ticket`; `group` narrows further. */
export interface TradeFilter {
  symbol?: string;
  group?: string;
  ticket?: number;
}

/** history_*_get selectors; every member given narrows the result. Dates in seconds, inclusive. */
export interface HistoryFilter {
  date_from?: number;
  date_to?: number;
  ticket?: number;
  position?: number;
  group?: string;
  symbol?: string;
}

export interface SeriesOptions {
  /** Upper bound on rows per chunk (default 65 536, at most 1 048 576). */
  chunkRows?: number;
}

/**
 * A bridge's own view (docs/bridge-protocol.md §8 `bridge_status`), as /health reports it.
 * `reachable` false: the gateway cannot reach or authenticate with the bridge; `since` is then when
 * that began. Otherwise `terminal_connected`/`since`/`last_error` are the bridge's: whether its
 * terminal is connected, since when (Unix seconds), and the failure that explains the state.
 */
export interface BridgeStatus {
  reachable: boolean;
  terminal_connected: boolean;
  since: number | null;
  last_error: { code: number; message: string } | null;
  reconnects: number;
  /** false: reachable, but terminal calls have timed out since `since` (a bridge that stopped answering). */
  answering?: boolean;
  /** true: unreachable because the bridge speaks another protocol version (`last_error` says which). */
  version_mismatch?: boolean;
}

export interface Terminal {
  /** Which implementation answers: 'sim' or 'bridge'. */
  readonly kind: string;

  version(): Promise<Version>;
  lastError(): Promise<LastError>;
  terminalInfo(): Promise<TerminalInfo>;
  accountInfo(): Promise<AccountInfo>;

  symbolsTotal(): Promise<number>;
  symbolsGet(group?: string): Promise<SymbolInfo[]>;
  symbolInfo(symbol: string): Promise<SymbolInfo>;
  symbolInfoTick(symbol: string): Promise<Tick>;
  symbolSelect(symbol: string, enable: boolean): Promise<boolean>;

  marketBookAdd(symbol: string): Promise<boolean>;
  marketBookGet(symbol: string): Promise<BookInfo[]>;
  marketBookRelease(symbol: string): Promise<boolean>;

  /** Dates in seconds since epoch (server time); timeframe is a TIMEFRAME_* value. */
  copyRatesFrom(symbol: string, timeframe: number, dateFrom: number, count: number, opts?: SeriesOptions): Promise<Series<RateChunk>>;
  copyRatesFromPos(symbol: string, timeframe: number, startPos: number, count: number, opts?: SeriesOptions): Promise<Series<RateChunk>>;
  copyRatesRange(symbol: string, timeframe: number, dateFrom: number, dateTo: number, opts?: SeriesOptions): Promise<Series<RateChunk>>;
  /** Dates in milliseconds since epoch; flags is a COPY_TICKS_* value. Range inclusive. */
  copyTicksFrom(symbol: string, dateFromMsc: number, count: number, flags: number, opts?: SeriesOptions): Promise<Series<TickChunk>>;
  copyTicksRange(symbol: string, dateFromMsc: number, dateToMsc: number, flags: number, opts?: SeriesOptions): Promise<Series<TickChunk>>;

  orderCalcMargin(action: number, symbol: string, volume: number, price: number): Promise<number>;
  orderCalcProfit(action: number, symbol: string, volume: number, priceOpen: number, priceClose: number): Promise<number>;
  orderCheck(request: Partial<TradeRequest>): Promise<OrderCheckResult>;

  positionsTotal(): Promise<number>;
  positionsGet(filter?: TradeFilter): Promise<TradePosition[]>;
  ordersTotal(): Promise<number>;
  ordersGet(filter?: TradeFilter): Promise<TradeOrder[]>;
  historyOrdersTotal(dateFrom: number, dateTo: number): Promise<number>;
  historyOrdersGet(filter: HistoryFilter): Promise<TradeOrder[]>;
  historyDealsTotal(dateFrom: number, dateTo: number): Promise<number>;
  historyDealsGet(filter: HistoryFilter): Promise<TradeDeal[]>;

  /** Only for a terminal behind a bridge; answers while a slow terminal call holds the worker. */
  bridgeStatus?(): Promise<BridgeStatus>;

  /** Stops the worker after the queued calls; later calls reject with kind 'unavailable'. */
  close(): Promise<void>;
}
