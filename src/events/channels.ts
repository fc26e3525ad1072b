// The live-events room's side of the request pipeline (src/http/live.ts): what a GET /events
// stream and a /ws WebSocket do once the pipeline has authenticated, counted and routed them.
// Also declares, by merging into the pipeline's interfaces, what this room adds to every handler
// (the hub) and the reply an event stream is, so that the pipeline's types name no room above it.
import type { Logger } from 'pino';

import type { Config } from '../config/index.js';
import type { LiveCall, LiveChannels, LivePlace } from '../http/live.js';
import { ProblemError } from '../http/problem.js';
import type { Terminal } from '../terminal/terminal.js';
import type { EventHub } from './hub.js';
import type { EventSession } from './session.js';
import { EventSlot } from './slots.js';
import { SseStream } from './sse.js';
import { WsSession } from './ws-session.js';

declare module '../http/route.js' {
  interface Services {
    /** The live-events hub: the feeds that event streams and WebSockets join. */
    readonly events: EventHub;
  }
  interface LiveReplies {
    /** A text/event-stream that lasts until the client leaves (GET /events). */
    events: { kind: 'events'; session: EventSession };
  }
}

export class EventChannels implements LiveChannels {
  constructor(
    private readonly hub: EventHub,
    private readonly terminal: Terminal,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  take(authByMessage: boolean): LivePlace {
    return EventSlot.take(this.hub, authByMessage);
  }

  async stream(reply: { kind: 'events'; session: EventSession }, call: LiveCall): Promise<number> {
    const { req, res, id } = call;
    // Proxies must pass events on as they come (nginx buffers unless told not to).
    const headers = { ...call.headers, 'content-type': 'text/event-stream; charset=utf-8', 'x-accel-buffering': 'no' };
    if (req.method === 'HEAD') {
      reply.session.close();
      res.writeHead(200, headers);
      res.end();
      return 200;
    }
    const { sendTimeoutMs } = this.config;
    const { queueBytes, heartbeatMs } = this.config.events;
    const sse = new SseStream(res, { queueBytes, heartbeatMs, sendTimeoutMs });
    this.hub.track(sse);
    sse.open(headers);
    try {
      const reason = await reply.session.run(sse);
      if (reason === 'send-timeout') this.logger.warn({ id, path: req.path, timeoutMs: sendTimeoutMs }, 'event stream closed: the client read nothing for the send timeout');
    } catch (e) {
      // The catch-up from history failed (the terminal went away, say): end the stream, so
      // that the client reconnects with its Last-Event-ID and is caught up then.
      this.logger.warn({ id, err: e instanceof Error ? e.message : String(e) }, 'event stream ended: catching up from history failed');
      sse.end('ended');
    }
    return 200;
  }

  async socket(call: LiveCall): Promise<number> {
    const { req, res, id } = call;
    if (!res.upgrade) {
      throw new ProblemError('upgradeRequired', `${req.path} is a WebSocket endpoint: open it with a WebSocket client (a GET with Upgrade: websocket)`, {
        upgrade: 'websocket',
      });
    }
    const { sendTimeoutMs } = this.config;
    const { maxSymbols, queueBytes, catchupMs, catchupTicks, authTimeoutMs } = this.config.events;
    const session = new WsSession(this.hub, this.terminal, {
      maxSymbols,
      queueBytes,
      sendTimeoutMs,
      readOnly: this.config.readOnly !== undefined,
      keyCheck: call.keyCheck,
      authenticatedByHeader: !call.authByMessage,
      authTimeoutMs,
      admit: () => call.place?.admit(),
      chargeCatchUp: call.chargeCatchUp,
      instance: req.path,
      // Live ticks held during a `since` catch-up: as for GET /events, what the queue would take.
      catchup: { catchupMs, catchupTicks, pendingTicks: Math.max(1_000, Math.floor(queueBytes / 64)) },
      clock: this.config,
      onUnexpectedError: (err) => this.logger.error({ id, err }, 'unexpected error in a websocket message'),
    });
    res.onAborted(() => session.abandon());
    this.hub.trackSocket(session);
    res.upgrade((connection) => session.open(connection));
    const reason = await session.closed;
    if (!session.opened) return 499; // the client left during the handshake
    if (reason === 'send-timeout') this.logger.warn({ id, path: req.path, timeoutMs: sendTimeoutMs }, 'websocket closed: the client read nothing for the send timeout');
    return 101;
  }
}
