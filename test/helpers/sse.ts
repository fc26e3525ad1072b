// An SSE client for tests: node:http underneath (so a test can stop reading, as a slow client
// does), eventsource-parser for the wire format (a real parser, not ours).
import http from 'node:http';

import { createParser } from 'eventsource-parser';

export interface SseMessage {
  event: string;
  id: string | undefined;
  data: string;
}

export interface TickData {
  symbol: string;
  time: number;
  bid: number;
  ask: number;
  last: number;
  volume: number;
  time_msc: number;
  flags: number;
  volume_real: number;
}

export class SseClient {
  readonly messages: SseMessage[] = [];
  readonly comments: string[] = [];
  /** The body of a non-200 answer. */
  body = '';
  /** Resolves when the response ends: 'end' for a clean end, 'error' when the connection broke. */
  readonly ended: Promise<'end' | 'error'>;
  private waiters: Array<() => void> = [];
  private parsedTicks: Array<TickData & { id: string | undefined }> = [];
  private parsedUpTo = 0;
  private resolveEnded!: (how: 'end' | 'error') => void;

  private constructor(
    private readonly req: http.ClientRequest,
    readonly res: http.IncomingMessage,
  ) {
    this.ended = new Promise((r) => (this.resolveEnded = r));
    const parser = createParser({
      onEvent: (e) => {
        this.messages.push({ event: e.event ?? 'message', id: e.id, data: e.data });
        this.wake();
      },
      onComment: (c) => {
        this.comments.push(c);
        this.wake();
      },
    });
    res.setEncoding('utf8');
    const ok = res.statusCode === 200;
    res.on('data', (chunk: string) => {
      if (ok) parser.feed(chunk);
      else this.body += chunk;
    });
    res.on('end', () => this.finish('end'));
    res.on('error', () => this.finish('error'));
    res.on('aborted', () => this.finish('error'));
    req.on('error', () => this.finish('error'));
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } });
      req.once('response', (res) => resolve(new SseClient(req, res)));
      req.once('error', reject);
    });
  }

  get status(): number {
    return this.res.statusCode ?? 0;
  }

  /**
   * The tick events so far, each parsed once: a predicate given to waitFor runs on every message,
   * and re-parsing them all there made a 10 000-tick wait quadratic (seconds of a starved event loop
   * on a loaded machine, with the gateway under test in the same process).
   */
  get ticks(): ReadonlyArray<TickData & { id: string | undefined }> {
    for (; this.parsedUpTo < this.messages.length; this.parsedUpTo++) {
      const m = this.messages[this.parsedUpTo] as SseMessage;
      if (m.event === 'tick') this.parsedTicks.push({ ...(JSON.parse(m.data) as TickData), id: m.id });
    }
    return this.parsedTicks;
  }

  pause(): void {
    this.res.pause();
  }

  resume(): void {
    this.res.resume();
  }

  /** Waits until `pred` holds (checked on every message), or rejects after `timeoutMs` (a monotonic clock: not the wall clock, which may be set or moved). */
  async waitFor(pred: () => boolean, timeoutMs: number, what = 'condition'): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!pred()) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${this.messages.length} events so far)`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  }

  close(): void {
    this.req.destroy();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  private finish(how: 'end' | 'error'): void {
    this.resolveEnded(how);
    this.wake();
  }
}

/** The problem body of a refused stream. */
export function problemOf(client: SseClient): { type: string; status: number; detail: string } {
  return JSON.parse(client.body) as { type: string; status: number; detail: string };
}
