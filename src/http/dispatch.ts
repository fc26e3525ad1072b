// The request pipeline: [CORS preflight] -> prefix -> route -> [rate limit] -> auth -> parameters
// -> format -> body -> handler -> encoded response, with every failure answered as a problem
// document and one log line per request. The bracketed steps exist in read-only mode only.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';

import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import type { Logger } from 'pino';

import { MediaTypes, type Format } from '../encode/types.js';
import { TerminalError } from '../terminal/errors.js';
import { methodLabel, UNMATCHED_ROUTE } from '../metrics.js';
import { ClientGoneError, type HttpRequest, type HttpResponse, type RequestHandler } from './adapter.js';
import { countingResponse } from './counting-response.js';
import { collect, encodeReply, StreamingSink } from './encoding.js';
import { chooseCoding, codingSink, compressWhole, defaultParallelism, MIN_COMPRESS_BYTES, type ContentCoding } from './content-coding.js';
import { toProblem } from './errors-map.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';
import type { LiveCall, LiveChannels, LivePlace } from './live.js';
import { negotiateFormat } from './negotiate.js';
import { codePointLengths, lengthMessage, ParameterParser, resolveConstants } from './params.js';
import type { CompressionPolicy, CrossOrigin, KeyCheck, RequestLimiter, SiteCheck } from './policy.js';
import { preview } from './preview.js';
import { MAX_BODY_BYTES } from './protocol-problems.js';
import { PROBLEM_MEDIA_TYPE, problem, ProblemError, received, validationError } from './problem.js';
import type { Reply, Route, Services } from './route.js';
import type { Router } from './router.js';
import { SendTimeoutError, STREAM_RETRY_AFTER_S, StreamGate } from './streams.js';
import { unknownSymbol } from './symbol-hint.js';

export { MAX_BODY_BYTES };

interface Compiled {
  query: ParameterParser;
  params: ParameterParser;
  body: TypeCheck<TSchema> | undefined;
}

export interface DispatcherOptions {
  router: Router;
  prefix: string;
  services: Services;
  keyCheck: KeyCheck | undefined;
  logger: Logger;
  /** Read-only mode: CORS headers on every response, and preflights answered. */
  cors?: CrossOrigin | undefined;
  /** Read-only mode: requests per client, counted on every route but the public one. */
  rateLimit?: { limiter: RequestLimiter; client(req: HttpRequest): string } | undefined;
  /** Series streams in progress at once (default: a gate of config.maxStreams). */
  streams?: StreamGate | undefined;
  /** Host and Origin rules against cross-site reads (src/access/site-guard.ts); none when a key guards the full variant. */
  site?: SiteCheck | undefined;
  /** Event streams and WebSockets, served by the live-events room (src/events/channels.ts); without it they answer 500. */
  live?: LiveChannels | undefined;
  /** TRADEAPI_COMPRESS (src/access/compression.ts); without it, JSON is compressed whenever the client asks. */
  compression?: CompressionPolicy | undefined;
}

const encoder = new TextEncoder();
/** The 401 challenge of a route that takes the key as a bearer token: fixed text, never the key presented. */
export const BEARER_CHALLENGE = 'Bearer realm="tradeapi", error="invalid_token", error_description="send X-API-Key or Authorization: Bearer"';
const REQUEST_ID = /^[\w.:-]{1,128}$/;

export function createDispatcher(opts: DispatcherOptions): RequestHandler {
  const { router, prefix, services, keyCheck, logger, rateLimit } = opts;
  const cors = opts.cors && !opts.cors.disabled ? opts.cors : undefined;
  const streams = opts.streams ?? new StreamGate(services.config.maxStreams);
  const sendTimeoutMs = services.config.sendTimeoutMs;
  // Validators are compiled once, at start-up.
  const compiled = new Map<Route, Compiled>();
  for (const route of router.routes) {
    compiled.set(route, {
      query: new ParameterParser('query', route.query),
      params: new ParameterParser('path', route.params),
      body: route.body ? TypeCompiler.Compile(codePointLengths(route.body)) : undefined,
    });
  }

  return async function dispatch(req: HttpRequest, transportRes: HttpResponse): Promise<void> {
    const started = performance.now();
    const res = countingResponse(transportRes, req.method === 'HEAD');
    // The metrics' route label: a route table template once the path matched one, never the raw URL.
    let routeLabel = UNMATCHED_ROUTE;
    let timed = true;
    const incoming = req.header('x-request-id');
    const id = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const base: Record<string, string> = { 'x-request-id': id, 'cache-control': 'no-store' };
    // CORS headers go on every response, errors included; Vary: Origin is merged with Vary: Accept.
    const crossOrigin = cors?.responseHeaders(req);
    if (crossOrigin) Object.assign(base, crossOrigin.headers);
    const vary = (value?: string): Record<string, string> => {
      const fields = [value, crossOrigin?.varyOrigin ? 'Origin' : undefined].filter((f) => f !== undefined);
      return fields.length > 0 ? { vary: fields.join(', ') } : {};
    };
    Object.assign(base, vary());
    // Read-only mode: the client the rate limit counts, resolved once for every charge below.
    const limited = rateLimit && { limiter: rateLimit.limiter, client: rateLimit.client(req) };
    let route: Route | undefined;
    let symbol: string | undefined; // the symbol the request names, for a clearer 404 detail
    let authByMessage = false;
    let place: LivePlace | undefined;
    let status: number;
    /** Why a body whose head was sent was cut short: the log line says so (with the bytes sent). */
    let aborted: 'client-gone' | 'send-timeout' | 'series-failed' | undefined;
    try {
      status = await handle();
    } catch (e) {
      status = fail(await withSymbolHint(e));
    }
    const ms = performance.now() - started;
    // bytes: the body bytes handed to the connection (for an aborted body, how far it got).
    logger.info({ id, method: req.method, path: req.path, status, ms: Math.round(ms * 100) / 100, bytes: res.bytes, ...(aborted ? { aborted } : {}) }, 'request');
    const method = methodLabel(req.method);
    services.metrics.requests.inc({ method, route: routeLabel, status: String(status) });
    // Event streams and WebSockets last as long as their client: their duration is no latency.
    if (timed) services.metrics.requestSeconds.observe({ method, route: routeLabel }, ms / 1000);
    if (res.bytes > 0) services.metrics.responseBytes.inc({ route: routeLabel }, res.bytes);

    async function handle(): Promise<number> {
      // First of all, public routes included: a rebound page must read nothing (site-guard.ts).
      opts.site?.check(req, res.upgrade !== undefined);
      // A preflight carries no key and is not counted: the browser sends it on its own. Only below
      // the prefix, where the API is: elsewhere it is answered like any request to an unknown path.
      if (cors?.isPreflight(req) && belowPrefix(req.path, prefix) !== undefined) {
        res.send(204, { 'x-request-id': id, 'cache-control': 'no-store', ...cors.preflightHeaders(req) }, new Uint8Array(0));
        return 204;
      }
      // The root leads to the docs, whatever the prefix; public and not counted, like the page.
      if (req.path === '/' && (req.method === 'GET' || req.method === 'HEAD')) {
        routeLabel = '/';
        res.send(302, { ...base, location: `${prefix}/docs`, 'content-type': 'text/plain; charset=utf-8' }, encoder.encode(`See ${prefix}/docs\n`));
        return 302;
      }
      const below = belowPrefix(req.path, prefix);
      const match = below === undefined ? { kind: 'not-found' as const } : router.match(req.method, below);
      const isPublic = match.kind === 'found' && match.route.public;
      if (match.kind === 'found') {
        routeLabel = match.route.path;
        timed = match.route.response.kind !== 'events' && match.route.response.kind !== 'websocket';
      } else if (match.kind === 'method-not-allowed') {
        // A known path asked with another method (GET /mcp): counted under its template, not as
        // unmatched; every route of one path shares it.
        routeLabel = match.routes[0]?.path ?? UNMATCHED_ROUTE;
      }
      // Counted before auth, so that guessing keys is limited too; /health is exempt.
      if (limited && !isPublic) {
        const decision = await limited.limiter.consume(limited.client);
        Object.assign(base, decision.headers);
        if (!decision.allowed) {
          services.metrics.rateLimitRefusals.inc();
          throw new ProblemError('rateLimited', `more than ${limited.limiter.limit} requests in the current window; retry in ${decision.resetSeconds} s`);
        }
      }
      // Auth before 404/405 so that an unauthenticated client learns nothing about paths; the
      // public routes (/health, the docs page and its files) are exempt. The detail never says whether the key was missing.
      // A WebSocket upgrade without the header may authenticate with its first message instead
      // (browsers cannot set headers on a WebSocket): the session holds it to that (ws-session.ts).
      const upgrading = res.upgrade !== undefined && match.kind === 'found' && match.route.response.kind === 'websocket';
      authByMessage = keyCheck !== undefined && upgrading && req.header('x-api-key') === undefined;
      // A route that takes the key as a bearer token too (POST /mcp) names both ways in its refusal.
      const bearer = match.kind === 'found' ? match.route.bearerKey : match.kind === 'method-not-allowed' && match.routes.some((r) => r.bearerKey);
      const presented = req.header('x-api-key') ?? (bearer ? bearerToken(req.header('authorization')) : undefined);
      if (keyCheck && !isPublic && !authByMessage && !keyCheck(presented)) {
        // A bearer route (POST /mcp) says how to authenticate in the header MCP clients read
        // (RFC 6750 §3), with no OAuth metadata: the key is static, there is nothing to discover.
        throw new ProblemError(
          'unauthorized',
          bearer ? 'a valid X-API-Key header (or Authorization: Bearer <key>) is required' : 'a valid X-API-Key header is required',
          bearer ? { 'www-authenticate': BEARER_CHALLENGE } : undefined,
        );
      }
      if (match.kind === 'not-found') throw new ProblemError('notFound', `no resource at ${req.path}`);
      if (match.kind === 'method-not-allowed') {
        throw new ProblemError('methodNotAllowed', `${req.method} is not allowed here; allowed: ${match.allowed.join(', ')}`, {
          allow: match.allowed.join(', '),
        });
      }
      route = match.route;
      const c = compiled.get(route) as Compiled;
      const search = new URLSearchParams(req.query);
      const params = c.params.parse((name) => (name in match.params ? [match.params[name] as string] : []));
      const query = c.query.parse((name) => search.getAll(name));
      const named = params.symbol ?? query.symbol;
      if (typeof named === 'string') symbol = named;
      const format = chooseFormat(route, query.format as Format | undefined, req.header('accept'));
      // Constants named in the body become their integers first, as in the query (params.ts).
      const body = c.body && route.body ? parseBody(resolveConstants(route.body, await readJson(req)), c.body) : undefined;

      // A series takes a stream slot for its whole life, taken before the terminal opens a cursor;
      // a HEAD produces nothing and takes none. An event stream takes an event-client slot before
      // it joins the feeds; a WebSocket still to authenticate by message only a place among those
      // authenticating (src/events/slots.ts).
      const kind = route.response.kind;
      const eventClient = kind === 'events' || (kind === 'websocket' && res.upgrade !== undefined);
      const release =
        req.method === 'HEAD' ? undefined : kind === 'series' ? takeStreamSlot() : eventClient ? (place = liveChannels().take(authByMessage)).release : undefined;
      try {
        const charge = limited && chargeRequest(limited.limiter, limited.client, 'each further operation in the request (an MCP tool call)', true);
        return await respond(route, format, await route.handler({ ...services, query, params, body, header: (name) => req.header(name), ...(charge ? { charge } : {}) }));
      } finally {
        release?.();
      }
    }

    /** The coding of a JSON answer: as the client asks, within the deployment's policy. */
    function codingFor(): ContentCoding {
      return chooseCoding(req.header('accept-encoding'), opts.compression?.(req) ?? 'compress');
    }

    function takeStreamSlot(): () => void {
      const release = streams.tryAcquire();
      if (release) return release;
      throw new ProblemError('tooManyStreams', `${streams.limit} series streams are in progress, the most this server runs at once; retry in ${STREAM_RETRY_AFTER_S} s`, {
        'retry-after': String(STREAM_RETRY_AFTER_S),
      });
    }

    async function respond(route: Route, format: Format | undefined, reply: Reply): Promise<number> {
      switch (reply.kind) {
        case 'json': {
          send(reply.status, 'application/json', encoder.encode(JSON.stringify(reply.value)));
          return reply.status;
        }
        case 'bytes': {
          res.send(200, { ...base, ...reply.headers, 'content-type': reply.contentType }, reply.body);
          return 200;
        }
        case 'events':
          return liveChannels().stream(reply, liveCall());
        case 'websocket':
          return liveChannels().socket(liveCall());
        case 'web':
          return sendWeb(reply.response);
        case 'series': {
          // JSON is compressed when the client asks and the policy lets it (content-coding.ts); the
          // other formats never are.
          const coding = format === 'json' ? codingFor() : 'identity';
          const headers = {
            ...base,
            ...vary('Accept, Accept-Encoding'),
            'content-type': MediaTypes[format as Format],
            ...(coding !== 'identity' ? { 'content-encoding': coding } : {}),
            // A local store answered part of the range (src/store/store-terminal.ts): say which part.
            ...(reply.series.source !== undefined ? { 'tradeapi-source': reply.series.source } : {}),
            // A multi-symbol series: its symbols in the order listed, which packed rows index (docs/api.md).
            ...(reply.symbols ? { 'tradeapi-symbols': reply.symbols.map(encodeURIComponent).join(',') } : {}),
          };
          if (req.method === 'HEAD') {
            // The head of a stream is all a HEAD gets: nothing is produced (the cursor is closed).
            reply.series.close();
            res.writeHead(200, headers);
            res.end();
            return 200;
          }
          const sink = new StreamingSink(res, 200, headers, sendTimeoutMs);
          // gzip in parallel, one piece per core, unless more streams run than there are cores.
          const body = coding === 'identity' ? undefined : codingSink(sink, coding, streams.busy ? 1 : defaultParallelism());
          try {
            const encoded = await encodeReply(format as Format, reply, streams.busy);
            await encoded.writeTo(body ?? sink);
            await body?.close();
            sink.finish();
          } catch (e) {
            body?.destroy();
            if (!sink.started) throw e;
            // Asked before our own abort below, which would set it too.
            const gone = e instanceof ClientGoneError || (res.aborted && !(e instanceof SendTimeoutError));
            // Headers are gone: a truncated body must not look complete, so drop the connection.
            res.abort();
            // The request's log line says the body was cut short, and why (with the bytes sent).
            if (gone) {
              aborted = 'client-gone';
              return 499; // as fail() logs a client gone before the head: nginx's "client closed request"
            }
            if (e instanceof SendTimeoutError) {
              aborted = 'send-timeout';
              logger.warn({ id, path: req.path, timeoutMs: e.timeoutMs }, 'stream closed: the client read nothing for the send timeout');
            } else {
              aborted = 'series-failed';
              logger.error({ id, err: e }, 'series encoding failed after headers were sent');
            }
            return 200;
          } finally {
            reply.series.close();
          }
          return 200;
        }
        default: {
          const encoded = await encodeReply(format as Format, reply);
          const bytes = await collect(encoded);
          const coding = format === 'json' && bytes.byteLength >= MIN_COMPRESS_BYTES ? codingFor() : 'identity';
          const coded: Record<string, string> = coding === 'identity' ? {} : { 'content-encoding': coding };
          res.send(200, { ...base, ...vary('Accept, Accept-Encoding'), 'content-type': encoded.contentType, ...coded }, coding === 'identity' ? bytes : await compressWhole(coding, bytes));
          return 200;
        }
      }
    }

    /**
     * A Fetch Response as it is (POST /mcp): a body of server-sent events streams, with the send
     * timeout of every stream; any other body goes whole, with a Content-Length. Our own headers
     * (request id, no-store, CORS, rate limit) stay; hop-by-hop ones are the transport's.
     */
    async function sendWeb(response: Response): Promise<number> {
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name) && name !== 'cache-control') headers[name] = value;
      });
      const all = { ...headers, ...base };
      const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
      if (response.body === null || type !== 'text/event-stream') {
        res.send(response.status, all, new Uint8Array(await response.arrayBuffer()));
        return response.status;
      }
      const reader = response.body.getReader();
      res.onAborted(() => void reader.cancel().catch(() => undefined));
      const sink = new StreamingSink(res, response.status, { ...all, 'cache-control': 'no-store, no-transform' }, sendTimeoutMs);
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          await sink.write(value);
        }
        sink.finish();
      } catch (e) {
        void reader.cancel().catch(() => undefined);
        if (!sink.started) throw e;
        res.abort();
        if (!(e instanceof ClientGoneError) && !(e instanceof SendTimeoutError)) logger.error({ id, err: e }, 'event stream failed after headers were sent');
      }
      return response.status;
    }

    function liveChannels(): LiveChannels {
      if (!opts.live) throw new Error(`${req.path} serves live events, but this dispatcher was built without them`);
      return opts.live;
    }

    function liveCall(): LiveCall {
      return {
        req,
        res,
        headers: base,
        id,
        place,
        keyCheck,
        authByMessage,
        chargeCatchUp: limited && countCatchUp(limited.limiter, limited.client),
      };
    }

    /**
     * Read-only mode: a subscribe with `since` reads up to TRADEAPI_EVENTS_CATCHUP_TICKS ticks a
     * symbol from history, so it is one request of the client's allowance, as a GET /events with
     * Last-Event-ID is (else one upgrade could read history without end). The client is the
     * upgrade's, taken now: the request is gone by the time the socket sends.
     */
    function countCatchUp(limiter: RequestLimiter, client: string): () => Promise<void> {
      return chargeRequest(limiter, client, 'a subscribe with "since" catches up from history and');
    }

    /**
     * `points` (default 1) more requests of the client's allowance, taken when called, all or none;
     * `what` opens the refusal's detail. `refundsRequest`: a refusal gives back the request's own
     * count as well (the pipeline took it), so that a request refused whole charges nothing (an MCP
     * batch over the allowance runs no tool: issue 33); the 429 then reports the count as it is.
     */
    function chargeRequest(limiter: RequestLimiter, client: string, what: string, refundsRequest = false): (points?: number) => Promise<void> {
      let refunded = false;
      return async (points = 1) => {
        if (points < 1) return;
        let decision = await limiter.consume(client, points);
        if (decision.allowed) return;
        services.metrics.rateLimitRefusals.inc();
        if (refundsRequest && !refunded) {
          refunded = true;
          decision = await limiter.refund(client, 1);
        }
        throw new ProblemError(
          'rateLimited',
          `${what} counts as a request: more than ${limiter.limit} requests in the current window; retry in ${decision.resetSeconds} s`,
          { ...decision.headers, 'retry-after': String(decision.resetSeconds) },
        );
      };
    }

    function send(statusCode: number, contentType: string, body: Uint8Array, extra: Record<string, string> = {}): void {
      res.send(statusCode, { ...base, ...extra, 'content-type': contentType }, body);
    }

    /** An unknown symbol named in the path or query: its 404 says which names match it but for case (symbol-hint.ts). */
    async function withSymbolHint(e: unknown): Promise<unknown> {
      if (symbol === undefined || !(e instanceof TerminalError) || res.headersSent || res.aborted) return e;
      if (toProblem(e, route, symbol)?.kind !== 'symbolNotFound') return e;
      return unknownSymbol(services.terminal, symbol, { cause: e.message });
    }

    function fail(e: unknown): number {
      if (e instanceof ClientGoneError || res.aborted) return 499; // nginx's code for "client closed"
      const known = toProblem(e, route, symbol);
      if (!known) logger.error({ id, err: e }, 'unexpected error');
      const p = known ?? new ProblemError('internal', 'an unexpected error occurred; the request id identifies it in the logs');
      const body = problem(p.kind, p.detail, req.path);
      if (res.headersSent) {
        res.abort();
        return body.status;
      }
      send(body.status, PROBLEM_MEDIA_TYPE, encoder.encode(JSON.stringify(body)), { ...p.headers });
      return body.status;
    }
  };
}

/** Hop-by-hop fields (RFC 9110 §7.6.1) and framing: the adapter's to set, never a reply's. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'te', 'trailer', 'proxy-connection']);

/** The token of `Authorization: Bearer <token>`, else undefined. */
function bearerToken(authorization: string | undefined): string | undefined {
  const m = authorization === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  return m?.[1];
}

/** The path below the prefix, or undefined when it is not under the prefix. */
function belowPrefix(path: string, prefix: string): string | undefined {
  if (prefix === '') return path;
  if (path.startsWith(prefix) && path.charAt(prefix.length) === '/') return path.slice(prefix.length);
  return undefined;
}

function chooseFormat(route: Route, requested: Format | undefined, accept: string | undefined): Format | undefined {
  if (route.formats.length === 0) return undefined;
  if (requested) return requested; // already validated against the route's formats
  const format = negotiateFormat(accept, route.formats);
  if (!format) {
    const offered = route.formats.map((f) => MediaTypes[f]).join(', ');
    throw new ProblemError('notAcceptable', `Accept ${received(accept ?? '')} admits none of ${offered}; or use the format query parameter`);
  }
  return format;
}

async function readJson(req: HttpRequest): Promise<unknown> {
  const type = (req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ProblemError('unsupportedMediaType', `the body must be sent as Content-Type: application/json; received ${received(req.header('content-type') ?? '(none)')}`);
  }
  const bytes = await req.readBody(MAX_BODY_BYTES);
  // Before parsing: everything that walks the parsed value afterwards recurses (see json-depth.ts).
  if (nestsDeeperThan(bytes)) {
    throw validationError(`the request body is nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw validationError('the request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw validationError(`the request body is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function parseBody(value: unknown, check: TypeCheck<TSchema>): unknown {
  if (check.Check(value)) return value;
  const first = check.Errors(value).First();
  if (!first) throw validationError('the request body does not match the schema');
  const where = first.path === '' ? 'the body' : `body member '${first.path.slice(1).replaceAll('/', '.')}'`;
  const shown = first.value === undefined ? 'nothing' : preview(first.value);
  throw validationError(`${where}: ${lengthMessage(first.schema) ?? first.message}; received ${shown}`);
}
