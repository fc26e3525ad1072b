// A delaying TCP proxy: the RTT half of a shaped link (this kernel has `tc tbf` but not `netem`).
// Each direction's bytes are held for `delayMs` (RTT/2) from the moment they arrive before they are
// written on, in order; at most `maxBufferedBytes` wait per direction (the reading side is paused
// above that, resumed below half). It counts the bytes it forwards each way. It knows nothing of
// what it carries: the bridge protocol's encoding is not its business.
import net from 'node:net';

const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/** One direction: bytes from `src` to `dst`, each chunk released `delayMs` after it arrived. */
export class DelayPipe {
  private readonly queue: { at: number; chunk: Buffer }[] = [];
  private head = 0;
  private queued = 0;
  private pending: 'timeout' | undefined;
  private blocked = false;
  private ended = false;
  private closed = false;
  /** Bytes written on to `dst`. */
  forwarded = 0;
  /** The most bytes that waited at once. */
  peakQueued = 0;

  constructor(
    private readonly src: net.Socket,
    private readonly dst: net.Socket,
    readonly delayMs: number,
    readonly maxBufferedBytes: number,
  ) {
    src.on('data', (chunk: Buffer) => {
      this.queue.push({ at: nowMs() + this.delayMs, chunk });
      this.queued += chunk.length;
      if (this.queued > this.peakQueued) this.peakQueued = this.queued;
      if (this.queued >= this.maxBufferedBytes) src.pause();
      this.schedule();
    });
    // The source's end (or close) is passed on once what it sent before has been delivered.
    const ended = (): void => {
      this.ended = true;
      this.schedule();
    };
    src.on('end', ended);
    src.on('close', ended);
    dst.on('drain', () => {
      this.blocked = false;
      this.schedule();
    });
  }

  /** Bytes waiting now. */
  get waiting(): number {
    return this.queued;
  }

  private schedule(): void {
    if (this.pending !== undefined || this.blocked || this.closed) return;
    if (this.head >= this.queue.length) {
      if (this.ended) {
        this.closed = true;
        this.dst.end();
      }
      return;
    }
    const wait = this.queue[this.head]!.at - nowMs();
    if (wait <= 0) {
      this.flush();
      return;
    }
    // Node's timers have a 1 ms granularity: whole milliseconds are waited on a timer, what is left
    // below 1 ms by blocking the thread (Atomics.wait: no CPU spent, unlike spinning on setImmediate,
    // which cost a quarter of a core on a bulk transfer and competed with what is measured). The
    // socket keeps receiving into the kernel meanwhile; the event loop reads it right after.
    if (wait >= 1) {
      this.pending = 'timeout';
      setTimeout(() => {
        this.pending = undefined;
        this.schedule();
      }, Math.floor(wait));
    } else {
      Atomics.wait(SLEEPER, 0, 0, wait);
      this.flush();
    }
  }

  private flush(): void {
    if (this.dst.destroyed || this.dst.writableEnded) {
      this.queue.length = 0;
      this.head = 0;
      this.queued = 0;
      return;
    }
    const now = nowMs();
    while (this.head < this.queue.length && this.queue[this.head]!.at <= now) {
      const { chunk } = this.queue[this.head]!;
      this.queue[this.head] = undefined as never;
      this.head++;
      this.queued -= chunk.length;
      this.forwarded += chunk.length;
      if (!this.dst.write(chunk)) {
        this.blocked = true;
        break;
      }
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    if (this.src.isPaused() && this.queued < this.maxBufferedBytes / 2) this.src.resume();
    this.schedule();
  }
}

export interface DelayProxyOptions {
  readonly listenHost?: string;
  /** 0: any free port. */
  readonly listenPort?: number;
  readonly targetHost: string;
  readonly targetPort: number;
  /** One-way delay, ms (RTT/2). */
  readonly delayMs: number;
  /** Per direction and connection. Default 8 MiB. */
  readonly maxBufferedBytes?: number;
}

export interface DelayProxy {
  readonly port: number;
  /** Bytes forwarded client → target and target → client, over all connections so far. */
  bytes(): { up: number; down: number };
  /** The most bytes that waited in one direction of one connection. */
  peakQueued(): number;
  close(): Promise<void>;
}

export async function startDelayProxy(options: DelayProxyOptions): Promise<DelayProxy> {
  const max = options.maxBufferedBytes ?? 8 * 1024 * 1024;
  const pipes: { up: DelayPipe; down: DelayPipe }[] = [];
  const sockets = new Set<net.Socket>();
  let doneUp = 0;
  let doneDown = 0;
  let peak = 0;
  const server = net.createServer({ noDelay: true, allowHalfOpen: true }, (client) => {
    client.pause();
    const target = net.connect({ host: options.targetHost, port: options.targetPort, noDelay: true, allowHalfOpen: true });
    sockets.add(client);
    sockets.add(target);
    const pair = { up: new DelayPipe(client, target, options.delayMs, max), down: new DelayPipe(target, client, options.delayMs, max) };
    pipes.push(pair);
    target.once('connect', () => client.resume());
    let gone = 0;
    const finish = (): void => {
      if (++gone < 2) return;
      const i = pipes.indexOf(pair);
      if (i >= 0) {
        pipes.splice(i, 1);
        doneUp += pair.up.forwarded;
        doneDown += pair.down.forwarded;
        peak = Math.max(peak, pair.up.peakQueued, pair.down.peakQueued);
      }
    };
    for (const [a, b] of [
      [client, target],
      [target, client],
    ] as const) {
      // An error tears both down; a clean close lets the other direction deliver what waits.
      a.on('error', () => b.destroy());
      a.on('close', () => {
        sockets.delete(a);
        finish();
      });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listenPort ?? 0, options.listenHost ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : 0,
    bytes: () => ({ up: doneUp + pipes.reduce((s, p) => s + p.up.forwarded, 0), down: doneDown + pipes.reduce((s, p) => s + p.down.forwarded, 0) }),
    peakQueued: () => Math.max(peak, ...pipes.map((p) => Math.max(p.up.peakQueued, p.down.peakQueued))),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// The self-check's far end: a TCP server that, per connection, either sends N bytes ('S' + u64 LE)
// or echoes every byte back ('E'). Runs inside the bench's network namespace as a child process.

export function startLinkPeer(host: string, port: number): Promise<net.Server> {
  const block = Buffer.alloc(1024 * 1024, 0x5a);
  const server = net.createServer({ noDelay: true }, (socket) => {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      if (head[0] === 0x45 /* E */) {
        socket.off('data', onData);
        if (head.length > 1) socket.write(head.subarray(1));
        socket.pipe(socket);
        return;
      }
      if (head[0] !== 0x53 /* S */ || head.length < 9) return;
      socket.off('data', onData);
      let left = Number(head.readBigUInt64LE(1));
      const pump = (): void => {
        while (left > 0) {
          const n = Math.min(left, block.length);
          left -= n;
          if (!socket.write(n === block.length ? block : block.subarray(0, n))) {
            socket.once('drain', pump);
            return;
          }
        }
        socket.end();
      };
      pump();
    };
    socket.on('data', onData);
    socket.on('error', () => socket.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/** Receives `bytes` from a link peer; returns the seconds from asking to the last byte. */
export function timeTransfer(host: string, port: number, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, noDelay: true });
    let got = 0;
    let started = 0;
    socket.once('connect', () => {
      const ask = Buffer.alloc(9);
      ask[0] = 0x53;
      ask.writeBigUInt64LE(BigInt(bytes), 1);
      started = nowMs();
      socket.write(ask);
    });
    socket.on('data', (chunk: Buffer) => {
      got += chunk.length;
    });
    socket.once('end', () => {
      const s = (nowMs() - started) / 1000;
      socket.destroy();
      if (got !== bytes) reject(new Error(`transfer: got ${got} bytes, expected ${bytes}`));
      else resolve(s);
    });
    socket.once('error', reject);
  });
}

/** Round trips of one byte through an echoing link peer; returns each RTT in ms (after one warm-up). */
export function pingPong(host: string, port: number, rounds: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, noDelay: true });
    const rtts: number[] = [];
    let sent = 0;
    let warm = false;
    const ping = (): void => {
      sent = nowMs();
      socket.write(Buffer.from([0x2e]));
    };
    socket.once('connect', () => {
      socket.write(Buffer.from([0x45])); // echo mode
      ping();
    });
    socket.on('data', (chunk: Buffer) => {
      for (let i = 0; i < chunk.length; i++) {
        if (warm) rtts.push(nowMs() - sent);
        warm = true;
        if (rtts.length >= rounds) {
          socket.destroy();
          resolve(rtts);
          return;
        }
        ping();
      }
    });
    socket.once('error', reject);
  });
}

if (process.argv[2] === '--link-peer' && process.argv[1] !== undefined && /delay-proxy\.[jt]s$/.test(process.argv[1])) {
  const [host, port] = (process.argv[3] ?? '').split(':');
  startLinkPeer(host ?? '0.0.0.0', Number(port)).then(
    () => process.stdout.write(`{"event": "listening", "at": "${process.argv[3]}"}\n`),
    (e: unknown) => {
      process.stderr.write(`link peer: ${String(e)}\n`);
      process.exit(1);
    },
  );
}
