// The place one live-event client holds: an event slot (TRADEAPI_MAX_EVENT_CLIENTS, shared by
// GET /events streams and /ws connections), or, for a WebSocket opened without X-API-Key on a
// server that asks for a key, a place in the small separate pool of sockets still authenticating
// (TRADEAPI_EVENTS_MAX_AUTHENTICATING). Such a socket moves to an event slot only once its
// {"op":"auth"} key is right (admit), and is closed at TRADEAPI_EVENTS_AUTH_TIMEOUT_MS otherwise:
// whoever lacks the key can fill that pool at most, never the slots of the clients that have it
// (issue 22).
import type { EventHub } from './hub.js';
import { ProblemError } from '../http/problem.js';
import { STREAM_RETRY_AFTER_S, type StreamGate } from '../http/streams.js';

export class EventSlot {
  private constructor(
    private readonly hub: EventHub,
    private held: () => void,
    private authenticating: boolean,
  ) {}

  /** An event slot, or (`authenticating`) a place in the pool of sockets still authenticating; a 503 problem when full. */
  static take(hub: EventHub, authenticating: boolean): EventSlot {
    return new EventSlot(hub, authenticating ? acquire(hub.authenticating, authenticatingFull) : acquire(hub.gate, eventSlotsFull), authenticating);
  }

  /** The key is right: the pool's place is exchanged for an event slot (kept when none is free: the caller closes). */
  admit(): void {
    if (!this.authenticating) return;
    const slot = acquire(this.hub.gate, eventSlotsFull);
    this.held();
    this.held = slot;
    this.authenticating = false;
  }

  /** Gives back what is held (idempotent). */
  readonly release = (): void => this.held();
}

function acquire(gate: StreamGate, full: (limit: number) => string): () => void {
  const release = gate.tryAcquire();
  if (release) return release;
  throw new ProblemError('tooManyEventClients', full(gate.limit), { 'retry-after': String(STREAM_RETRY_AFTER_S) });
}

const eventSlotsFull = (limit: number): string =>
  `${limit} event streams are open, the most this server serves at once (TRADEAPI_MAX_EVENT_CLIENTS); retry in ${STREAM_RETRY_AFTER_S} s`;

const authenticatingFull = (limit: number): string =>
  `${limit} WebSockets opened without a key are waiting to authenticate, the most this server holds at once (TRADEAPI_EVENTS_MAX_AUTHENTICATING); ` +
  `send the key as the upgrade's X-API-Key header, or retry in ${STREAM_RETRY_AFTER_S} s`;
