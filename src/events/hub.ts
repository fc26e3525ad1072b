// What the server holds for live events: the two feeds (one poll per watched symbol, shared by all
// clients), the cap on event clients, and the open streams, so that shutdown can end them cleanly.
import type { EventSettings } from '../config/index.js';
import type { Logger } from '../log.js';
import { AccountFeed } from './account-feed.js';
import { BookFeed } from './book-feed.js';
import { TickFeed } from './tick-feed.js';
import type { Terminal } from '../terminal/terminal.js';
import { StreamGate } from '../http/streams.js';
import type { SubscriptionRegistry } from '../terminal/subscriptions.js';

export interface EventStats {
  /** SSE streams and WebSocket connections open. */
  clients: number;
  tickSymbols: number;
  bookSymbols: number;
  /** Most bytes any open stream has had queued (bounded by settings.queueBytes plus one event). */
  peakQueuedBytes: number;
}

/** An open event stream or WebSocket, as the hub keeps it for shutdown and the figures of GET /metrics. */
export interface LiveClient {
  end(reason: 'server-closing'): void;
  readonly closed: Promise<unknown>;
  readonly peakQueuedBytes: number;
}

export class EventHub {
  readonly ticks: TickFeed;
  readonly books: BookFeed;
  /** The account's positions, orders, deals and money: one poller for every client of the account kinds (account-feed.ts). */
  readonly account: AccountFeed;
  readonly gate: StreamGate;
  /** WebSockets opened without a key, until their auth message: a pool apart from `gate` (slots.ts). */
  readonly authenticating: StreamGate;
  private readonly streams = new Set<LiveClient>();
  private readonly sockets = new Set<LiveClient>();
  private closing = false;

  constructor(
    readonly terminal: Terminal,
    subscriptions: SubscriptionRegistry,
    readonly settings: EventSettings,
    logger?: Logger,
  ) {
    // A failing poll is retried next interval; logged at debug only, since it repeats every interval.
    const onError = (symbol: string, e: unknown): void => logger?.debug({ symbol, err: e instanceof Error ? e.message : String(e) }, 'event feed poll failed');
    this.ticks = new TickFeed(terminal, { pollMs: settings.pollMs, onError });
    this.books = new BookFeed(terminal, { pollMs: settings.pollMs, isSubscribed: (s) => subscriptions.isActive(s), onError });
    const { tradeMs, accountMs } = settings;
    this.account = new AccountFeed(terminal, { tradeMs, accountMs, onError: (e) => onError('(account)', e) });
    this.gate = new StreamGate(settings.maxClients);
    this.authenticating = new StreamGate(settings.maxAuthenticating);
  }

  /** Keeps `sse` for closeAll until it closes. */
  track(sse: LiveClient): void {
    this.streams.add(sse);
    void sse.closed.then(() => this.streams.delete(sse));
  }

  /** Keeps the WebSocket `session` for closeAll until it closes. */
  trackSocket(session: LiveClient): void {
    if (this.closing) {
      session.end('server-closing'); // connected during shutdown
      return;
    }
    this.sockets.add(session);
    void session.closed.then(() => this.sockets.delete(session));
  }

  /**
   * Ends every stream (its queued events are still written) and every WebSocket (with a close
   * frame; resolves once each has closed, at most about a second later), and stops polling:
   * server shutdown.
   */
  async closeAll(): Promise<void> {
    this.closing = true;
    for (const sse of this.streams) sse.end('server-closing');
    const sockets = [...this.sockets];
    for (const ws of sockets) ws.end('server-closing');
    this.ticks.stop();
    this.books.stop();
    this.account.stop();
    await Promise.all(sockets.map((ws) => ws.closed));
  }

  /** Open SSE streams and WebSocket sessions (GET /metrics). */
  openStreams(): { sse: number; websockets: number } {
    return { sse: this.streams.size, websockets: this.sockets.size };
  }

  stats(): EventStats {
    let peak = 0;
    for (const s of this.streams) peak = Math.max(peak, s.peakQueuedBytes);
    for (const s of this.sockets) peak = Math.max(peak, s.peakQueuedBytes);
    return {
      clients: this.streams.size + this.sockets.size,
      tickSymbols: this.ticks.activeSymbols,
      bookSymbols: this.books.activeSymbols,
      peakQueuedBytes: peak,
    };
  }
}
