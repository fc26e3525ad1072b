// The history part of a replay (`start=` on GET /events, `start` in a /ws subscribe): every listed
// symbol's ticks from a position on, read from the terminal (the store first when TRADEAPI_STORE is
// set: the terminal handed here is the serving decorator) a page at a time, merged in time order
// (ties in the order the symbols were listed), each tick with the (time_msc, seq) position the live
// feed gives it (tick-feed.ts). Memory stays one page per symbol however many days are replayed.
//
// A page is read with copy_ticks_from AT the symbol's last position's millisecond, asking for the
// ticks of that millisecond already read on top, as the live feed polls: so a millisecond split
// between two pages is neither lost nor read twice, and `seq` counts from the millisecond's first
// tick exactly as the feed's does. A page shorter than asked means "no more history, as of that
// read"; `end` (ms, inclusive) cuts the history there for good.
//
// Each tick also carries its JSON (`json`: the fields of a /ticks/range row, without the opening
// brace), made for the whole page by the addon's series encoder on the thread pool, byte for byte
// a /ticks/range JSON row: number formatting is most of a replay's cost on the JS thread.
import { loadNativeJson, type NativeJsonAddon } from '../encode/json-native.js';
import { rowsJsonOf } from '../encode/json-rows.js';
import { constants } from '../terminal/constants.js';
import type { TickChunk } from '../terminal/series.js';
import type { Terminal } from '../terminal/terminal.js';
import type { FeedTick, TickCursor } from './tick-feed.js';
import type { Tick } from '../terminal/records.js';

/**
 * A history tick: its time and seq, its row's JSON after the opening brace (`"time":…}`, bytes
 * [jsonStart, jsonEnd) of the page's encoded rows: no string per tick), and the Tick record made
 * only when asked (an Arrow frame needs it; SSE and JSON frames do not). A replay moves up to a
 * million ticks a second; a record and a string per tick were most of its garbage.
 */
export class ReplayTick implements FeedTick {
  constructor(
    readonly symbol: string,
    readonly seq: number,
    readonly time_msc: number,
    readonly rows: Buffer,
    readonly jsonStart: number,
    readonly jsonEnd: number,
    private readonly chunk: TickChunk,
    private readonly row: number,
  ) {}

  /** The row's JSON after its opening brace, as a string. */
  get json(): string {
    return this.rows.toString('latin1', this.jsonStart, this.jsonEnd);
  }

  get tick(): Tick {
    const c = this.chunk;
    const i = this.row;
    return {
      time: Number(c.time[i]),
      bid: c.bid[i] as number,
      ask: c.ask[i] as number,
      last: c.last[i] as number,
      volume: Number(c.volume[i]),
      time_msc: this.time_msc,
      flags: c.flags[i] as number,
      volume_real: c.volume_real[i] as number,
    };
  }
}

const jsInRows = rowsJsonOf('ticks');

/** The rows of `chunk` as JSON (`[{row},{row}…`), with where each row's text after its brace ends: the addon's encoder, else the same text made here. */
async function rowsJson(native: NativeJsonAddon | null, chunk: TickChunk): Promise<{ bytes: Buffer; ends: Uint32Array }> {
  const raw = native ? await native.jsonRows('ticks', chunk, 0, chunk.rows, true) : jsInRows(chunk, 0, chunk.rows, true);
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  // Rows are flat objects: each '}' closes one; row i's text runs from 2 bytes after the previous '}'.
  const ends = new Uint32Array(chunk.rows);
  let from = 2;
  for (let i = 0; i < chunk.rows; i++) {
    const end = bytes.indexOf(0x7d, from) + 1;
    ends[i] = end;
    from = end + 2;
  }
  return { bytes, ends };
}

/** Ticks per page read from history, shared among the symbols (each reads at least MIN_PAGE_ROWS). */
export const REPLAY_PAGE_ROWS = 16_384;
const MIN_PAGE_ROWS = 256;

/** One page as read: its new ticks, whether history ran out (short) or past `end`. */
interface Page {
  readonly ticks: ReplayTick[];
  readonly exhausted: boolean;
  readonly ended: boolean;
  /** When its read was issued, on the merge's read clock. */
  readonly issued: number;
}

/** Orders the reads of a merge's symbols: each read takes the next stamp as it is issued. */
interface ReadClock {
  n: number;
}

class SymbolHistory {
  private page: ReplayTick[] = [];
  private next = 0;
  /**
   * The next page, read while this one is sent (the terminal's worker, or the bridge's round trip,
   * works meanwhile): at most two pages per symbol are held.
   */
  private ahead: Promise<Page> | undefined;
  /** The last read came back short: nothing more as of then (refresh() reads again). */
  exhausted = false;
  /** Past `end`: nothing more, ever. */
  ended = false;
  /** The read-clock stamp of the read that brought the current page, and of the latest read issued. */
  pageIssued = 0;
  lastIssued = 0;

  constructor(
    private readonly terminal: Terminal,
    readonly symbol: string,
    /** The last position read (not necessarily sent yet). */
    public at: TickCursor,
    private readonly endMsc: number | undefined,
    private readonly pageRows: number,
    /** Told as each read of this symbol's history is issued. */
    private readonly onRead: () => void,
    private readonly clock: ReadClock,
  ) {}

  get head(): ReplayTick | undefined {
    return this.page[this.next];
  }

  take(): ReplayTick {
    return this.page[this.next++] as ReplayTick;
  }

  /** Whether a read may still bring ticks. */
  get open(): boolean {
    return !this.exhausted && !this.ended;
  }

  /** Takes the next page (read ahead, or read now) and starts reading the one after; false when it held no new tick. */
  async load(): Promise<boolean> {
    const page = await (this.ahead ?? this.read(this.at));
    this.ahead = undefined;
    this.exhausted = page.exhausted;
    this.ended = page.ended;
    this.pageIssued = page.issued;
    const last = page.ticks.at(-1);
    if (last) this.at = { time_msc: last.time_msc, seq: last.seq };
    this.page = page.ticks;
    this.next = 0;
    if (this.open) {
      this.ahead = this.read(this.at);
      this.ahead.catch(() => undefined); // surfaced by the next load(); never unhandled if none comes
    }
    return page.ticks.length > 0;
  }

  /** The page after `at`. */
  private async read(at: TickCursor): Promise<Page> {
    const issued = (this.lastIssued = ++this.clock.n);
    this.onRead();
    const all = constants('COPY_TICKS').get('COPY_TICKS_ALL') ?? -1;
    const want = at.seq + 1 + this.pageRows;
    const series = await this.terminal.copyTicksFrom(this.symbol, at.time_msc, want, all, { chunkRows: Math.min(want, 65_536) });
    const ticks: ReplayTick[] = [];
    const native = await loadNativeJson();
    let rows = 0;
    let ended = false;
    let ms = at.time_msc;
    let seq = -1; // index in `ms` of the row at hand
    try {
      for (let chunk = await series.next(); chunk && !ended; chunk = await series.next()) {
        const { bytes, ends } = await rowsJson(native, chunk);
        const times = chunk.time_msc;
        for (let i = 0; i < chunk.rows; i++) {
          const time = Number(times[i]);
          rows++;
          seq = time === ms ? seq + 1 : 0;
          ms = time;
          if (time === at.time_msc && seq <= at.seq) continue; // read before
          if (this.endMsc !== undefined && time > this.endMsc) {
            ended = true;
            break;
          }
          ticks.push(new ReplayTick(this.symbol, seq, time, bytes, i === 0 ? 2 : (ends[i - 1] as number) + 2, ends[i] as number, chunk, i));
        }
      }
    } finally {
      series.close();
    }
    return { ticks, ended, exhausted: !ended && rows < want, issued };
  }
}

/** Several symbols' histories merged in time order, a batch at a time. */
export class MergedHistory {
  private readonly readers: SymbolHistory[];

  /** `onRead(i)` is told as each read of symbol i's history is issued. */
  constructor(
    terminal: Terminal,
    symbols: readonly string[],
    from: readonly TickCursor[],
    endMsc: number | undefined,
    onRead: (i: number) => void,
    /** Ticks per page and symbol (tests make pages small to cross their edges). */
    pageRows = Math.max(MIN_PAGE_ROWS, Math.floor(REPLAY_PAGE_ROWS / Math.max(1, symbols.length))),
  ) {
    const clock: ReadClock = { n: 0 };
    this.readers = symbols.map((s, i) => new SymbolHistory(terminal, s, from[i] as TickCursor, endMsc, pageRows, () => onRead(i), clock));
  }

  /**
   * Symbol i's last read came back short, everything read of it has been taken, and `sent` is
   * where it ends: it has nothing more as of that read.
   */
  quiet(i: number, sent: TickCursor): boolean {
    const r = this.readers[i] as SymbolHistory;
    return !r.open && r.head === undefined && r.at.time_msc === sent.time_msc && r.at.seq === sent.seq;
  }

  /** Read again the symbols whose history had run out (the terminal has gone on meanwhile). */
  refresh(): void {
    for (const r of this.readers) if (!r.ended) r.exhausted = false;
  }

  /** Up to `max` ticks in time order (ties in the symbols' order); [] once every symbol's history has run out as of its last read. */
  async next(max: number): Promise<ReplayTick[]> {
    const out: ReplayTick[] = [];
    while (out.length < max) {
      // Every symbol that may still have ticks shows its head before one is picked.
      for (const r of this.readers) {
        while (r.head === undefined && r.open) await r.load();
      }
      let best: SymbolHistory | undefined;
      let bound = Infinity; // the earliest head of the others: best's ticks before it go as one run
      for (const r of this.readers) {
        const head = r.head;
        if (!head) continue;
        if (!best) best = r;
        else if (head.time_msc < (best.head as ReplayTick).time_msc) {
          bound = (best.head as ReplayTick).time_msc;
          best = r;
        } else bound = Math.min(bound, head.time_msc);
      }
      if (!best) break;
      // At the live edge: a symbol whose last read came back short before best's page was read may
      // have had ticks since, earlier than some of best's (the terminal's clock went on between the
      // two reads). Read it again first: once its read is the later one, best's page holds nothing
      // past that read's now, and nothing of it is missing up to then. (Seen as a merged history
      // going back in time at the seam on a loaded machine.) Far from live no symbol runs short.
      const pageRead = best.pageIssued;
      const stale = this.readers.filter((r) => r !== best && r.exhausted && !r.ended && r.head === undefined && r.lastIssued < pageRead);
      if (stale.length > 0) {
        for (const r of stale) r.exhausted = false;
        continue;
      }
      // A tie with a later-listed symbol goes to best (listed first); with an earlier one, handled
      // by the strict comparison above, which made that one best.
      const tieOk = this.readers.indexOf(best);
      do {
        out.push(best.take());
      } while (out.length < max && best.head !== undefined && (best.head.time_msc < bound || (best.head.time_msc === bound && this.listedBeforeAllAt(tieOk, bound))));
    }
    return out;
  }

  /** Reader i comes before every other reader whose head is at `ms`. */
  private listedBeforeAllAt(i: number, ms: number): boolean {
    for (let j = 0; j < i; j++) if (this.readers[j]?.head?.time_msc === ms) return false;
    return true;
  }
}
