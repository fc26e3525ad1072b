// One WebSocket client of live events (GET /ws): its protocol state (authentication, subscriptions),
// its share of the feeds (the same TickFeed/BookFeed as GET /events: one poll per symbol however
// many clients listen), and a bounded send path.
//
// Slow consumers never grow memory: events go straight to the transport, which buffers what the
// socket does not take; once that buffer holds TRADEAPI_EVENTS_QUEUE_BYTES, events are dropped, and
// so is every later one until the buffer has drained completely; then one `gap` event
// {"reason":"slow-consumer","dropped":N} takes the hole's place and delivery resumes. A client that
// drains nothing for the send timeout is disconnected. Replies to the client's own messages are
// never dropped, but a client that sends while reading nothing is disconnected once its buffer
// holds twice the queue.
//
// Ticks: the client's tick symbols share one TickFeed subscription (so ticks of several symbols
// come merged in time order per poll). A change of symbols joins the feed with the new list before
// leaving the old subscription, and every tick passes a per-symbol filter "after the last position
// sent", so a change neither repeats nor loses a tick of a symbol that stays.
//
// Resume: a subscribe with `since` (the client's last event id) joins the feed first (live ticks of
// those symbols wait in `catching`), replies, then sends each new symbol's missed ticks from history
// (catch-up.ts: the bounds of GET /events), waiting for the client rather than dropping, then the
// waiting live ticks through the same "after the last position sent" filter: no hole, no repeat.
// Every JSON tick carries its position in its symbol's history as `event_id` (an SSE id of one
// symbol), which is what a client sends back as `since`.
//
// Sequence: every JSON message the server sends on a connection (events, replies, markers, gaps,
// errors) carries `seq`, 1, 2, 3… in the order sent, stamped in one place (transmit) whatever its
// kind, so a client that sees no number missing has missed no message. Events the server drops
// for a slow client take no number: the `gap` that replaces them does. Arrow binary frames carry none.
import { liveTicksIpc } from '../encode/live-ticks-arrow.js';
import type { BookUpdate } from './book-feed.js';
import { TerminalError } from '../terminal/errors.js';
import type { Tick } from '../terminal/records.js';
import type { Terminal } from '../terminal/terminal.js';
import type { FeedTick, TickCursor, TickSubscription } from './tick-feed.js';
import type { WebSocketConnection, WebSocketListener } from '../http/adapter.js';
import type { KeyCheck } from '../http/policy.js';
import { catchUpSymbol, type CatchUpGap, type CatchUpLimits } from './catch-up.js';
import { toProblem } from '../http/errors-map.js';
import { isAfter } from './event-id.js';
import { replayPlan, type ReplayAsk } from './replay-plan.js';
import { runReplay, startCursor, type ReplayPlan } from './replay.js';
import { tickJson, type EventKind } from './session.js';
import { AccountStream, type AccountMessage } from './account-stream.js';
import { isAccountKind, type AccountKind } from './event-kinds.js';
import type { DealCursor } from './account-diff.js';
import type { ReplayTick } from './replay-history.js';
import type { Config } from '../config/index.js';
import type { EventHub } from './hub.js';
import { problem, ProblemError, validationError, type Problem } from '../http/problem.js';
import { unknownSymbol } from '../http/symbol-hint.js';
import { MessageProblem, parseClientMessage, type BarAsk, type ClientMessage, type MessageId, type WsFormat } from './ws-protocol.js';
import { LiveBars, type LiveBar } from './live-bars.js';
import { barPriceOf } from '../terminal/bar-period.js';

export interface WsSessionOptions {
  /** Distinct symbols one connection may subscribe to (TRADEAPI_EVENTS_MAX_SYMBOLS). */
  maxSymbols: number;
  /** Bytes the transport may hold for this client before events are dropped. */
  queueBytes: number;
  sendTimeoutMs: number;
  /** Book events need a depth subscription, which read-only mode does not offer. */
  readOnly: boolean;
  /** The server's key check; undefined: the server asks for no key (an auth message is told so). */
  keyCheck: KeyCheck | undefined;
  /** The upgrade carried a valid X-API-Key. Without it (and with a key check) the first message must be {"op":"auth"}. */
  authenticatedByHeader: boolean;
  authTimeoutMs: number;
  /**
   * Called when an auth message's key is right, before `authenticated` is answered: a socket that
   * authenticates by message held no event slot until then (event-slots.ts) and takes one now.
   * Throws the problem (503) when none is free: the connection is then closed (1013).
   */
  admit?: () => void;
  /**
   * Read-only mode: counts a subscribe with `since` (a catch-up from history) against the client's
   * rate limit; throws the problem (429) when over it, and the subscribe is refused.
   */
  chargeCatchUp?: (() => Promise<void>) | undefined;
  /** The endpoint's path: the `instance` of every problem. */
  instance: string;
  /** Bounds of a subscribe's `since` catch-up (TRADEAPI_EVENTS_CATCHUP_*), and live ticks held meanwhile. */
  catchup: CatchUpLimits & { pendingTicks: number };
  /** Whose clock a replay's "in the future" is judged on (replay-plan.ts). */
  clock: Pick<Config, 'serverTz' | 'terminal' | 'simServerTz'>;
  /** A message failed for a reason that is no problem of the client's (a bug): for the log, since the client only hears "internal". */
  onUnexpectedError: (err: unknown) => void;
}

export type WsCloseReason = 'client-gone' | 'send-timeout' | 'server-closing' | 'unauthorized' | 'policy' | 'event-slots-full';

/** WebSocket close codes (RFC 6455, 7.4.1). */
const GOING_AWAY = 1001;
const POLICY_VIOLATION = 1008;
/** The server is at a capacity limit: the client may come back later (IANA's registry). */
const TRY_AGAIN_LATER = 1013;
/** Bad messages (4xx problems) a connection may send before it is closed as abusive. */
const MAX_BAD_MESSAGES = 20;
/** subscribe/unsubscribe/ping messages waiting for their turn, at most. */
const MAX_PENDING_OPS = 16;
/** After our close frame, how long the client has to answer before the connection is dropped. */
const CLOSE_WAIT_MS = 1_000;

/**
 * Made once per tick however many clients send it (the feed hands every client the same Tick
 * object): the UTF-8 bytes of the text frame's payload, one Buffer shared by every send.
 */
const messageOfTick = new WeakMap<Tick, Buffer>();

/** (`seq` is the tick's own: its index in its millisecond, the same for every client.) */
function tickMessage(symbol: string, tick: Tick, seq: number): Buffer {
  let bytes = messageOfTick.get(tick);
  if (bytes === undefined) {
    bytes = Buffer.from(`{"event":"tick","event_id":"${tick.time_msc}-${seq}","data":${tickJson(symbol, tick)}}`, 'utf8');
    messageOfTick.set(tick, bytes);
  }
  return bytes;
}

/** A history tick's message (sent to one client: not cached). */
function tickMessageOnce(t: ReplayTick): string {
  return `{"event":"tick","event_id":"${t.time_msc}-${t.seq}","data":{"symbol":${JSON.stringify(t.symbol)},${t.json}}`;
}

/**
 * A JSON message (an object) with `,"seq":N` as its last member. The message may be shared by every
 * client (tickMessage): it is copied, never modified.
 */
export function stampMessage(payload: string | Uint8Array, seq: number): string | Uint8Array {
  if (typeof payload === 'string') return payload.endsWith('}') ? `${payload.slice(0, -1)},"seq":${seq}}` : payload;
  const n = payload.byteLength;
  if (n === 0 || payload[n - 1] !== 0x7d) return payload;
  const tail = `,"seq":${seq}}`;
  const out = Buffer.allocUnsafe(n - 1 + tail.length);
  out.set(payload.subarray(0, n - 1));
  out.write(tail, n - 1, 'latin1');
  return out;
}

/** Likewise per depth update (the book feed hands every listener the same object). */
const messageOfBook = new WeakMap<BookUpdate, Buffer>();

/** An account event's message, made once however many clients send it (the feed hands all the same object; its `event_id` is the event's own). */
const messageOfAccount = new WeakMap<object, Buffer>();

/** Arrow frames per delivery, for every client on the same symbols in the same position. */
const arrowOfDelivery = new WeakMap<readonly FeedTick[], Uint8Array>();

export class WsSession {
  /** Resolves once the connection is gone (or never came up), with why. */
  readonly closed: Promise<WsCloseReason>;
  /** Most bytes the transport ever held for this client (tests and stats check the bound). */
  peakQueuedBytes = 0;
  private resolveClosed!: (reason: WsCloseReason) => void;
  private conn: WebSocketConnection | undefined;
  private done = false;
  private closing: WsCloseReason | undefined;
  private authenticated: boolean;
  private timers = new Set<NodeJS.Timeout>();
  private authTimer: NodeJS.Timeout | undefined;
  private stallTimer: NodeJS.Timeout | undefined;
  /** Events dropped since the buffer overflowed; > 0: dropping until it has drained. */
  private dropped = 0;
  private badMessages = 0;
  private pendingOps = 0;
  private ops: Promise<void> = Promise.resolve();
  /** Symbols with tick events, in the order subscribed, and the last position sent of each. */
  private tickSymbols: string[] = [];
  private readonly sent = new Map<string, TickCursor>();
  private tickSub: TickSubscription | undefined;
  /** How ticks go out: JSON text frames, or one Arrow IPC binary frame per delivery. */
  private tickFormat: WsFormat = 'json';
  /** Symbols with book events, each with its own feed subscription. */
  private readonly books = new Map<string, () => void>();
  /** Symbols being caught up (`since`), with the live ticks that arrived meanwhile. */
  private readonly catching = new Map<string, FeedTick[]>();
  private pendingDropped = 0;
  /** Senders waiting for the transport's buffer to drain (a catch-up). */
  private drainWaiters: Array<() => void> = [];
  /**
   * Symbols of a replay running into live, with the feed's latest position of each (its deliveries
   * are not held: history has them); a symbol leaves at the seam (replay.ts).
   */
  private readonly replaying = new Map<string, TickCursor | undefined>();
  /** Bar events: one period (and price) per connection, over its symbols (live-bars.ts), and the last bar position sent per symbol. */
  private barSub: { bars: LiveBars; ask: BarAsk; symbols: string[] } | undefined;
  private readonly barSent = new Map<string, number>();
  /** The last `seq` stamped on a message of this connection. */
  private seq = 0;
  /** The replay running on this connection (one at a time), and whether it was told to stop. */
  private replay: { symbols: readonly string[]; stopped: boolean } | undefined;
  /** The account kinds of this connection (account-stream.ts); undefined: none. */
  private account: AccountStream | undefined;

  constructor(
    private readonly hub: EventHub,
    private readonly terminal: Terminal,
    private readonly options: WsSessionOptions,
  ) {
    this.authenticated = options.keyCheck === undefined || options.authenticatedByHeader;
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  /** Whether the connection ever came up. */
  get opened(): boolean {
    return this.conn !== undefined;
  }

  /** The connection is up: the adapter's open callback. */
  open(conn: WebSocketConnection): WebSocketListener {
    this.conn = conn;
    if (this.done) {
      // Ended (server shutdown) between the upgrade decision and the handshake.
      conn.end(GOING_AWAY, 'server closing');
    } else if (!this.authenticated) {
      this.authTimer = this.timer(this.options.authTimeoutMs, () => {
        this.refuse(undefined, `no {"op":"auth","key":…} message within ${this.options.authTimeoutMs} ms of connecting`);
      });
    }
    return {
      message: (data, isBinary) => this.onMessage(data, isBinary),
      drain: () => this.onDrain(),
      close: () => this.finish(this.closing ?? 'client-gone'),
    };
  }

  /** The upgrade never completed (refused, or the client left during the handshake). */
  abandon(): void {
    if (!this.conn) this.finish('client-gone');
  }

  /** Closes the connection with a close frame (server shutdown). */
  end(reason: WsCloseReason = 'server-closing'): void {
    this.close(GOING_AWAY, 'server closing', reason);
  }

  // --- messages from the client ----------------------------------------------------------------

  private onMessage(data: Uint8Array, isBinary: boolean): void {
    if (this.done || this.closing) return;
    let msg: ClientMessage;
    try {
      msg = parseClientMessage(data, isBinary, this.options.maxSymbols);
    } catch (e) {
      if (!this.authenticated) this.refuse(e instanceof MessageProblem ? e.id : undefined, 'authenticate first: the first message must be {"op":"auth","key":…}');
      else this.fail(e);
      return;
    }
    if (!this.authenticated) {
      if (msg.op !== 'auth') this.refuse(msg.id, 'authenticate first: the first message must be {"op":"auth","key":…}');
      else if (this.checkKey(msg)) {
        this.authenticated = true;
        this.clearTimer(this.authTimer);
      }
      return;
    }
    if (msg.op === 'auth') {
      // Authenticated by the upgrade's X-API-Key (or no key asked): the key is checked all the same.
      this.checkKey(msg);
      return;
    }
    if (this.pendingOps >= MAX_PENDING_OPS) {
      this.fail(new MessageProblem(validationError(`more than ${MAX_PENDING_OPS} messages wait for an answer; wait for the replies before sending more`), msg.id));
      return;
    }
    this.pendingOps++;
    this.ops = this.ops
      .then(() => this.perform(msg))
      .catch((e: unknown) => this.fail(e instanceof ProblemError && !(e instanceof MessageProblem) && msg.id !== undefined ? new MessageProblem(e, msg.id) : e))
      .finally(() => this.pendingOps--);
  }

  /**
   * Answers an auth message truthfully: `authenticated` for the right key only; a wrong key is
   * refused (whether or not the upgrade's header was right: a client must not believe a wrong key
   * works); a server that asks for no key says so. Never echoes the key. True: the key is right.
   */
  private checkKey(msg: Extract<ClientMessage, { op: 'auth' }>): boolean {
    const keyCheck = this.options.keyCheck;
    if (keyCheck === undefined) {
      this.reply({ event: 'no-key-needed', detail: 'this server asks for no key (TRADEAPI_SECRET_KEY is unset): the key was not checked' }, msg.id);
      return false;
    }
    if (!keyCheck(msg.key)) {
      this.refuse(msg.id, 'the key is not valid');
      return false;
    }
    if (!this.authenticated && !this.admit(msg.id)) return false;
    this.reply({ event: 'authenticated' }, msg.id);
    return true;
  }

  /** Takes an event slot for a socket that just authenticated by message; none free: a 503 error event, then closed. */
  private admit(id: MessageId): boolean {
    try {
      this.options.admit?.();
      return true;
    } catch (e) {
      const p = e instanceof ProblemError ? e : new ProblemError('internal', 'an unexpected error occurred');
      if (!(e instanceof ProblemError)) this.options.onUnexpectedError(e);
      this.reply({ event: 'error', problem: this.problemOf(p.kind, p.detail) }, id);
      this.close(TRY_AGAIN_LATER, 'too many event clients', 'event-slots-full');
      return false;
    }
  }

  private async perform(msg: ClientMessage): Promise<void> {
    if (this.done || this.closing) return;
    switch (msg.op) {
      case 'ping':
        this.reply({ event: 'pong' }, msg.id);
        return;
      case 'subscribe': {
        if (msg.replay) {
          await this.startReplay(msg);
          return;
        }
        if (msg.since !== undefined || msg.bars?.since !== undefined || msg.dealsSince !== undefined) await this.options.chargeCatchUp?.();
        const resume = msg.since && new Map(msg.symbols.map((s, i) => [s, (msg.since as TickCursor[])[i] as TickCursor]));
        const latest = await this.subscribe(msg.symbols, msg.kinds, resume, msg.bars);
        const account = await this.subscribeAccount(msg.kinds, msg.dealsSince);
        if (msg.format !== undefined) this.tickFormat = msg.format;
        this.reply({ event: 'subscribed', symbols: msg.symbols, kinds: msg.kinds, format: this.tickFormat, subscriptions: this.subscriptions() }, msg.id);
        await this.catchUp(latest);
        if (account && !this.done) await account.run(this.terminal, this.accountSink());
        return;
      }
      case 'unsubscribe': {
        const symbols = msg.symbols ?? [...new Set([...this.tickSymbols, ...this.books.keys(), ...(this.replay?.symbols ?? []), ...(this.barSub?.symbols ?? [])])];
        // A replay of any of these stops (a replay into live also leaves with its symbols' ticks).
        const stopping = this.replay && msg.kinds.includes('tick') && symbols.some((s) => this.replay?.symbols.includes(s)) ? this.replay : undefined;
        if (stopping) stopping.stopped = true;
        await this.unsubscribe(symbols, msg.kinds);
        if (this.account?.drop(msg.kinds)) {
          this.account.close();
          this.account = undefined;
        }
        if (stopping && this.replay === stopping) this.stopReplay();
        this.reply({ event: 'unsubscribed', symbols, kinds: msg.kinds, subscriptions: this.subscriptions() }, msg.id);
        return;
      }
      case 'auth':
        return;
    }
  }

  /** Returns, for the symbols to catch up (`resume`), the feed's position when they joined it. */
  private async subscribe(symbols: readonly string[], kinds: readonly EventKind[], resume?: ReadonlyMap<string, TickCursor>, bars?: BarAsk): Promise<Map<string, TickCursor>> {
    const latest = new Map<string, TickCursor>();
    if (kinds.includes('book') && this.options.readOnly) {
      throw validationError('member "kinds": book events need a market-depth subscription, which read-only mode does not offer; use ["tick"]');
    }
    const current = new Set([...this.tickSymbols, ...this.books.keys(), ...(this.barSub?.symbols ?? [])]);
    const fresh = symbols.filter((s) => !current.has(s));
    const held = this.barSub?.ask;
    if (bars && held && (held.text !== bars.text || held.price !== bars.price)) {
      throw validationError(`this connection has bar events of period ${held.text}${held.price ? ` by ${held.price}` : ''}; one period per connection (unsubscribe "bar" first)`);
    }
    if (current.size + fresh.length > this.options.maxSymbols) {
      throw validationError(
        `this would make ${current.size + fresh.length} symbols on this connection (${current.size} already); one connection takes at most ${this.options.maxSymbols} (TRADEAPI_EVENTS_MAX_SYMBOLS)`,
      );
    }
    await this.mustExist(fresh);
    if (this.done || this.closing) return latest;
    if (kinds.includes('tick')) {
      // (`since` of a symbol already subscribed is moot: its ticks are flowing.)
      const added = symbols.filter((s) => !this.tickSymbols.includes(s));
      if (added.length > 0) await this.setTickSymbols([...this.tickSymbols, ...added], resume, latest);
    }
    if (kinds.includes('book') && !this.done) {
      for (const s of symbols) {
        if (!this.books.has(s)) this.books.set(s, this.hub.books.subscribe([s], (u) => this.onBook(u)));
      }
    }
    if (bars && !this.done && !this.closing) {
      const since = bars.since && new Map(symbols.map((s, i) => [s, bars.since?.[i] as number]));
      const added = symbols.filter((s) => !this.barSub?.symbols.includes(s));
      if (added.length > 0) await this.setBarSymbols([...(this.barSub?.symbols ?? []), ...added], bars, since);
    }
    return latest;
  }

  /**
   * Folds `next`'s bars from here on (a new fold over all of them: the symbols that stay resume
   * from the last bar sent, so none is lost or repeated), then leaves the old one.
   */
  private async setBarSymbols(next: string[], ask: BarAsk, since?: ReadonlyMap<string, number>): Promise<void> {
    const old = this.barSub;
    let sub: { bars: LiveBars; ask: BarAsk; symbols: string[] } | undefined;
    if (next.length > 0) {
      const infos = await Promise.all(next.map((s) => this.terminal.symbolInfo(s)));
      const symbols = next.map((symbol, i) => {
        const price = barPriceOf(symbol, infos[i]!, ask.period, ask.text, ask.price);
        if (typeof price !== 'string') throw validationError(price.why);
        return { symbol, price, digits: infos[i]!.digits };
      });
      const bars = await LiveBars.open(this.hub.ticks, this.terminal, {
        period: ask.period,
        periodText: ask.text,
        symbols,
        resumeFrom: next.map((s) => this.barSent.get(s) ?? since?.get(s)),
        pollMs: this.hub.settings.pollMs,
        catchupMs: this.options.catchup.catchupMs,
        zone: this.options.clock.serverTz,
      });
      if (this.done || this.closing) {
        bars.close();
        return;
      }
      const positions = bars.positions();
      next.forEach((s, i) => {
        if (!this.barSent.has(s)) this.barSent.set(s, positions[i] as number);
      });
      sub = { bars, ask, symbols: next };
    }
    for (const s of old?.symbols ?? []) if (!next.includes(s)) this.barSent.delete(s);
    this.barSub = sub;
    old?.bars.close();
    if (sub) {
      // The bars closed while history was folded go out now (onBars needs barSub set).
      for (const gap of sub.bars.gaps) this.transmit(this.conn, JSON.stringify({ event: 'gap', data: gap }));
      sub.bars.attach((closed) => this.onBars(next, closed));
    }
  }

  /** Closed bars: each after the last of its symbol sent (a fold replacing another may close one again). */
  private onBars(symbols: readonly string[], closed: readonly LiveBar[]): void {
    for (const bar of closed) {
      const symbol = symbols[bar.index] as string;
      const last = this.barSent.get(symbol);
      if (last === undefined || bar.position <= last || !this.barSub?.symbols.includes(symbol)) continue;
      this.barSent.set(symbol, bar.position);
      this.sendEvent(`{"event":"bar","event_id":"${bar.position}","data":${bar.json}}`);
    }
  }

  /** Every symbol must exist: an error now, rather than a subscription that never says anything. */
  private async mustExist(symbols: readonly string[]): Promise<void> {
    await Promise.all(
      symbols.map((s) =>
        this.terminal.symbolInfo(s).catch(async (e: unknown) => {
          if (e instanceof TerminalError && e.kind === 'not_found') throw await unknownSymbol(this.terminal, s, { cause: e.message });
          throw e;
        }),
      ),
    );
  }

  /**
   * A subscribe with `start`: replies, then runs the replay beside the connection's other work (a
   * replay at speed 1 may last for days: other messages are answered meanwhile). Without `end` the
   * symbols join the tick subscription now, their live ticks skipped until history has caught up.
   */
  private async startReplay(msg: Extract<ClientMessage, { op: 'subscribe' }>): Promise<void> {
    const plan = replayPlan(msg.replay as ReplayAsk, msg.kinds, 'member', this.options.clock) as ReplayPlan;
    if (this.replay) throw validationError(`a replay of ${this.replay.symbols.join(',')} is running on this connection; one at a time (unsubscribe its symbols to stop it)`);
    const taken = msg.symbols.filter((s) => this.tickSymbols.includes(s));
    if (taken.length > 0) throw validationError(`${taken.join(',')} already has live ticks on this connection: a replay takes symbols the connection does not have yet`);
    // A replay reads history as a catch-up does: in read-only mode it counts towards the rate limit.
    await this.options.chargeCatchUp?.();
    const symbols = msg.symbols;
    // Resumed inside a replay (`since`): from the client's position, never before the start.
    const from = symbols.map((s, i) => {
      const resume = msg.since?.[i];
      return resume && isAfter(resume, startCursor(plan)) ? resume : startCursor(plan);
    });
    const intoLive = plan.endMsc === undefined;
    if (intoLive) {
      // Replaying before the feed is joined: no delivery can reach the client before history.
      for (const s of symbols) this.replaying.set(s, undefined);
      try {
        await this.subscribe(symbols, ['tick']);
      } catch (e) {
        for (const s of symbols) this.replaying.delete(s);
        throw e;
      }
      if (this.done || this.closing) return;
      for (const [i, s] of symbols.entries()) {
        // Where the feed is for it: its latest delivery if one came already, else where it began.
        const feed = this.replaying.get(s) ?? (this.sent.get(s) as TickCursor);
        this.replaying.set(s, feed);
        this.sent.set(s, isAfter(from[i] as TickCursor, feed) ? feed : (from[i] as TickCursor));
      }
    } else {
      await this.mustExist(symbols);
    }
    if (msg.format !== undefined) this.tickFormat = msg.format;
    const replay = { symbols, stopped: false };
    this.replay = replay;
    const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
    this.reply(
      {
        event: 'subscribed',
        symbols,
        kinds: ['tick'],
        format: this.tickFormat,
        subscriptions: this.subscriptions(),
        replay: { start: iso(plan.startMsc), end: iso(plan.endMsc), speed: plan.speed },
      },
      msg.id,
    );
    void this.runReplay(replay, intoLive ? symbols.map((s) => this.sent.get(s) as TickCursor) : from, plan, intoLive)
      .catch((e: unknown) => this.fail(e))
      .finally(() => {
        if (this.replay === replay) this.stopReplay();
      });
  }

  /**
   * The replay stops (at its next step) and its place is free at once. Its symbols that stay
   * subscribed go live from the feed's position: what history had not sent yet is announced as a
   * gap {"reason":"replay-stopped","symbol","from_msc","to_msc"} (a span to fetch from /ticks/range).
   */
  private stopReplay(): void {
    if (!this.replay) return;
    this.replay.stopped = true;
    for (const s of this.replay.symbols) {
      const feed = this.replaying.get(s);
      this.replaying.delete(s);
      const last = this.sent.get(s);
      if (feed && last && isAfter(feed, last)) {
        this.sent.set(s, feed);
        this.transmit(this.conn, JSON.stringify({ event: 'gap', data: { reason: 'replay-stopped', symbol: s, from_msc: last.time_msc, to_msc: feed.time_msc } }));
      }
    }
    this.replay = undefined;
  }

  private async runReplay(replay: { symbols: readonly string[]; stopped: boolean }, from: readonly TickCursor[], plan: ReplayPlan, intoLive: boolean): Promise<void> {
    const { symbols } = replay;
    let ticks = 0;
    const gone = (): boolean => this.done || !!this.closing || replay.stopped || (intoLive && symbols.some((s) => !this.replaying.has(s)));
    const outcome = await runReplay(this.terminal, symbols, from, plan, intoLive ? () => symbols.map((s) => this.replaying.get(s)) : undefined, {
      closed: gone,
      ticks: async (batch) => {
        // Where each symbol stands as its ticks go out, for a replay stopped before the seam (stopReplay).
        const sent = (t: ReplayTick): void => {
          if (intoLive && this.replaying.has(t.symbol)) this.sent.set(t.symbol, { time_msc: t.time_msc, seq: t.seq });
        };
        if (this.tickFormat === 'arrow') {
          if (gone()) return false;
          ticks += batch.length;
          batch.forEach(sent);
          return this.sendWait(liveTicksIpc(batch), false);
        }
        for (const t of batch) {
          if (gone() || !(await this.sendWait(tickMessageOnce(t), true))) return false;
          ticks++;
          sent(t);
        }
        return true;
      },
      live: (at) => {
        // Synchronously: the next delivery passes the "after the last position sent" filter.
        for (const [i, s] of symbols.entries()) {
          this.sent.set(s, at[i] as TickCursor);
          this.replaying.delete(s);
        }
        this.transmit(this.conn, JSON.stringify({ event: 'replay-complete', data: { symbols, ticks } }));
      },
    });
    if (outcome === 'end' && !this.done && !this.closing) await this.sendWait(JSON.stringify({ event: 'replay-end', data: { symbols, ticks } }));
  }

  private async unsubscribe(symbols: readonly string[], kinds: readonly EventKind[]): Promise<void> {
    if (kinds.includes('book')) {
      for (const s of symbols) {
        this.books.get(s)?.();
        this.books.delete(s);
      }
    }
    if (kinds.includes('tick')) {
      const next = this.tickSymbols.filter((s) => !symbols.includes(s));
      if (next.length !== this.tickSymbols.length) await this.setTickSymbols(next);
    }
    const bars = this.barSub;
    if (kinds.includes('bar') && bars) {
      const next = bars.symbols.filter((s) => !symbols.includes(s));
      if (next.length !== bars.symbols.length) await this.setBarSymbols(next, bars.ask);
    }
  }

  /** Joins the tick feed with `next` before leaving the old subscription (see the top of this file). */
  private async setTickSymbols(next: string[], resume?: ReadonlyMap<string, TickCursor>, latest?: Map<string, TickCursor>): Promise<void> {
    // Symbols left out get nothing from here on, even from the old subscription's last delivery.
    for (const s of this.tickSymbols) if (!next.includes(s)) this.sent.delete(s);
    const old = this.tickSub;
    let sub: TickSubscription | undefined;
    if (next.length > 0) {
      try {
        sub = await this.hub.ticks.subscribe(next, (ticks) => this.onTicks(ticks));
      } catch (e) {
        this.tickSymbols = this.tickSymbols.filter((s) => this.sent.has(s));
        throw e;
      }
      if (this.done || this.closing) {
        sub.close();
        return;
      }
      for (const s of next) {
        if (this.sent.has(s)) continue;
        const live = sub.cursors.get(s) as TickCursor;
        const from = resume?.get(s);
        // A position past the symbol's latest tick names ticks that do not exist (an id from another
        // terminal, or made up): start from live, as GET /events does.
        if (from && live && isAfter(live, from)) {
          this.sent.set(s, from);
          this.catching.set(s, []);
          latest?.set(s, live);
        } else {
          this.sent.set(s, live);
        }
      }
    }
    this.tickSub = sub;
    this.tickSymbols = next;
    old?.close();
  }

  /** What the connection has (`bar` and its period only while it has bar events, `account` only with account kinds). */
  private subscriptions(): { tick: string[]; book: string[]; bar?: string[]; period?: string; account?: AccountKind[] } {
    const out: { tick: string[]; book: string[]; bar?: string[]; period?: string; account?: AccountKind[] } = { tick: [...this.tickSymbols], book: [...this.books.keys()] };
    if (this.barSub) {
      out.bar = [...this.barSub.symbols];
      out.period = this.barSub.ask.text;
    }
    if (this.account) out.account = this.account.carried;
    return out;
  }

  /**
   * Joins the account feed for the account kinds of a subscribe, with those already carried: a new
   * stream (its snapshots first) that goes on from the old one's last deal, or from `since`'s.
   */
  private async subscribeAccount(kinds: readonly EventKind[], dealsSince: DealCursor | undefined): Promise<AccountStream | undefined> {
    const asked = kinds.filter((k): k is AccountKind => isAccountKind(k));
    if (asked.length === 0) return undefined;
    const old = this.account;
    const all = new Set<AccountKind>([...(old?.carried ?? []), ...asked]);
    const from = dealsSince ?? (old?.carried.includes('deal') ? old.position : undefined);
    const next = await AccountStream.open(this.hub.account, all, from, this.options.catchup.pendingTicks);
    if (this.done || this.closing) {
      next.close();
      return undefined;
    }
    old?.close();
    this.account = next;
    return next;
  }

  /** Account events as JSON text frames: {"event","event_id"?,"data"}; `event_id` on deals (and snapshots) is what `since` takes. */
  private accountSink(): { wait(m: readonly AccountMessage[]): Promise<boolean>; live(m: readonly AccountMessage[]): void } {
    const text = (m: AccountMessage): string => `{"event":"${m.event}"${m.dealId === undefined ? '' : `,"event_id":"${m.dealId}"`},"data":${m.data}}`;
    return {
      wait: async (messages) => {
        for (const m of messages) if (!(await this.sendWait(text(m)))) return false;
        return true;
      },
      live: (messages) => {
        const conn = this.conn;
        if (!conn) return;
        // One delivery: all its frames in one socket write, as ticks' (onTicks).
        conn.cork(() => {
          for (const m of messages) {
            let bytes = m.source && messageOfAccount.get(m.source);
            if (!bytes) {
              bytes = Buffer.from(text(m), 'utf8');
              if (m.source) messageOfAccount.set(m.source, bytes);
            }
            this.sendEvent(bytes, 1, true);
          }
        });
      },
    };
  }

  /**
   * Each symbol's missed ticks from history, then the live ticks that waited (see the top of this
   * file). Runs in the message's turn, so no other message changes the subscriptions meanwhile.
   */
  private async catchUp(latest: ReadonlyMap<string, TickCursor>): Promise<void> {
    try {
      for (const [symbol, live] of latest) {
        const sink = {
          gap: (gap: CatchUpGap) => this.sendWait(JSON.stringify({ event: 'gap', data: gap })),
          ticks: (ticks: readonly FeedTick[]) => this.sendHistory(symbol, ticks),
        };
        const from = this.sent.get(symbol);
        if (from && !(await catchUpSymbol(this.terminal, symbol, from, live, this.options.catchup, sink))) return;
        await this.goLive([symbol]);
      }
    } finally {
      // Stopped or failed (the error event follows): what is left goes live all the same.
      await this.goLive([...latest.keys()]);
    }
  }

  /** Ends the catch-up of `symbols`: the live ticks that waited follow (after a gap if some were dropped). */
  private async goLive(symbols: readonly string[]): Promise<void> {
    // The gap first, while live ticks still wait: from the collecting on, nothing is awaited, so no
    // live delivery can overtake the ticks that waited.
    if (this.pendingDropped > 0 && !this.done && !this.closing) {
      const dropped = this.pendingDropped;
      this.pendingDropped = 0;
      await this.sendWait(JSON.stringify({ event: 'gap', data: { reason: 'slow-consumer', dropped } }));
    }
    const pending: FeedTick[] = [];
    for (const s of symbols) {
      pending.push(...(this.catching.get(s) ?? []));
      this.catching.delete(s);
    }
    // (Several symbols' waiting ticks: each symbol's in time order, which is all the filter needs.)
    if (pending.length > 0 && !this.done && !this.closing) this.onTicks(pending);
  }

  /** A chunk of history: the ticks after the symbol's last position sent, in the connection's format. */
  private async sendHistory(symbol: string, ticks: readonly FeedTick[]): Promise<boolean> {
    const fresh: FeedTick[] = [];
    for (const t of ticks) {
      const last = this.sent.get(symbol);
      const at = { time_msc: t.tick.time_msc, seq: t.seq };
      if (!last) return false; // unsubscribed (the connection is closing)
      if (!isAfter(at, last)) continue;
      this.sent.set(symbol, at);
      if (this.tickFormat === 'arrow') fresh.push(t);
      else if (!(await this.sendWait(tickMessage(symbol, t.tick, t.seq), true))) return false;
    }
    return fresh.length === 0 || this.sendWait(liveTicksIpc(fresh), false);
  }

  // --- events to the client --------------------------------------------------------------------

  /** One delivery: all its frames leave in one socket write (the connection is corked meanwhile). */
  private onTicks(ticks: readonly FeedTick[]): void {
    const conn = this.conn;
    if (!conn || this.done || this.closing) return;
    const arrow = this.tickFormat === 'arrow';
    const fresh: FeedTick[] = [];
    let skipped = false;
    conn.cork(() => {
      for (const t of ticks) {
        if (this.replaying.has(t.symbol)) {
          // Replaying: history has these (or will); only where the feed is matters.
          this.replaying.set(t.symbol, { time_msc: t.tick.time_msc, seq: t.seq });
          skipped = true;
          continue;
        }
        const waiting = this.catching.get(t.symbol);
        if (waiting) {
          // Caught up from history first; these follow it.
          if (waiting.length < this.options.catchup.pendingTicks) waiting.push(t);
          else this.pendingDropped++;
          skipped = true;
          continue;
        }
        const last = this.sent.get(t.symbol);
        const at = { time_msc: t.tick.time_msc, seq: t.seq };
        // Not (or no longer) subscribed, or already sent through the subscription this one replaced.
        if (!last || !isAfter(at, last)) {
          skipped = true;
          continue;
        }
        this.sent.set(t.symbol, at);
        if (arrow) fresh.push(t);
        else this.sendEvent(tickMessage(t.symbol, t.tick, t.seq), 1, true);
      }
      // Arrow: the whole delivery (one poll's ticks of this client's symbols) as one binary frame,
      // encoded once for every client that sends the whole delivery.
      if (fresh.length === 0) return;
      if (skipped) {
        this.sendEvent(liveTicksIpc(fresh), fresh.length);
        return;
      }
      let frame = arrowOfDelivery.get(ticks);
      if (!frame) arrowOfDelivery.set(ticks, (frame = liveTicksIpc(fresh)));
      this.sendEvent(frame, fresh.length);
    });
  }

  private onBook(update: BookUpdate): void {
    if (!this.books.has(update.symbol)) return;
    let bytes = messageOfBook.get(update);
    if (!bytes) messageOfBook.set(update, (bytes = Buffer.from(`{"event":"book","data":${JSON.stringify(update)}}`, 'utf8')));
    this.sendEvent(bytes, 1, true);
  }

  /**
   * A live event: dropped rather than buffered past the queue bound (see the top of this file).
   * `count`: the ticks a frame holds (a gap counts ticks, whatever their format); `text`: the bytes
   * are a JSON text frame's UTF-8.
   */
  private sendEvent(payload: string | Uint8Array, count = 1, text = typeof payload === 'string'): void {
    const conn = this.conn;
    if (!conn || this.done || this.closing) return;
    const buffered = conn.bufferedAmount();
    // (Event JSON is ASCII but for exotic symbol names: its length is its size, near enough.)
    const bytes = typeof payload === 'string' ? payload.length : payload.byteLength;
    // One event always fits an empty buffer, however large: else a big one would stall the stream.
    if (this.dropped > 0 || (buffered > 0 && buffered + bytes > this.options.queueBytes)) {
      const first = this.dropped === 0;
      this.dropped += count;
      if (first) {
        this.stallTimer = this.timer(this.options.sendTimeoutMs, () => this.kill('send-timeout'));
      }
      return;
    }
    this.transmit(conn, payload, text);
    const now = buffered + bytes;
    if (now > this.peakQueuedBytes) this.peakQueuedBytes = now;
  }

  /**
   * A catch-up event: never dropped; waits while the buffer holds the queue bound (until it has
   * drained), and a client that takes nothing for the send timeout is disconnected. False once the
   * connection is going.
   */
  private async sendWait(payload: string | Uint8Array, text = typeof payload === 'string'): Promise<boolean> {
    const bytes = typeof payload === 'string' ? payload.length : payload.byteLength;
    for (;;) {
      const conn = this.conn;
      if (!conn || this.done || this.closing) return false;
      const buffered = conn.bufferedAmount();
      if (buffered === 0 || buffered + bytes <= this.options.queueBytes) {
        this.transmit(conn, payload, text);
        if (buffered + bytes > this.peakQueuedBytes) this.peakQueuedBytes = buffered + bytes;
        return true;
      }
      const stall = this.timer(this.options.sendTimeoutMs, () => this.kill('send-timeout'));
      await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
      this.clearTimer(stall);
    }
  }

  /**
   * Every message to the client leaves here: a JSON text message gets the connection's next `seq`
   * as its last member (1, 2, 3…; see the top of this file). Arrow binary frames carry none.
   */
  private transmit(conn: WebSocketConnection | undefined, payload: string | Uint8Array, text = typeof payload === 'string'): void {
    if (!conn) return;
    if (text) {
      const stamped = stampMessage(payload, this.seq + 1);
      if (stamped !== payload) this.seq++;
      payload = stamped;
    }
    conn.send(payload, text);
  }

  private onDrain(): void {
    for (const wake of this.drainWaiters.splice(0)) wake();
    if (this.dropped === 0 || this.done || !this.conn || this.conn.bufferedAmount() > 0) return;
    const dropped = this.dropped;
    this.dropped = 0;
    this.clearTimer(this.stallTimer);
    this.transmit(this.conn, JSON.stringify({ event: 'gap', data: { reason: 'slow-consumer', dropped } }));
  }

  /** A reply to the client's own message: never dropped, but not sent into a buffer nobody reads. */
  private reply(body: Record<string, unknown>, id: MessageId): void {
    const conn = this.conn;
    if (!conn || this.done) return;
    if (conn.bufferedAmount() > 2 * this.options.queueBytes) {
      this.kill('send-timeout');
      return;
    }
    this.transmit(conn, JSON.stringify(id === undefined ? body : { ...body, id }));
  }

  private problemOf(kind: ProblemError['kind'], detail: string): Problem {
    return problem(kind, detail, this.options.instance);
  }

  /** An error event for a message that failed; repeated bad messages close the connection. */
  private fail(e: unknown): void {
    if (this.done) return;
    const known = toProblem(e, undefined);
    if (!known) this.options.onUnexpectedError(e);
    const p = known ?? new ProblemError('internal', 'an unexpected error occurred');
    this.reply({ event: 'error', problem: this.problemOf(p.kind, p.detail) }, e instanceof MessageProblem ? e.id : undefined);
    if (p.kind === 'validation' || p.kind === 'symbolNotFound') {
      if (++this.badMessages > MAX_BAD_MESSAGES) this.close(POLICY_VIOLATION, 'too many bad messages', 'policy');
    }
  }

  /** Not authenticated: says why (a 401 problem), then closes. */
  private refuse(id: MessageId, detail: string): void {
    this.reply({ event: 'error', problem: this.problemOf('unauthorized', detail) }, id);
    this.close(POLICY_VIOLATION, 'unauthorized', 'unauthorized');
  }

  // --- the end -----------------------------------------------------------------------------------

  /** The closing handshake; a client that does not answer it is dropped after CLOSE_WAIT_MS. */
  private close(code: number, reason: string, why: WsCloseReason): void {
    if (this.done || this.closing) return;
    this.closing = why;
    this.release();
    if (!this.conn) {
      this.finish(why);
      return;
    }
    this.conn.end(code, reason);
    // (uWS reports the close at once, node once the client answered.)
    if (!this.done) this.timer(CLOSE_WAIT_MS, () => this.kill(why));
  }

  /** Drops the connection without a closing handshake (a client that reads nothing would never see one). */
  private kill(why: WsCloseReason): void {
    if (this.done) return;
    this.closing ??= why;
    this.conn?.terminate();
    this.finish(this.closing);
  }

  /** Leaves the feeds. */
  private release(): void {
    this.barSub?.bars.close();
    this.barSub = undefined;
    this.tickSub?.close();
    this.tickSub = undefined;
    this.sent.clear();
    this.catching.clear();
    this.replaying.clear();
    this.tickSymbols = [];
    for (const close of this.books.values()) close();
    this.books.clear();
    this.account?.close();
    this.account = undefined;
  }

  private finish(reason: WsCloseReason): void {
    if (this.done) return;
    this.done = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.release();
    for (const wake of this.drainWaiters.splice(0)) wake();
    this.resolveClosed(reason);
  }

  private timer(ms: number, fn: () => void): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
    return t;
  }

  private clearTimer(t: NodeJS.Timeout | undefined): void {
    if (!t) return;
    clearTimeout(t);
    this.timers.delete(t);
  }
}
