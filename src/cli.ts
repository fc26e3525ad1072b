// `tradeapi serve [--host H] [--port P] [--read-only] [--pid-file PATH]`, `tradeapi export …` (src/export/) and `tradeapi --help`.
import { parseArgs } from 'node:util';

import { ConfigError, ignoredInReadOnly, loadConfig, redisLabel, type Config } from './config/index.js';
import { AdapterUnavailableError, pickAdapter } from './http/adapters/index.js';
import { createLogger, exitProcess, type Logger } from './log.js';
import { PidFileError, removePidFile, writePidFile } from './pid-file.js';
import { packageVersion } from './version.js';

const HELP = `tradeapi - HTTP gateway in front of a MetaTrader 5 terminal

Usage:
  tradeapi serve [--host 127.0.0.1] [--port 8000] [--read-only] [--pid-file PATH]
  tradeapi export ticks|rates SYMBOL --from DATE --to DATE [--timeframe TF] [--flags F] -o FILE
                   a range straight to FILE.parquet|.arrow|.json (tradeapi export --help)
  tradeapi sync --store DIR --symbols S,S --from DATE [--to DATE] [--follow] [--refresh DAYS]
                   ticks and M1 bars into a local Parquet store (tradeapi sync --help)
  tradeapi store gaps SYMBOL [--store DIR]
                   what the store holds of SYMBOL, and its gaps
  tradeapi verify --store DIR [--symbols S,S] [--from DATE --to DATE] [--repair] [--json] [--wait-s N]
                   each stored partition against its manifest and the terminal; --repair fetches
                   the damaged and differing ones again (tradeapi verify --help)
  tradeapi --help
  tradeapi --version

Options (override TRADEAPI_HOST / TRADEAPI_PORT):
  --host <host>    address to listen on (default 127.0.0.1)
  --port <port>    port to listen on (default 8000; 0 picks a free one)
  --read-only      read-only deployment: GET data routes only, under /api/v1, with
                   mandatory key, rate limit and CORS (its own variables, below)
  --pid-file PATH  write this process's PID to PATH (replaced atomically), removed on exit; for
                   supervisors and scripts: npm does not forward signals, so stopping
                   \`npm start\` by npm's PID leaves the server running (docs/operations.md)

Environment, full service:
  TRADEAPI_SECRET_KEY                     API key for X-API-Key; unset or empty disables auth
  TRADEAPI_LOG_LEVEL                      DEBUG, INFO (default), WARNING, ERROR, CRITICAL
  TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS  positive integer, default 100
  TRADEAPI_ROUTER_PREFIX                  route prefix, e.g. /api/v1 (default: none)
  TRADEAPI_TRUST_PROXY                    reverse proxies in front (X-Forwarded-For) whose client
                                          address the compression policy takes, default 0

Environment, --read-only (the five variables above are ignored):
  TRADE_API_KEY                           required API key for X-API-Key (not on /api/v1/health)
  API_LOG_LEVEL                           DEBUG, INFO (default), WARNING, ERROR, CRITICAL
  API_RATE_LIMIT                          requests per minute per client, default 100
  API_CORS_ORIGINS                        comma-separated origins, or * (default: none)
  API_TRUST_PROXY                         reverse proxies in front (X-Forwarded-For), default 0

Environment, both:
  TRADEAPI_TERMINAL                       terminal to use: sim (default) or tcp://HOST:PORT (a bridge)
  TRADEAPI_BRIDGE_SECRET                  the bridge's shared secret (required with tcp://, never logged)
  TRADEAPI_BRIDGE_COMPRESSION             series compression asked of the bridge: auto (default:
                                          none on loopback, zstd otherwise), zstd or none
  TRADEAPI_SERVER_TZ                      the broker's server time zone, e.g. Europe/Athens or +02:00:
                                          times out as UTC, request dates in as server time
                                          (default: unset, no conversion); also
                                          ZONE+HH:MM, e.g. America/New_York+07:00
  TRADEAPI_SIM_SERVER_TZ                  the simulator's server time zone, same forms
                                          (default UTC; TRADEAPI_TERMINAL=sim only)
  TRADEAPI_SIM_CLOCK_RATE                 simulated seconds per real second of the simulator's
                                          clock (default 1; e.g. 60: an hour a minute)
  TRADEAPI_SIM_TRADES_PER_HOUR            the simulated account's trading schedule, actions per
                                          hour (default 4; 0 = off)
  TRADEAPI_STORE                          a local history store (tradeapi sync): /ticks/* and /rates/*
                                          answer from it for what it holds (default: off)
  TRADEAPI_STORE_WRITE                    1: whole past days of ticks fetched from the terminal are
                                          written back into the store (default 0; limit per request:
                                          TRADEAPI_STORE_WRITE_MAX_ROWS, 1000000)
  TRADEAPI_HTTP                           uws or node (default: uws where it loads, else node)
  TRADEAPI_HOST, TRADEAPI_PORT            listen address
  TRADEAPI_MAX_STREAMS                    series streams at once (default: 1 per 32 MiB of RAM, 32..1024)
  TRADEAPI_SEND_TIMEOUT_MS                close a stream whose client reads nothing this long (60000)
  TRADEAPI_HEADERS_TIMEOUT_MS             request head must arrive within (10000)
  TRADEAPI_REQUEST_TIMEOUT_MS             whole request must arrive within (30000)
  TRADEAPI_KEEPALIVE_TIMEOUT_MS           idle keep-alive connections closed after (5000)
  TRADEAPI_MAX_CONNECTIONS                open connections at most (10000)
  TRADEAPI_LISTEN_BACKLOG                 pending connections the kernel queues (4096)
  TRADEAPI_NATIVE_ACCEPT                  0 turns off the native accept thread (1)

  TRADEAPI_SHUTDOWN_GRACE_MS              on SIGTERM/SIGINT, time given to responses in flight (10000)
  TRADEAPI_COMPRESS                       JSON answers compressed as clients ask: auto (default: not
                                          to clients in TRADEAPI_COMPRESS_NEAR), always, never
  TRADEAPI_COMPRESS_NEAR                  comma-separated CIDRs (default: loopback and private ranges)

Shutdown: SIGTERM or SIGINT (on Windows also Ctrl+Break) stops accepting and gives responses in
flight the grace period, then aborts them; a second signal exits at once. Send it to node's own PID
(--pid-file), not npm's: npm does not forward it.
`;

/** Exit codes: 0 ok, 1 runtime failure, 2 bad usage or configuration (nothing listened). */
const EXIT_CONFIG = 2;
/** After the grace period: time left for closing the terminal and flushing logs before a forced exit. */
const EXIT_DEADLINE_MS = 5_000;
/** The last log lines get this long to reach their reader. */
const FINAL_FLUSH_MS = 1_000;
/** ... and this long when a second signal or the deadline says to hurry. */
const SECOND_SIGNAL_FLUSH_MS = 200;

/** parseArgs' errors in our words (its own suggest `-- "--flag"`, which means nothing here). */
function usageError(e: unknown): string {
  const code = (e as { code?: string }).code;
  const message = e instanceof Error ? e.message : String(e);
  const option = /'(-{1,2}[^'\s]*)/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return /argument missing/.test(message) ? `option ${option.split(' ')[0]} needs a value` : `option ${option.split(' ')[0]} takes no value`;
  }
  return message;
}

function refuse(message: string): never {
  process.stderr.write(`tradeapi: ${message}\n`);
  process.exit(EXIT_CONFIG);
}

export async function main(argv: readonly string[]): Promise<void> {
  if (argv[0] === 'export') {
    // Its own options (src/export/args.ts); loaded only for this command.
    const { runExport } = await import('./export/run.js');
    process.exit(await runExport(argv.slice(1)));
  }
  if (argv[0] === 'sync') {
    // A local history store (src/sync/, src/store/); its own options.
    const { runSync } = await import('./sync/run.js');
    process.exit(await runSync(argv.slice(1)));
  }
  if (argv[0] === 'store') {
    const { runStore } = await import('./sync/gaps.js');
    process.exit(await runStore(argv.slice(1)));
  }
  if (argv[0] === 'verify') {
    // The store's partitions against their manifest and the terminal (src/verify/); its own options.
    const { runVerify } = await import('./verify/run.js');
    process.exit(await runVerify(argv.slice(1)));
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
        host: { type: 'string' },
        port: { type: 'string' },
        'read-only': { type: 'boolean' },
        'pid-file': { type: 'string' },
      },
    });
  } catch (e) {
    refuse(`${usageError(e)}; see tradeapi --help`);
  }
  const { values, positionals } = parsed;
  if (values.version) {
    process.stdout.write(`tradeapi ${packageVersion()}\n`);
    return;
  }
  if (values.help || positionals.length === 0) {
    process.stdout.write(HELP);
    if (!values.help) process.exit(EXIT_CONFIG);
    return;
  }
  if (positionals[0] !== 'serve' || positionals.length > 1) refuse(`unknown command ${JSON.stringify(positionals.join(' '))}; see tradeapi --help`);

  let config: Config;
  let choice;
  try {
    config = loadConfig(process.env, { host: values.host, port: values.port, readOnly: values['read-only'] });
    choice = pickAdapter(config.http);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof AdapterUnavailableError) refuse(e.message);
    throw e;
  }

  // Before anything listens: a path that cannot hold it is a usage error (exit 2). Removed on any
  // exit (the shutdown below ends in process.exit), if it still holds this PID.
  const pidFile = values['pid-file'];
  if (pidFile !== undefined) {
    let written: string;
    try {
      written = writePidFile(pidFile);
    } catch (e) {
      if (e instanceof PidFileError) refuse(e.message);
      throw e;
    }
    process.on('exit', () => removePidFile(written));
  }

  const logger = createLogger(config.logLevel);
  // Loaded only now (they load the native addon), so that a configuration error is reported at
  // once and never depends on the addon.
  const { openConfiguredTerminal } = await import('./terminal/index.js');
  const { startServer } = await import('./server.js');
  const target = config.terminal;
  const terminal = openConfiguredTerminal(config);
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
      serverTz: config.serverTz?.name ?? null,
      ...(config.terminal === 'sim' ? { simServerTz: config.simServerTz?.name ?? 'UTC' } : {}),
      ...(config.simClockStartMs !== undefined ? { simClock: new Date(config.simClockStartMs).toISOString() } : {}),
      mode: ro ? 'read-only' : 'full',
      ...(ro
        ? {
            rateLimitPerMinute: ro.rateLimit,
            rateLimitStore: ro.rateLimitRedisUrl === undefined ? 'memory' : redisLabel(ro.rateLimitRedisUrl),
            corsOrigins: ro.corsOrigins,
            trustProxy: ro.trustProxy,
          }
        : {}),
    },
    `tradeapi serving${ro ? ' read-only' : ''} with ${server.adapter} on http://${config.host}:${server.port}${config.routerPrefix}/`,
  );

  if (target !== 'sim') {
    // The bridge is reached lazily; say at once whether it answers (the message never holds the secret).
    terminal.version().then(
      () => logger.info({ terminal: target }, `bridge ${target.url} connected`),
      (e: unknown) => logger.warn({ terminal: target }, `bridge ${target.url} not usable yet (requests get 503 until it is): ${e instanceof Error ? e.message : String(e)}`),
    );
  }

  installShutdown(logger, async () => {
    await server.close(config.shutdownGraceMs);
    await terminal.close();
  }, config.shutdownGraceMs);
}

/**
 * SIGTERM / SIGINT: stop accepting, give responses in flight graceMs, abort the rest (logged),
 * close the terminal, exit 0. A second signal exits at once (status 130 / 143), and whatever
 * happens (a log reader that is stuck or gone, a terminal that does not close) the process is gone
 * EXIT_DEADLINE_MS after the grace period.
 */
function installShutdown(logger: Logger, stop: () => Promise<void>, graceMs: number): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    const code = 128 + (signal === 'SIGINT' ? 2 : signal === 'SIGBREAK' ? 21 : 15);
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      void exitProcess(logger, code, SECOND_SIGNAL_FLUSH_MS);
      return;
    }
    stopping = true;
    logger.info({ signal, graceMs }, 'shutting down');
    setTimeout(() => {
      logger.error(`shutdown did not finish within ${(graceMs + EXIT_DEADLINE_MS) / 1000} s; exiting`);
      void exitProcess(logger, 1, SECOND_SIGNAL_FLUSH_MS);
    }, graceMs + EXIT_DEADLINE_MS).unref();
    void (async () => {
      try {
        await stop();
        logger.info('stopped');
      } catch (e) {
        logger.error({ err: e }, 'shutdown failed');
      }
      await exitProcess(logger, 0, FINAL_FLUSH_MS);
    })();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // Windows has no SIGTERM from outside (a kill ends the process outright): a console's Ctrl+Break
  // arrives as SIGBREAK, and service wrappers (NSSM) send Ctrl+C or Ctrl+Break first. Not
  // exercised under Wine, where node cannot send itself a console control event.
  if (process.platform === 'win32') process.on('SIGBREAK', onSignal);
}
