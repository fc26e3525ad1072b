// What GET /metrics reports, in the Prometheus text format (prom-client). One registry per server
// (never prom-client's global one), so that several servers in one process keep their counts apart.
//
// Labels are bounded by construction: `route` is a route table template (/symbols/{symbol}), never
// the raw URL, or 'unmatched' for a path no route has; `method` is one the service knows or 'other';
// `op` is a Terminal method name; `kind` a TerminalErrorKind or 'other'.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What the bridge gauges read from the terminal's bridge_status (the terminal's BridgeStatus has more). */
export interface BridgeReading {
  readonly reachable: boolean;
  readonly terminal_connected: boolean;
  readonly reconnects: number;
}


/** The `route` label of a request that matched no route (unknown path, or the path outside the prefix). */
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'OPTIONS']);
export const methodLabel = (method: string): string => (METHODS.has(method) ? method : 'other');

/** Live figures read at scrape time. */
export interface MetricsSources {
  /** Series streams in progress (their StreamGate). */
  seriesStreams(): number;
  /** Open SSE streams and WebSocket sessions. */
  eventStreams(): { sse: number; websockets: number };
  /** Market-depth subscriptions held, and their cap. */
  subscriptions(): { active: number; limit: number };
  /** Symbols the live tick and book feeds poll. */
  feedSymbols(): { ticks: number; books: number };
  /** Present with a bridge only: its state as /health reports it. */
  bridgeStatus?: (() => Promise<BridgeReading>) | undefined;
}

export interface MetricsInfo {
  version: string;
  terminal: string;
  mode: 'full' | 'read-only';
}

/** Seconds: from a cached answer (~0.1 ms) to a long series stream. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds: a simulator call (~10 µs) to a bridge call near its timeout. */
const TERMINAL_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Node.js process figures (CPU, memory, event-loop lag, GC): one set per process, made on first
 * use. Each collectDefaultMetrics call starts its own event-loop monitor and GC observer that are
 * never stopped, so servers (a test process starts many) share these instead of making their own.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly requestSeconds: Histogram<'method' | 'route'>;
  readonly responseBytes: Counter<'route'>;
  readonly terminalSeconds: Histogram<'op'>;
  readonly terminalErrors: Counter<'op' | 'kind'>;
  /** Stored partitions found not to be what their manifest entry recorded (each counted once). */
  readonly storeDamaged: Counter<'dataset'>;
  readonly rateLimitRefusals: Counter;
  private sources: MetricsSources | undefined;
  private readonly process: Registry | undefined;

  constructor(info: MetricsInfo, options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.process = options.processMetrics ?? true ? processMetrics() : undefined;
    new Gauge({ name: 'tradeapi_info', help: 'Always 1; the labels say which version, terminal and mode serve', labelNames: ['version', 'terminal', 'mode'], registers }).set(
      { version: info.version, terminal: info.terminal, mode: info.mode },
      1,
    );
    this.requests = new Counter({
      name: 'tradeapi_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status (499: the client left)',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'tradeapi_http_request_duration_seconds',
      help: 'Time from request to the last byte of the answer (series streams included; event streams and WebSockets are not timed)',
      labelNames: ['method', 'route'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.responseBytes = new Counter({
      name: 'tradeapi_http_response_bytes_total',
      help: 'Response body bytes handed to the transport, by route template (WebSocket frames not included)',
      labelNames: ['route'],
      registers,
    });
    this.terminalSeconds = new Histogram({
      name: 'tradeapi_terminal_call_duration_seconds',
      help: 'Terminal calls, by operation (for series: until the cursor opened), failures included',
      labelNames: ['op'],
      buckets: TERMINAL_BUCKETS,
      registers,
    });
    this.terminalErrors = new Counter({
      name: 'tradeapi_terminal_call_errors_total',
      help: 'Terminal calls that failed, by operation and kind (not_found, unavailable, timeout, ...)',
      labelNames: ['op', 'kind'],
      registers,
    });
    this.storeDamaged = new Counter({
      name: 'tradeapi_store_damaged_partitions_total',
      help: 'Partitions of the local history store found not to be what the manifest recorded (a swapped, planted or damaged file), by dataset; each counted once, then taken from the terminal',
      labelNames: ['dataset'],
      registers,
    });
    this.rateLimitRefusals = new Counter({
      name: 'tradeapi_rate_limit_refusals_total',
      help: 'Requests refused with 429 by the per-client rate limit (read-only mode)',
      registers,
    });
    // Gauges read their sources at scrape time; `self` because prom-client binds `this` to the gauge.
    const self = this;
    new Gauge({
      name: 'tradeapi_open_streams',
      help: 'Open streams: series (ticks/rates answers in progress), sse (/events), websocket (/ws)',
      labelNames: ['kind'],
      registers,
      collect() {
        const s = self.sources;
        if (!s) return;
        const events = s.eventStreams();
        this.set({ kind: 'series' }, s.seriesStreams());
        this.set({ kind: 'sse' }, events.sse);
        this.set({ kind: 'websocket' }, events.websockets);
      },
    });
    new Gauge({
      name: 'tradeapi_market_book_subscriptions',
      help: 'Market-depth subscriptions held',
      registers,
      collect() {
        if (self.sources) this.set(self.sources.subscriptions().active);
      },
    });
    new Gauge({
      name: 'tradeapi_market_book_subscriptions_limit',
      help: 'Most market-depth subscriptions held at once (TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS)',
      registers,
      collect() {
        if (self.sources) this.set(self.sources.subscriptions().limit);
      },
    });
    new Gauge({
      name: 'tradeapi_event_feed_symbols',
      help: 'Symbols the live event feeds poll, by feed (ticks, book)',
      labelNames: ['feed'],
      registers,
      collect() {
        if (!self.sources) return;
        const f = self.sources.feedSymbols();
        this.set({ feed: 'ticks' }, f.ticks);
        this.set({ feed: 'book' }, f.books);
      },
    });
  }

  /** Connects the scrape-time gauges to the server's live state; adds the bridge gauges when there is one. */
  attach(sources: MetricsSources): void {
    this.sources = sources;
    const status = sources.bridgeStatus;
    if (!status) return;
    const registers = [this.registry];
    // One bridge_status call per scrape, shared by the three gauges of the same scrape.
    let pending: Promise<BridgeReading | undefined> | undefined;
    const read = (): Promise<BridgeReading | undefined> => {
      pending ??= status().then(
        (s) => s,
        () => undefined, // the status call itself failed: unreachable
      );
      const p = pending;
      void p.finally(() => {
        if (pending === p) pending = undefined;
      });
      return p;
    };
    new Gauge({
      name: 'tradeapi_bridge_reachable',
      help: '1 when the gateway reaches the bridge and it accepts the shared secret (as /health reports it)',
      registers,
      async collect() {
        const s = await read();
        this.set(s?.reachable ? 1 : 0);
      },
    });
    new Gauge({
      name: 'tradeapi_bridge_terminal_connected',
      help: "1 when the bridge's terminal is connected",
      registers,
      async collect() {
        const s = await read();
        this.set(s?.reachable && s.terminal_connected ? 1 : 0);
      },
    });
    new Gauge({
      name: 'tradeapi_bridge_reconnects',
      help: 'Terminal re-initializations by the bridge after a loss (the bridge counts them)',
      registers,
      async collect() {
        const s = await read();
        this.set(s?.reconnects ?? 0);
      },
    });
  }

  /** The text exposition and its media type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    const own = await this.registry.metrics();
    // Two expositions with no metric name in common: their concatenation is one.
    const body = this.process ? `${own}${await this.process.metrics()}` : own;
    return { contentType: this.registry.contentType, body };
  }
}
