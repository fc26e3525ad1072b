// Market-depth subscriptions under a cap. A slot is reserved synchronously before the terminal is
// awaited, so concurrent requests can never push the count above the cap; a failed add gives the
// slot back.
import type { Terminal } from '../terminal/terminal.js';
import { TerminalError } from '../terminal/errors.js';

export class SubscriptionLimitError extends Error {
  override readonly name = 'SubscriptionLimitError';
}

export class NoSubscriptionError extends Error {
  override readonly name = 'NoSubscriptionError';
}

export interface SubscriptionState {
  readonly symbol: string;
  readonly subscribed: boolean;
  /** Active subscriptions after the operation. */
  readonly active: number;
  readonly limit: number;
}

export class SubscriptionRegistry {
  /** symbol -> settled when the terminal has answered; present = the slot is taken. */
  private readonly slots = new Map<string, Promise<void>>();
  /** Symbols whose release is under way, so that a second unsubscribe joins the first. */
  private readonly releasing = new Map<string, Promise<void>>();

  constructor(
    private readonly terminal: Terminal,
    readonly limit: number,
  ) {}

  get active(): number {
    return this.slots.size;
  }

  async subscribe(symbol: string): Promise<SubscriptionState> {
    const pendingRelease = this.releasing.get(symbol);
    if (pendingRelease) await pendingRelease.catch(() => undefined);
    const existing = this.slots.get(symbol);
    if (existing) {
      // Idempotent: joins an add in flight, or confirms one done; no extra slot.
      await existing;
      return this.state(symbol, true);
    }
    if (this.slots.size >= this.limit) {
      throw new SubscriptionLimitError(`${this.limit} market-depth subscriptions are active, the configured maximum; unsubscribe one first`);
    }
    const added = this.terminal.marketBookAdd(symbol).then((ok) => {
      if (!ok) throw new TerminalError('call_failed', -1, `the terminal refused market_book_add(${symbol})`);
    });
    this.slots.set(symbol, added); // reserved before any await
    try {
      await added;
    } catch (e) {
      if (this.slots.get(symbol) === added) this.slots.delete(symbol);
      throw e;
    }
    return this.state(symbol, true);
  }

  async unsubscribe(symbol: string): Promise<SubscriptionState> {
    const inFlight = this.releasing.get(symbol);
    if (inFlight) {
      await inFlight;
      return this.state(symbol, false);
    }
    const slot = this.slots.get(symbol);
    if (!slot) throw new NoSubscriptionError(`there is no market-depth subscription for ${JSON.stringify(symbol)}`);
    const release = slot
      .then(() => this.terminal.marketBookRelease(symbol))
      .then(() => {
        this.slots.delete(symbol);
      });
    this.releasing.set(symbol, release);
    try {
      await release;
    } finally {
      this.releasing.delete(symbol);
    }
    return this.state(symbol, false);
  }

  /** Releases every subscription (shutdown); failures are ignored, the terminal closes next. */
  async releaseAll(): Promise<void> {
    const symbols = [...this.slots.keys()];
    await Promise.allSettled(symbols.map((s) => this.unsubscribe(s)));
    this.slots.clear();
  }

  private state(symbol: string, subscribed: boolean): SubscriptionState {
    return { symbol, subscribed, active: this.slots.size, limit: this.limit };
  }
}
