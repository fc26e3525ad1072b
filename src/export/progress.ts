// The export's progress line on a terminal: rows, MB, rows/s, and, since a range's rows come in
// time order, how far through the range it is and an ETA. Redrawn in place at most every
// REDRAW_MS; silent when the stream is not a TTY (a pipe, a file, CI), so scripts get no noise.
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

  constructor(
    private readonly out: ProgressStream,
    private readonly label: string,
    private readonly range: { fromMs: number; toMs: number },
    private readonly now: () => number = () => performance.now(),
  ) {
    this.active = out.isTTY === true;
    this.started = now();
  }

  /** After each chunk: rows and bytes so far, and the time of the last row read (ms, UTC). */
  update(rows: number, bytes: number, lastMs: number | undefined): void {
    if (!this.active) return;
    const t = this.now();
    if (t - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = t;
    this.out.write(`\r\x1b[K${this.line(rows, bytes, lastMs, t)}`);
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

  /** The progress text at time `t` (exported for tests through `line`). */
  line(rows: number, bytes: number, lastMs: number | undefined, t = this.now()): string {
    const seconds = Math.max((t - this.started) / 1000, 1e-3);
    const parts = [`${this.label}: ${formatCount(rows)} rows`, formatMb(bytes), `${formatCount(Math.round(rows / seconds))} rows/s`];
    const span = this.range.toMs - this.range.fromMs;
    if (lastMs !== undefined && span > 0) {
      const done = Math.min(1, Math.max(0, (lastMs - this.range.fromMs) / span));
      parts.push(`${Math.floor(done * 100)} %`);
      // Only once enough is done for the rate to mean something.
      if (done >= 0.01 && done < 1) parts.push(`ETA ${formatDuration((seconds * (1 - done)) / done)}`);
    }
    return parts.join(', ');
  }
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

export function formatMb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m} min ${Math.round(seconds - m * 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}
