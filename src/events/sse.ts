// One Server-Sent Events response: a long-lived body written through the adapter interface (so it
// works on node:http and uWS alike), with a bounded queue in front of the socket.
//
// Slow consumers never grow memory: events wait in a queue of at most `queueBytes`; the queue is
// handed to the transport in one write, and the next write waits for that one to be taken (the
// adapter resolves write() on drain). When an event does not fit, it is dropped, and so is every
// later one until the queue has drained completely; then one `gap` event (data
// {"reason":"slow-consumer","dropped":N}) takes the hole's place, and delivery resumes. A client
// that takes nothing at all for the send timeout is disconnected. So a client holds at most
// about twice `queueBytes` (the queue and the write in flight).
//
// Fan-out cost: a poll's ticks reach a stream as ONE pre-encoded buffer (pushEncoded), the same
// buffer for every client in the same state (event-session.ts), copied once with this stream's seq
// stamps and written in one write; heartbeats
// and the send timeout are checked by one shared interval (sweeper.ts), not timers per client.
//
// Every event's data is a JSON object, and the stream stamps each event it queues with the
// connection's `seq` (1, 2, 3…) as the object's last member, here where events are framed for one
// connection whatever their kind: a client that sees no number missing has missed nothing the
// server sent it (events the server dropped are not numbered; the `gap` that replaces them is).
// A shared buffer is never modified: its events are copied, stamped, into this stream's queue.
import type { HttpResponse } from '../http/adapter.js';
import { sweeper, type Sweepable } from './sweeper.js';

export interface SseOptions {
  /** Most bytes of events waiting for one client. */
  queueBytes: number;
  /** A comment line is sent when nothing else was for this long (keeps proxies from timing out). */
  heartbeatMs: number;
  /** A write the client has not taken within this closes the stream. */
  sendTimeoutMs: number;
}

export interface SseEvent {
  readonly event: string;
  readonly data: string;
  /** Omitted: the client keeps its last event id. */
  readonly id?: string | undefined;
}

export type CloseReason = 'client-gone' | 'send-timeout' | 'server-closing' | 'ended';

const encoder = new TextEncoder();

/** The wire form of an event as text; `data` must hold no line break (JSON.stringify output never does). */
export function frameText(e: SseEvent): string {
  return `${e.id === undefined ? '' : `id: ${e.id}\n`}event: ${e.event}\ndata: ${e.data}\n\n`;
}

/** The wire form of an event. */
export function frame(e: SseEvent): Uint8Array {
  return encoder.encode(frameText(e));
}

const HEARTBEAT = encoder.encode(':\n\n');

/** The most bytes `,"seq":N` adds to an event (N below 2^53: 16 digits). */
export const SEQ_BYTES = 23;
const CLOSE_BRACE = 0x7d;
const LF = 0x0a;

/**
 * The events of `bytes` (ending at `ends`, each `…data: {…}\n\n`) with `,"seq":N` before each data
 * object's closing brace, numbered from `first`. An event whose data is no object (none is) is
 * copied as it is and takes no number. Returns the stamped bytes, their event ends and the numbers used.
 */
export function stampSeq(bytes: Uint8Array, ends: readonly number[], first: number): { bytes: Buffer; ends: number[]; used: number } {
  const out = Buffer.allocUnsafe(bytes.byteLength + ends.length * SEQ_BYTES);
  const src = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stampedEnds: number[] = [];
  let at = 0;
  let from = 0;
  let used = 0;
  for (const end of ends) {
    const objectEnd = end - 3;
    if (objectEnd >= from && src[objectEnd] === CLOSE_BRACE && src[end - 2] === LF && src[end - 1] === LF) {
      at += src.copy(out, at, from, objectEnd);
      at += out.write(`,"seq":${first + used}}\n\n`, at, 'latin1');
      used++;
    } else at += src.copy(out, at, from, end);
    stampedEnds.push(at);
    from = end;
  }
  return { bytes: out.subarray(0, at), ends: stampedEnds, used };
}

export class SseStream implements Sweepable {
  private queue: Uint8Array[] = [];
  private queuedBytes = 0;
  /** Events dropped since the queue overflowed; > 0: dropping until it has drained. */
  private dropped = 0;
  private writing = false;
  private ending = false;
  private endReason: CloseReason = 'ended';
  private done = false;
  private lastSent = Date.now();
  /** When the write in flight was handed to the transport (the send timeout runs from there). */
  private writeStartedAt = 0;
  private swept = false;
  /** Waiters for queue room (pushWait: catch-up replay must not drop). */
  private roomWaiters: Array<() => void> = [];
  private resolveClosed!: (reason: CloseReason) => void;
  readonly closed: Promise<CloseReason>;
  /** Most bytes ever queued for this client (tests check the bound). */
  peakQueuedBytes = 0;
  /** The last `seq` stamped on an event of this stream. */
  private seq = 0;

  constructor(
    private readonly res: HttpResponse,
    private readonly options: SseOptions,
  ) {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    res.onAborted(() => this.finish('client-gone'));
  }

  get isClosed(): boolean {
    return this.done;
  }

  /** Sends the head and a first comment (so that the client sees the stream open at once). */
  open(headers: Readonly<Record<string, string>>): void {
    this.res.writeHead(200, headers);
    // retry: how long an EventSource waits before reconnecting (then with Last-Event-ID).
    this.enqueue(encoder.encode(': connected\nretry: 1000\n\n'));
    if (!this.done) {
      this.swept = true;
      sweeper.add(this, Math.min(this.options.heartbeatMs, this.options.sendTimeoutMs) / 4);
    }
  }

  /** The shared interval: a heartbeat after heartbeatMs of silence; the send timeout of a write in flight. */
  sweep(now: number): void {
    if (this.done) return;
    if (this.writing) {
      if (now - this.writeStartedAt >= this.options.sendTimeoutMs) {
        // The pending write rejects once the response is aborted; pump() ends there.
        this.finish('send-timeout');
        this.res.abort();
      }
    } else if (this.queue.length === 0 && !this.ending && now - this.lastSent >= this.options.heartbeatMs - 5) {
      this.enqueue(HEARTBEAT);
    }
  }

  /** Queues a live event; false when it was dropped (the queue is full or still draining after an overflow). */
  push(e: SseEvent): boolean {
    const bytes = frame(e);
    return this.pushEncoded(bytes, [bytes.byteLength]);
  }

  /**
   * Queues events already encoded into one buffer (possibly shared with other streams: it is never
   * modified); `ends[i]` is where event i ends in it. As many whole events as fit are queued (as one
   * piece, without a copy) and the rest dropped, exactly as if pushed one by one. False when any
   * was dropped.
   */
  pushEncoded(bytes: Uint8Array, ends: readonly number[]): boolean {
    if (this.done || this.ending || ends.length === 0) return false;
    if (this.dropped > 0) {
      this.dropped += ends.length;
      return false;
    }
    // Room is judged with each event's stamp at its largest, so that the bound holds stamped.
    const room = this.options.queueBytes - this.queuedBytes;
    let fit = 0;
    while (fit < ends.length && (ends[fit] as number) + (fit + 1) * SEQ_BYTES <= room) fit++;
    if (fit > 0) this.enqueueEvents(bytes, fit === ends.length ? ends : ends.slice(0, fit));
    this.dropped += ends.length - fit;
    return fit === ends.length;
  }

  /** Queues an event, waiting for room instead of dropping (catch-up from history). False once closed. */
  pushWait(e: SseEvent): Promise<boolean> {
    return this.pushWaitEncoded(frame(e));
  }

  /**
   * Queues events already encoded (a replay's batch; `ends` as in pushEncoded), waiting for room
   * instead of dropping: the queue may then hold one such batch beyond its bound, never more.
   * False once closed.
   */
  async pushWaitEncoded(bytes: Uint8Array, ends: readonly number[] = [bytes.byteLength]): Promise<boolean> {
    while (!this.done && !this.ending && (this.dropped > 0 || (this.queuedBytes > 0 && this.queuedBytes + bytes.byteLength > this.options.queueBytes))) {
      await new Promise<void>((r) => this.roomWaiters.push(r));
    }
    if (this.done || this.ending) return false;
    this.enqueueEvents(bytes, ends);
    return true;
  }

  /**
   * Queues a small control event whatever the queue holds, at once (never dropped, never waiting):
   * a marker that must go out exactly between what was queued before and what comes after.
   */
  pushControl(e: SseEvent): boolean {
    if (this.done || this.ending) return false;
    const bytes = frame(e);
    this.enqueueEvents(bytes, [bytes.byteLength]);
    return true;
  }

  /** Ends the stream cleanly once what is queued has been written (server shutdown). */
  end(reason: CloseReason = 'server-closing'): void {
    if (this.done || this.ending) return;
    this.ending = true;
    this.endReason = reason;
    if (!this.writing) this.endNow();
  }

  /** Queues whole events, each stamped with the next `seq`. */
  private enqueueEvents(bytes: Uint8Array, ends: readonly number[]): void {
    const stamped = stampSeq(bytes, ends, this.seq + 1);
    this.seq += stamped.used;
    this.enqueue(stamped.bytes);
  }

  private enqueue(bytes: Uint8Array): void {
    this.queue.push(bytes);
    this.queuedBytes += bytes.byteLength;
    if (this.queuedBytes > this.peakQueuedBytes) this.peakQueuedBytes = this.queuedBytes;
    if (!this.writing) void this.pump();
  }

  private async pump(): Promise<void> {
    this.writing = true;
    try {
      while (!this.done) {
        if (this.queue.length === 0) {
          if (this.dropped === 0 || this.ending) break;
          // Drained after an overflow: the gap goes exactly where the hole is.
          const unstamped = frame({ event: 'gap', data: JSON.stringify({ reason: 'slow-consumer', dropped: this.dropped }) });
          const gap = stampSeq(unstamped, [unstamped.byteLength], this.seq + 1);
          this.seq += gap.used;
          this.dropped = 0;
          this.queue.push(gap.bytes);
          this.queuedBytes += gap.bytes.byteLength;
        }
        const batch = this.queue.length === 1 ? (this.queue[0] as Uint8Array) : Buffer.concat(this.queue, this.queuedBytes);
        this.queue = [];
        this.queuedBytes = 0;
        for (const wake of this.roomWaiters.splice(0)) wake();
        await this.write(batch);
        this.lastSent = Date.now();
      }
    } catch {
      // the client went away or timed out: finish() has run or runs now
      this.finish(this.res.aborted ? 'client-gone' : 'send-timeout');
      return;
    } finally {
      this.writing = false;
    }
    if (this.ending && !this.done) this.endNow();
  }

  private write(chunk: Uint8Array): Promise<void> {
    this.writeStartedAt = Date.now();
    return this.res.write(chunk);
  }

  private endNow(): void {
    this.res.end();
    this.finish(this.endReason);
  }

  private finish(reason: CloseReason): void {
    if (this.done) return;
    this.done = true;
    if (this.swept) sweeper.delete(this);
    this.queue = [];
    this.queuedBytes = 0;
    for (const wake of this.roomWaiters.splice(0)) wake();
    this.resolveClosed(reason);
  }
}
