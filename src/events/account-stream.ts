// One client's account events (deal, order, position, account), for GET /events and /ws alike:
// the snapshot of each state kind first (from the feed's cached state, no terminal call), then,
// after a resume with a deal position, the deals missed from the terminal's history up to where
// the live feed began, then live changes. Every deal passes one filter, "after the last deal
// sent", so the seam between history and live has neither a duplicate nor a hole; the live events
// that come during the catch-up wait (at most `pendingEvents`; beyond, dropped and a gap says so).
import type { Terminal } from '../terminal/terminal.js';
import { dealIsAfter, type DealCursor } from './account-diff.js';
import { dealsBetween, type AccountEvent, type AccountFeed, type AccountState, type AccountSubscription } from './account-feed.js';
import { formatDealId } from './deal-id.js';
import type { AccountKind } from './event-kinds.js';

/** An account event as the stream writes it: its kind, its data as JSON, and whether it moves the deal position. */
export interface AccountMessage {
  readonly event: 'snapshot' | 'gap' | AccountKind;
  readonly data: string;
  /** Set on deals (and snapshots, when deals are carried): the deal id after this event. */
  readonly dealId?: string | undefined;
  /** The feed's event this message is of (live ones): the same object for every client, so a writer may key an encoding cache on it. */
  readonly source?: AccountEvent | undefined;
}

/** Where a stream's account events go: `wait` never drops (snapshots, catch-up), `live` may (a slow client gets a gap). */
export interface AccountSink {
  wait(messages: readonly AccountMessage[]): Promise<boolean>;
  live(messages: readonly AccountMessage[]): void;
}

export class AccountStream {
  private sent: DealCursor;
  private pending: AccountEvent[] | undefined = [];
  private pendingDropped = 0;
  private sink: AccountSink | undefined;

  private readonly kinds: Set<AccountKind>;

  private constructor(
    kinds: ReadonlySet<AccountKind>,
    private readonly subscription: AccountSubscription,
    private readonly resumeFrom: DealCursor | undefined,
    private readonly pendingEvents: number,
  ) {
    this.kinds = new Set(kinds);
    const live = subscription.state.lastDeal;
    // A position past the account's last deal names deals that do not exist (an id from another
    // account, or made up): start from live.
    this.sent = resumeFrom && !dealIsAfter(resumeFrom, live) ? resumeFrom : live;
  }

  /** Joins the feed; rejects (before any byte is sent) when the terminal cannot give the account's state. */
  static async open(feed: AccountFeed, kinds: ReadonlySet<AccountKind>, resumeFrom: DealCursor | undefined, pendingEvents: number): Promise<AccountStream> {
    let stream: AccountStream | undefined;
    const subscription = await feed.subscribe((events) => stream?.onLive(events));
    stream = new AccountStream(kinds, subscription, resumeFrom, pendingEvents);
    return stream;
  }

  /** The deal part of this stream's event ids, or undefined when it carries no deals. */
  get dealId(): string | undefined {
    return this.kinds.has('deal') ? formatDealId(this.sent) : undefined;
  }

  /** The last deal sent (where a stream that replaces this one goes on from). */
  get position(): DealCursor {
    return this.sent;
  }

  /** The kinds carried now. */
  get carried(): AccountKind[] {
    return [...this.kinds];
  }

  /** Stops carrying `kinds` (a WebSocket unsubscribe); true when none is left. */
  drop(kinds: readonly string[]): boolean {
    for (const k of kinds) this.kinds.delete(k as AccountKind);
    return this.kinds.size === 0;
  }

  get state(): AccountState {
    return this.subscription.state;
  }

  /** Snapshots, then the deals missed (when resuming), then live events. false: the client left during it. */
  async run(terminal: Terminal, sink: AccountSink): Promise<boolean> {
    const { state } = this.subscription;
    const dealId = this.dealId;
    const snapshots: AccountMessage[] = [];
    if (this.kinds.has('order')) snapshots.push({ event: 'snapshot', data: JSON.stringify({ kind: 'order', orders: state.orders }), dealId });
    if (this.kinds.has('position')) snapshots.push({ event: 'snapshot', data: JSON.stringify({ kind: 'position', positions: state.positions }), dealId });
    if (this.kinds.has('account')) snapshots.push({ event: 'snapshot', data: JSON.stringify({ kind: 'account', account: state.account }), dealId });
    if (snapshots.length > 0 && !(await sink.wait(snapshots))) return false;
    if (this.kinds.has('deal') && this.resumeFrom && dealIsAfter(state.lastDeal, this.sent)) {
      for await (const batch of dealsBetween(terminal, this.sent, state.lastDeal)) {
        if (!(await sink.wait(this.deals(batch.map((deal) => ({ kind: 'deal' as const, deal, json: JSON.stringify(deal) })))))) return false;
      }
    }
    const pending = this.pending ?? [];
    this.pending = undefined;
    this.sink = sink;
    if (this.pendingDropped > 0) {
      if (!(await sink.wait([{ event: 'gap', data: JSON.stringify({ reason: 'slow-consumer', dropped: this.pendingDropped }) }]))) return false;
    }
    this.onLive(pending);
    return true;
  }

  close(): void {
    this.subscription.close();
    this.sink = undefined;
  }

  private onLive(events: readonly AccountEvent[]): void {
    if (this.pending) {
      for (const e of events) {
        if (!this.kinds.has(e.kind)) continue;
        if (this.pending.length < this.pendingEvents) this.pending.push(e);
        else this.pendingDropped++;
      }
      return;
    }
    const messages = this.deals(events);
    if (messages.length > 0) this.sink?.live(messages);
  }

  /** The messages for `events` of this stream's kinds, deals after the last one sent only (which moves). */
  private deals(events: readonly AccountEvent[]): AccountMessage[] {
    const out: AccountMessage[] = [];
    for (const e of events) {
      if (!this.kinds.has(e.kind)) continue;
      if (e.kind === 'deal') {
        if (!dealIsAfter(e.deal, this.sent)) continue;
        this.sent = { time_msc: e.deal.time_msc, ticket: e.deal.ticket };
        out.push({ event: 'deal', data: e.json, dealId: formatDealId(this.sent), source: e });
      } else out.push({ event: e.kind, data: e.json, source: e });
    }
    return out;
  }
}
