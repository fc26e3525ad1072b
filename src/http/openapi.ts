// The OpenAPI 3.1 document, generated from the route table: the same schemas that validate
// requests describe them, and the constants table provides the enums.
import type { TObject, TSchema } from '@sinclair/typebox';

import { MediaTypes, type Format } from '../encode/types.js';
import { ProblemTypes, PROBLEM_MEDIA_TYPE, type ProblemKind } from './problem.js';
import type { Route } from './route.js';
import { MAX_BODY_BYTES } from './dispatch.js';
import { MAX_JSON_DEPTH } from './json-depth.js';

export interface OpenApiOptions {
  prefix: string;
  version: string;
  authRequired: boolean;
  /** Read-only mode: requests per minute per client; documents 429 and the RateLimit-* headers. */
  rateLimit?: number | undefined;
}

type Json = Record<string, unknown>;

/** A plain JSON copy of a TypeBox schema, without its symbol keys and private 'x-' hints. */
export function plain(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key.startsWith('x-') ? undefined : value))) as Json;
}

/**
 * A parameter's schema with its choices as one `enum`, which Swagger UI shows as a dropdown (it
 * shows a free-text box for `anyOf`): a union of literals (`format`, `compression`) becomes a
 * string enum; a MetaTrader5 constant (`timeframe`, `flags`, `action`: a name or its integer)
 * becomes one enum of the names followed by the integers, the same set of values.
 */
function asEnum(schema: Json): Json {
  const members = schema.anyOf;
  if (!Array.isArray(members) || members.length === 0) return schema;
  const { anyOf: _, ...rest } = schema;
  const all = members as Json[];
  if (all.every((m) => 'const' in m)) {
    const types = new Set(all.map((m) => m.type));
    return { ...(types.size === 1 ? { type: all[0]?.type } : {}), enum: all.map((m) => m.const), ...rest };
  }
  if (all.every((m) => Array.isArray(m.enum))) return { enum: all.flatMap((m) => m.enum as unknown[]), ...rest };
  return schema;
}

function parameters(where: 'query' | 'path', schema: TObject): Json[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, s]) => {
    const { description, ...rest } = asEnum(plain(s));
    return { name, in: where, required: where === 'path' || required.has(name), description, schema: rest };
  });
}

const problemRef = { $ref: '#/components/schemas/Problem' };

function problemResponse(kind: ProblemKind): Json {
  const { title, type } = ProblemTypes[kind];
  return { description: `${title} (${type})`, content: { [PROBLEM_MEDIA_TYPE]: { schema: problemRef } } };
}

const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { description: 'Requests allowed per client in a window (API_RATE_LIMIT per minute)', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window restarts', schema: { type: 'integer' } },
};
const headerRefs = (names: readonly string[]): Json => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));

const FORMAT_NAMES: Readonly<Record<Format, string>> = {
  json: 'JSON',
  parquet: 'a Parquet file',
  arrow: 'an Arrow IPC stream',
  packed: "packed records: each row exactly as the MetaTrader5 package's numpy dtype lays it out (little-endian, 60 bytes; custom bars 68 with time_close_msc; no padding), rows back to back, no header; `numpy.frombuffer(body, dtype)` views it",
};

/** A named response example beside the route's main one (e.g. the multi-symbol form of a range route). */
export interface NamedExample {
  readonly name: string;
  readonly summary: string;
  readonly value: unknown;
}

function successContent(route: Route, example?: unknown, named: readonly NamedExample[] = []): Json {
  const schema = route.response.schema ? plain(route.response.schema) : {};
  // OpenAPI allows `example` or `examples`, not both: the main one is the first of `examples` then.
  const withExample = (media: Json): Json =>
    example === undefined
      ? media
      : named.length === 0
        ? { ...media, example }
        : { ...media, examples: Object.fromEntries([['default', { summary: 'The request of the main example', value: example }], ...named.map((n) => [n.name, { summary: n.summary, value: n.value }])]) };
  if (route.response.kind === 'json') return { 'application/json': withExample({ schema }) };
  if (route.response.kind === 'bytes') return { [route.response.contentType ?? 'application/octet-stream']: {} };
  if (route.response.kind === 'events') {
    const kinds = route.response.eventSchemas;
    return {
      [route.response.contentType ?? 'text/event-stream']: {
        schema: { type: 'string', description: 'Server-Sent Events, see the description' },
        // Each event kind's `data` (an extension: OpenAPI 3.1 has no schema for the items of a stream).
        ...(kinds ? { 'x-event-kinds': kinds } : {}),
      },
    };
  }
  const content: Json = {};
  for (const format of route.formats) {
    content[MediaTypes[format]] =
      format === 'json'
        ? withExample({ schema })
        : { schema: { type: 'string', contentMediaType: MediaTypes[format], description: `The same rows as ${FORMAT_NAMES[format]}` } };
  }
  return content;
}

function operation(route: Route, options: OpenApiOptions, example: unknown, named: readonly NamedExample[] = []): Json {
  const responses: Record<string, Json> =
    route.response.kind === 'websocket'
      ? {
          '101': { description: route.response.description },
          '426': problemResponse('upgradeRequired'),
        }
      : { '200': { description: route.response.description, content: successContent(route, example, named) } };
  if (route.path === '/health') responses['503'] = { description: 'Terminal unavailable (same shape, status "unavailable")', content: successContent(route) };
  const kinds = new Set<ProblemKind>(route.errors);
  const takesInput = Object.keys(route.query.properties).length > 0 || Object.keys(route.params.properties).length > 0 || route.body;
  if (takesInput) kinds.add('validation');
  if (options.authRequired && !route.public) kinds.add('unauthorized');
  const limited = options.rateLimit !== undefined && !route.public;
  if (limited) kinds.add('rateLimited');
  if (route.formats.length > 0) kinds.add('notAcceptable');
  if (!route.public && route.terminal) {
    kinds.add('terminalError');
    kinds.add('terminalUnavailable');
  }
  kinds.add('internal');
  if (route.response.kind === 'series') kinds.add('tooManyStreams');
  // With a local history store (TRADEAPI_STORE), ticks and bars may come from it (docs/store.md).
  if (route.response.kind === 'series' && route.terminal) {
    kinds.add('storeDamaged');
    kinds.add('storeBusy');
  }
  for (const kind of kinds) {
    const status = String(ProblemTypes[kind].status);
    const existing = responses[status];
    // Two problem kinds on one status (503: terminal unavailable, too many streams): one response naming both.
    if (existing?.content && PROBLEM_MEDIA_TYPE in (existing.content as Json)) {
      existing.description = `${String(existing.description)}; or ${problemResponse(kind).description as string}`;
    } else responses[status] ??= problemResponse(kind);
  }
  if (limited) {
    // Every counted response reports the limit; a 429 also says when to retry.
    for (const [status, response] of Object.entries(responses)) {
      if (status === '101') continue; // the handshake's answer carries only the WebSocket headers
      response.headers = headerRefs(status === '429' ? [...Object.keys(RATE_LIMIT_HEADERS), 'Retry-After'] : Object.keys(RATE_LIMIT_HEADERS));
    }
  }

  const op: Json = {
    operationId: route.operationId,
    summary: route.summary,
    tags: route.tags,
    parameters: [
      ...parameters('path', route.params),
      ...parameters('query', route.query),
      ...route.headers.map((h) => ({
        name: h.name,
        in: 'header',
        required: false,
        description: h.description,
        schema: { type: 'string', maxLength: h.maxLength, ...(h.example === undefined ? {} : { examples: [h.example] }) },
      })),
    ],
    responses,
  };
  if (route.description) op.description = route.description;
  if (route.body) {
    op.requestBody = { required: true, description: `JSON, at most ${MAX_BODY_BYTES} bytes and ${MAX_JSON_DEPTH} levels of nested arrays/objects`, content: { 'application/json': { schema: plain(route.body) } } };
  }
  if (options.authRequired) op.security = route.public ? [] : [{ ApiKey: [] }];
  if (route.operational) op['x-operational'] = true;
  return op;
}

/**
 * `examples`: the JSON answer to show for a route's 200, by `METHOD path` (routes/examples.ts
 * takes them from the simulator); `named`: more of them for some routes, by the same key.
 */
export function openApiDocument(
  routes: readonly Route[],
  options: OpenApiOptions,
  examples: ReadonlyMap<string, unknown> = new Map(),
  named: ReadonlyMap<string, readonly NamedExample[]> = new Map(),
): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    if (route.hidden) continue;
    const path = `${options.prefix}${route.path}`;
    const key = `${route.method} ${route.path}`;
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route, options, examples.get(key), named.get(key));
  }
  const components: Json = {
    schemas: {
      Problem: {
        type: 'object',
        description: 'RFC 7807 problem details',
        properties: {
          type: { type: 'string', description: 'Error type URI-reference, e.g. /errors/validation-error' },
          title: { type: 'string' },
          status: { type: 'integer' },
          detail: { type: 'string' },
          instance: { type: 'string', description: 'The request path, prefix included' },
        },
        required: ['type', 'title', 'status', 'detail', 'instance'],
      },
    },
  };
  if (options.authRequired) components.securitySchemes = { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } };
  if (options.rateLimit !== undefined) {
    components.headers = {
      ...RATE_LIMIT_HEADERS,
      'Retry-After': { description: 'Seconds to wait before the next request', schema: { type: 'integer' } },
    };
  }
  const readOnlyNote =
    options.rateLimit !== undefined
      ? ` Read-only deployment: every endpoint except ${options.prefix}/health needs the X-API-Key header, and each client may make ` +
        `${options.rateLimit} requests per minute (RateLimit-* response headers; 429 with Retry-After beyond).`
      : '';
  return {
    openapi: '3.1.0',
    info: {
      title: 'tradeapi',
      version: options.version,
      description:
        'HTTP gateway in front of a MetaTrader 5 terminal. Data endpoints answer JSON (default), Parquet or, for series, Arrow IPC: ' +
        'choose with the `format` query parameter (wins) or the Accept header (q-values honoured). Errors are RFC 7807 problem details. ' +
        'Times: `time` is seconds and `time_msc` milliseconds since the epoch (server time), as MetaTrader 5 gives them.' +
        readOnlyNote,
    },
    paths,
    components,
  };
}
