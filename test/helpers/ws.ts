// A WebSocket client for tests: the `ws` package's client (a real one, not ours), keeping every
// server message parsed, able to stop reading (as a slow client does), and telling a refused
// upgrade's HTTP answer.
import WebSocket from 'ws';

import type { TickData } from './sse.js';

export interface ServerMessage {
  event: string;
  data?: unknown;
  id?: string | number;
  problem?: { type: string; title: string; status: number; detail: string; instance: string };
  [member: string]: unknown;
}

export interface Refusal {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export class WsClient {
  readonly messages: ServerMessage[] = [];
  /** Resolves with the close code and reason once the connection is gone. */
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      this.messages.push(isBinary ? { event: 'binary', data } : (JSON.parse(data.toString('utf8')) as ServerMessage));
      this.wake();
    });
    this.closed = new Promise((resolve) => {
      ws.once('close', (code: number, reason: Buffer) => {
        resolve({ code, reason: reason.toString('utf8') });
        this.wake();
      });
    });
    ws.on('error', () => undefined);
  }

  /** Opens a connection; rejects with a Refusal when the server answers the upgrade over HTTP. */
  static open(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers, perMessageDeflate: false });
      const client = new WsClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { refusal: { status: res.statusCode ?? 0, headers: res.headers, body } })));
      });
      ws.once('error', (e) => reject(e));
    });
  }

  /** The HTTP answer to an upgrade the server refuses (fails when it accepts). */
  static async refused(url: string, headers: Record<string, string> = {}): Promise<Refusal> {
    try {
      const c = await WsClient.open(url, headers);
      c.close();
    } catch (e) {
      const refusal = (e as { refusal?: Refusal }).refusal;
      if (refusal) return refusal;
      throw e;
    }
    throw new Error(`the upgrade to ${url} was accepted`);
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  get ticks(): TickData[] {
    return this.messages.filter((m) => m.event === 'tick').map((m) => m.data as TickData);
  }

  of(event: string): ServerMessage[] {
    return this.messages.filter((m) => m.event === event);
  }

  /** Stops reading from the socket: the server's buffers fill. */
  pause(): void {
    this.ws.pause();
  }

  resume(): void {
    this.ws.resume();
  }

  close(): void {
    this.ws.terminate();
  }

  /** Waits until `cond` holds (checked on every message), or rejects after `ms` (a monotonic clock: not the wall clock, which may be set or moved). */
  async waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
    const deadline = performance.now() + ms;
    while (!cond()) {
      if (performance.now() > deadline) throw new Error(`timed out after ${Math.round(ms)} ms waiting for ${what}`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  }

  /** The next message of `event` after the ones already seen. */
  async next(event: string, ms = 10_000): Promise<ServerMessage> {
    const seen = this.messages.length;
    await this.waitFor(() => this.messages.slice(seen).some((m) => m.event === event), ms, `a ${event} message`);
    return this.messages.slice(seen).find((m) => m.event === event) as ServerMessage;
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
