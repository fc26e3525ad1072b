// What a route is: the single description that drives routing, validation, the handler call,
// content negotiation and the OpenAPI document.
import type { ParquetCompression } from '../encode/index.js';
import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';

import type { Format, Schema } from '../encode/types.js';
import type { Config } from '../config/index.js';
import type { ServiceMetrics } from '../metrics.js';
import type { BarChunk, RateChunk, Series, TickChunk } from '../terminal/series.js';
import type { Terminal } from '../terminal/terminal.js';
import { Param } from './params.js';
import type { ProblemKind } from './problem.js';
import type { SubscriptionRegistry } from '../terminal/subscriptions.js';

/**
 * What the service holds for the lifetime of the server, handed to every handler. A room above
 * http adds its own members by declaration merging (the live-events room adds `events`:
 * src/events/channels.ts), so that this file names no room above it.
 */
export interface Services {
  readonly terminal: Terminal;
  readonly subscriptions: SubscriptionRegistry;
  readonly config: Config;
  /** What GET /metrics reports; the dispatcher records requests in it. */
  readonly metrics: ServiceMetrics;
}

export interface HandlerContext<Q, P, B> extends Services {
  readonly query: Q;
  readonly params: P;
  readonly body: B;
  /** A request header by lower-case name (for the few routes that read one, e.g. Last-Event-ID). */
  header(name: string): string | undefined;
  /**
   * Counts `points` (default 1) more requests against this client's rate limit (read-only mode;
   * nothing elsewhere), all or none: for a request that carries several operations (MCP tool calls).
   * Past the limit it counts none, gives back the request's own count too (a request refused whole
   * costs nothing), and throws the 429 problem. Absent where no request is being served (the
   * OpenAPI examples).
   */
  charge?(points?: number): Promise<void>;
}

/**
 * Replies that a room above http serves (declaration merging: the live-events room adds its event
 * stream in src/events/channels.ts); the dispatcher hands them to LiveChannels (live.ts).
 */
export interface LiveReplies {}

/** What a handler returns; the dispatcher encodes it in the negotiated format. */
export type Reply =
  | { kind: 'object'; value: object; columns: Schema }
  | { kind: 'records'; rows: readonly object[]; columns: Schema }
  /**
   * A series; `symbols` for a multi-symbol one (src/terminal/merged-series.ts): its chunks carry a
   * `symbol` Uint16Array of indices into these names, and every format a `symbol` field.
   */
  | { kind: 'series'; which: 'ticks'; series: Series<TickChunk>; compression?: ParquetCompression | undefined; symbols?: readonly string[] | undefined }
  | { kind: 'series'; which: 'rates'; series: Series<RateChunk>; compression?: ParquetCompression | undefined; symbols?: readonly string[] | undefined }
  | { kind: 'series'; which: 'bars'; series: Series<BarChunk>; compression?: ParquetCompression | undefined; symbols?: readonly string[] | undefined }
  /** JSON only, any status (health). */
  | { kind: 'json'; status: number; value: unknown }
  /** Fixed bytes (docs assets, the OpenAPI document). */
  | { kind: 'bytes'; contentType: string; body: Uint8Array; headers?: Readonly<Record<string, string>> }
  /** A live reply served by the live-events room: a text/event-stream (GET /events). */
  | LiveReplies[keyof LiveReplies]
  /** A WebSocket of live events (GET /ws): the dispatcher upgrades the connection. */
  | { kind: 'websocket' }
  /** A Fetch API Response sent as it is: status, headers, body streamed (the MCP endpoint, POST /mcp). */
  | { kind: 'web'; response: Response };

export type ResponseKind = 'object' | 'records' | 'series' | 'json' | 'bytes' | 'events' | 'websocket' | 'web';

/** Formats each kind of response can be encoded in, server preference first. */
export const FormatsByKind: Readonly<Record<ResponseKind, readonly Format[]>> = {
  object: ['json', 'parquet'],
  records: ['json', 'parquet'],
  series: ['json', 'parquet', 'arrow', 'packed'],
  json: [],
  bytes: [],
  events: [],
  websocket: [],
  web: [],
};

export interface ResponseSpec {
  readonly kind: ResponseKind;
  readonly description: string;
  /** JSON shape for OpenAPI (rows of a table: the row schema wrapped in an array). */
  readonly schema?: TSchema;
  /** For 'bytes' responses, the media type documented. */
  readonly contentType?: string;
  /** For 'events' responses: each event kind's `data` schema (OpenAPI's `x-event-kinds`), from the event-kind registry. */
  readonly eventSchemas?: Readonly<Record<string, TSchema>>;
}

/** An optional request header a route reads, documented as an OpenAPI header parameter. */
export interface HeaderParam {
  readonly name: string;
  readonly description: string;
  readonly maxLength: number;
  readonly example?: string;
}

export interface RouteSpec<Q extends TProperties, P extends TProperties, B extends TSchema> {
  readonly method: 'GET' | 'POST';
  /** Path below the prefix, params in braces: /symbols/{symbol}. */
  readonly path: string;
  /**
   * The MetaTrader5 function this route mirrors (`symbol_info_tick`): its OpenAPI operationId and
   * its MCP tool name. Without one, both are derived from the method and path (operationName).
   */
  readonly mt5?: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  /** Changes terminal state (select, subscribe, order check): left out in read-only mode. */
  readonly operational: boolean;
  /**
   * Served in read-only mode. Default: not operational. False for a read that can only succeed
   * after an operational call (GET /market-book/{symbol} needs a subscription), and for what the
   * spec reserves to the full variant (/calc/margin, /calc/profit).
   */
  readonly readOnly?: boolean;
  /** No API key needed (only /health). */
  readonly public?: boolean;
  /** Also takes the key as `Authorization: Bearer <key>` (POST /mcp: MCP clients may send only that). */
  readonly bearerKey?: boolean;
  /** Calls the terminal (default true): OpenAPI then lists its 502/503 terminal problems. */
  readonly terminal?: boolean;
  /** Not listed in OpenAPI (docs assets). */
  readonly hidden?: boolean;
  /**
   * An MCP tool though not a data route (a 'json' answer, e.g. /server-time, /store/coverage): every
   * data route is one already (src/routes/mcp-tools.ts). Only where the route is in the table: a
   * route served under a condition (/store/* with TRADEAPI_STORE) is a tool under that condition.
   */
  readonly mcpTool?: boolean;
  readonly query?: Q;
  readonly params?: P;
  /** Request headers the handler reads (for OpenAPI; the handler validates them itself). */
  readonly headers?: readonly HeaderParam[];
  readonly body?: B;
  readonly response: ResponseSpec;
  /** Problems this route can answer beyond the common ones, for OpenAPI. */
  readonly errors?: readonly ProblemKind[];
  handler(ctx: HandlerContext<Static<TObject<Q>>, Static<TObject<P>>, Static<B>>): Promise<Reply>;
}

/** A route with its types erased, as the router stores it. */
export interface Route {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** The MetaTrader5 function mirrored, else the name derived from method and path (operationName). */
  readonly operationId: string;
  readonly mt5: string | undefined;
  readonly summary: string;
  readonly description: string | undefined;
  readonly tags: readonly string[];
  readonly operational: boolean;
  readonly readOnly: boolean;
  readonly public: boolean;
  readonly bearerKey: boolean;
  readonly terminal: boolean;
  readonly hidden: boolean;
  readonly mcpTool: boolean;
  readonly query: TObject;
  readonly params: TObject;
  readonly headers: readonly HeaderParam[];
  readonly body: TSchema | undefined;
  readonly response: ResponseSpec;
  readonly formats: readonly Format[];
  readonly errors: readonly ProblemKind[];
  handler(ctx: HandlerContext<Record<string, unknown>, Record<string, unknown>, unknown>): Promise<Reply>;
}

/** Keeps the handler's parameter types tied to its schemas, then erases them for the table. */
export function defineRoute<Q extends TProperties = {}, P extends TProperties = {}, B extends TSchema = TSchema>(
  spec: RouteSpec<Q, P, B>,
): Route {
  const formats = FormatsByKind[spec.response.kind];
  // Every data route takes `format`; its allowed values follow from the response kind.
  const queryProps: TProperties = { ...(spec.query ?? {}) };
  if (formats.length > 0) queryProps.format = Type.Optional(Param.format(formats));
  return {
    method: spec.method,
    path: spec.path,
    operationId: spec.mt5 ?? operationName(spec.method, spec.path),
    mt5: spec.mt5,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    operational: spec.operational,
    readOnly: spec.readOnly ?? !spec.operational,
    public: spec.public ?? false,
    bearerKey: spec.bearerKey ?? false,
    terminal: spec.terminal ?? true,
    hidden: spec.hidden ?? false,
    mcpTool: spec.mcpTool ?? false,
    query: Type.Object(queryProps),
    params: Type.Object(spec.params ?? {}),
    headers: spec.headers ?? [],
    body: spec.body,
    response: spec.response,
    formats,
    errors: spec.errors ?? [],
    handler: spec.handler as Route['handler'],
  };
}

/**
 * The stable snake_case name of a route without a MetaTrader5 twin: method, then the path's words
 * (GET /symbols/{symbol}/tick → get_symbols_symbol_tick).
 */
export function operationName(method: string, path: string): string {
  const words = path.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w !== '');
  return [method.toLowerCase(), ...words].join('_');
}
