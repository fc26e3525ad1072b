// Market-depth subscriptions under a cap. The symbol is checked before a slot is considered, so a
// request for an unknown symbol is a 404 at any fill level and never holds a slot that a valid
// request could have had. A slot is then reserved synchronously before the terminal is awaited, so
// concurrent requests can never push the count above the cap, and a failed add gives it back at
// once. At the cap, a request waits for adds still in flight before answering 429: one of them may
// fail and free its slot, and refusing early would turn that transient reservation into a 429.
import type { Terminal } from './terminal.js';
import { TerminalError } from './errors.js';

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

interface Slot {
  /** Settles when the terminal has answered market_book_add. */
  readonly added: Promise<void>;
  settled: boolean;
}

const ignore = (): undefined => undefined;

export class SubscriptionRegistry {
  /** symbol -> its slot; present = the slot is taken (the add may still be in flight). */
  private readonly slots = new Map<string, Slot>();
  /** Symbols whose release is under way: a second unsubscribe joins it, a subscribe waits for it. */
  private readonly releasing = new Map<string, Promise<void>>();

  constructor(
    private readonly terminal: Terminal,
    readonly limit: number,
  ) {}

  get active(): number {
    return this.slots.size;
  }

  /** The terminal holds a subscription for `symbol` now (its add has succeeded, no release under way). */
  isActive(symbol: string): boolean {
    const slot = this.slots.get(symbol);
    return slot !== undefined && slot.settled && !this.releasing.has(symbol);
  }

  async subscribe(symbol: string): Promise<SubscriptionState> {
    // Unknown symbol: the terminal's not_found, before the cap is looked at.
    await this.terminal.symbolInfo(symbol);
    // Every await below can change the state, so each pass re-reads it from the start.
    for (;;) {
      const release = this.releasing.get(symbol);
      if (release) {
        await release.catch(ignore);
        continue;
      }
      const existing = this.slots.get(symbol);
      if (existing) {
        // Idempotent: joins an add in flight, or confirms one done; no extra slot.
        await existing.added;
        return this.state(symbol, true);
      }
      if (this.slots.size < this.limit) break;
      const inFlight = [...this.slots.values()].filter((s) => !s.settled).map((s) => s.added.catch(ignore));
      if (inFlight.length === 0) {
        throw new SubscriptionLimitError(`${this.limit} market-depth subscriptions are active, the configured maximum; unsubscribe one first`);
      }
      await Promise.race(inFlight);
    }
    const slot: Slot = {
      settled: false,
      added: this.terminal.marketBookAdd(symbol).then((ok) => {
        if (!ok) throw new TerminalError('call_failed', -1, `the terminal refused market_book_add(${symbol})`);
      }),
    };
    this.slots.set(symbol, slot); // reserved before any await
    try {
      await slot.added;
    } catch (e) {
      if (this.slots.get(symbol) === slot) this.slots.delete(symbol);
      throw e;
    } finally {
      slot.settled = true;
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
    if (!slot) throw this.noSubscription(symbol);
    const release = this.release(symbol, slot);
    this.releasing.set(symbol, release);
    await release;
    return this.state(symbol, false);
  }

  /** Releases every subscription (shutdown); failures are ignored, the terminal closes next. */
  async releaseAll(): Promise<void> {
    const symbols = [...this.slots.keys()];
    await Promise.allSettled(symbols.map((s) => this.unsubscribe(s)));
    this.slots.clear();
  }

  private async release(symbol: string, slot: Slot): Promise<void> {
    try {
      // An add still in flight is waited for; if it fails there is nothing to release.
      await slot.added.catch(() => {
        throw this.noSubscription(symbol);
      });
      try {
        await this.terminal.marketBookRelease(symbol);
      } catch (e) {
        // The terminal no longer holds it (hiding a symbol drops its depth, as in MT5): released
        // all the same. Any other failure keeps the slot, since the terminal may still hold it.
        if (!(e instanceof TerminalError && e.kind === 'not_subscribed')) throw e;
      }
      if (this.slots.get(symbol) === slot) this.slots.delete(symbol);
    } finally {
      // Here rather than in unsubscribe(), so that a subscribe waiting on this promise never sees
      // a finished release still listed.
      this.releasing.delete(symbol);
    }
  }

  private noSubscription(symbol: string): NoSubscriptionError {
    return new NoSubscriptionError(`there is no market-depth subscription for ${JSON.stringify(symbol)}`);
  }

  private state(symbol: string, subscribed: boolean): SubscriptionState {
    return { symbol, subscribed, active: this.slots.size, limit: this.limit };
  }
}
