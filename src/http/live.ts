// What the request pipeline asks of the live-events room for the two replies that outlive their
// request: an event stream (text/event-stream, GET /events) and a WebSocket (GET /ws). The pipeline
// authenticates, counts and routes them like any request; what happens once they are open is the
// events room's, which implements LiveChannels (src/events/channels.ts) and is handed to the
// dispatcher at wiring time (src/server.ts). The pipeline never imports it.
import type { HttpRequest, HttpResponse } from './adapter.js';
import type { KeyCheck } from './policy.js';
import type { LiveReplies } from './route.js';

/** A live client's place (an event slot, or one among the sockets still authenticating). */
export interface LivePlace {
  /** The socket's key proved right: its place becomes an event slot (throws a ProblemError when none is free). */
  admit(): void;
  /** Gives the place back (idempotent). */
  release(): void;
}

/** One live request, as the pipeline hands it on. */
export interface LiveCall {
  readonly req: HttpRequest;
  readonly res: HttpResponse;
  /** The headers every answer to this request carries (request id, CORS, rate limit). */
  readonly headers: Readonly<Record<string, string>>;
  /** The request id, for the logs. */
  readonly id: string;
  /** The place taken before the handler ran (none for a HEAD). */
  readonly place: LivePlace | undefined;
  readonly keyCheck: KeyCheck | undefined;
  /** A WebSocket opened without X-API-Key: its first message must carry the key. */
  readonly authByMessage: boolean;
  /** Counts a history catch-up as one request of the client's allowance (read-only mode). */
  readonly chargeCatchUp: (() => Promise<void>) | undefined;
}

export interface LiveChannels {
  /** Takes a live client's place before its handler runs; throws a ProblemError (503) when none is left. */
  take(authByMessage: boolean): LivePlace;
  /** Serves an event-stream reply until the client leaves; resolves with the status to log. */
  stream(reply: LiveReplies[keyof LiveReplies], call: LiveCall): Promise<number>;
  /** Upgrades the request to a WebSocket of live events and serves it until it closes. */
  socket(call: LiveCall): Promise<number>;
}
