// Test servers: the real simulated terminal with a fixed clock, a real HTTP server on an
// ephemeral loopback port, once per adapter that loads on this machine.
import type { Test } from 'tap';

import { loadConfig, type Config } from '../../src/config/index.js';
import { availableAdapters } from '../../src/http/adapters/index.js';
import type { HttpAdapter } from '../../src/http/adapter.js';
import { createLogger } from '../../src/log.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { openSimTerminal, type Terminal } from '../../src/terminal/index.js';

/** 2024-01-10 12:00 UTC, a Wednesday: markets open, history a day old. */
export const NOW_MS = Date.UTC(2024, 0, 10, 12);
export const ANCHOR_S = Date.UTC(2024, 0, 10) / 1000;

export function simTerminal(): Terminal {
  return openSimTerminal({ nowMs: NOW_MS, accountAnchor: ANCHOR_S, seed: 42 });
}

/**
 * An idle keep-alive connection outlives any pause of a test's own (the default 5 s does not): a
 * test that computes its expectation for seconds on a loaded machine blocks its event loop, fetch's
 * timer to drop the idle connection fires late, and the next request goes out on a connection the
 * server has just closed (ECONNRESET). The keep-alive suites set their own.
 */
const KEEP_ALIVE = { TRADEAPI_KEEPALIVE_TIMEOUT_MS: '120000' };

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ TRADEAPI_HOST: '127.0.0.1', TRADEAPI_PORT: '0', ...KEEP_ALIVE, ...env });
}

export interface TestServer {
  readonly base: string;
  readonly server: RunningServer;
  readonly adapter: string;
  get(path: string, init?: RequestInit): Promise<Response>;
  post(path: string, init?: RequestInit): Promise<Response>;
}

export async function serve(t: Test, adapter: HttpAdapter, terminal: Terminal, env: Record<string, string> = {}): Promise<TestServer> {
  return listen(t, adapter, terminal, testConfig(env));
}

/** The key every read-only test server expects unless the env says otherwise. */
export const READ_ONLY_KEY = 'read-only-test-key';

/** Read-only mode (`serve --read-only`): its own variables, TRADE_API_KEY set to READ_ONLY_KEY. */
export function readOnlyConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ TRADEAPI_HOST: '127.0.0.1', TRADEAPI_PORT: '0', TRADE_API_KEY: READ_ONLY_KEY, ...KEEP_ALIVE, ...env }, { readOnly: true });
}

export async function serveReadOnly(
  t: Test,
  adapter: HttpAdapter,
  terminal: Terminal,
  env: Record<string, string> = {},
  options: { rateLimitWindowMs?: number } = {},
): Promise<TestServer> {
  return listen(t, adapter, terminal, readOnlyConfig(env), options.rateLimitWindowMs);
}

async function listen(t: Test, adapter: HttpAdapter, terminal: Terminal, config: Config, rateLimitWindowMs?: number): Promise<TestServer> {
  const server = await startServer({
    terminal,
    config,
    adapter,
    host: '127.0.0.1',
    port: 0,
    logger: createLogger('silent'),
    ...(rateLimitWindowMs !== undefined ? { rateLimitWindowMs } : {}),
  });
  t.teardown(() => server.close(1000));
  const base = `http://127.0.0.1:${server.port}`;
  return {
    base,
    server,
    adapter: adapter.name,
    get: (path, init) => fetch(base + path, init),
    post: (path, init) => fetch(base + path, { method: 'POST', ...init }),
  };
}

/**
 * The adapters the suites run against: every one that loads here, or those TRADEAPI_TEST_ADAPTERS
 * names (`node`, `uws`, comma-separated): the test command runs each HTTP suite once per adapter
 * stage, not every adapter in every stage. Naming one that does not load is an error, not a skip.
 */
export function testAdapters(): HttpAdapter[] {
  const loaded = availableAdapters();
  const wanted = process.env.TRADEAPI_TEST_ADAPTERS?.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (wanted === undefined || wanted.length === 0) return loaded;
  return wanted.map((name) => {
    const adapter = loaded.find((a) => a.name === name);
    if (adapter === undefined) throw new Error(`TRADEAPI_TEST_ADAPTERS names ${name}, which does not load here (loaded: ${loaded.map((a) => a.name).join(', ')})`);
    return adapter;
  });
}

/** Runs `fn` as one subtest per test adapter (uWS is skipped where it does not load). */
export async function forEachAdapter(t: Test, fn: (t: Test, adapter: HttpAdapter) => Promise<void>): Promise<void> {
  for (const adapter of testAdapters()) {
    await t.test(`adapter ${adapter.name}`, (tt) => fn(tt, adapter));
  }
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
}

/** Asserts a problem response and returns its body. */
export async function expectProblem(t: Test, res: Response, status: number, type: string, instance?: string): Promise<ProblemBody> {
  t.equal(res.status, status, `status ${status}`);
  t.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, 'problem media type');
  const body = (await res.json()) as ProblemBody;
  t.equal(body.type, type, `type ${type}`);
  t.equal(body.status, status, 'status member');
  t.type(body.title, 'string');
  t.type(body.detail, 'string');
  if (instance !== undefined) t.equal(body.instance, instance, 'instance is the path without the query');
  return body;
}
