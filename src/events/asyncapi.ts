// The AsyncAPI 3.0 document of the live events (GET /events as Server-Sent Events, GET /ws as a
// WebSocket), generated from the event-kind registry (event-kinds.ts): the same `data` schemas as
// OpenAPI's `x-event-kinds`, so that a client generator sees every event kind. Served as
// /asyncapi.json beside /openapi.json (src/routes/docs.ts).
import { Type, type TSchema } from '@sinclair/typebox';

import { plain } from '../http/openapi.js';
import { ALL_KINDS, EVENT_KINDS, SEQ_SCHEMA, SNAPSHOT_SCHEMA, withSeq, type EventKind } from './event-kinds.js';

type Json = Record<string, unknown>;

export interface AsyncApiOptions {
  prefix: string;
  version: string;
  /** Read-only mode: the kinds it serves only. */
  readOnly: boolean;
  authRequired: boolean;
}

const GAP = Type.Object(
  {
    reason: Type.String({ description: 'slow-consumer, catch-up-window, catch-up-limit, replay-stopped' }),
    dropped: Type.Optional(Type.Integer()),
    symbol: Type.Optional(Type.String()),
    from_msc: Type.Optional(Type.Integer()),
    to_msc: Type.Optional(Type.Integer()),
  },
  { title: 'Gap' },
);

/** The server's events besides the registry's kinds, with their `data`. */
const OTHER_EVENTS: ReadonlyArray<readonly [string, string, TSchema]> = [
  ['snapshot', 'the full current state of one account kind (order, position, account): first, and after every reconnect', SNAPSHOT_SCHEMA],
  ['gap', 'events were left out (a slow client, or a catch-up that could not reach back far enough)', GAP],
];

const CLIENT_OPS = ['subscribe', 'unsubscribe', 'ping', 'auth'] as const;

export function asyncApiDocument(options: AsyncApiOptions): Json {
  const kinds = ALL_KINDS.filter((k: EventKind) => !options.readOnly || EVENT_KINDS[k].readOnly);
  const events: Array<readonly [string, string, TSchema]> = [...kinds.map((k) => [k, EVENT_KINDS[k].summary, EVENT_KINDS[k].data] as const), ...OTHER_EVENTS];
  const messages: Json = {};
  const schemas: Json = {};
  for (const [name, summary, data] of events) {
    schemas[`${name}Data`] = plain(data);
    schemas[`${name}SseData`] = plain(withSeq(data));
    messages[`sse.${name}`] = {
      name,
      title: `${name} (SSE)`,
      summary,
      contentType: 'application/json',
      description: `An SSE event \`event: ${name}\`; the payload is its \`data:\` line, the kind's data with the connection's \`seq\` last.`,
      payload: { $ref: `#/components/schemas/${name}SseData` },
    };
    messages[`ws.${name}`] = {
      name,
      title: `${name} (WebSocket)`,
      summary,
      contentType: 'application/json',
      payload: {
        type: 'object',
        required: ['event', 'data', 'seq'],
        properties: {
          event: { const: name },
          event_id: { type: 'string', description: 'The position to resume from (`since`): ticks and deals' },
          data: { $ref: `#/components/schemas/${name}Data` },
          seq: plain(SEQ_SCHEMA),
        },
      },
    };
  }
  for (const op of CLIENT_OPS) {
    messages[`ws.client.${op}`] = {
      name: op,
      title: `${op} (client → server)`,
      contentType: 'application/json',
      description: 'See the description of GET /ws in the OpenAPI document for every member.',
      payload: { type: 'object', required: ['op'], properties: { op: { const: op }, id: { type: ['string', 'number'] } } },
    };
  }
  const refs = (prefix: string, names: readonly string[]): Json[] => names.map((n) => ({ $ref: `#/channels/${prefix}/messages/${n}` }));
  const names = events.map(([n]) => n);
  const channelMessages = (side: 'sse' | 'ws'): Json => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/messages/${side}.${n}` }]));
  const document: Json = {
    asyncapi: '3.0.0',
    info: {
      title: 'tradeapi live events',
      version: options.version,
      description: 'Live ticks, market depth and the account\'s life (deals, orders, positions, money) as Server-Sent Events (GET /events) and over a WebSocket (GET /ws). Generated from the gateway\'s event-kind registry.',
    },
    channels: {
      events: { address: `${options.prefix}/events`, title: 'GET /events (Server-Sent Events)', messages: channelMessages('sse') },
      ws: {
        address: `${options.prefix}/ws`,
        title: 'GET /ws (WebSocket)',
        messages: { ...channelMessages('ws'), ...Object.fromEntries(CLIENT_OPS.map((op) => [`client.${op}`, { $ref: `#/components/messages/ws.client.${op}` }])) },
      },
    },
    operations: {
      receiveEvents: { action: 'receive', channel: { $ref: '#/channels/events' }, messages: refs('events', names) },
      receiveWs: { action: 'receive', channel: { $ref: '#/channels/ws' }, messages: refs('ws', names) },
      sendWs: { action: 'send', channel: { $ref: '#/channels/ws' }, messages: refs('ws', CLIENT_OPS.map((op) => `client.${op}`)) },
    },
    components: { messages, schemas },
  };
  if (options.authRequired) {
    (document.components as Json).securitySchemes = { apiKey: { type: 'httpApiKey', name: 'X-API-Key', in: 'header' } };
  }
  return document;
}
