// The export's progress line on a terminal: rows, MB, rows/s, and, since a range's rows come in
// time order, how far through the range it is and an ETA. Redrawn in place at most every
// REDRAW_MS; silent when the stream is not a TTY (a pipe, a file, CI), so scripts get no noise.
//
// Drawn from what has been written (run.ts reports after each write), so the first line never
// says "0.0 MB". The share done is the time of the last row written between the first row's time
// (the history may begin after --from) and --to; the ETA is what remains of it at the pace the
// share has grown since the first rows were written (the terminal's start-up is not counted).
import { performance } from 'node:perf_hooks';

export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

const REDRAW_MS = 200;

export class Progress {
  private readonly active: boolean;
  private readonly started: number;
  private lastDraw = -Infinity;
  private drawn = false;
  /** When rows were first written, and the share of the range done then. */
  private firstWrite: { t: number; done: number } | undefined;

  constructor(
    private readonly out: ProgressStream,
    private readonly label: string,
    private readonly range: { fromMs: number; toMs: number },
    private readonly now: () => number = () => performance.now(),
  ) {
    this.active = out.isTTY === true;
    this.started = now();
  }

  /**
   * After each write: the rows and bytes written so far, the time of the last row written and of
   * the first row (ms, UTC; without it the range counts from `fromMs`). Nothing is drawn before a
   * row and a byte have been written.
   */
  update(rows: number, bytes: number, lastMs: number | undefined, firstMs?: number): void {
    if (!this.active || rows === 0 || bytes === 0) return;
    const t = this.now();
    this.firstWrite ??= { t, done: this.share(firstMs, lastMs) ?? 0 };
    if (t - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = t;
    this.out.write(`\r\x1b[K${this.line(rows, bytes, lastMs, firstMs, t)}`);
    this.drawn = true;
  }

  /** The final line (kept on screen). */
  done(rows: number, bytes: number, file: string): void {
    if (!this.active) return;
    const seconds = (this.now() - this.started) / 1000;
    this.out.write(`\r\x1b[K${this.label}: ${formatCount(rows)} rows, ${formatMb(bytes)} in ${seconds.toFixed(1)} s -> ${file}\n`);
  }

  /** Removes the line (before an error message). */
  clear(): void {
    if (this.active && this.drawn) this.out.write('\r\x1b[K');
  }

  /** The progress text at time `t`. */
  line(rows: number, bytes: number, lastMs: number | undefined, firstMs?: number, t = this.now()): string {
    const seconds = Math.max((t - this.started) / 1000, 1e-3);
    const parts = [`${this.label}: ${formatCount(rows)} rows`, formatMb(bytes), `${formatCount(Math.round(rows / seconds))} rows/s`];
    const done = this.share(firstMs, lastMs);
    if (done !== undefined) {
      parts.push(`${Math.floor(done * 100)} %`);
      const since = this.firstWrite;
      // Only once the share has grown enough since the first write for its pace to mean something.
      if (since !== undefined && done < 1 && done - since.done >= 0.01 && t > since.t) {
        const pace = (done - since.done) / ((t - since.t) / 1000); // of the range, per second
        parts.push(`ETA ${formatDuration((1 - done) / pace)}`);
      }
    }
    return parts.join(', ');
  }

  /** How far through the range the last row written is, 0 to 1, counted from the first row's time. */
  private share(firstMs: number | undefined, lastMs: number | undefined): number | undefined {
    if (lastMs === undefined) return undefined;
    const start = Math.max(this.range.fromMs, firstMs ?? this.range.fromMs);
    const span = this.range.toMs - start;
    if (span <= 0) return 1;
    return Math.min(1, Math.max(0, (lastMs - start) / span));
  }
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

export function formatMb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

export function formatDuration(seconds: number): string {
  const total = Math.round(seconds);
  if (total < 60) return `${Math.max(1, total)} s`;
  const m = Math.floor(total / 60);
  if (m < 60) return `${m} min ${total - m * 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}
