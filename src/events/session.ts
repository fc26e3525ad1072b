// One client's event stream: its symbols' live ticks (and depth), the catch-up from history after
// a reconnect, and the per-symbol positions its event ids carry (event-id.ts).
//
// Catch-up: with a Last-Event-ID, the live feed is joined first (its ticks wait in `pending`), then
// each symbol's ticks after the client's position are read from the terminal's history
// (copy_ticks_from), at most `catchupMs` back from the symbol's latest tick and `catchupTicks` per
// symbol, and sent without dropping (the sender waits for the client) and without holding more
// than one chunk of history. Live ticks then follow.
// Every tick passes through one per-symbol filter, "after the last position sent", so the seam
// between history and live has neither a duplicate nor a hole. What the window or the cap leaves
// out is announced by a `gap` event naming the symbol and the span (a client can fetch it from
// /ticks/range).
//
// Fan-out: a live delivery (one poll's ticks of the stream's symbols) is encoded ONCE into one
// buffer for every stream that starts it from the same position (the same event id) - the usual
// case, since clients on the same symbols advance in step - and each stream queues that shared
// buffer in one write (copied with its own `seq` stamps, sse.ts). A stream in another position (still converging after a resume) gets its
// own encoding of the same delivery.
import type { Tick } from '../terminal/records.js';
import type { BookFeed, BookUpdate } from './book-feed.js';
import { type FeedTick, type TickCursor, type TickFeed, type TickSubscription } from './tick-feed.js';
import type { Terminal } from '../terminal/terminal.js';
import { catchUpSymbol, type CatchUpGap } from './catch-up.js';
import { formatEventId, isAfter } from './event-id.js';
import { runReplay, startCursor, type ReplayPlan } from './replay.js';
import { frameText, type CloseReason, type SseStream } from './sse.js';
import { LiveBars, type LiveBar, type LiveBarsRequest } from './live-bars.js';
import type { DealCursor } from './account-diff.js';
import type { AccountFeed } from './account-feed.js';
import { AccountStream, type AccountMessage } from './account-stream.js';
import { joinEventId } from './deal-id.js';
import { isAccountKind, type AccountKind, type EventKind } from './event-kinds.js';

export type { EventKind } from './event-kinds.js';

export interface SessionLimits {
  catchupMs: number;
  catchupTicks: number;
  /** Live ticks held while the catch-up is sent, at most; beyond, they are dropped and a gap says so. */
  pendingTicks: number;
}

export interface SessionRequest {
  readonly symbols: readonly string[];
  readonly kinds: ReadonlySet<EventKind>;
  /** From Last-Event-ID, one per symbol (ticks only). */
  readonly resumeFrom?: readonly TickCursor[] | undefined;
  /** `start=`: history from there (or from resumeFrom, inside it), then live unless it has an end (replay.ts). */
  readonly replay?: ReplayPlan | undefined;
  /** `kinds=bar`: the live bars of a custom period (live-bars.ts). */
  readonly bars?: LiveBarsRequest | undefined;
  /** From Last-Event-ID's deal part (with kind deal): the deals after it are sent first, from history. */
  readonly dealsFrom?: DealCursor | undefined;
}

/** The most bytes of a replayed event but its row and symbol: `id: \nevent: tick\ndata: {"symbol":,` and the two line ends (36), and a one-symbol id. */
const EVENT_HEAD_BYTES = 80;
/** The most bytes each symbol adds to an id: `,<delta of up to 16 digits and a sign>-<seq of up to 9 digits>`. */
const ID_BYTES_PER_SYMBOL = 30;

/** Made once per tick however many clients send it (the feed hands every client the same Tick object). */
const jsonOfTick = new WeakMap<Tick, string>();

/** The JSON of a tick event: the symbol, then the fields and units of /symbols/{symbol}/tick. */
export function tickJson(symbol: string, tick: Tick): string {
  let json = jsonOfTick.get(tick);
  if (json === undefined) {
    json = tickJsonOnce(JSON.stringify(symbol), tick);
    jsonOfTick.set(tick, json);
  }
  return json;
}

/** A number as JSON.stringify writes it (a tick holds no NaN, but never write invalid JSON). */
const num = (x: number): string | number => (Number.isFinite(x) ? x : 'null');

/**
 * tickJson without the cache, written out rather than through JSON.stringify of an object (once per
 * tick however many clients, but every tick of every watched symbol). `symbolJson` is the symbol as
 * a JSON string. The fields are TickColumns', in order; test/events/replay.test.ts holds the text
 * equal to JSON.stringify's (and a replayed tick's data, from the series encoder, equal to it).
 */
export function tickJsonOnce(symbolJson: string, k: Tick): string {
  return `{"symbol":${symbolJson},"time":${num(k.time)},"bid":${num(k.bid)},"ask":${num(k.ask)},"last":${num(k.last)},"volume":${num(k.volume)},"time_msc":${num(k.time_msc)},"flags":${num(k.flags)},"volume_real":${num(k.volume_real)}}`;
}

/** A delivery encoded for streams starting at one position: the events, and where they leave the stream. */
interface EncodedDelivery {
  readonly bytes: Uint8Array;
  /** Where each event ends in `bytes`. */
  readonly ends: readonly number[];
  readonly sent: readonly TickCursor[];
  readonly id: string;
}

/** Per delivery (the feed hands every stream on the same symbols the same array), per starting event id. */
const encodedDeliveries = new WeakMap<readonly FeedTick[], Map<string, EncodedDelivery>>();

/**
 * A live delivery of account events, encoded once for every stream that sends the same messages
 * with the same ids (streams on the same kinds advance in step, as on ticks): under its first
 * event (the feed hands all streams the same objects), per the messages' events and ids.
 */
const encodedAccount = new WeakMap<object, Map<string, { bytes: Uint8Array; ends: readonly number[] }>>();
/** A number per account event (for the key above: a stream's messages may span deliveries after a catch-up). */
const accountSerials = new WeakMap<object, number>();
let nextAccountSerial = 0;
const serialOf = (source: object): number => {
  let n = accountSerials.get(source);
  if (n === undefined) accountSerials.set(source, (n = nextAccountSerial++));
  return n;
};

/** Made once per depth update however many streams send it (the feed hands all the same object). */
const encodedBooks = new WeakMap<BookUpdate, Uint8Array>();

/** Character offsets into `text` as UTF-8 byte offsets. */
function utf8Ends(text: string, ends: readonly number[]): number[] {
  let from = 0;
  let bytes = 0;
  return ends.map((end) => {
    bytes += Buffer.byteLength(text.slice(from, end), 'utf8');
    from = end;
    return bytes;
  });
}

export class EventSession {
  private sse: SseStream | undefined;
  /** Last position sent per symbol, in request order, and as an event id. */
  private sent: TickCursor[];
  private id: string;
  private readonly index = new Map<string, number>();
  /** Live ticks that arrived before the catch-up was sent (undefined: live). */
  private pending: FeedTick[] | undefined;
  private pendingDropped = 0;
  private closeBook: (() => void) | undefined;
  /** During a replay's history: the feed's latest position per symbol (its deliveries are not held); undefined: live. */
  private feedAt: Array<TickCursor | undefined> | undefined;
  /** kinds=bar: the fold, and the position of the last bar sent per symbol (the id's bar part, live-bars.ts). */
  private bars: LiveBars | undefined;
  private barsSent: number[] = [];

  private constructor(
    private readonly terminal: Terminal,
    private readonly request: SessionRequest,
    private readonly limits: SessionLimits,
    private ticks: TickSubscription | undefined,
    private account: AccountStream | undefined,
  ) {
    request.symbols.forEach((s, i) => this.index.set(s, i));
    const replay = request.replay;
    this.sent = request.symbols.map((s, i) => {
      const live = ticks?.cursors.get(s) as TickCursor;
      const resume = request.resumeFrom?.[i];
      if (replay) {
        // Resumed inside a replay: from the client's position, never before the start.
        const start = startCursor(replay);
        const from = resume && isAfter(resume, start) ? resume : start;
        return live && isAfter(from, live) ? live : from;
      }
      // A position past the symbol's latest tick names ticks that do not exist (an id from another
      // terminal, or made up): start from live, or the stream would stay silent until then.
      return resume && live && !isAfter(resume, live) ? resume : live;
    });
    this.id = formatEventId(this.sent);
    if (replay && ticks) this.feedAt = request.symbols.map((s) => ticks.cursors.get(s));
    else if (request.resumeFrom && ticks) this.pending = [];
  }

  /**
   * Joins the feeds. Rejects when a symbol's live position cannot be had (unknown symbol, terminal
   * unavailable): before any response byte, so the client gets a problem.
   */
  static async open(feeds: { ticks: TickFeed; books: BookFeed; account: AccountFeed }, terminal: Terminal, request: SessionRequest, limits: SessionLimits): Promise<EventSession> {
    let session: EventSession | undefined;
    const onTicks = (ticks: readonly FeedTick[]): void => session?.onLive(ticks);
    // Bars first: their history is folded before the stream starts, and tick events begin after it.
    const bars = request.bars ? await LiveBars.open(feeds.ticks, terminal, request.bars) : undefined;
    // A replay with an end never goes live: it needs no feed.
    const live = request.kinds.has('tick') && request.replay?.endMsc === undefined;
    const accountKinds = new Set([...request.kinds].filter((k): k is AccountKind => isAccountKind(k)));
    let account: AccountStream | undefined;
    try {
      account = accountKinds.size > 0 ? await AccountStream.open(feeds.account, accountKinds, request.dealsFrom, limits.pendingTicks) : undefined;
    } catch (e) {
      bars?.close();
      throw e;
    }
    let ticks: TickSubscription | undefined;
    try {
      ticks = live ? await feeds.ticks.subscribe(request.symbols, onTicks) : undefined;
    } catch (e) {
      bars?.close();
      account?.close();
      throw e;
    }
    session = new EventSession(terminal, request, limits, ticks, account);
    if (bars) {
      session.bars = bars;
      session.barsSent = bars.positions();
    }
    if (request.kinds.has('book')) {
      const s = session;
      s.closeBook = feeds.books.subscribe(request.symbols, (u) => s.onBook(u));
    }
    return session;
  }

  /** Streams until the client leaves or the stream is ended; frees the feeds in any case. */
  async run(sse: SseStream): Promise<CloseReason> {
    this.sse = sse;
    try {
      if (this.bars) await this.startBars(sse, this.bars);
      if (this.account && !(await this.account.run(this.terminal, this.accountSink(sse)))) return await sse.closed;
      if (this.request.replay) await this.replay(sse, this.request.replay);
      else if (this.pending) await this.catchUp(sse);
      return await sse.closed;
    } finally {
      this.close();
    }
  }

  close(): void {
    this.bars?.close();
    this.bars = undefined;
    this.ticks?.close();
    this.ticks = undefined;
    this.closeBook?.();
    this.closeBook = undefined;
    this.account?.close();
    this.account = undefined;
  }

  /** The event id now: the ticks' positions and, when deals are carried, the last deal sent (deal-id.ts). */
  /** The stream's event id: the market part (ticks, bars: eventId()) and the account's last deal. */
  private fullId(): string {
    return joinEventId(this.eventId(), this.account?.dealId);
  }

  private accountSink(sse: SseStream): { wait(m: readonly AccountMessage[]): Promise<boolean>; live(m: readonly AccountMessage[]): void } {
    const framed = (m: AccountMessage) => ({ event: m.event, data: m.data, id: m.dealId === undefined ? undefined : joinEventId(this.eventId(), m.dealId) });
    return {
      wait: async (messages) => {
        for (const m of messages) if (!(await sse.pushWait(framed(m)))) return false;
        return true;
      },
      live: (messages) => {
        // One buffer for the whole delivery, queued in one piece, as for ticks (one seq stamping, one write).
        // The key names exactly these frames: the market part of the ids, then each event and its deal id.
        const first = messages[0]?.source;
        let key = `${this.eventId()}|`;
        for (const m of messages) key += m.source ? `${serialOf(m.source)}:${m.dealId ?? ''},` : '?,';
        let byKey = first && encodedAccount.get(first);
        let encoded = byKey?.get(key);
        if (!encoded) {
          let text = '';
          const ends: number[] = [];
          for (const m of messages) {
            text += frameText(framed(m));
            ends.push(text.length); // (ASCII but for exotic text in a record: fixed below if not)
          }
          const bytes = Buffer.from(text, 'utf8');
          encoded = { bytes, ends: bytes.byteLength === text.length ? ends : utf8Ends(text, ends) };
          if (first && messages.every((m) => m.source)) {
            if (!byKey) encodedAccount.set(first, (byKey = new Map()));
            byKey.set(key, encoded);
          }
        }
        sse.pushEncoded(encoded.bytes, encoded.ends);
      },
    };
  }

  private onLive(ticks: readonly FeedTick[]): void {
    if (this.feedAt) {
      // Replaying: these will be read from history (or were); only where the feed is matters.
      for (const t of ticks) this.feedAt[this.index.get(t.symbol) as number] = { time_msc: t.tick.time_msc, seq: t.seq };
      return;
    }
    if (this.pending) {
      for (const t of ticks) {
        if (this.pending.length < this.limits.pendingTicks) this.pending.push(t);
        else this.pendingDropped++;
      }
      return;
    }
    if (!this.sse) return;
    let byStart = encodedDeliveries.get(ticks);
    if (!byStart) encodedDeliveries.set(ticks, (byStart = new Map()));
    let encoded = byStart.get(this.fullId());
    if (encoded) {
      this.sent = encoded.sent.slice();
      this.id = encoded.id;
    } else {
      const start = this.fullId();
      let text = '';
      const ends: number[] = [];
      for (const t of ticks) {
        const event = this.advance(t.symbol, t.tick, t.seq);
        if (!event) continue;
        text += frameText(event);
        ends.push(text.length); // (ASCII but for exotic symbol names: fixed below if not)
      }
      const bytes = Buffer.from(text, 'utf8');
      encoded = { bytes, ends: bytes.byteLength === text.length ? ends : utf8Ends(text, ends), sent: this.sent.slice(), id: this.id };
      byStart.set(start, encoded);
    }
    if (encoded.ends.length > 0) this.sse.pushEncoded(encoded.bytes, encoded.ends);
  }

  /** The event id: the ticks' positions, and with kinds=bar `~` and the position of the last bar sent per symbol. */
  private eventId(): string {
    if (!this.request.bars) return this.id;
    return `${this.request.kinds.has('tick') ? this.id : ''}~${this.barsSent.join(',')}`;
  }

  /** What a resume could not reach first, then the bars closed meanwhile and every later one, as `bar` events. */
  private async startBars(sse: SseStream, bars: LiveBars): Promise<void> {
    for (const gap of bars.gaps) await sse.pushWait({ event: 'gap', data: JSON.stringify(gap) });
    bars.attach((closed: readonly LiveBar[]) => {
      for (const bar of closed) {
        this.barsSent[bar.index] = bar.position;
        sse.push({ event: 'bar', id: this.fullId(), data: bar.json });
      }
    });
  }

  private onBook(update: BookUpdate): void {
    if (!this.sse) return;
    let bytes = encodedBooks.get(update);
    if (!bytes) encodedBooks.set(update, (bytes = Buffer.from(frameText({ event: 'book', data: JSON.stringify(update) }), 'utf8')));
    this.sse.pushEncoded(bytes, [bytes.byteLength]);
  }

  /** The event for a tick after the symbol's last position, or undefined for one already sent. */
  private advance(symbol: string, tick: Tick, seq: number): { event: string; id: string; data: string } | undefined {
    const i = this.index.get(symbol);
    if (i === undefined) return undefined;
    const at = { time_msc: tick.time_msc, seq };
    if (!isAfter(at, this.sent[i] as TickCursor)) return undefined;
    this.sent[i] = at;
    this.id = formatEventId(this.sent);
    return { event: 'tick', id: this.fullId(), data: tickJson(symbol, tick) };
  }

  /**
   * History from the start (or the resumed position) at the pace asked, then live with one
   * `replay-complete` marker at the seam; with an end, one `replay-end` marker and the stream ends.
   * Each history batch is encoded into one buffer and queued when the client has room.
   */
  private async replay(sse: SseStream, plan: ReplayPlan): Promise<void> {
    // Symbol names as JSON, in latin1 (a name outside it is escaped: JSON.stringify of \u escapes is ASCII).
    const symbolJson = new Map(this.request.symbols.map((s) => [s, JSON.stringify(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)]));
    const maxSymbolJson = Math.max(...[...symbolJson.values()].map((j) => j.length));
    let sentTicks = 0;
    const outcome = await runReplay(this.terminal, this.request.symbols, this.sent, plan, this.feedAt && (() => this.feedAt ?? []), {
      ticks: (batch) => {
        // Written straight into one buffer: the head of each event as text, its row's JSON as the
        // bytes the encoder made (replay-history.ts).
        const one = this.sent.length === 1;
        let size = 0;
        for (const t of batch) size += t.jsonEnd - t.jsonStart;
        const out = Buffer.allocUnsafe(size + batch.length * (EVENT_HEAD_BYTES + maxSymbolJson + (one ? 0 : this.sent.length * ID_BYTES_PER_SYMBOL)));
        let at = 0;
        const ends: number[] = [];
        for (const t of batch) {
          const i = this.index.get(t.symbol) as number;
          // One symbol: the id is the tick's own position (formatEventId's answer, without the cursor objects).
          if (one) this.id = `${t.time_msc}-${t.seq}`;
          else {
            this.sent[i] = { time_msc: t.time_msc, seq: t.seq };
            this.id = formatEventId(this.sent);
          }
          at += out.write(`id: ${this.id}\nevent: tick\ndata: {"symbol":${symbolJson.get(t.symbol) as string},`, at, 'latin1');
          at += t.rows.copy(out, at, t.jsonStart, t.jsonEnd);
          out[at++] = 0x0a;
          out[at++] = 0x0a;
          ends.push(at);
        }
        const last = batch.at(-1);
        if (one && last) this.sent[0] = { time_msc: last.time_msc, seq: last.seq };
        sentTicks += batch.length;
        return sse.pushWaitEncoded(out.subarray(0, at), ends);
      },
      closed: () => sse.isClosed,
      live: () => {
        // Synchronously: the next delivery passes the "after the last position sent" filter.
        this.feedAt = undefined;
        sse.pushControl({ event: 'replay-complete', data: JSON.stringify({ id: this.id, ticks: sentTicks }) });
      },
    });
    if (outcome === 'end') {
      sse.pushControl({ event: 'replay-end', data: JSON.stringify({ id: this.id, ticks: sentTicks }) });
      sse.end('ended');
    }
  }

  /**
   * Symbol by symbol, chunk by chunk (catch-up.ts), each event queued only when the client has room: a catch-up
   * holds one chunk of CATCHUP_CHUNK_ROWS ticks, however far back it reaches. (So the ticks of
   * different symbols come one symbol after the other here, each in its own time order.)
   */
  private async catchUp(sse: SseStream): Promise<void> {
    const live = this.ticks?.cursors;
    for (const [i, symbol] of this.request.symbols.entries()) {
      const sink = {
        gap: (gap: CatchUpGap) => sse.pushWait({ event: 'gap', data: JSON.stringify(gap) }),
        ticks: async (ticks: readonly FeedTick[]) => {
          for (const t of ticks) {
            const event = this.advance(symbol, t.tick, t.seq);
            if (event && !(await sse.pushWait(event))) return false;
          }
          return true;
        },
      };
      if (!(await catchUpSymbol(this.terminal, symbol, this.sent[i] as TickCursor, live?.get(symbol), this.limits, sink))) return;
    }
    const pending = this.pending ?? [];
    this.pending = undefined;
    if (this.pendingDropped > 0) {
      await sse.pushWait({ event: 'gap', data: JSON.stringify({ reason: 'slow-consumer', dropped: this.pendingDropped }) });
    }
    this.onLive(pending);
  }
}
