// Configuration parsing (unit) and the CLI's refusal to start on bad configuration (spawned).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

import t from 'tap';

import { ConfigError, loadConfig, normalizePrefix } from '../../src/config/index.js';
import { loadUws } from '../../src/http/adapters/uws/adapter.js';
import { cliCommand, root, runCli as run, type Run } from '../helpers/cli.js';


t.test('defaults and normalisation', async (t) => {
  const c = loadConfig({});
  t.match(c, { secretKey: undefined, logLevel: 'info', maxMarketBookSubscriptions: 100, routerPrefix: '', terminal: 'sim', http: undefined, host: '127.0.0.1', port: 8000 });
  for (const raw of ['api/v1', '/api/v1', '/api/v1/', ' /api/v1 ']) t.equal(normalizePrefix(raw), '/api/v1', raw);
  t.equal(normalizePrefix('/'), '');
  for (const bad of ['../x', 'a//b', 'a b', 'api?x', '/./a', 'a/%2e', '#x']) t.throws(() => normalizePrefix(bad), ConfigError, bad);
  t.equal(loadConfig({ TRADEAPI_LOG_LEVEL: 'warning' }).logLevel, 'warn');
  t.equal(loadConfig({ TRADEAPI_LOG_LEVEL: 'Critical' }).logLevel, 'fatal');
  t.equal(loadConfig({ TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS: '3' }).maxMarketBookSubscriptions, 3);
  t.equal(loadConfig({ TRADEAPI_PORT: '9000' }, { port: '9001', host: '0.0.0.0' }).port, 9001, 'flags win');
  t.equal(loadConfig({ TRADEAPI_HOST: '10.0.0.1' }).host, '10.0.0.1');
  t.equal(loadConfig({ TRADEAPI_SECRET_KEY: '' }).secretKey, undefined);
  t.equal(loadConfig({ TRADEAPI_HTTP: 'NODE' }).http, 'node');
  t.same(
    loadConfig({}).events,
    { pollMs: 100, heartbeatMs: 15_000, maxClients: 1_000, maxSymbols: 20, queueBytes: 262_144, catchupMs: 300_000, catchupTicks: 10_000, authTimeoutMs: 5_000, maxAuthenticating: 100, tradeMs: 100, accountMs: 1_000 },
    'live-event defaults',
  );
  t.equal(loadConfig({ TRADEAPI_EVENTS_POLL_MS: '250' }).events.pollMs, 250);
  t.equal(loadConfig({ TRADEAPI_EVENTS_TRADE_MS: '250' }).events.tradeMs, 250);
  t.equal(loadConfig({ TRADEAPI_EVENTS_ACCOUNT_MS: '5000' }).events.accountMs, 5_000);
  t.equal(loadConfig({ TRADEAPI_EVENTS_AUTH_TIMEOUT_MS: '1500' }).events.authTimeoutMs, 1_500);
  for (const [name, value] of [
    ['TRADEAPI_LOG_LEVEL', 'verbose'],
    ['TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS', '0'],
    ['TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS', '1.5'],
    ['TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS', '-3'],
    ['TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS', 'ten'],
    ['TRADEAPI_TERMINAL', 'mt5'],
    ['TRADEAPI_HTTP', 'express'],
    ['TRADEAPI_PORT', '70000'],
    ['TRADEAPI_PORT', 'http'],
    ['TRADEAPI_EVENTS_POLL_MS', '5'],
    ['TRADEAPI_EVENTS_POLL_MS', '0'],
    ['TRADEAPI_EVENTS_QUEUE_BYTES', '1000'],
    ['TRADEAPI_MAX_EVENT_CLIENTS', '0'],
    ['TRADEAPI_EVENTS_MAX_SYMBOLS', 'all'],
    ['TRADEAPI_EVENTS_HEARTBEAT_MS', '-1'],
    ['TRADEAPI_EVENTS_CATCHUP_MS', '3000000000'],
    ['TRADEAPI_EVENTS_CATCHUP_TICKS', '1e4'],
    ['TRADEAPI_EVENTS_AUTH_TIMEOUT_MS', '0'],
    ['TRADEAPI_EVENTS_TRADE_MS', '5'],
    ['TRADEAPI_EVENTS_ACCOUNT_MS', 'often'],
  ] as const) {
    t.throws(() => loadConfig({ [name]: value }), { name: 'ConfigError', message: new RegExp(name) }, `${name}=${value}`);
  }
});

t.test('TRADEAPI_SIM_CLOCK_RATE and TRADEAPI_SIM_TRADES_PER_HOUR: the living account\'s clock and schedule', async (t) => {
  const unset = loadConfig({});
  t.equal(unset.simClockRate, undefined, 'unset: the simulator\'s defaults (1, and 4 an hour)');
  t.equal(unset.simTradesPerHour, undefined);
  const set = loadConfig({ TRADEAPI_SIM_CLOCK_RATE: '60', TRADEAPI_SIM_TRADES_PER_HOUR: '0' });
  t.equal(set.simClockRate, 60);
  t.equal(set.simTradesPerHour, 0, '0 turns the schedule off');
  t.equal(loadConfig({ TRADEAPI_SIM_CLOCK_RATE: '0.5', TRADEAPI_SIM_TRADES_PER_HOUR: '3600' }).simClockRate, 0.5);
  for (const [name, value] of [
    ['TRADEAPI_SIM_CLOCK_RATE', '0'],
    ['TRADEAPI_SIM_CLOCK_RATE', '-1'],
    ['TRADEAPI_SIM_CLOCK_RATE', 'fast'],
    ['TRADEAPI_SIM_CLOCK_RATE', '2000000'],
    ['TRADEAPI_SIM_TRADES_PER_HOUR', '3601'],
    ['TRADEAPI_SIM_TRADES_PER_HOUR', '1e3'],
  ] as const) {
    t.throws(() => loadConfig({ [name]: value }), { name: 'ConfigError', message: new RegExp(name) }, `${name}=${value}`);
  }
  const bridge = { TRADEAPI_TERMINAL: 'tcp://127.0.0.1:18812', TRADEAPI_BRIDGE_SECRET: 'a-secret-of-16-bytes-or-more' };
  t.throws(() => loadConfig({ ...bridge, TRADEAPI_SIM_TRADES_PER_HOUR: '4' }), { message: /simulator/ }, 'sim only');
});

t.test('TRADEAPI_TERMINAL=tcp://HOST:PORT: a bridge, with TRADEAPI_BRIDGE_SECRET', async (t) => {
  const secret = 'bridge-secret-0123456789abcdef';
  const c = loadConfig({ TRADEAPI_TERMINAL: 'tcp://127.0.0.1:18812', TRADEAPI_BRIDGE_SECRET: secret });
  t.match(c.terminal, { kind: 'bridge', url: 'tcp://127.0.0.1:18812', host: '127.0.0.1', port: 18812 });
  t.equal(c.terminal !== 'sim' && c.terminal.secret, secret, 'the secret is there for the terminal');
  t.notMatch(JSON.stringify(c), secret, 'but not in the config as logged');
  t.notMatch(JSON.stringify({ ...c }), secret);
  t.match(loadConfig({ TRADEAPI_TERMINAL: 'tcp://[::1]:9', TRADEAPI_BRIDGE_SECRET: secret }).terminal, { host: '::1', port: 9 });
  t.match(loadConfig({ TRADEAPI_TERMINAL: 'tcp://bridge.internal:18812', TRADEAPI_BRIDGE_SECRET: secret }).terminal, { host: 'bridge.internal' });
  for (const bad of ['tcp://127.0.0.1', 'tcp://127.0.0.1:0', 'tcp://127.0.0.1:70000', 'http://127.0.0.1:18812', 'tcp://a b:1', 'tcp://h:1/x', 'bridge']) {
    t.throws(() => loadConfig({ TRADEAPI_TERMINAL: bad, TRADEAPI_BRIDGE_SECRET: secret }), { name: 'ConfigError', message: /TRADEAPI_TERMINAL must be 'sim' or tcp:\/\/HOST:PORT/ }, bad);
  }
  t.equal(c.terminal !== 'sim' && c.terminal.compression, 'auto', 'TRADEAPI_BRIDGE_COMPRESSION defaults to auto');
  for (const value of ['zstd', 'none', 'auto', ' ZSTD ']) {
    const b = loadConfig({ TRADEAPI_TERMINAL: 'tcp://127.0.0.1:18812', TRADEAPI_BRIDGE_SECRET: secret, TRADEAPI_BRIDGE_COMPRESSION: value });
    t.equal(b.terminal !== 'sim' && b.terminal.compression, value.trim().toLowerCase(), `TRADEAPI_BRIDGE_COMPRESSION=${value}`);
  }
  for (const bad of ['lz4', 'gzip', 'zstd:3']) {
    t.throws(() => loadConfig({ TRADEAPI_TERMINAL: 'tcp://127.0.0.1:18812', TRADEAPI_BRIDGE_SECRET: secret, TRADEAPI_BRIDGE_COMPRESSION: bad }),
      { name: 'ConfigError', message: /TRADEAPI_BRIDGE_COMPRESSION must be auto, zstd or none/ }, bad);
  }
  t.throws(() => loadConfig({ TRADEAPI_TERMINAL: 'tcp://127.0.0.1:18812' }), { message: /needs TRADEAPI_BRIDGE_SECRET/ });
  t.throws(() => loadConfig({ TRADEAPI_TERMINAL: 'tcp://127.0.0.1:18812', TRADEAPI_BRIDGE_SECRET: 'short' }), { message: /at least 16 bytes/ });
});

t.test('TRADEAPI_COMPRESS, TRADEAPI_COMPRESS_NEAR and TRADEAPI_TRUST_PROXY', async (t) => {
  const c = loadConfig({});
  t.equal(c.compression.mode, 'auto', 'auto by default');
  t.same(c.compression.near.toJSON(), ['127.0.0.0/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7', 'fe80::/10'], 'near: loopback and private ranges');
  t.equal(c.trustProxy, 0, 'the socket address by default');
  const near = (address: string, env: Record<string, string> = {}): boolean => loadConfig(env).compression.near.contains(address);
  for (const a of ['127.0.0.1', '127.9.9.9', '::1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', 'fd12::1', 'fe80::1']) t.ok(near(a), `${a} is near`);
  for (const a of ['203.0.113.7', '172.32.0.1', '11.0.0.1', '2001:db8::1', '::2', 'localhost', '']) t.notOk(near(a), `${JSON.stringify(a)} is not near`);
  t.equal(loadConfig({ TRADEAPI_COMPRESS: ' Always ' }).compression.mode, 'always', 'any case, trimmed');
  t.equal(loadConfig({ TRADEAPI_COMPRESS: 'never' }).compression.mode, 'never');
  t.equal(loadConfig({ TRADEAPI_COMPRESS: '' }).compression.mode, 'auto', 'empty: the default');
  const listed = { TRADEAPI_COMPRESS_NEAR: ' 10.0.0.0/8 , 2001:db8::/32,203.0.113.7 ' };
  t.same(loadConfig(listed).compression.near.toJSON(), ['10.0.0.0/8', '2001:db8::/32', '203.0.113.7/32'], 'a list replaces the default; a bare address is itself');
  t.ok(near('2001:db8:1::5', listed));
  t.ok(near('203.0.113.7', listed));
  t.notOk(near('127.0.0.1', listed), 'loopback is no longer near when the list leaves it out');
  t.notOk(near('203.0.113.8', listed));
  t.same(loadConfig({ TRADEAPI_COMPRESS_NEAR: ' ' }).compression.near.toJSON().length, 7, 'blank: the default');
  t.equal(loadConfig({ TRADEAPI_TRUST_PROXY: '1' }).trustProxy, 1);
  for (const [name, value, message] of [
    ['TRADEAPI_COMPRESS', 'sometimes', /TRADEAPI_COMPRESS must be auto .*, always or never; got "sometimes"/],
    ['TRADEAPI_COMPRESS', 'gzip', /TRADEAPI_COMPRESS must be/],
    ['TRADEAPI_COMPRESS_NEAR', '10.0.0.0/33', /TRADEAPI_COMPRESS_NEAR must be IP ranges in CIDR notation.*"10\.0\.0\.0\/33": the prefix length of an IPv4 range must be 0 to 32/],
    ['TRADEAPI_COMPRESS_NEAR', 'fd00::/129', /prefix length of an IPv6 range must be 0 to 128/],
    ['TRADEAPI_COMPRESS_NEAR', '10.0.0.0/8,lan', /"lan" is not an IP address or a CIDR range/],
    ['TRADEAPI_COMPRESS_NEAR', '10.0.0.0/', /prefix length/],
    ['TRADEAPI_COMPRESS_NEAR', '10.0.0.0/+8', /prefix length/],
    ['TRADEAPI_COMPRESS_NEAR', '10.0.0/8', /"10\.0\.0\/8" is not an IP address/],
    ['TRADEAPI_COMPRESS_NEAR', 'fe80::1%eth0/64', /is not an IP address/],
    ['TRADEAPI_COMPRESS_NEAR', ',,', /no range given/],
    ['TRADEAPI_TRUST_PROXY', '11', /TRADEAPI_TRUST_PROXY must be the number of reverse proxies/],
    ['TRADEAPI_TRUST_PROXY', 'yes', /TRADEAPI_TRUST_PROXY/],
  ] as const) {
    t.throws(() => loadConfig({ [name]: value }), { name: 'ConfigError', message }, `${name}=${value}`);
  }
});

const runCli = (args: string[], env: Record<string, string>): Promise<Run> => run(args, { ...process.env, ...env });

t.test('the CLI refuses bad configuration before listening', async (t) => {
  const cases: Array<[Record<string, string>, string[], RegExp]> = [
    [{ TRADEAPI_TERMINAL: 'mt5' }, ['serve'], /TRADEAPI_TERMINAL must be 'sim'/],
    [{ TRADEAPI_TERMINAL: 'tcp://127.0.0.1:18812', TRADEAPI_BRIDGE_SECRET: '' }, ['serve'], /needs TRADEAPI_BRIDGE_SECRET/],
    [{ TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS: '0' }, ['serve'], /TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS must be a positive integer/],
    [{ TRADEAPI_ROUTER_PREFIX: '../x' }, ['serve'], /TRADEAPI_ROUTER_PREFIX/],
    [{ TRADEAPI_LOG_LEVEL: 'loud' }, ['serve'], /TRADEAPI_LOG_LEVEL/],
    [{ TRADEAPI_HTTP: 'express' }, ['serve'], /TRADEAPI_HTTP/],
    [{ TRADEAPI_COMPRESS: 'sometimes' }, ['serve'], /TRADEAPI_COMPRESS must be auto/],
    [{ TRADEAPI_COMPRESS_NEAR: '10.0.0.0/33' }, ['serve'], /TRADEAPI_COMPRESS_NEAR must be IP ranges/],
    [{}, ['serve', '--port', 'eighty'], /--port must be an integer/],
    [{}, ['serve', '--bogus'], /unknown option --bogus; see tradeapi --help/],
    [{ TRADE_API_KEY: '' }, ['serve', '--read-only', '--port', '0'], /TRADE_API_KEY must be set/],
  ];
  // Forcing uWS where it cannot load is refused, not silently replaced by node:http.
  if ('error' in loadUws()) cases.push([{ TRADEAPI_HTTP: 'uws' }, ['serve'], /TRADEAPI_HTTP=uws but uWebSockets\.js does not load/]);
  await Promise.all(
    cases.map(async ([env, args, message]) => {
      const run = await runCli(args, env);
      t.equal(run.code, 2, `${JSON.stringify(env)} ${args.join(' ')}: exit code 2`);
      t.match(run.stderr, message, 'clear message');
      t.notMatch(run.stdout, /serving/, 'never served');
    }),
  );
});

t.test('--help', async (t) => {
  const run = await runCli(['--help'], {});
  t.equal(run.code, 0);
  t.match(run.stdout, /tradeapi serve \[--host/);
});

t.test('serve starts, logs the adapter, and stops cleanly on SIGTERM', async (t) => {
  const child = spawn(process.execPath, [...cliCommand(), 'serve', '--port', '0'], {
    cwd: root,
    env: { ...process.env, TRADEAPI_SECRET_KEY: 'never-logged-key', TRADEAPI_HTTP: 'node' },
  });
  let stdout = '';
  const started = new Promise<string>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /on http:\/\/127\.0\.0\.1:(\d+)\//.exec(stdout);
      if (m) resolve(m[1] as string);
    });
  });
  const port = await started;
  t.match(stdout, /"adapter":"node"/);
  const res = await fetch(`http://127.0.0.1:${port}/symbols?group=*USD*`, { headers: { 'x-api-key': 'never-logged-key' } });
  t.equal(res.status, 200);
  await res.arrayBuffer();
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.kill('SIGTERM');
  const code = await exited;
  // On Windows child.kill() is TerminateProcess whatever the signal: no handler runs, no clean exit.
  if (process.platform === 'win32') t.equal(child.signalCode, 'SIGTERM', 'terminated (Windows: no SIGTERM handler runs)');
  else t.equal(code, 0, 'exit 0 after SIGTERM');
  const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const request = lines.find((l) => l.msg === 'request' && l.path === '/symbols');
  t.match(request, { method: 'GET', path: '/symbols', status: 200, id: String, ms: Number }, 'one line per request');
  t.notMatch(stdout, /never-logged-key/, 'the key is never logged');
  t.notMatch(stdout, /group=/, 'no query strings in logs');
});

t.test('bin/tradeapi.js runs the compiled CLI', { skip: existsSync(`${root}dist/src/cli.js`) ? false : 'dist not built' }, async (t) => {
  const result = await run(['serve'], { ...process.env, TRADEAPI_TERMINAL: 'bridge' }, { compiled: true });
  t.equal(result.code, 2);
  t.match(result.stderr, /TRADEAPI_TERMINAL/);
});
