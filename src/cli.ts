// `tradeapi serve [--host H] [--port P] [--read-only]` and `tradeapi --help`.
import { parseArgs } from 'node:util';

import { ConfigError, ignoredInReadOnly, loadConfig, type Config } from './config.js';
import { AdapterUnavailableError, pickAdapter } from './http/adapters.js';
import { createLogger } from './log.js';

const HELP = `tradeapi - HTTP gateway in front of a MetaTrader 5 terminal

Usage:
  tradeapi serve [--host 127.0.0.1] [--port 8000] [--read-only]
  tradeapi --help

Options (override TRADEAPI_HOST / TRADEAPI_PORT):
  --host <host>    address to listen on (default 127.0.0.1)
  --port <port>    port to listen on (default 8000; 0 picks a free one)
  --read-only      read-only deployment: GET data routes only, under /api/v1, with
                   mandatory key, rate limit and CORS (its own variables, below)

Environment, full service:
  TRADEAPI_SECRET_KEY                     API key for X-API-Key; unset or empty disables auth
  TRADEAPI_LOG_LEVEL                      DEBUG, INFO (default), WARNING, ERROR, CRITICAL
  TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS  positive integer, default 100
  TRADEAPI_ROUTER_PREFIX                  route prefix, e.g. /api/v1 (default: none)

Environment, --read-only (the four variables above are ignored):
  TRADE_API_KEY                           required API key for X-API-Key (not on /api/v1/health)
  API_LOG_LEVEL                           DEBUG, INFO (default), WARNING, ERROR, CRITICAL
  API_RATE_LIMIT                          requests per minute per client, default 100
  API_CORS_ORIGINS                        comma-separated origins, or * (default: none)
  API_TRUST_PROXY                         reverse proxies in front (X-Forwarded-For), default 0

Environment, both:
  TRADEAPI_TERMINAL                       terminal to use: sim (default, the only one so far)
  TRADEAPI_HTTP                           uws or node (default: uws where it loads, else node)
  TRADEAPI_HOST, TRADEAPI_PORT            listen address
`;

/** Exit codes: 0 ok, 1 runtime failure, 2 bad usage or configuration (nothing listened). */
const EXIT_CONFIG = 2;

function refuse(message: string): never {
  process.stderr.write(`tradeapi: ${message}\n`);
  process.exit(EXIT_CONFIG);
}

export async function main(argv: readonly string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        host: { type: 'string' },
        port: { type: 'string' },
        'read-only': { type: 'boolean' },
      },
    });
  } catch (e) {
    refuse(`${e instanceof Error ? e.message : String(e)}\n\n${HELP}`);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    process.stdout.write(HELP);
    if (!values.help) process.exit(EXIT_CONFIG);
    return;
  }
  if (positionals[0] !== 'serve' || positionals.length > 1) refuse(`unknown command ${JSON.stringify(positionals.join(' '))}\n\n${HELP}`);

  let config: Config;
  let choice;
  try {
    config = loadConfig(process.env, { host: values.host, port: values.port, readOnly: values['read-only'] });
    choice = pickAdapter(config.http);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof AdapterUnavailableError) refuse(e.message);
    throw e;
  }

  const logger = createLogger(config.logLevel);
  // Loaded only now (they load the native addon), so that a configuration error is reported at
  // once and never depends on the addon.
  const { openSimTerminal } = await import('./terminal/index.js');
  const { SHUTDOWN_GRACE_MS, startServer } = await import('./server.js');
  const terminal = openSimTerminal();
  let server;
  try {
    server = await startServer({ terminal, config, adapter: choice.adapter, logger });
  } catch (e) {
    await terminal.close();
    process.stderr.write(`tradeapi: cannot listen on ${config.host}:${config.port}: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
  if (config.readOnly) {
    const ignored = ignoredInReadOnly(process.env);
    if (ignored.length > 0) logger.warn({ ignored }, `read-only mode ignores ${ignored.join(', ')}`);
  }
  const ro = config.readOnly;
  logger.info(
    {
      adapter: server.adapter,
      reason: choice.reason,
      host: config.host,
      port: server.port,
      prefix: config.routerPrefix,
      auth: config.secretKey !== undefined,
      terminal: config.terminal,
      mode: ro ? 'read-only' : 'full',
      ...(ro ? { rateLimitPerMinute: ro.rateLimit, corsOrigins: ro.corsOrigins, trustProxy: ro.trustProxy } : {}),
    },
    `tradeapi serving${ro ? ' read-only' : ''} with ${server.adapter} on http://${config.host}:${server.port}${config.routerPrefix}/`,
  );

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    void (async () => {
      await server.close(SHUTDOWN_GRACE_MS);
      await terminal.close();
      logger.info('stopped');
      logger.flush();
      process.exit(0);
    })();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
