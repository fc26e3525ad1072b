// MCP tools generated from the route table: one per data route the variant serves (and per route the
// table flags `mcpTool`: /server-time, /store/coverage), named after the
// MetaTrader5 function it mirrors (Route.operationId, also its OpenAPI operationId), its input
// schema the route's own query, path and body schemas, its answer the route's own handler's,
// encoded by the JSON encoder HTTP uses. Nothing here names a route: a route added to the table is
// a tool without a line changed here (test/mcp/tools.test.ts proves it).
//
// Arguments go through the route's own parsers: a query or path argument is turned back into the
// string a URL would carry (a number or a boolean as JSON writes it) and parsed by the route's
// ParameterParser, a body member is checked by the route's body schema, so a tool accepts and
// refuses exactly what the HTTP route does, with the same 400 details. Series and lists are
// bounded: at most MAX_INLINE_ROWS rows inline, whether more exist (read, never counted: one row
// past the bound tells), and the HTTP path of the whole answer as Parquet, which carries no key.
import type { TObject, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';

import { collect, encodeReply } from '../http/encoding.js';
import { toProblem } from '../http/errors-map.js';
import { plain } from '../http/openapi.js';
import { codePointLengths, lengthMessage, ParameterParser, resolveConstants } from '../http/params.js';
import { preview } from '../http/preview.js';
import { problem, ProblemError, validationError, type Problem } from '../http/problem.js';
import type { Reply, Route, Services } from '../http/route.js';
import type { Logger } from '../log.js';
import type { RateChunk, Series, TickChunk } from '../terminal/series.js';

/** Rows of a series or a list given inline, at most; the rest is behind the Parquet path. */
export const MAX_INLINE_ROWS = 1000;

type Json = Record<string, unknown>;

/** What tools/list shows of a tool (the MCP Tool shape). */
export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: { type: 'object'; properties: Json; required?: string[]; additionalProperties: false };
  readonly annotations: { readonly readOnlyHint: boolean; readonly destructiveHint: boolean; readonly idempotentHint: boolean; readonly openWorldHint: boolean };
}

/** What tools/call answers (the MCP CallToolResult shape): the JSON as text and as structured content. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Json;
  isError?: boolean;
}

/** A data route: one answered as JSON, Parquet (or Arrow). Health, metrics, docs, events, /ws and /mcp are not. */
export const isDataRoute = (route: Route): boolean => route.formats.length > 0 && !route.hidden;

/** A route that is an MCP tool: every data route, and those the table flags (`mcpTool`: /server-time, /store/coverage). */
export const isToolRoute = (route: Route): boolean => isDataRoute(route) || (route.mcpTool && !route.hidden && route.response.kind === 'json');

/** Where an input property of a tool goes in the route's request. */
type Slot = 'path' | 'query' | 'body';

const isObjectSchema = (schema: TSchema | undefined): schema is TObject =>
  schema !== undefined && typeof schema.properties === 'object' && schema.properties !== null;

export class RouteTool {
  readonly definition: ToolDefinition;
  private readonly slots = new Map<string, Slot>();
  private readonly pathParser: ParameterParser;
  private readonly queryParser: ParameterParser;
  private readonly bodyCheck: TypeCheck<TSchema> | undefined;
  /** The body's members are the tool's own arguments; false: the whole body is the `body` argument. */
  private readonly spreadBody: boolean;

  constructor(
    readonly route: Route,
    private readonly prefix: string,
  ) {
    const properties: Json = {};
    const required: string[] = [];
    const add = (slot: Slot, object: TObject, skip: readonly string[] = []): void => {
      const needed = new Set(object.required ?? []);
      for (const [name, schema] of Object.entries(object.properties)) {
        if (skip.includes(name)) continue;
        if (this.slots.has(name)) throw new Error(`${route.method} ${route.path}: '${name}' is both a ${this.slots.get(name)} and a ${slot} member; a tool needs one name per argument`);
        this.slots.set(name, slot);
        properties[name] = plain(schema);
        if (slot === 'path' || needed.has(name)) required.push(name);
      }
    };
    add('path', route.params);
    // A tool answers JSON: `format` is the Parquet path's, not an argument.
    add('query', route.query, ['format']);
    this.spreadBody = isObjectSchema(route.body);
    if (isObjectSchema(route.body)) add('body', route.body);
    else if (route.body) {
      this.slots.set('body', 'body');
      properties.body = plain(route.body);
      required.push('body');
    }
    this.pathParser = new ParameterParser('path', route.params);
    this.queryParser = new ParameterParser('query', route.query);
    this.bodyCheck = route.body ? TypeCompiler.Compile(codePointLengths(route.body)) : undefined;

    const bounded = route.response.kind === 'series' || route.response.kind === 'records';
    const mt5 = route.mt5 === undefined ? '' : ` Mirrors MetaTrader5.${route.mt5}().`;
    const answer = bounded
      ? ` Answers {rows, returned, more, parquet}: at most ${MAX_INLINE_ROWS} rows inline, \`more\` true when the answer has more, ` +
        '`parquet` the HTTP path (relative, without the API key: send it as for any request) of the whole answer as a Parquet file.'
      : route.response.kind === 'object' || route.response.kind === 'json'
        ? ` Answers one JSON object: ${route.response.description}.`
        : '';
    const problems = ' Failures are tool errors whose structured content is the RFC 7807 problem the HTTP route answers.';
    const usage = `HTTP twin: ${route.method} ${prefix}${route.path}.`;
    this.definition = {
      name: route.operationId,
      title: route.summary,
      description: `${route.summary}.${mt5}${route.description ? ` ${route.description}` : ''}${answer}${problems} ${usage}`,
      inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
      annotations: {
        readOnlyHint: !route.operational,
        destructiveHint: false,
        idempotentHint: route.method === 'GET',
        openWorldHint: false,
      },
    };
  }

  get name(): string {
    return this.definition.name;
  }

  /** Runs the route's handler on `args`; every failure is a tool error carrying its problem. */
  async call(args: Readonly<Record<string, unknown>>, services: Services, logger?: Logger): Promise<ToolResult> {
    let httpPath = `${this.prefix}${this.route.path}`;
    let symbol: string | undefined;
    try {
      const raw = this.rawArguments(args);
      const params = this.pathParser.parse((name) => (raw.path.has(name) ? [raw.path.get(name) as string] : []));
      httpPath = this.prefix + this.route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(params[name])));
      const query = this.queryParser.parse((name) => (raw.query.has(name) ? [raw.query.get(name) as string] : []));
      const named = params.symbol ?? query.symbol;
      if (typeof named === 'string') symbol = named;
      const body = this.body(raw.body);
      const reply = await this.route.handler({ ...services, query, params, body, header: () => undefined });
      const parquet = this.route.method === 'GET' ? `${httpPath}?${new URLSearchParams([...raw.query, ['format', 'parquet']]).toString()}` : undefined;
      const value = await answer(reply, parquet);
      return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
    } catch (e) {
      const known = toProblem(e, this.route, symbol);
      if (!known) logger?.error({ tool: this.name, err: e }, 'unexpected error in an MCP tool call');
      const p = known ?? new ProblemError('internal', 'an unexpected error occurred; the server log has it');
      const body: Problem = problem(p.kind, p.detail, httpPath);
      return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: { ...body }, isError: true };
    }
  }

  /** The arguments sorted by where they go; path and query ones as the strings a URL carries. */
  private rawArguments(args: Readonly<Record<string, unknown>>): { path: Map<string, string>; query: Map<string, string>; body: Map<string, unknown> } {
    const out = { path: new Map<string, string>(), query: new Map<string, string>(), body: new Map<string, unknown>() };
    for (const [name, value] of Object.entries(args)) {
      const slot = this.slots.get(name);
      if (slot === undefined) {
        const known = [...this.slots.keys()];
        throw validationError(`${this.name} takes no argument '${name}'; ${known.length > 0 ? `its arguments: ${known.join(', ')}` : 'it takes none'}`);
      }
      if (slot === 'body') out.body.set(name, value);
      else if (value !== undefined && value !== null) out[slot].set(name, asText(name, value));
    }
    return out;
  }

  private body(members: ReadonlyMap<string, unknown>): unknown {
    if (!this.bodyCheck || !this.route.body) return undefined;
    // As the dispatcher does: constants named in the body become their integers first.
    const value = resolveConstants(this.route.body, this.spreadBody ? Object.fromEntries(members) : members.get('body'));
    if (this.bodyCheck.Check(value)) return value;
    const first = this.bodyCheck.Errors(value).First();
    if (!first) throw validationError('the arguments do not match the schema');
    const where = first.path === '' ? (this.spreadBody ? 'the arguments' : "argument 'body'") : `argument '${(this.spreadBody ? first.path.slice(1) : `body${first.path}`).replaceAll('/', '.')}'`;
    const shown = first.value === undefined ? 'nothing' : preview(first.value);
    throw validationError(`${where}: ${lengthMessage(first.schema) ?? first.message}; received ${shown}`);
  }
}

/** A query or path argument as a URL would carry it; the route's parser judges it from there. */
function asText(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw validationError(`argument '${name}' must be a string, a number or a boolean; received ${preview(value)}`);
}

/** The tools of a route table: one per data route and flagged route, in table order; two routes with one name are an error. */
export function routeTools(routes: readonly Route[], prefix: string): RouteTool[] {
  const tools = routes.filter(isToolRoute).map((route) => new RouteTool(route, prefix));
  const seen = new Map<string, Route>();
  for (const tool of tools) {
    const other = seen.get(tool.name);
    if (other) throw new Error(`${other.method} ${other.path} and ${tool.route.method} ${tool.route.path} are both named ${tool.name}`);
    seen.set(tool.name, tool.route);
  }
  return tools;
}

/** The JSON an agent gets for a reply, as HTTP's JSON encoder writes it; series and lists bounded. */
async function answer(reply: Reply, parquet: string | undefined): Promise<Json> {
  switch (reply.kind) {
    case 'object':
      return (await asJson(reply)) as Json;
    case 'json':
      // A flagged route's answer (/server-time, /store/coverage): its JSON as HTTP sends it. Its
      // failures are thrown as problems, so a status here is a success.
      if (reply.status >= 400 || typeof reply.value !== 'object' || reply.value === null || Array.isArray(reply.value)) {
        throw new Error(`a tool's route answered status ${reply.status} with ${Array.isArray(reply.value) ? 'an array' : typeof reply.value}, not an object`);
      }
      return JSON.parse(JSON.stringify(reply.value)) as Json;
    case 'records': {
      const more = reply.rows.length > MAX_INLINE_ROWS;
      const rows = (await asJson({ ...reply, rows: reply.rows.slice(0, MAX_INLINE_ROWS) })) as unknown[];
      return bounded(rows, more, parquet);
    }
    case 'series': {
      if (reply.which === 'ticks') {
        const head = await firstRows(reply.series, MAX_INLINE_ROWS);
        return bounded((await asJson({ kind: 'series', which: 'ticks', series: head.series, symbols: reply.symbols })) as unknown[], head.more, parquet);
      }
      if (reply.which === 'bars') {
        const head = await firstRows(reply.series, MAX_INLINE_ROWS);
        return bounded((await asJson({ kind: 'series', which: 'bars', series: head.series, symbols: reply.symbols })) as unknown[], head.more, parquet);
      }
      const head = await firstRows(reply.series, MAX_INLINE_ROWS);
      return bounded((await asJson({ kind: 'series', which: 'rates', series: head.series, symbols: reply.symbols })) as unknown[], head.more, parquet);
    }
    default:
      // Not a data route's reply: routeTools never makes a tool of one.
      throw new Error(`a tool's route answered a '${reply.kind}' reply`);
  }
}

function bounded(rows: unknown[], more: boolean, parquet: string | undefined): Json {
  return { rows, returned: rows.length, more, ...(parquet === undefined ? {} : { parquet }) };
}

async function asJson(reply: Extract<Reply, { kind: 'object' | 'records' | 'series' }>): Promise<unknown> {
  const bytes = await collect(await encodeReply('json', reply));
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as unknown;
}

/**
 * The first `limit` rows of a series as a series of their own, and whether it had more: read
 * chunk by chunk until one row past the limit, then closed, so that the terminal produces no
 * more than that whatever the range.
 */
async function firstRows<C extends TickChunk | RateChunk>(series: Series<C>, limit: number): Promise<{ series: Series<C>; more: boolean }> {
  const chunks: C[] = [];
  let rows = 0;
  let more = false;
  try {
    series.setChunkRows?.(limit + 1);
    for (let chunk = await series.next(); chunk !== null; chunk = await series.next()) {
      const take = Math.min(chunk.rows, limit - rows);
      if (take > 0) chunks.push(take === chunk.rows ? chunk : head(chunk, take));
      rows += take;
      if (take < chunk.rows) {
        more = true;
        break;
      }
    }
  } finally {
    series.close();
  }
  let i = 0;
  const next = (): Promise<C | null> => Promise.resolve(chunks[i++] ?? null);
  // No release: the chunks are held here until served (the inner series is closed already).
  return {
    more,
    series: {
      next,
      close() {
        i = chunks.length;
      },
      async *[Symbol.asyncIterator]() {
        for (let c = await next(); c !== null; c = await next()) yield c;
      },
    },
  };
}

/** The first `n` rows of a chunk: views of its columns (the addon gives each chunk its own buffers). */
function head<C extends TickChunk | RateChunk>(chunk: C, n: number): C {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(chunk)) out[key] = ArrayBuffer.isView(column) ? (column as unknown as { subarray(a: number, b: number): unknown }).subarray(0, n) : column;
  out.rows = n;
  return out as C;
}
