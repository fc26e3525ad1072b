// docs/mcp.md as written: its client configurations are valid JSON whose streamable-HTTP entries
// an SDK client connects with, its TypeScript block runs against a live server, its curl works.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import { serve, simTerminal } from '../helpers/server.js';
import { mcpClient } from './mcp-client.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const page = readFileSync(path.join(root, 'docs', 'mcp.md'), 'utf8');
const blocks = (lang: string): string[] => [...page.matchAll(new RegExp('```' + lang + '\\n(.*?)```', 'gs'))].map((m) => m[1] as string);

const KEY = 'docs-mcp-key';
const DOC_URL = 'http://127.0.0.1:8000';

const terminal = simTerminal();
t.teardown(() => terminal.close());
// The documented client runs in a child process against this server: a key, no prefix, the
// simulator's frozen clock (2024-01-10 12:00 UTC), so the block's day has ticks.
const s = await serve(t, nodeAdapter, terminal, { TRADEAPI_SECRET_KEY: KEY });

interface Entry {
  type: string;
  url: string;
  headers: Record<string, string>;
}

t.test('the client configurations are valid JSON with a streamable-HTTP entry an SDK client connects with', async (t) => {
  const json = blocks('json');
  t.ok(json.length >= 2, `${json.length} JSON blocks`);
  for (const block of json) {
    let config: { mcpServers?: Record<string, Entry>; servers?: Record<string, Entry> };
    try {
      config = JSON.parse(block) as typeof config;
    } catch (e) {
      t.fail(`not JSON: ${String(e)}\n${block}`);
      continue;
    }
    const entry = (config.mcpServers ?? config.servers)?.tradeapi;
    t.match(entry, { type: 'http', url: `${DOC_URL}/mcp`, headers: Object }, 'a tradeapi entry of type http at /mcp');
    if (!entry) continue;
    // What the agent would send, its placeholders filled as the agent fills them.
    const headers = Object.fromEntries(Object.entries(entry.headers).map(([name, value]) => [name, value.replace(/\$\{[^}]+\}/, KEY)]));
    const client = await mcpClient(t, s, '', headers);
    const { tools } = await client.listTools();
    t.ok(tools.some((tool) => tool.name === 'symbol_info_tick'), `connected with ${Object.keys(headers).join(', ')}: ${tools.length} tools`);
    await client.close();
  }
});

t.test('the TypeScript client block runs as written', async (t) => {
  const block = blocks('ts').find((b) => b.includes('StreamableHTTPClientTransport'));
  if (!block) return t.fail('docs/mcp.md has no TypeScript block with StreamableHTTPClientTransport');
  // Inside the repository, so that the SDK resolves from node_modules as it does in a project.
  const dir = mkdtempSync(path.join(root, 'test', 'mcp', '.snippet-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'client.ts');
  writeFileSync(file, `${block}\nexport {};\n`);
  const loader = path.join(root, 'node_modules', '@tapjs', 'typescript', 'dist', 'esm', 'import.mjs');
  const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [`--import=${new URL(`file://${loader}`).href}`, file],
      { env: { ...process.env, TRADEAPI_MCP_URL: `${s.base}/mcp`, TRADEAPI_SECRET_KEY: KEY }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
  t.equal(out.code, 0, 'exits 0', { stderr: out.stderr });
  const [names = '', tick = '', ticks = ''] = out.stdout.trim().split('\n');
  t.match(names, /\bsymbol_info_tick\b.*\bcopy_ticks_range\b/, 'lists the tools');
  t.match(JSON.parse(tick) as unknown, { bid: Number, ask: Number, time_msc: Number }, 'a tick');
  t.match(ticks, /^1000 true \/ticks\/range\?symbol=EURUSD&.*format=parquet$/, 'a bounded day, with its Parquet path');
  // And it type-checks, strict, as a user's ESM project would compile it.
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const flags = ['--ignoreConfig', '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', '--types', 'node'];
  const checked = await new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile(process.execPath, [tsc, ...flags, file], { timeout: 120_000 }, (error, stdout) => resolve({ code: error ? 1 : 0, stdout }));
  });
  t.equal(checked.code, 0, 'tsc --strict finds nothing', { tsc: checked.stdout });
});

t.test('the curl block answers', { skip: spawnSync('curl', ['--version']).error ? 'curl is not installed' : false }, async (t) => {
  const block = blocks('sh').find((b) => b.includes('curl') && b.includes('/mcp'));
  if (!block) return t.fail('docs/mcp.md has no curl block');
  // Asynchronous: the server runs on this process's event loop.
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile('sh', ['-c', block.replaceAll(DOC_URL, s.base)], { env: { ...process.env, TRADEAPI_SECRET_KEY: KEY }, timeout: 30_000 }, (error, out) => (error ? reject(error) : resolve(out)));
  });
  t.match(JSON.parse(stdout) as unknown, { jsonrpc: '2.0', id: 1, result: { structuredContent: { currency: String, balance: Number } } }, 'account_info through JSON-RPC');
});
