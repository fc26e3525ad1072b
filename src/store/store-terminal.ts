// A Terminal that answers copy_ticks_range from a local store (TRADEAPI_STORE) for the part of the
// range the store covers, and from the terminal for the rest, as one series in time order. It sits
// above the time-zone conversion (it speaks UTC, as the store does), so routes and encoders see a
// series like any other and every format comes out as it would from the terminal alone.
//
// Split: the range is cut at UTC day boundaries. A day the manifest records as complete comes from
// its file (nothing, when the terminal had no ticks that day); a partial day (synced before it
// ended) from its file up to `through` and from the terminal after; any other day from the
// terminal. Ticks are keyed by their millisecond, so [a, b] ∪ [b + 1 ms, c] is exactly [a, c]:
// the answer is the terminal's wherever both hold the day. Other calls, and ticks asked for with
// COPY_TICKS_INFO or _TRADE, go to the terminal as they are.
//
// The series says where its rows come from (`source`): the dispatcher sends it as the
// Tradeapi-Source header, e.g. "store=2024-01-08T00:00:00.000Z/2024-01-09T23:59:59.999Z,
// terminal=2024-01-10T00:00:00.000Z/2024-01-10T12:00:00.000Z".
import { stat } from 'node:fs/promises';
import path from 'node:path';

import type { Series, TickChunk } from '../terminal/series.js';
import type { SeriesOptions, Terminal } from '../terminal/terminal.js';
import { DAY_MS, dayKey, dayStart, MANIFEST_FILE, partitionFile } from './layout.js';
import { readManifest, type Manifest } from './manifest.js';
import { readTicks } from './reader.js';

const COPY_TICKS_ALL = -1;
const DEFAULT_CHUNK_ROWS = 65_536;

export interface Segment {
  source: 'store' | 'terminal';
  fromMs: number;
  toMs: number;
  /** store: the day file. */
  file?: string;
}

/** The segments of [fromMs, toMs] of `symbol`'s ticks, in order, adjacent ones of a source merged. */
export function tickSegments(root: string, manifest: Manifest | undefined, symbol: string, fromMs: number, toMs: number): Segment[] {
  const days = manifest?.symbols[symbol]?.ticks ?? {};
  const out: Segment[] = [];
  const push = (s: Segment): void => {
    if (s.fromMs > s.toMs) return;
    const prev = out[out.length - 1];
    // Store segments stay one per day (each has its file); terminal ones merge.
    if (prev && prev.source === 'terminal' && s.source === 'terminal' && prev.toMs + 1 === s.fromMs) prev.toMs = s.toMs;
    else out.push(s);
  };
  for (let d = dayStart(fromMs); d <= toMs; d += DAY_MS) {
    const a = Math.max(d, fromMs);
    const b = Math.min(d + DAY_MS - 1, toMs);
    const key = dayKey(d);
    const e = days[key];
    const file = partitionFile(root, 'ticks', symbol, key);
    if (e && !e.unavailable && e.complete) {
      push({ source: 'store', fromMs: a, toMs: b, file });
    } else if (e && !e.unavailable && e.through !== undefined) {
      const through = Date.parse(e.through);
      push({ source: 'store', fromMs: a, toMs: Math.min(b, through), file });
      push({ source: 'terminal', fromMs: Math.max(a, through + 1), toMs: b });
    } else {
      push({ source: 'terminal', fromMs: a, toMs: b });
    }
  }
  return out;
}

/** The Tradeapi-Source header's value: store and terminal intervals in order (adjacent store days merged). */
export function describeSegments(segments: readonly Segment[]): string {
  const parts: { source: string; fromMs: number; toMs: number }[] = [];
  for (const s of segments) {
    const prev = parts[parts.length - 1];
    if (prev && prev.source === s.source && prev.toMs + 1 === s.fromMs) prev.toMs = s.toMs;
    else parts.push({ source: s.source, fromMs: s.fromMs, toMs: s.toMs });
  }
  return parts.map((p) => `${p.source}=${new Date(p.fromMs).toISOString()}/${new Date(p.toMs).toISOString()}`).join(', ');
}

/** One series over the segments: store days read from their files, terminal parts asked for in turn. */
class MixedTickSeries implements Series<TickChunk> {
  readonly source: string;
  private index = 0;
  private current: { next(): Promise<TickChunk | null>; close(): void } | undefined;
  private chunkRows = DEFAULT_CHUNK_ROWS;
  private ahead = false;
  private closed = false;

  constructor(
    private readonly segments: readonly Segment[],
    private readonly openTerminal: (s: Segment) => Promise<Series<TickChunk>>,
    first: Series<TickChunk> | undefined,
  ) {
    this.source = describeSegments(segments);
    if (first) this.current = first;
    else this.current = this.openStore(segments[0]!);
    this.index = 1;
  }

  private openStore(s: Segment): { next(): Promise<TickChunk | null>; close(): void } {
    const gen = readTicks(s.file as string, s.fromMs, s.toMs, () => this.chunkRows);
    return {
      next: async () => {
        const r = await gen.next();
        return r.done ? null : r.value;
      },
      close: () => void gen.return(undefined),
    };
  }

  async next(): Promise<TickChunk | null> {
    for (;;) {
      if (this.closed || !this.current) return null;
      const chunk = await this.current.next();
      if (chunk !== null) return chunk;
      this.current.close();
      this.current = undefined;
      const s = this.segments[this.index++];
      if (!s) return null;
      if (s.source === 'store') this.current = this.openStore(s);
      else {
        const series = await this.openTerminal(s);
        series.setChunkRows?.(this.chunkRows);
        series.readAhead?.(this.ahead);
        this.current = series;
      }
    }
  }

  close(): void {
    this.closed = true;
    this.current?.close();
    this.current = undefined;
  }

  readAhead(enabled: boolean): void {
    this.ahead = enabled;
    const c = this.current as Partial<Series<TickChunk>> | undefined;
    c?.readAhead?.(enabled);
  }

  setChunkRows(rows: number): void {
    this.chunkRows = rows;
    const c = this.current as Partial<Series<TickChunk>> | undefined;
    c?.setChunkRows?.(rows);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<TickChunk> {
    try {
      for (let c = await this.next(); c !== null; c = await this.next()) yield c;
    } finally {
      this.close();
    }
  }
}

/** The manifest, read again only when the file changed (a sync beside the server replaces it). */
class ManifestCache {
  private cached: { mtimeMs: number; size: number; manifest: Manifest } | undefined;

  constructor(private readonly root: string) {}

  async get(): Promise<Manifest | undefined> {
    let st;
    try {
      st = await stat(path.join(this.root, MANIFEST_FILE));
    } catch {
      return undefined; // no store yet: everything from the terminal
    }
    const c = this.cached;
    if (c && c.mtimeMs === st.mtimeMs && c.size === st.size) return c.manifest;
    const manifest = await readManifest(this.root);
    if (manifest) this.cached = { mtimeMs: st.mtimeMs, size: st.size, manifest };
    return manifest;
  }
}

export interface StoreOptions {
  /** The store directory (TRADEAPI_STORE). */
  root: string;
  /** The zone the gateway converts from (TRADEAPI_SERVER_TZ's name, or 'UTC'): a store of another zone is not used. */
  zone: string;
  /** Told once when the store is not used (another trade server or zone). */
  onMismatch?: (why: string) => void;
}

/** `terminal` (speaking UTC) with copy_ticks_range answered from the store where it covers the range. */
export function withStore(terminal: Terminal, options: StoreOptions): Terminal {
  const manifests = new ManifestCache(options.root);
  // The store must be of this terminal's trade server and zone; asked once, on first use.
  let identity: Promise<string | undefined> | undefined;
  const usable = async (): Promise<Manifest | undefined> => {
    const manifest = await manifests.get();
    if (!manifest) return undefined;
    identity ??= terminal.accountInfo().then(
      (a) => {
        const why =
          a.server !== manifest.server ? `the store ${options.root} holds trade server ${manifest.server}, the terminal is on ${a.server}`
          : manifest.zone !== options.zone ? `the store ${options.root} was filled in zone ${manifest.zone}, TRADEAPI_SERVER_TZ says ${options.zone}`
          : undefined;
        if (why !== undefined) options.onMismatch?.(`${why}: it is not used`);
        return why;
      },
      () => {
        identity = undefined; // ask again next time
        return 'terminal unavailable';
      },
    );
    return (await identity) === undefined ? manifest : undefined;
  };
  const copyTicksRange = async (symbol: string, fromMs: number, toMs: number, flags: number, opts?: SeriesOptions): Promise<Series<TickChunk>> => {
    if (flags !== COPY_TICKS_ALL || fromMs > toMs) return terminal.copyTicksRange(symbol, fromMs, toMs, flags, opts);
    const segments = tickSegments(options.root, await usable(), symbol, fromMs, toMs);
    if (segments.every((s) => s.source === 'terminal')) {
      const series = await terminal.copyTicksRange(symbol, fromMs, toMs, flags, opts);
      return Object.assign(series, { source: describeSegments(segments) });
    }
    const open = (s: Segment): Promise<Series<TickChunk>> => terminal.copyTicksRange(symbol, s.fromMs, s.toMs, flags, opts);
    // The first segment opened now, so that a failing terminal (an unknown symbol) fails the request before any byte.
    const first = segments[0]!.source === 'terminal' ? await open(segments[0]!) : undefined;
    return new MixedTickSeries(segments, open, first);
  };
  return new Proxy(terminal, {
    get(target, prop, receiver) {
      if (prop === 'copyTicksRange') return copyTicksRange;
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

