// Read-only configuration (unit) and the CLI: `serve --read-only` refuses to start without
// TRADE_API_KEY or with a bad API_* value (exit 2, a clear message, nothing listens), and starts
// with its own variables while the full variant's are ignored.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { freePort } from '../../bench/ports.js';

import t from 'tap';

import { ConfigError, ignoredInReadOnly, loadConfig, parseCorsOrigins } from '../../src/config/index.js';
import { cliCommand, root, runCli as run, type Run } from '../helpers/cli.js';

const ro = (env: Record<string, string>) => loadConfig({ TRADE_API_KEY: 'k', ...env }, { readOnly: true });

t.test('defaults and parsing', async (t) => {
  t.match(ro({}), {
    secretKey: 'k',
    logLevel: 'info',
    routerPrefix: '/api/v1',
    host: '127.0.0.1',
    port: 8000,
    readOnly: { rateLimit: 100, corsOrigins: [], trustProxy: 0 },
  });
  t.equal(loadConfig({}).readOnly, undefined, 'full variant: no read-only settings');
  t.equal(ro({ API_LOG_LEVEL: 'warning' }).logLevel, 'warn');
  t.equal(ro({ API_RATE_LIMIT: ' 250 ' }).readOnly?.rateLimit, 250);
  t.equal(ro({ API_TRUST_PROXY: '2' }).readOnly?.trustProxy, 2);
  t.equal(ro({ API_TRUST_PROXY: '2' }).trustProxy, 2, 'the client address (compression policy) behind the same proxies');
  t.equal(ro({ TRADEAPI_COMPRESS: 'never' }).compression.mode, 'never', 'TRADEAPI_COMPRESS applies in both modes');
  t.same(ro({ TRADEAPI_COMPRESS_NEAR: '10.0.0.0/8' }).compression.near.toJSON(), ['10.0.0.0/8'], 'and TRADEAPI_COMPRESS_NEAR');
  t.equal(ro({ API_CORS_ORIGINS: '*' }).readOnly?.corsOrigins, '*');
  t.same(parseCorsOrigins('https://App.Example.com:443/, http://localhost:3000,,http://127.0.0.1:8080'), [
    'https://app.example.com',
    'http://localhost:3000',
    'http://127.0.0.1:8080',
  ]);
  t.same(parseCorsOrigins(' '), []);
  t.equal(loadConfig({ TRADE_API_KEY: 'k', TRADEAPI_PORT: '9000' }, { readOnly: true, port: '9001', host: '0.0.0.0' }).port, 9001, 'flags apply');
  t.equal(ro({ TRADEAPI_PORT: '9000', TRADEAPI_HTTP: 'node' }).port, 9000, 'process-level TRADEAPI_PORT applies');
  t.equal(ro({ TRADEAPI_HTTP: 'node' }).http, 'node', 'and TRADEAPI_HTTP');
});

t.test('the full variant variables are ignored, even invalid ones', async (t) => {
  const env = { TRADEAPI_SECRET_KEY: 'other', TRADEAPI_LOG_LEVEL: 'loud', TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS: '0', TRADEAPI_ROUTER_PREFIX: '../x' };
  const c = ro(env);
  t.match(c, { secretKey: 'k', logLevel: 'info', routerPrefix: '/api/v1', maxMarketBookSubscriptions: 100 });
  t.same(ignoredInReadOnly(env), ['TRADEAPI_SECRET_KEY', 'TRADEAPI_LOG_LEVEL', 'TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS', 'TRADEAPI_ROUTER_PREFIX']);
  t.same(ignoredInReadOnly({ TRADEAPI_ROUTER_PREFIX: '', TRADEAPI_PORT: '1' }), [], 'empty ones and process-level ones are not reported');
  t.equal(ro({ TRADEAPI_TRUST_PROXY: 'x' }).trustProxy, 0, 'TRADEAPI_TRUST_PROXY: read-only mode has API_TRUST_PROXY');
  t.same(ignoredInReadOnly({ TRADEAPI_TRUST_PROXY: '1' }), ['TRADEAPI_TRUST_PROXY']);
  t.equal(loadConfig({ API_RATE_LIMIT: 'x', TRADE_API_KEY: '' }).readOnly, undefined, 'and the full variant ignores the API_* ones');
});

t.test('refused values', async (t) => {
  const cases: Array<[Record<string, string | undefined>, RegExp]> = [
    [{ TRADE_API_KEY: undefined }, /TRADE_API_KEY must be set/],
    [{ TRADE_API_KEY: '' }, /TRADE_API_KEY must be set/],
    [{ TRADE_API_KEY: '   ' }, /TRADE_API_KEY must be set/],
    [{ TRADE_API_KEY: ' k' }, /TRADE_API_KEY must not begin or end with whitespace/],
    [{ TRADE_API_KEY: 'clé' }, /TRADE_API_KEY must be printable ASCII/],
    [{ API_RATE_LIMIT: '0' }, /API_RATE_LIMIT must be a positive integer/],
    [{ API_RATE_LIMIT: '-5' }, /API_RATE_LIMIT/],
    [{ API_RATE_LIMIT: 'ten' }, /API_RATE_LIMIT/],
    [{ API_RATE_LIMIT: '1.5' }, /API_RATE_LIMIT/],
    [{ API_RATE_LIMIT: '1e3' }, /API_RATE_LIMIT/],
    [{ API_LOG_LEVEL: 'verbose' }, /API_LOG_LEVEL must be one of/],
    [{ API_CORS_ORIGINS: 'app.example.com' }, /API_CORS_ORIGINS/],
    [{ API_CORS_ORIGINS: 'https://app.example.com/path' }, /API_CORS_ORIGINS.*no path/],
    [{ API_CORS_ORIGINS: 'ftp://app.example.com' }, /API_CORS_ORIGINS/],
    [{ API_CORS_ORIGINS: 'https://user:pw@app.example.com' }, /API_CORS_ORIGINS/],
    [{ API_CORS_ORIGINS: '*, https://app.example.com' }, /API_CORS_ORIGINS: '\*'.*cannot be combined/],
    [{ API_TRUST_PROXY: 'yes' }, /API_TRUST_PROXY/],
    [{ API_TRUST_PROXY: '-1' }, /API_TRUST_PROXY/],
    [{ TRADEAPI_HTTP: 'express' }, /TRADEAPI_HTTP/],
    [{ TRADEAPI_COMPRESS: 'yes' }, /TRADEAPI_COMPRESS must be auto/],
  ];
  for (const [env, message] of cases) {
    const full: Record<string, string | undefined> = { TRADE_API_KEY: 'k', ...env };
    t.throws(() => loadConfig(full, { readOnly: true }), { name: 'ConfigError', message }, JSON.stringify(env));
  }
  t.throws(() => parseCorsOrigins('nope'), ConfigError);
});

// A clean environment: none of the service's own variables inherited from the test runner.
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(TRADEAPI_|API_|TRADE_API_KEY$)/.test(k)) env[k] = v;
  return { ...env, TRADEAPI_HTTP: 'node', ...extra };
}


function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const runCli = (args: string[], env: Record<string, string>): Promise<Run> => run(args, cleanEnv(env));

t.test('serve --read-only refuses to start without a key or with a bad value', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{}, /TRADE_API_KEY must be set to a non-empty API key in read-only mode/],
    [{ TRADE_API_KEY: '' }, /TRADE_API_KEY must be set/],
    // The full variant's key does not stand in for it.
    [{ TRADEAPI_SECRET_KEY: 'full-key' }, /TRADE_API_KEY must be set/],
    [{ TRADE_API_KEY: 'k', API_RATE_LIMIT: '0' }, /API_RATE_LIMIT must be a positive integer; got "0"/],
    [{ TRADE_API_KEY: 'k', API_RATE_LIMIT: '-1' }, /API_RATE_LIMIT must be a positive integer/],
    [{ TRADE_API_KEY: 'k', API_RATE_LIMIT: 'lots' }, /API_RATE_LIMIT must be a positive integer/],
    [{ TRADE_API_KEY: 'k', API_CORS_ORIGINS: 'example.com' }, /API_CORS_ORIGINS/],
    [{ TRADE_API_KEY: 'k', API_LOG_LEVEL: 'loud' }, /API_LOG_LEVEL/],
    [{ TRADE_API_KEY: 'k', API_TRUST_PROXY: 'true' }, /API_TRUST_PROXY/],
  ];
  await Promise.all(
    cases.map(async ([env, message]) => {
      const port = await freePort();
      const run = await runCli(['serve', '--read-only', '--port', String(port)], env);
      const label = JSON.stringify(env);
      t.equal(run.code, 2, `${label}: exit code 2`);
      t.match(run.stderr, message, `${label}: clear message`);
      t.match(run.stderr, /^tradeapi: /, 'one line naming the program');
      t.notMatch(run.stdout, /serving/, 'never served');
      t.notOk(await listening(port), 'nothing listens on the port');
    }),
  );
});

t.test('serve --read-only starts with its own variables, warns, and stops on SIGTERM', async (t) => {
  const child = spawn(process.execPath, [...cliCommand(), 'serve', '--read-only', '--port', '0'], {
    cwd: root,
    env: cleanEnv({
      TRADE_API_KEY: 'never-logged-ro-key',
      API_CORS_ORIGINS: '*',
      API_RATE_LIMIT: '50',
      TRADEAPI_SECRET_KEY: 'ignored-full-key',
      TRADEAPI_ROUTER_PREFIX: '/custom',
    }),
  });
  let stdout = '';
  const started = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /on http:\/\/127\.0\.0\.1:(\d+)\/api\/v1\//.exec(stdout);
      if (m) resolve(m[1] as string);
    });
    child.once('close', (code) => reject(new Error(`exited ${code}: ${stdout}`)));
  });
  const port = await started;
  const base = `http://127.0.0.1:${port}`;
  t.equal((await fetch(`${base}/api/v1/health`)).status, 200);
  const ok = await fetch(`${base}/api/v1/account`, { headers: { 'x-api-key': 'never-logged-ro-key' } });
  t.equal(ok.status, 200);
  t.equal(ok.headers.get('ratelimit-limit'), '50');
  await ok.arrayBuffer();
  const full = await fetch(`${base}/api/v1/account`, { headers: { 'x-api-key': 'ignored-full-key' } });
  t.equal(full.status, 401, 'TRADEAPI_SECRET_KEY is not a key here');
  await full.arrayBuffer();
  const prefixed = await fetch(`${base}/custom/health`, { headers: { 'x-api-key': 'never-logged-ro-key' } });
  t.equal(prefixed.status, 404, 'TRADEAPI_ROUTER_PREFIX has no effect');
  await prefixed.arrayBuffer();

  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.kill('SIGTERM');
  const code = await exited;
  // On Windows child.kill() is TerminateProcess whatever the signal: no handler runs, no clean exit.
  if (process.platform === 'win32') t.equal(child.signalCode, 'SIGTERM', 'terminated (Windows: no SIGTERM handler runs)');
  else t.equal(code, 0, 'exit 0 after SIGTERM');
  const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const warn = lines.find((l) => typeof l.msg === 'string' && l.msg.includes('API_CORS_ORIGINS=*'));
  t.match(warn, { level: 40, msg: /restrict it/ }, "a warning about '*' at start");
  const ignored = lines.find((l) => Array.isArray(l.ignored));
  t.match(ignored, { level: 40, ignored: ['TRADEAPI_SECRET_KEY', 'TRADEAPI_ROUTER_PREFIX'] }, 'the ignored variables are named');
  const start = lines.find((l) => l.mode === 'read-only');
  t.match(start, { prefix: '/api/v1', auth: true, rateLimitPerMinute: 50, corsOrigins: '*', trustProxy: 0 }, 'the start line');
  t.notMatch(stdout, /never-logged-ro-key|ignored-full-key/, 'no key is ever logged');
  t.ok(lines.some((l) => l.msg === 'request' && l.path === '/api/v1/account' && l.status === 401), 'requests logged');
});
