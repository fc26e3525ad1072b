// Live market depth: while someone listens to a symbol's depth AND the symbol has an active
// market_book_add subscription, market_book_get is polled once per interval (however many clients
// listen) and a change is published. Nothing is polled for a symbol nobody listens to, nor for one
// without a subscription (market_book_get would only fail).
import type { BookInfo } from '../terminal/records.js';
import type { Terminal } from '../terminal/terminal.js';

export interface BookUpdate {
  readonly symbol: string;
  /** When the gateway saw this depth, ms since the epoch (UTC, the gateway's clock). */
  readonly time_msc: number;
  readonly book: readonly BookInfo[];
}

export type BookListener = (update: BookUpdate) => void;

export interface BookFeedOptions {
  pollMs: number;
  /** Whether the symbol has an active depth subscription now (src/terminal/subscriptions.ts). */
  isSubscribed(symbol: string): boolean;
  onError?: (symbol: string, error: unknown) => void;
}

interface Watched {
  readonly listeners: Set<BookListener>;
  /** The depth last published, as JSON; undefined: none yet, or the subscription ended since. */
  last: string | undefined;
  /** The update last published, handed to a listener that joins later (it sees the depth at once). */
  current: BookUpdate | undefined;
}

export class BookFeed {
  private readonly watched = new Map<string, Watched>();
  private timer: NodeJS.Timeout | undefined;
  private cycling = false;
  private stopped = false;

  constructor(
    private readonly terminal: Terminal,
    private readonly options: BookFeedOptions,
  ) {}

  get activeSymbols(): number {
    return this.watched.size;
  }

  /** Delivers depth changes of `symbols` until the returned function is called. */
  subscribe(symbols: readonly string[], listener: BookListener): () => void {
    if (this.stopped) return () => undefined;
    let closed = false;
    for (const symbol of symbols) {
      let w = this.watched.get(symbol);
      if (!w) this.watched.set(symbol, (w = { listeners: new Set(), last: undefined, current: undefined }));
      w.listeners.add(listener);
      const current = w.current;
      if (current) queueMicrotask(() => closed || listener(current));
    }
    this.schedule();
    return () => {
      if (closed) return;
      closed = true;
      for (const symbol of symbols) {
        const w = this.watched.get(symbol);
        if (!w) continue;
        w.listeners.delete(listener);
        if (w.listeners.size === 0) this.watched.delete(symbol);
      }
      if (this.watched.size === 0 && this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
    };
  }

  stop(): void {
    this.stopped = true;
    this.watched.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer || this.cycling || this.stopped || this.watched.size === 0) return;
    this.timer = setTimeout(() => void this.cycle(), this.options.pollMs);
  }

  private async cycle(): Promise<void> {
    this.timer = undefined;
    this.cycling = true;
    try {
      await Promise.all(
        [...this.watched.entries()].map(async ([symbol, w]) => {
          if (!this.options.isSubscribed(symbol)) {
            w.last = undefined; // a later subscription publishes its first depth again
            w.current = undefined;
            return;
          }
          let book: BookInfo[];
          try {
            book = await this.terminal.marketBookGet(symbol);
          } catch (e) {
            this.options.onError?.(symbol, e);
            return;
          }
          const json = JSON.stringify(book);
          if (json === w.last || this.watched.get(symbol) !== w) return;
          w.last = json;
          const update: BookUpdate = { symbol, time_msc: Date.now(), book };
          w.current = update;
          for (const listener of w.listeners) {
            try {
              listener(update);
            } catch {
              // one listener's failure is its own
            }
          }
        }),
      );
    } finally {
      this.cycling = false;
      this.schedule();
    }
  }
}
