// POST /mcp: the Model Context Protocol over streamable HTTP (stateless), with the official SDK's
// server, whose tools are the route table's data routes (mcp-tools.ts). A route like any other, so
// the pipeline has done its part before the SDK sees a byte: the Host/Origin rules, the rate limit
// (the request counts once; each tool call past the first in it counts once more, batches
// included; a batch over the allowance is refused whole and charged nothing), the key (X-API-Key, or Authorization: Bearer, which many MCP clients send alone), the
// body's media type, size and nesting (dispatch.ts). Served alike on node:http and uWebSockets.js:
// the SDK works on a Fetch Request and Response (its web-standard transport), which the dispatcher
// sends as a 'web' reply.
//
// Stateless: each POST gets its own SDK server and transport, and no session id. Answers are JSON;
// a client whose Accept prefers text/event-stream gets the answers as server-sent events. A GET
// (the optional server-to-client stream) is a 405, as the spec allows a server without one.
import { Type } from '@sinclair/typebox';
import type { Server as SdkServer } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

import { negotiateMediaType } from '../http/negotiate.js';
import { ProblemError, received, validationError } from '../http/problem.js';
import { preview } from '../http/preview.js';
import { defineRoute, type Route } from '../http/route.js';
import type { Logger } from '../log.js';
import { routeTools, type RouteTool } from './mcp-tools.js';

export interface McpOptions {
  prefix: string;
  version: string;
  /** Where a tool's unexpected failure is logged (its arguments never are). */
  logger?: Logger | undefined;
}

/** The most messages one POST may carry (the SDK's own bound, checked here to answer a problem). */
export const MAX_BATCH_MESSAGES = 100;

const JSON_TYPE = 'application/json';
const SSE_TYPE = 'text/event-stream';

type Sdk = {
  Server: typeof SdkServer;
  Transport: typeof WebStandardStreamableHTTPServerTransport;
} & Pick<typeof import('@modelcontextprotocol/sdk/types.js'), 'CallToolRequestSchema' | 'ListToolsRequestSchema' | 'JSONRPCMessageSchema' | 'McpError' | 'ErrorCode' | 'SUPPORTED_PROTOCOL_VERSIONS'>;

// Loaded on the first MCP request: the SDK (and zod) cost start-up time every server would pay.
let sdk: Promise<Sdk> | undefined;
const loadSdk = (): Promise<Sdk> =>
  (sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([server, transport, types]) => ({
    Server: server.Server,
    Transport: transport.WebStandardStreamableHTTPServerTransport,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    JSONRPCMessageSchema: types.JSONRPCMessageSchema,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    SUPPORTED_PROTOCOL_VERSIONS: types.SUPPORTED_PROTOCOL_VERSIONS,
  })));

const INSTRUCTIONS =
  'tradeapi: a MetaTrader 5 terminal over HTTP. Each tool mirrors a function of the MetaTrader5 Python package and bears its name. ' +
  'Dates are ISO 8601 UTC ending in Z (2024-01-10T09:00:00Z); MetaTrader5 constants are given by name (TIMEFRAME_H1, COPY_TICKS_ALL) or integer. ' +
  'Times in answers: `time` in seconds and `time_msc` in milliseconds since the epoch. Series and lists give at most 1000 rows inline, ' +
  'say whether there are more, and give the HTTP path of the whole answer as Parquet (send the API key with it as for any request).';

export function mcpRoutes(api: readonly Route[], options: McpOptions): Route[] {
  const tools = new Map<string, RouteTool>(routeTools(api, options.prefix).map((tool) => [tool.name, tool]));
  const { logger } = options;
  return [
    defineRoute({
      method: 'POST',
      path: '/mcp',
      summary: 'Model Context Protocol endpoint (streamable HTTP, stateless): the data routes as tools',
      description: 'See docs/mcp.md.',
      tags: ['mcp'],
      operational: false,
      hidden: true,
      terminal: false,
      bearerKey: true,
      body: Type.Unknown(),
      errors: ['payloadTooLarge', 'unsupportedMediaType', 'notAcceptable'],
      response: { kind: 'web', description: 'JSON-RPC answers: application/json, or text/event-stream when the client prefers it' },
      async handler(ctx) {
        const { query: _query, params: _params, body, header, charge, ...services } = ctx;
        const mode = negotiateMediaType(header('accept'), [JSON_TYPE, SSE_TYPE]);
        if (mode === undefined) {
          throw new ProblemError('notAcceptable', `Accept ${received(header('accept') ?? '')} admits neither ${JSON_TYPE} nor ${SSE_TYPE}, the media types of MCP answers`);
        }
        const mcp = await loadSdk();
        const version = header('mcp-protocol-version');
        if (version !== undefined && !mcp.SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
          throw validationError(`header MCP-Protocol-Version ${received(version)} is not one this server speaks (${mcp.SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
        }
        const toolCalls = checkMessages(body, mcp);
        // The request itself counted once in the pipeline: each further tool call counts once more,
        // all at once and all or none; a batch refused whole (429) runs nothing and costs nothing.
        if (toolCalls > 1) await charge?.(toolCalls - 1);

        const server = new mcp.Server({ name: 'tradeapi', version: options.version }, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
        server.setRequestHandler(mcp.ListToolsRequestSchema, () => ({ tools: [...tools.values()].map((tool) => tool.definition) }));
        server.setRequestHandler(mcp.CallToolRequestSchema, async (request) => {
          const tool = tools.get(request.params.name);
          if (!tool) throw new mcp.McpError(mcp.ErrorCode.InvalidParams, `no tool named ${received(request.params.name)}; tools/list names them`);
          const started = performance.now();
          const result = await tool.call(request.params.arguments ?? {}, services, logger);
          const problem = result.isError ? (result.structuredContent.type as string) : undefined;
          logger?.info({ tool: tool.name, ms: Math.round((performance.now() - started) * 100) / 100, ...(problem ? { problem } : {}) }, 'tool call');
          return result;
        });
        const transport = new mcp.Transport({ sessionIdGenerator: undefined, enableJsonResponse: mode === JSON_TYPE });
        await server.connect(transport);
        // The pipeline checked and parsed the body; the SDK sees only what it needs of the request.
        const headers: Record<string, string> = { accept: `${JSON_TYPE}, ${SSE_TYPE}`, 'content-type': JSON_TYPE };
        if (version !== undefined) headers['mcp-protocol-version'] = version;
        const request = new Request(`http://tradeapi.invalid${options.prefix}/mcp`, { method: 'POST', headers });
        let response: Response;
        try {
          response = await transport.handleRequest(request, { parsedBody: body });
        } catch (e) {
          await server.close();
          throw e;
        }
        if (response.body === null || mode === JSON_TYPE) {
          await server.close();
          return { kind: 'web', response };
        }
        // Event stream: the SDK ends it after the last answer; the server goes with it.
        const closing = new TransformStream<Uint8Array, Uint8Array>({
          flush: () => void server.close(),
        });
        return { kind: 'web', response: new Response(response.body.pipeThrough(closing), { status: response.status, headers: response.headers }) };
      },
    }),
  ];
}

/**
 * Refuses, as a 400 problem, a body that is not a JSON-RPC message or a batch of 1 to 100 of them
 * (the SDK would answer a JSON-RPC error instead); returns how many of them are tool calls.
 */
function checkMessages(body: unknown, mcp: Sdk): number {
  const batch = Array.isArray(body);
  const messages: unknown[] = batch ? body : [body];
  if (batch && (messages.length === 0 || messages.length > MAX_BATCH_MESSAGES)) {
    throw validationError(`a batch holds 1 to ${MAX_BATCH_MESSAGES} JSON-RPC messages; received ${messages.length}`);
  }
  let toolCalls = 0;
  messages.forEach((message, i) => {
    const parsed = mcp.JSONRPCMessageSchema.safeParse(message);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = batch ? `message ${i}` : 'the body';
      const at = issue && issue.path.length > 0 ? ` (member '${issue.path.join('.')}')` : '';
      throw validationError(`${where} is not a JSON-RPC 2.0 message${at}: ${issue?.message ?? 'invalid'}; received ${preview(message)}`);
    }
    if ((message as { method?: unknown }).method === 'tools/call') toolCalls++;
  });
  return toolCalls;
}
