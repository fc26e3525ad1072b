// The broker's server time (mt5-reference §3.3): a real terminal stamps every time as the broker's
// wall clock written as if it were UTC (most FX brokers: UTC+2 winter / UTC+3 summer). A ServerZone
// converts those stamps to true UTC and request dates back, in seconds or milliseconds, one value
// at a time or a whole BigInt64Array column in place.
//
// Offsets come from Intl, asked at most twice per UTC hour (cached; an hour whose two ends differ
// is searched for its exact transition instant), so a chunk of 16 K rows costs a few Map lookups,
// not 16 K Intl calls.
//
// Ambiguity: when clocks go back, an hour of server time happens twice (EU: 03:00-04:00 server
// time, UTC+3 then UTC+2). A stamp in it is taken as the EARLIER UTC instant (the summer offset),
// as the bridge stand-in's _server_to_utc does; the repeated hour's stamps cannot be told apart.
// When clocks go forward, an hour of server time never happens; a stamp in it (which a terminal
// never writes) is converted with the offset in force before the change.

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Intl's parts are read back with Date.UTC, which is exact for these years. */
const FIRST_MS = Date.UTC(1900, 0, 1);
const LAST_MS = Date.UTC(9999, 11, 31, 23);

export interface ServerZone {
  /** As configured: an IANA name or a fixed offset such as '+02:00'. */
  readonly name: string;
  /** Server minus UTC, ms, at a true UTC instant. */
  offsetMs(utcMs: number): number;
  toUtcMs(serverMs: number): number;
  toServerMs(utcMs: number): number;
  toUtcSeconds(serverSeconds: number): number;
  toServerSeconds(utcSeconds: number): number;
  /** Converts a column of server stamps to UTC in place; `unitMs` is 1000 for seconds, 1 for ms. 0 stays 0. */
  columnToUtc(column: BigInt64Array, unitMs: 1 | 1000): void;
}

/** '+02:00', '-05:30', '+0200', 'UTC+2'-free: sign, hours (0-14), optional minutes. */
const FIXED = /^([+-])(\d{2}):?(\d{2})$/;
/**
 * An IANA zone moved by a fixed amount: 'America/New_York+07:00' is the "New York close" clock of
 * many FX brokers (UTC+2 / UTC+3, switching on US dates, so midnight is 17:00 in New York all
 * year). The colon keeps it apart from IANA names such as 'Etc/GMT+2'.
 */
const SHIFTED = /^([A-Za-z][A-Za-z0-9_+\-/]*?)([+-])(\d{2}):(\d{2})$/;

function offsetOf(sign: string, hh: string, mm: string, text: string): number {
  const hours = Number(hh);
  const minutes = Number(mm);
  if (hours > 14 || minutes > 59) throw new RangeError(`offset out of range (at most ±14:00): ${JSON.stringify(text)}`);
  return (sign === '-' ? -1 : 1) * (hours * HOUR_MS + minutes * 60_000);
}

/**
 * An IANA zone (validated by Intl.DateTimeFormat), a fixed offset ±HH:MM, or an IANA zone moved
 * by ±HH:MM (ZONE±HH:MM). Throws RangeError naming the problem otherwise.
 */
export function parseServerZone(text: string): ServerZone {
  const raw = text.trim();
  const m = FIXED.exec(raw);
  if (m) return new FixedZone(raw, offsetOf(m[1]!, m[2]!, m[3]!, text));
  const shifted = SHIFTED.exec(raw);
  if (shifted) {
    const base = parseServerZone(shifted[1]!);
    return new ShiftedZone(`${base.name}${shifted[2]}${shifted[3]}:${shifted[4]}`, base, offsetOf(shifted[2]!, shifted[3]!, shifted[4]!, text));
  }
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(raw)) throw new RangeError(`not an IANA time zone, ±HH:MM offset or ZONE±HH:MM: ${JSON.stringify(text)}`);
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: raw,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    throw new RangeError(`unknown time zone: ${JSON.stringify(text)}`);
  }
  return new IanaZone(format.resolvedOptions().timeZone, format);
}

abstract class ZoneBase implements ServerZone {
  abstract readonly name: string;
  abstract offsetMs(utcMs: number): number;

  /** Logged and serialised as its name. */
  toJSON(): string {
    return this.name;
  }

  toServerMs(utcMs: number): number {
    return utcMs + this.offsetMs(utcMs);
  }

  toUtcMs(serverMs: number): number {
    const before = this.offsetMs(serverMs - DAY_MS);
    const after = this.offsetMs(serverMs + DAY_MS);
    const u1 = serverMs - before;
    if (before === after) {
      // Same offset a day either side: almost always right at once; otherwise (a change in the
      // window but not around this stamp) the offset at the guess decides.
      if (this.offsetMs(u1) === before) return u1;
      return serverMs - this.offsetMs(u1);
    }
    const u2 = serverMs - after;
    const ok1 = this.offsetMs(u1) === before;
    const ok2 = this.offsetMs(u2) === after;
    if (ok1 && ok2) return Math.min(u1, u2); // repeated hour: the earlier instant
    if (ok1) return u1;
    if (ok2) return u2;
    return u1; // skipped hour: the offset before the change
  }

  toServerSeconds(utcSeconds: number): number {
    return Math.floor(this.toServerMs(utcSeconds * 1000) / 1000);
  }

  toUtcSeconds(serverSeconds: number): number {
    return Math.floor(this.toUtcMs(serverSeconds * 1000) / 1000);
  }

  /** Per server-time hour: the constant shift (server - UTC) over the whole hour, or NaN when it is not constant. */
  private readonly hourShift = new Map<number, number>();

  private shiftOfServerHour(hour: number): number {
    let shift = this.hourShift.get(hour);
    if (shift === undefined) {
      const start = hour * HOUR_MS;
      const end = start + HOUR_MS - 1;
      const a = start - this.toUtcMs(start);
      const b = end - this.toUtcMs(end);
      shift = a === b ? a : NaN;
      if (this.hourShift.size > 100_000) this.hourShift.clear();
      this.hourShift.set(hour, shift);
    }
    return shift;
  }

  columnToUtc(column: BigInt64Array, unitMs: 1 | 1000): void {
    const unitsPerHour = HOUR_MS / unitMs;
    let currentHour = NaN;
    let shift = 0; // in units
    let exact = false;
    for (let i = 0; i < column.length; i++) {
      const v = Number(column[i]);
      if (v === 0) continue;
      const hour = Math.floor(v / unitsPerHour);
      if (hour !== currentHour) {
        currentHour = hour;
        const ms = this.shiftOfServerHour(hour);
        exact = Number.isNaN(ms);
        shift = exact ? 0 : ms / unitMs;
      }
      const out = exact ? Math.floor(this.toUtcMs(v * unitMs) / unitMs) : v - shift;
      column[i] = BigInt(out);
    }
  }
}

class FixedZone extends ZoneBase {
  constructor(readonly name: string, private readonly offset: number) {
    super();
  }

  offsetMs(): number {
    return this.offset;
  }

  override toUtcMs(serverMs: number): number {
    return serverMs - this.offset;
  }

  override columnToUtc(column: BigInt64Array, unitMs: 1 | 1000): void {
    const shift = BigInt(this.offset / unitMs);
    if (this.offset % unitMs !== 0) throw new RangeError('offset is not a whole number of units');
    for (let i = 0; i < column.length; i++) {
      const v = column[i]!;
      if (v !== 0n) column[i] = v - shift;
    }
  }
}

/**
 * The first second in (lo, hi] whose offset is no longer `before`, by bisection: offsetAt(lo) is
 * `before` and offsetAt(hi) is not (one change in between).
 */
function firstChangedSecond(lo: number, hi: number, before: number, offsetAt: (second: number) => number): number {
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(mid) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Another zone's clock moved by a fixed amount (its changes happen at the same instants). */
class ShiftedZone extends ZoneBase {
  constructor(readonly name: string, private readonly base: ServerZone, private readonly shift: number) {
    super();
  }

  offsetMs(utcMs: number): number {
    return this.base.offsetMs(utcMs) + this.shift;
  }
}

/**
 * The zone as a list of transitions [UTC second, server minus UTC in seconds] from `fromS` to
 * `toS` (the first entry holds at fromS), as the simulator takes it (TRADEAPI_SIM_SERVER_TZ).
 * Offsets are sampled daily and each change is searched for to the second: no zone in use changes
 * twice within a day (changes are weeks apart at the least).
 */
export function zoneTransitions(zone: ServerZone, fromS: number, toS: number): Array<[number, number]> {
  const STEP_S = 86_400;
  const offsetS = (s: number): number => Math.round(zone.offsetMs(s * 1000) / 1000);
  const out: Array<[number, number]> = [[fromS, offsetS(fromS)]];
  for (let s = fromS + STEP_S; s - STEP_S < toS; s += STEP_S) {
    const current = out[out.length - 1]![1];
    if (offsetS(s) === current) continue;
    const at = firstChangedSecond(s - STEP_S, s, current, offsetS);
    out.push([at, offsetS(at)]);
  }
  return out;
}

/** An hour of UTC: one offset, or a change at `at` (ms) from `before` to `after`. */
type HourEntry = number | { at: number; before: number; after: number };

class IanaZone extends ZoneBase {
  private readonly hours = new Map<number, HourEntry>();

  constructor(readonly name: string, private readonly format: Intl.DateTimeFormat) {
    super();
  }

  /** Offset at a whole second, from Intl (instants outside 1900-9999 take the offset at the nearer end). */
  private rawOffset(utcMs: number): number {
    const t = Math.floor(Math.min(Math.max(utcMs, FIRST_MS), LAST_MS) / 1000) * 1000;
    const p: Record<string, number> = {};
    for (const part of this.format.formatToParts(t)) if (part.type !== 'literal') p[part.type] = Number(part.value);
    const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
    return wall - t;
  }

  private entry(hour: number): HourEntry {
    let e = this.hours.get(hour);
    if (e === undefined) {
      const start = hour * HOUR_MS;
      const before = this.rawOffset(start);
      const after = this.rawOffset(start + HOUR_MS - 1000);
      if (before === after) {
        e = before;
      } else {
        // The change lies in (start, start + 1 h - 1 s]: find its first second.
        const at = firstChangedSecond(start / 1000, (start + HOUR_MS - 1000) / 1000, before, (sec) => this.rawOffset(sec * 1000));
        e = { at: at * 1000, before, after };
      }
      if (this.hours.size > 100_000) this.hours.clear();
      this.hours.set(hour, e);
    }
    return e;
  }

  offsetMs(utcMs: number): number {
    const e = this.entry(Math.floor(utcMs / HOUR_MS));
    if (typeof e === 'number') return e;
    return utcMs < e.at ? e.before : e.after;
  }
}
