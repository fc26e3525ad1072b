// What the MCP suites share: the SDK's own client connected to a test server's /mcp, and a raw
// JSON-RPC POST for what a well-behaved client never sends.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Test } from 'tap';

import type { TestServer } from '../helpers/server.js';

/** The SDK client on `${s.base}${prefix}/mcp`, sending `headers` (the key) on every request; closed at teardown. */
export async function mcpClient(t: Test, s: TestServer, prefix: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'tradeapi-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${s.base}${prefix}/mcp`), { requestInit: { headers } });
  await client.connect(transport);
  t.teardown(() => client.close());
  return client;
}

/** What a tool call answers, as the SDK client hands it over. */
export interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

let nextId = 1;

/** A JSON-RPC request object. */
export const rpc = (method: string, params: Record<string, unknown> = {}): Record<string, unknown> => ({ jsonrpc: '2.0', id: nextId++, method, params });

export const INITIALIZE = (): Record<string, unknown> =>
  rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });

/** A raw POST to /mcp: the body as given (a string is sent as it is), JSON and event stream accepted unless the headers say otherwise. */
export function postMcp(s: TestServer, prefix: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return s.post(`${prefix}/mcp`, {
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
