// The account's life as events: one poller per gateway (not per client), while anyone listens, at
// TRADEAPI_EVENTS_TRADE_MS. Each cycle reads positions_get, orders_get and the deals after the last
// one seen (history_deals_get up to a day ahead: a terminal's server clock may run ahead of ours),
// compares them with the cached state (account-diff.ts) and hands every listener the same array of
// events, each encoded to JSON once. account_info is read at most every TRADEAPI_EVENTS_ACCOUNT_MS.
// The cached state is what a joining client's snapshot is made of: no terminal call per client.
// Works the same over the bridge and on the simulator: it needs only the Terminal interface.
import { constants } from '../terminal/constants.js';
import { TerminalError } from '../terminal/errors.js';
import type { AccountInfo, TradeDeal, TradeOrder, TradePosition } from '../terminal/records.js';
import type { Terminal } from '../terminal/terminal.js';
import { compareDeals, dealsAfter, diffByTicket, orderDigest, positionDigest, type DealCursor } from './account-diff.js';
import { ACCOUNT_FIGURES, type AccountFigures, type OrderChange, type PositionChange } from './event-kinds.js';

export type AccountEvent =
  | { readonly kind: 'deal'; readonly deal: TradeDeal; readonly json: string }
  | { readonly kind: 'order'; readonly change: OrderChange; readonly order: TradeOrder; readonly json: string }
  | { readonly kind: 'position'; readonly change: PositionChange; readonly position: TradePosition; readonly json: string }
  | { readonly kind: 'account'; readonly account: AccountFigures; readonly json: string };

/** One cycle's events in the order they happened as far as a poll can tell: deals, then orders, positions, account. */
export type AccountListener = (events: readonly AccountEvent[]) => void;

export interface AccountState {
  readonly positions: readonly TradePosition[];
  readonly orders: readonly TradeOrder[];
  readonly account: AccountFigures;
  /** The last deal in the account's history when this state was read (deal events are those after it). */
  readonly lastDeal: DealCursor;
}

export interface AccountSubscription {
  /** The state when the listener joined: the events it gets are the changes after it. */
  readonly state: AccountState;
  close(): void;
}

export interface AccountFeedOptions {
  /** Interval between two polls of positions, orders and deals, ms. */
  tradeMs: number;
  /** account_info is read at most this often, ms. */
  accountMs: number;
  onError?: (error: unknown) => void;
  /** The clock (tests): ms since the epoch. */
  now?: () => number;
}

const DAY_S = 86_400;
/** Windows searched, newest first, for the account's last deal at start (a quiet account's may be old). */
const LAST_DEAL_WINDOWS_S = [2 * DAY_S, 31 * DAY_S, 400 * DAY_S];

/** Deals read per call during a catch-up: a week's at a time, so a resume from long ago holds one week. */
export const DEAL_WINDOW_S = 7 * DAY_S;

export function accountFigures(info: AccountInfo, timeMsc: number): AccountFigures {
  const out = { time_msc: timeMsc } as AccountFigures;
  for (const f of ACCOUNT_FIGURES) out[f] = info[f];
  return out;
}

const sameFigures = (a: AccountFigures, b: AccountFigures): boolean => ACCOUNT_FIGURES.every((f) => a[f] === b[f]);

const dealEvent = (deal: TradeDeal): AccountEvent => ({ kind: 'deal', deal, json: JSON.stringify(deal) });
const orderEvent = (change: OrderChange, order: TradeOrder): AccountEvent => ({ kind: 'order', change, order, json: JSON.stringify({ change, order }) });
const positionEvent = (change: PositionChange, position: TradePosition): AccountEvent => ({ kind: 'position', change, position, json: JSON.stringify({ change, position }) });
const accountEvent = (account: AccountFigures): AccountEvent => ({ kind: 'account', account, json: JSON.stringify(account) });

interface Cached {
  positions: Map<number, TradePosition>;
  orders: Map<number, TradeOrder>;
  account: AccountFigures;
  accountReadAt: number;
  lastDeal: DealCursor;
}

/**
 * The deals of history after `from` and up to `to` (inclusive), in history order, a window at a
 * time: DEAL_WINDOW_S, doubled after each empty one (so an id from long ago, or a quiet account,
 * costs a few calls, not one per week), back to DEAL_WINDOW_S after one with deals.
 */
export async function* dealsBetween(terminal: Terminal, from: DealCursor, to: DealCursor): AsyncGenerator<TradeDeal[]> {
  let start = Math.floor(from.time_msc / 1000);
  const end = Math.floor(to.time_msc / 1000);
  let span = DEAL_WINDOW_S;
  while (start <= end) {
    const stop = Math.min(start + span - 1, end);
    const rows = await terminal.historyDealsGet({ date_from: start, date_to: stop });
    const batch = dealsAfter(rows, from).filter((d) => compareDeals(d, to) <= 0);
    if (batch.length > 0) yield batch;
    span = rows.length > 0 ? DEAL_WINDOW_S : span * 2;
    start = stop + 1;
  }
}

export class AccountFeed {
  private readonly listeners = new Set<AccountListener>();
  private cached: Cached | undefined;
  private starting: Promise<Cached> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private cycling = false;
  private stopped = false;
  private readonly now: () => number;
  private readonly orderStates = constants('ORDER_STATE');

  constructor(
    private readonly terminal: Terminal,
    private readonly options: AccountFeedOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Listeners now (stats and tests). */
  get listening(): number {
    return this.listeners.size;
  }

  /**
   * Starts delivering the account's changes to `listener`. Resolves with the state the changes
   * follow once the feed has one (the first listener waits for the first poll; later ones get the
   * cached state at once); rejects when the terminal cannot give it.
   */
  async subscribe(listener: AccountListener): Promise<AccountSubscription> {
    if (this.stopped) throw new TerminalError('unavailable', -1, 'the server is shutting down');
    if (!this.cached) {
      this.starting ??= this.baseline().finally(() => (this.starting = undefined));
      const cached = await this.starting;
      if (this.stopped) throw new TerminalError('unavailable', -1, 'the server is shutting down');
      this.cached ??= cached;
    }
    // Read and joined in one turn of the loop: the next cycle's events are exactly what follows.
    const c = this.cached;
    this.listeners.add(listener);
    this.schedule();
    let closed = false;
    return {
      state: { positions: [...c.positions.values()], orders: [...c.orders.values()], account: c.account, lastDeal: c.lastDeal },
      close: () => {
        if (closed) return;
        closed = true;
        this.listeners.delete(listener);
        if (this.listeners.size === 0) {
          // Nobody listens: stop polling and forget the state (it would go stale unwatched).
          this.unschedule();
          this.cached = undefined;
        }
      },
    };
  }

  stop(): void {
    this.stopped = true;
    this.listeners.clear();
    this.cached = undefined;
    this.unschedule();
  }

  /** The state now, read whole, and the account's last deal (searched in growing windows back from now). */
  private async baseline(): Promise<Cached> {
    const now = this.now();
    const [positions, orders, info, lastDeal] = await Promise.all([this.terminal.positionsGet(), this.terminal.ordersGet(), this.terminal.accountInfo(), this.findLastDeal(now)]);
    return {
      positions: new Map(positions.map((p) => [p.ticket, p])),
      orders: new Map(orders.map((o) => [o.ticket, o])),
      account: accountFigures(info, now),
      accountReadAt: now,
      lastDeal,
    };
  }

  private async findLastDeal(nowMs: number): Promise<DealCursor> {
    const ahead = Math.floor(nowMs / 1000) + DAY_S;
    for (const back of LAST_DEAL_WINDOWS_S) {
      const deals = await this.terminal.historyDealsGet({ date_from: Math.max(0, ahead - DAY_S - back), date_to: ahead });
      const last = latest(deals);
      if (last) return last;
    }
    const all = latest(await this.terminal.historyDealsGet({ date_from: 0, date_to: ahead }));
    // No deal ever: the first one will be after "now" (a day back, for a terminal clock behind ours).
    return all ?? { time_msc: nowMs - DAY_S * 1000, ticket: 0 };
  }

  private schedule(): void {
    if (this.timer || this.cycling || this.stopped || this.listeners.size === 0) return;
    this.timer = setTimeout(() => void this.cycle(), this.options.tradeMs);
  }

  private unschedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One poll; the state moves only when every read of it succeeded (a failed cycle is retried whole). */
  private async cycle(): Promise<void> {
    this.timer = undefined;
    this.cycling = true;
    try {
      const c = this.cached;
      if (!c) return;
      const now = this.now();
      const readAccount = now - c.accountReadAt >= this.options.accountMs;
      let positions: TradePosition[];
      let orders: TradeOrder[];
      let deals: TradeDeal[];
      let info: AccountInfo | undefined;
      try {
        [positions, orders, deals, info] = await Promise.all([
          this.terminal.positionsGet(),
          this.terminal.ordersGet(),
          this.terminal.historyDealsGet({ date_from: Math.floor(c.lastDeal.time_msc / 1000), date_to: Math.floor(now / 1000) + DAY_S }),
          readAccount ? this.terminal.accountInfo() : Promise.resolve(undefined),
        ]);
      } catch (e) {
        this.options.onError?.(e);
        return;
      }
      const events: AccountEvent[] = [];
      const fresh = dealsAfter(deals, c.lastDeal);
      for (const d of fresh) events.push(dealEvent(d));
      const o = diffByTicket(c.orders, orders, orderDigest);
      for (const r of o.opened) events.push(orderEvent('opened', r));
      for (const r of o.modified) events.push(orderEvent('modified', r));
      if (o.removed.length > 0) {
        let gone: Array<[OrderChange, TradeOrder]>;
        try {
          gone = await Promise.all(o.removed.map((r) => this.whyGone(r, fresh)));
        } catch (e) {
          this.options.onError?.(e);
          return;
        }
        for (const [change, r] of gone) events.push(orderEvent(change, r));
      }
      const p = diffByTicket(c.positions, positions, positionDigest);
      for (const r of p.opened) events.push(positionEvent('opened', r));
      for (const r of p.modified) events.push(positionEvent('modified', r));
      for (const r of p.removed) events.push(positionEvent('closed', r));
      if (this.cached !== c) return; // everyone left meanwhile (or a new baseline was taken)
      c.positions = p.next;
      c.orders = o.next;
      const last = fresh.at(-1);
      if (last) c.lastDeal = { time_msc: last.time_msc, ticket: last.ticket };
      if (info) {
        const figures = accountFigures(info, now);
        c.accountReadAt = now;
        if (!sameFigures(figures, c.account)) events.push(accountEvent(figures));
        c.account = figures;
      }
      if (events.length > 0) this.deliver(Object.freeze(events));
    } finally {
      this.cycling = false;
      this.schedule();
    }
  }

  /**
   * Filled or cancelled: the order's record in the history says (its state, and the fill's
   * volume and time); without one, a deal of this cycle that names it means filled.
   */
  private async whyGone(order: TradeOrder, deals: readonly TradeDeal[]): Promise<[OrderChange, TradeOrder]> {
    const found = (await this.terminal.historyOrdersGet({ ticket: order.ticket })).find((h) => h.ticket === order.ticket);
    const state = found?.state;
    const filled = state === undefined ? deals.some((d) => d.order === order.ticket) : state === this.orderStates.get('ORDER_STATE_FILLED') || state === this.orderStates.get('ORDER_STATE_PARTIAL');
    return [filled ? 'filled' : 'cancelled', found ?? order];
  }

  private deliver(events: readonly AccountEvent[]): void {
    for (const listener of this.listeners) {
      try {
        listener(events);
      } catch {
        // A listener's failure is its own; the others still get theirs.
      }
    }
  }
}

function latest(deals: readonly TradeDeal[]): DealCursor | undefined {
  let best: TradeDeal | undefined;
  for (const d of deals) if (!best || compareDeals(d, best) > 0) best = d;
  return best && { time_msc: best.time_msc, ticket: best.ticket };
}
