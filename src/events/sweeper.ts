// One interval for every open event stream, instead of a heartbeat interval and a send-timeout
// timer per client (1 000 clients polled 10 times a second made 10 000 timers a second, one per
// write). Each stream asks for a resolution (a fraction of its shortest deadline); the interval
// runs at the finest one asked for while any stream is registered, and not at all otherwise.
export interface Sweepable {
  /** Called every period with the time (Date.now()); checks the stream's own deadlines. */
  sweep(now: number): void;
}

export class Sweeper {
  private readonly items = new Map<Sweepable, number>();
  private timer: NodeJS.Timeout | undefined;
  private periodMs = Infinity;

  /** Registers `item`, checked at least every `resolutionMs` (clamped to 10 ms … 1 s). */
  add(item: Sweepable, resolutionMs: number): void {
    const period = Math.max(10, Math.min(1_000, Math.floor(resolutionMs)));
    this.items.set(item, period);
    if (period < this.periodMs) this.restart(period);
  }

  delete(item: Sweepable): void {
    const period = this.items.get(item);
    if (period === undefined) return;
    this.items.delete(item);
    if (this.items.size === 0) this.restart(Infinity);
    else if (period === this.periodMs) this.restart(Math.min(...this.items.values()));
  }

  get size(): number {
    return this.items.size;
  }

  private restart(period: number): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.periodMs = period;
    if (!Number.isFinite(period)) return;
    this.timer = setInterval(() => {
      const now = Date.now();
      for (const item of this.items.keys()) {
        try {
          item.sweep(now);
        } catch {
          // one stream's failure is its own
        }
      }
    }, period);
    this.timer.unref(); // open streams keep the server up, not this interval
  }
}

/** The process's sweeper (event streams of every server in the process share it). */
export const sweeper = new Sweeper();
