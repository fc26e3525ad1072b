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
import type { ServerZone } from '../config/server-zone.js';
import { isTerminalError } from '../terminal/errors.js';
import type { RateChunk, Series, TickChunk } from '../terminal/series.js';
import type { SeriesOptions, Terminal } from '../terminal/terminal.js';
import { aggregateBars, barCoverage, barSegments, clockOf, storedBars, Timeframe, type BarSegment, type Clock, type Interval } from './bars.js';
import { DAY_MS, dayKey, dayStart, monthStart, nextMonthStart } from './layout.js';
import type { Manifest } from './manifest.js';
import { isPartitionDamage, storeDamaged, storedPartition, type PartitionDamageError, type StoredPartition } from './partition.js';
import { StoreWriter, type WriteEvent } from './write-back.js';
import { emptyPart, generatorPart, MixedSeries, type Opener, type Part } from './mixed-series.js';
import { clipRates, decodeDay, readTicks } from './reader.js';
import { DamagedPartitions, ManifestCache, M1Months, monthPart } from './served-state.js';

const COPY_TICKS_ALL = -1;
/** Far enough ahead for "up to now" in a terminal range (a real terminal stops at its clock). */
const FAR_FUTURE_S = Date.UTC(2999, 0, 1) / 1000;

export interface Segment {
  source: 'store' | 'terminal';
  fromMs: number;
  toMs: number;
  /** store: the day's partition. */
  part?: StoredPartition;
}

/** The segments of [fromMs, toMs] of `symbol`'s ticks, in order, adjacent ones of a source merged. */
export function tickSegments(root: string, manifest: Manifest | undefined, symbol: string, fromMs: number, toMs: number, damaged?: DamagedPartitions): Segment[] {
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
    const part = e && storedPartition(root, 'ticks', symbol, key, e);
    if (part && damaged?.has(part)) {
      push({ source: 'terminal', fromMs: a, toMs: b });
    } else if (e && part && !e.unavailable && e.complete) {
      push({ source: 'store', fromMs: a, toMs: b, part });
    } else if (e && part && !e.unavailable && e.through !== undefined) {
      const through = Date.parse(e.through);
      push({ source: 'store', fromMs: a, toMs: Math.min(b, through), part });
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

export interface StoreOptions {
  /** The store directory (TRADEAPI_STORE). */
  root: string;
  /** The zone the gateway converts from (TRADEAPI_SERVER_TZ's name, or 'UTC'): a store of another zone is not used. */
  zone: string;
  /** TRADEAPI_SERVER_TZ itself: bars longer than M1 are built on the broker's server-day boundaries. */
  serverZone?: ServerZone | undefined;
  /** Told once when the store is not used (another trade server or zone, an unreadable manifest). */
  onMismatch?: (why: string) => void;
  /** Told once per partition found not to be what its manifest entry recorded (it is taken from the terminal from then on). */
  onDamaged?: (e: PartitionDamageError) => void;
  /** TRADEAPI_STORE_WRITE: whole past days of ticks fetched from the terminal are written back (write-back.ts). */
  write?: { maxRows: number; onEvent?: (e: WriteEvent) => void } | undefined;
}

/** The first `rows` rows of a tick chunk. */
export function sliceTicks(c: TickChunk, rows: number): TickChunk {
  return {
    rows, time: c.time.subarray(0, rows), bid: c.bid.subarray(0, rows), ask: c.ask.subarray(0, rows), last: c.last.subarray(0, rows),
    volume: c.volume.subarray(0, rows), time_msc: c.time_msc.subarray(0, rows), flags: c.flags.subarray(0, rows), volume_real: c.volume_real.subarray(0, rows),
  };
}

/** The rows of `inner` with time_msc <= toMs (it is closed at the first row after). */
function untilMs(inner: Series<TickChunk>, toMs: number): Part<TickChunk> {
  let done = false;
  const to = BigInt(toMs);
  return {
    next: async () => {
      if (done) return null;
      const c = await inner.next();
      if (c === null) return null;
      if (c.rows === 0 || (c.time_msc[c.rows - 1] as bigint) <= to) return c;
      done = true;
      inner.close();
      let n = 0;
      while (n < c.rows && (c.time_msc[n] as bigint) <= to) n++;
      return sliceTicks(c, n);
    },
    close: () => inner.close(),
    setChunkRows: (rows) => inner.setChunkRows?.(rows),
    readAhead: (on) => inner.readAhead?.(on),
    // Chunks pass on unchanged (the last one as views of its columns) and none is kept.
    ...(inner.release ? { release: (c: TickChunk) => inner.release?.(c) } : {}),
  };
}

/** Stored days decoded ahead of the one being sent (decoded on the store's own thread, reader.ts). */
const DECODE_AHEAD = 2;

/**
 * A terminal part standing in for a damaged stored day: the terminal's rows when it has them; when
 * it has none of a day the manifest records rows of (or refuses the range), store-damaged, never a
 * silent empty answer.
 */
async function standIn(damage: PartitionDamageError, s: Segment, fromTerminal: (s: Segment) => Promise<Part<TickChunk>>): Promise<Part<TickChunk>> {
  let part: Part<TickChunk>;
  try {
    part = await fromTerminal(s);
  } catch (e) {
    if (isTerminalError(e) && e.kind === 'not_found') throw storeDamaged(damage, ', and the terminal does not hold that range');
    throw e;
  }
  const whole = s.fromMs === dayStart(s.fromMs) && s.toMs === s.fromMs + DAY_MS - 1;
  if (!whole || damage.partition.entry.rows === 0) return part;
  let rows = 0;
  return {
    next: async () => {
      const c = await part.next();
      if (c === null && rows === 0) throw storeDamaged(damage, ', and the terminal holds no ticks of that day');
      if (c !== null) rows += c.rows;
      return c;
    },
    close: () => part.close(),
    ...(part.setChunkRows ? { setChunkRows: (n: number) => part.setChunkRows?.(n) } : {}),
    ...(part.readAhead ? { readAhead: (on: boolean) => part.readAhead?.(on) } : {}),
    ...(part.release ? { release: (c: TickChunk) => part.release?.(c) } : {}),
  };
}

/**
 * The openers of tick segments: store days read from their files, decoded up to DECODE_AHEAD
 * segments ahead of the one open (so the next day is decoded while this one is encoded and sent),
 * terminal ones asked for by `fromTerminal`. A stored day found damaged (its file is checked before
 * any of its rows is handed on) is reported and taken from the terminal instead.
 */
function tickOpeners(segments: readonly Segment[], fromTerminal: (s: Segment) => Promise<Part<TickChunk>>, damaged?: DamagedPartitions): Opener<TickChunk>[] {
  const decodes = new Map<number, Promise<TickChunk[]>>();
  const ahead = (from: number): void => {
    for (let i = from; i < Math.min(segments.length, from + DECODE_AHEAD); i++) {
      const s = segments[i]!;
      if (s.source !== 'store' || decodes.has(i)) continue;
      const p = decodeDay(s.part as StoredPartition, s.fromMs, s.toMs);
      p.catch(() => undefined); // reported when its day is read
      decodes.set(i, p);
    }
  };
  ahead(0);
  return segments.map((s, i): Opener<TickChunk> => async (ctx) => {
    ahead(i);
    ahead(i + 1);
    if (s.source === 'terminal') return fromTerminal(s);
    const decoded = decodes.get(i) ?? decodeDay(s.part as StoredPartition, s.fromMs, s.toMs);
    decodes.delete(i);
    try {
      await decoded;
    } catch (e) {
      if (!isPartitionDamage(e)) throw e;
      damaged?.report(e);
      return standIn(e, s, fromTerminal);
    }
    return generatorPart(readTicks(decoded, ctx.chunkRows));
  });
}

/** The ticks of [fromMs, toMs] of `symbol` from the store's days and the terminal, as tickSegments cut them. */
export async function mixedTicks(
  terminal: Pick<Terminal, 'copyTicksRange'>, root: string, manifest: Manifest | undefined, symbol: string, fromMs: number, toMs: number, opts?: SeriesOptions,
  record?: (s: Segment, part: Part<TickChunk>) => Part<TickChunk>, damaged?: DamagedPartitions,
): Promise<Series<TickChunk>> {
  const segments = tickSegments(root, manifest, symbol, fromMs, toMs, damaged);
  if (!record && segments.every((s) => s.source === 'terminal')) {
    const series = await terminal.copyTicksRange(symbol, fromMs, toMs, COPY_TICKS_ALL, opts);
    return Object.assign(series, { source: describeSegments(segments) });
  }
  const fromTerminal = async (s: Segment): Promise<Part<TickChunk>> => {
    const series = await terminal.copyTicksRange(symbol, s.fromMs, s.toMs, COPY_TICKS_ALL, opts);
    return record ? record(s, series) : series;
  };
  const openers = tickOpeners(segments, fromTerminal, damaged);
  // The first segment opened now, so that a failing terminal (an unknown symbol) fails the request before any byte.
  const first = segments[0]!.source === 'terminal' ? await fromTerminal(segments[0]!) : undefined;
  return new MixedSeries(describeSegments(segments), openers, first ? { first } : {});
}

/** The instant up to which the store holds `symbol`'s ticks without a gap from some earlier day, or undefined. */
function storedTicksEnd(manifest: Manifest | undefined, symbol: string): number | undefined {
  const days = manifest?.symbols[symbol]?.ticks ?? {};
  let end: number | undefined;
  for (const [key, e] of Object.entries(days)) {
    if (e.unavailable) continue;
    const d = Date.parse(`${key}T00:00:00Z`);
    const last = e.complete ? d + DAY_MS - 1 : e.through !== undefined ? Date.parse(e.through) : NaN;
    if (last >= d && (end === undefined || last > end)) end = last;
  }
  return end;
}

/** The UTC second range of M1 bars that make the bars of `tf` with opens in [first, last] (server seconds). */
function m1Span(tf: Timeframe, clock: Clock, first: number, last: number): { fromS: number; toS: number } {
  return { fromS: clock.toUtcS(first), toS: clock.toUtcS(tf.nextOpen(last)) - 1 };
}

const prevMonthStart = (ms: number): number => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
};

/** The stored M1 bars of [fromS, toS] (UTC seconds) across their month files, in order. */
async function* storedM1(months: M1Months, root: string, manifest: Manifest | undefined, symbol: string, fromS: number, toS: number): AsyncGenerator<RateChunk> {
  for (let m = monthStart(fromS * 1000); m <= toS * 1000; m = nextMonthStart(m)) {
    yield* clipRates(await months.get(monthPart(root, manifest, symbol, m)), fromS, toS);
  }
}

/** The bars of a store segment, built from the stored M1 bars. */
function storeBarPart(months: M1Months, root: string, manifest: Manifest | undefined, symbol: string, tf: Timeframe, clock: Clock, seg: BarSegment, chunkRows: () => number): Part<RateChunk> {
  const { fromS, toS } = m1Span(tf, clock, seg.first, seg.last);
  return generatorPart(aggregateBars(storedM1(months, root, manifest, symbol, fromS, toS), tf, clock, chunkRows));
}

/** The opens (server seconds, ascending) of at least the newest `needed` bars of a store segment (all when it has fewer), read month by month from its end. */
async function storeOpens(months: M1Months, root: string, manifest: Manifest | undefined, symbol: string, tf: Timeframe, clock: Clock, seg: BarSegment, needed: number): Promise<number[]> {
  const { fromS, toS } = m1Span(tf, clock, seg.first, seg.last);
  const blocks: number[][] = [];
  let count = 0;
  for (let m = monthStart(toS * 1000); m >= monthStart(fromS * 1000) && count < needed; m = prevMonthStart(m)) {
    const opens: number[] = [];
    for (const c of clipRates(await months.get(monthPart(root, manifest, symbol, m)), fromS, toS)) {
      for (let i = 0; i < c.rows; i++) {
        const o = tf.openOf(clock.toServerS(Number(c.time[i])));
        if (opens[opens.length - 1] !== o) opens.push(o);
      }
    }
    // A bar across the two months is one bar.
    if (opens.length > 0 && blocks.length > 0 && opens[opens.length - 1] === blocks[0]![0]) opens.pop();
    if (opens.length === 0) continue;
    blocks.unshift(opens);
    count += opens.length;
  }
  return blocks.flat();
}

/** The Tradeapi-Source value of bar segments (bar open times, UTC). */
function describeBars(segments: readonly BarSegment[], tf: Timeframe, clock: Clock, tail?: { fromS: number; count: number }): string {
  const iso = (ms: number): string => new Date(ms).toISOString();
  // Each part as the time its bars span: from its first bar's open to its last bar's end.
  const parts = segments.map((s) => `${s.source}=${iso(clock.toUtcS(s.first) * 1000)}/${iso(clock.toUtcS(tf.nextOpen(s.last)) * 1000 - 1)}`);
  if (tail) parts.unshift(`terminal=${tail.count} bars before ${new Date(tail.fromS * 1000).toISOString()}`);
  return parts.join(', ');
}

/** `terminal` (speaking UTC) with copy_ticks_range, copy_ticks_from and copy_rates_* answered from the store where it covers the range. */
export function withStore(terminal: Terminal, options: StoreOptions): Terminal {
  const manifests = new ManifestCache(options.root, options.onMismatch);
  const clock = clockOf(options.serverZone);
  const damaged = new DamagedPartitions(options.onDamaged);
  const months = new M1Months(damaged);
  // The store must be of this terminal's trade server and zone; asked once, on first use.
  let identity: Promise<string | undefined> | undefined;
  const usable = async (symbol: string): Promise<Manifest | undefined> => {
    const manifest = await manifests.get(symbol);
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
  // Per symbol: whether its bars are charted by Last (then only M1 comes from the store).
  const byLast = new Map<string, Promise<boolean>>();
  const chartsByLast = (symbol: string): Promise<boolean> => {
    let p = byLast.get(symbol);
    if (!p) {
      p = terminal.symbolInfo(symbol).then((i) => i.chart_mode === 1, () => {
        byLast.delete(symbol);
        return true; // unknown: let the terminal answer (and fail as it does)
      });
      byLast.set(symbol, p);
    }
    return p;
  };
  let maxbars: Promise<number> | undefined;
  const maxBars = (): Promise<number> => (maxbars ??= terminal.terminalInfo().then((i) => i.maxbars, (e: unknown) => {
    maxbars = undefined;
    throw e;
  }));

  const w = options.write;
  const writer = w && new StoreWriter({
    root: options.root,
    maxRows: w.maxRows,
    zone: options.zone,
    server: async () => (await terminal.accountInfo()).server,
    lastTickMs: async (symbol) => (await terminal.symbolInfoTick(symbol)).time_msc,
    ...(w.onEvent ? { onEvent: w.onEvent } : {}),
  });

  const copyTicksRange = async (symbol: string, fromMs: number, toMs: number, flags: number, opts?: SeriesOptions): Promise<Series<TickChunk>> => {
    if (flags !== COPY_TICKS_ALL || fromMs > toMs) return terminal.copyTicksRange(symbol, fromMs, toMs, flags, opts);
    const manifest = await usable(symbol);
    // Written back only into a store of this server and zone, or one not filled yet.
    const budget = { rows: w?.maxRows ?? 0 };
    const record = writer && (manifest !== undefined || (await manifests.identity()) === undefined) && toMs - fromMs >= DAY_MS - 1
      ? (s: Segment, part: Part<TickChunk>) => writer.record(symbol, part, s.fromMs, s.toMs, budget)
      : undefined;
    return mixedTicks(terminal, options.root, manifest, symbol, fromMs, toMs, opts, record, damaged);
  };

  const copyTicksFrom = async (symbol: string, fromMs: number, count: number, flags: number, opts?: SeriesOptions): Promise<Series<TickChunk>> => {
    const manifest = flags === COPY_TICKS_ALL && count > 0 ? await usable(symbol) : undefined;
    const end = storedTicksEnd(manifest, symbol);
    const segments = end === undefined || fromMs > end ? [] : tickSegments(options.root, manifest, symbol, fromMs, end, damaged);
    if (!segments.some((s) => s.source === 'store')) return terminal.copyTicksFrom(symbol, fromMs, count, flags, opts);
    // Terminal parts as copy_ticks_from asks them (at most the ticks still wanted), cut at the part's end.
    let remaining = count;
    const fromTerminal = async (s: Segment): Promise<Part<TickChunk>> => untilMs(await terminal.copyTicksFrom(symbol, s.fromMs, remaining, flags, opts), s.toMs);
    const tickOpenersCounted = tickOpeners(segments, fromTerminal, damaged);
    const openers = tickOpenersCounted.map((open): Opener<TickChunk> => (ctx) => {
      remaining = ctx.remaining;
      return open(ctx);
    });
    // After what the store holds: the terminal's copy_ticks_from for the ticks still wanted.
    openers.push((ctx) => terminal.copyTicksFrom(symbol, (end as number) + 1, ctx.remaining, flags, opts));
    const source = `${describeSegments(segments)}, terminal=${new Date((end as number) + 1).toISOString()}/..`;
    const first = segments[0]!.source === 'terminal' ? await fromTerminal(segments[0]!) : undefined;
    return new MixedSeries(source, openers, { limit: count, slice: sliceTicks, ...(first ? { first } : {}) });
  };

  /** The bar segments of `symbol` for `timeframe`, or undefined when the store cannot take part. */
  const barPlan = async (symbol: string, timeframe: number): Promise<{ tf: Timeframe; cover: Interval[]; manifest: Manifest | undefined } | undefined> => {
    const tf = Timeframe.of(timeframe);
    if (!tf) return undefined;
    const manifest = await usable(symbol);
    // Months found damaged are not covered: the terminal answers for them.
    const cover = barCoverage(manifest, symbol, (key, entry) => damaged.has(storedPartition(options.root, 'bars_m1', symbol, key, entry)));
    if (cover.length === 0) return undefined;
    if (timeframe !== 1 && (await chartsByLast(symbol))) return undefined;
    return { tf, cover, manifest };
  };

  /** A terminal range of bar opens (server seconds) as a part; "no history there" is an empty part. */
  const terminalBars = async (symbol: string, timeframe: number, seg: BarSegment, opts?: SeriesOptions): Promise<Part<RateChunk>> => {
    try {
      return await terminal.copyRatesRange(symbol, timeframe, clock.toUtcS(seg.first), clock.toUtcS(seg.last), opts);
    } catch (e) {
      if (isTerminalError(e) && e.kind === 'not_found') return emptyPart();
      throw e;
    }
  };

  /** One series over bar segments (server seconds), after an optional older part. */
  const barSeries = async (symbol: string, timeframe: number, tf: Timeframe, manifest: Manifest | undefined, segments: BarSegment[], opts?: SeriesOptions, older?: { fromS: number; count: number }): Promise<Series<RateChunk>> => {
    const openers: Opener<RateChunk>[] = [];
    if (older) openers.push(() => terminal.copyRatesFrom(symbol, timeframe, older.fromS, older.count, opts));
    for (const seg of segments) {
      openers.push(seg.source === 'store'
        ? (ctx) => storeBarPart(months, options.root, manifest, symbol, tf, clock, seg, ctx.chunkRows)
        : () => terminalBars(symbol, timeframe, seg, opts));
    }
    // A leading terminal part opened now, so that its failure (a bad range) fails the request before any byte.
    const first = !older && segments[0]?.source === 'terminal' ? await terminalBars(symbol, timeframe, segments[0], opts) : undefined;
    return new MixedSeries(describeBars(segments, tf, clock, older), openers, first ? { first } : {});
  };

  /** The server opens of (at least the newest `needed`) bars of a segment, ascending (store: from the M1 bars; terminal: asked). */
  const opensOf = async (symbol: string, timeframe: number, tf: Timeframe, manifest: Manifest | undefined, seg: BarSegment, needed: number): Promise<number[]> => {
    if (seg.source === 'store') return storeOpens(months, options.root, manifest, symbol, tf, clock, seg, needed);
    const out: number[] = [];
    const part = await terminalBars(symbol, timeframe, seg);
    try {
      for (let c = await part.next(); c !== null; c = await part.next()) for (let i = 0; i < c.rows; i++) out.push(clock.toServerS(Number(c.time[i])));
    } finally {
      part.close();
    }
    return out;
  };

  /**
   * Walks the bars from `newestS` (server seconds) back over the segments, skipping `skip` bars and
   * taking `count`: the opens of the oldest and newest taken, and how many are still wanted before
   * the first stored bar (undefined when `skip` reaches past it).
   */
  const locate = async (symbol: string, timeframe: number, plan: { tf: Timeframe; cover: Interval[]; manifest: Manifest | undefined }, newestS: number, skip: number, count: number):
    Promise<{ oldest: number; newest: number; missing: number; firstStored: number } | undefined> => {
    const firstStored = storedBars(plan.cover[0]!, plan.tf, clock)?.first;
    if (firstStored === undefined || newestS < firstStored) return undefined;
    const segments = barSegments(plan.cover, plan.tf, clock, firstStored, newestS);
    let newest: number | undefined;
    let oldest: number | undefined;
    let need = count;
    for (let k = segments.length - 1; k >= 0 && need > 0; k--) {
      const opens = await opensOf(symbol, timeframe, plan.tf, plan.manifest, segments[k]!, skip + need);
      let j = opens.length - 1;
      const skipped = Math.min(skip, j + 1);
      skip -= skipped;
      j -= skipped;
      if (j < 0) continue;
      newest ??= opens[j]!;
      const took = Math.min(need, j + 1);
      need -= took;
      oldest = opens[j - took + 1]!;
    }
    if (skip > 0) return undefined;
    if (newest === undefined || oldest === undefined) return { oldest: firstStored, newest: firstStored - 1, missing: need, firstStored };
    return { oldest, newest, missing: need, firstStored };
  };

  /**
   * The terminal's M1 bars of [fromS, toS] with their whole UTC months written back (write-back.ts),
   * when writing is on and the store is this server's (or not filled yet); else the series as it is.
   */
  const recordedBars = async (symbol: string, timeframe: number, fromS: number, toS: number, series: Series<RateChunk>): Promise<Series<RateChunk>> => {
    if (!writer || timeframe !== 1) return series;
    const manifest = await usable(symbol);
    if (manifest === undefined && (await manifests.identity()) !== undefined) return series; // another server's store
    const recorded = writer.recordBars(symbol, series, fromS, toS, { rows: w?.maxRows ?? 0 });
    if (recorded === series) return series;
    const out: Series<RateChunk> = {
      ...recorded,
      ...(series.source !== undefined ? { source: series.source } : {}),
      async *[Symbol.asyncIterator]() {
        try {
          for (let c = await recorded.next(); c !== null; c = await recorded.next()) yield c;
        } finally {
          recorded.close();
        }
      },
    };
    return out;
  };

  const copyRatesRange = async (symbol: string, timeframe: number, fromS: number, toS: number, opts?: SeriesOptions): Promise<Series<RateChunk>> => {
    const plan = fromS <= toS ? await barPlan(symbol, timeframe) : undefined;
    if (!plan) return recordedBars(symbol, timeframe, fromS, toS, await terminal.copyRatesRange(symbol, timeframe, fromS, toS, opts));
    const segments = barSegments(plan.cover, plan.tf, clock, clock.toServerS(fromS), clock.toServerS(toS));
    if (segments.every((s) => s.source === 'terminal')) {
      const series = await terminal.copyRatesRange(symbol, timeframe, fromS, toS, opts);
      return recordedBars(symbol, timeframe, fromS, toS, Object.assign(series, { source: describeBars(segments, plan.tf, clock) }));
    }
    return barSeries(symbol, timeframe, plan.tf, plan.manifest, segments, opts);
  };

  /** Bars ending at `newestS` (server seconds) after skipping `skip`, `count` of them; undefined: the terminal's alone. */
  const countedBars = async (symbol: string, timeframe: number, newestS: number, skip: number, count: number, opts?: SeriesOptions): Promise<Series<RateChunk> | undefined> => {
    if (count <= 0 || skip < 0 || count >= (await maxBars()) || skip >= (await maxBars())) return undefined;
    const plan = await barPlan(symbol, timeframe);
    if (!plan) return undefined;
    const at = await locate(symbol, timeframe, plan, newestS, skip, count);
    if (!at) return undefined;
    const segments = at.newest >= at.oldest ? barSegments(plan.cover, plan.tf, clock, at.oldest, at.newest) : [];
    if (!segments.some((s) => s.source === 'store')) return undefined;
    const older = at.missing > 0 ? { fromS: clock.toUtcS(at.firstStored) - 1, count: at.missing } : undefined;
    return barSeries(symbol, timeframe, plan.tf, plan.manifest, segments, opts, older);
  };

  const copyRatesFrom = async (symbol: string, timeframe: number, dateFrom: number, count: number, opts?: SeriesOptions): Promise<Series<RateChunk>> =>
    (await countedBars(symbol, timeframe, clock.toServerS(dateFrom), 0, count, opts)) ?? terminal.copyRatesFrom(symbol, timeframe, dateFrom, count, opts);

  const copyRatesFromPos = async (symbol: string, timeframe: number, startPos: number, count: number, opts?: SeriesOptions): Promise<Series<RateChunk>> =>
    (await countedBars(symbol, timeframe, clock.toServerS(FAR_FUTURE_S), startPos, count, opts)) ?? terminal.copyRatesFromPos(symbol, timeframe, startPos, count, opts);

  const overrides: Partial<Terminal> = { copyTicksRange, copyTicksFrom, copyRatesRange, copyRatesFrom, copyRatesFromPos };
  return new Proxy(terminal, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && prop in overrides) return overrides[prop as keyof Terminal];
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
