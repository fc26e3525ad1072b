// Resident set size of a server process, from /proc/<pid>/status (Linux): VmRSS sampled every
// 50 ms during a request, plus VmHWM after resetting it (`echo 5 > /proc/<pid>/clear_refs`) so
// that a peak shorter than the sampling interval is not missed.
import { readFileSync, writeFileSync } from 'node:fs';

export interface RssReading {
  /** VmRSS, bytes. */
  readonly rss: number;
  /** VmHWM (peak RSS since start or since the last reset), bytes. */
  readonly hwm: number;
  /** RssAnon: the anonymous part of VmRSS (without file-backed pages such as a memory-mapped file), bytes. */
  readonly anon: number;
}

export interface RssWindow {
  /** RSS just before the request, bytes. */
  readonly before: number;
  /** Highest RSS seen during the request (sampled, or VmHWM when it could be reset), bytes. */
  readonly peak: number;
  /** peak - before, bytes. */
  readonly growth: number;
  readonly samples: number;
  /** Whether VmHWM could be reset before the request (then `peak` is exact). */
  readonly exactPeak: boolean;
  /** Highest RssAnon sampled during the request, bytes (sampled only: no kernel peak for it). */
  readonly anonPeak: number;
}

export function readRss(pid: number): RssReading | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return undefined;
  }
  const field = (name: string): number => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : Number.NaN;
  };
  return { rss: field('VmRSS'), hwm: field('VmHWM'), anon: field('RssAnon') };
}

/** Resets VmHWM to the current RSS; false where the kernel or permissions refuse. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Samples a process's RSS from start() until stop(). */
export class RssProbe {
  private timer: NodeJS.Timeout | undefined;
  private before = Number.NaN;
  private max = 0;
  private anonMax = Number.NaN;
  private samples = 0;
  private exact = false;

  constructor(
    readonly pid: number,
    private readonly intervalMs = 50,
  ) {}

  start(): void {
    this.exact = resetPeak(this.pid);
    const first = readRss(this.pid);
    this.before = first?.rss ?? Number.NaN;
    this.max = this.before;
    this.anonMax = first?.anon ?? Number.NaN;
    this.samples = 0;
    this.timer = setInterval(() => this.sample(), this.intervalMs);
  }

  private sample(): void {
    const r = readRss(this.pid);
    if (!r) return;
    this.samples++;
    if (r.rss > this.max) this.max = r.rss;
    if (!(r.anon <= this.anonMax)) this.anonMax = r.anon;
  }

  stop(): RssWindow {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
    const last = readRss(this.pid);
    const peak = this.exact && last ? Math.max(this.max, last.hwm) : this.max;
    return { before: this.before, peak, growth: peak - this.before, samples: this.samples, exactPeak: this.exact, anonPeak: this.anonMax };
  }
}

/** CPU time (user + system) a process has used, seconds (USER_HZ = 100 on Linux); NaN if unknown. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ", field 3 (state) is index 0: utime is field 14, stime field 15.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}
