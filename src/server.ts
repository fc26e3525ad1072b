// Wires the pieces into a listening server: route table, subscriptions, dispatcher, adapter.
import type { Config } from './config/index.js';
import type { HttpAdapter, HttpRequest } from './http/adapter.js';
import { apiKeyCheck } from './access/api-key.js';
import { CorsPolicy } from './access/cors.js';
import { createDispatcher } from './http/dispatch.js';
import { EventChannels } from './events/channels.js';
import { clientAddress } from './access/client-address.js';
import { compressionPolicy } from './access/compression.js';
import { RATE_LIMIT_WINDOW_MS, RateLimiter } from './access/rate-limit.js';
import { redisRateStore } from './access/rate-limit-redis.js';
import { Router } from './http/router.js';
import { SiteGuard } from './access/site-guard.js';
import { EventHub, type EventStats } from './events/hub.js';
import { StreamGate } from './http/streams.js';
import { SubscriptionRegistry } from './terminal/subscriptions.js';
import { createLogger, type Logger } from './log.js';
import { ServiceMetrics } from './metrics.js';
import { routeTable } from './routes/index.js';
import type { Terminal } from './terminal/terminal.js';
import { withMetrics } from './terminal/with-metrics.js';
import { withServerTime } from './terminal/with-server-time.js';
import { withStore } from './store/store-terminal.js';
import { packageVersion } from './version.js';

export interface StartOptions {
  terminal: Terminal;
  config: Config;
  adapter: HttpAdapter;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  logger?: Logger;
  /** Read-only mode: the rate-limit window (default one minute); shorter only in tests. */
  rateLimitWindowMs?: number;
}

export interface RunningServer {
  readonly port: number;
  readonly adapter: string;
  readonly subscriptions: SubscriptionRegistry;
  /** Live event streams and feeds, for tests and diagnostics. */
  eventStats(): EventStats;
  /**
   * Stops accepting, gives in-flight responses up to graceMs to finish, aborts (and logs) the rest,
   * releases subscriptions. The terminal stays open: its owner closes it.
   */
  close(graceMs?: number): Promise<void>;
}

export const SHUTDOWN_GRACE_MS = 10_000;
/** Largest message a WebSocket client may send (a bigger one closes the connection with 1009). */
export const WS_MAX_MESSAGE_BYTES = 16 * 1024;


export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config, adapter } = options;
  const readOnly = config.readOnly;
  const metrics = new ServiceMetrics({ version: packageVersion(), terminal: options.terminal.kind, mode: readOnly ? 'read-only' : 'full' });
  // Timed next to the terminal, below the time-zone conversion: the calls as the terminal sees them.
  const measured = withMetrics(options.terminal, {
    call(op, seconds, error) {
      metrics.terminalSeconds.observe({ op }, seconds);
      if (error !== undefined) metrics.terminalErrors.inc({ op, kind: error });
    },
  });
  // TRADEAPI_SERVER_TZ: everything past this point sees true UTC (src/terminal/with-server-time.ts).
  const utc = config.serverTz ? withServerTime(measured, config.serverTz) : measured;
  const logger = options.logger ?? createLogger(config.logLevel);
  // TRADEAPI_STORE: /ticks/* and /rates/* from the local store for what it covers (src/store/store-terminal.ts).
  const store = config.store;
  const terminal = store
    ? withStore(utc, {
      root: store,
      zone: config.serverTz?.name ?? 'UTC',
      serverZone: config.serverTz,
      onMismatch: (why) => logger.warn({ store }, why),
      // A partition that is not what the manifest recorded: logged and counted once, then not used.
      onDamaged: (e) => {
        metrics.storeDamaged.inc({ dataset: e.partition.dataset });
        logger.error({ store, symbol: e.partition.symbol, dataset: e.partition.dataset, partition: e.partition.key }, `${e.message}: taken from the terminal instead; tradeapi verify --store ${store} --repair fetches it again`);
      },
      // TRADEAPI_STORE_WRITE=1: whole past days fetched from the terminal are written back (src/store/write-back.ts).
      write: config.storeWrite && {
        maxRows: config.storeWrite.maxRows,
        onEvent: (e) => {
          const what = e.dataset === 'bars_m1' ? 'month of M1 bars' : 'day';
          if (e.kind === 'written') logger.info({ store, ...e }, `store: ${what} written back`);
          else if (e.kind === 'failed') logger.warn({ store, ...e }, 'store: write-back failed');
          else logger.debug({ store, ...e }, `store: ${what} not written back`);
        },
      },
    })
    : utc;
  const subscriptions = new SubscriptionRegistry(terminal, config.maxMarketBookSubscriptions);
  const events = new EventHub(terminal, subscriptions, config.events, logger);
  const streams = new StreamGate(config.maxStreams);
  const bridgeStatus = options.terminal.bridgeStatus?.bind(options.terminal);
  metrics.attach({
    seriesStreams: () => streams.inUse,
    eventStreams: () => events.openStreams(),
    subscriptions: () => ({ active: subscriptions.active, limit: subscriptions.limit }),
    feedSymbols: () => ({ ticks: events.ticks.activeSymbols, books: events.books.activeSymbols }),
    bridgeStatus,
  });
  const router = new Router(
    routeTable({
      prefix: config.routerPrefix,
      version: packageVersion(),
      authRequired: config.secretKey !== undefined,
      readOnly: readOnly !== undefined,
      rateLimit: readOnly?.rateLimit,
      store: config.store !== undefined,
      logger,
    }),
  );
  let cors: CorsPolicy | undefined;
  let rateLimit: { limiter: RateLimiter; client(req: HttpRequest): string } | undefined;
  if (readOnly) {
    const methods: string[] = [...new Set(router.routes.map((r) => r.method))];
    cors = new CorsPolicy(readOnly.corsOrigins, methods);
    if (readOnly.corsOrigins === '*') {
      logger.warn('API_CORS_ORIGINS=* lets any web page call this API from a browser (it still needs the key); restrict it to your origins for a public deployment');
    }
    const windowMs = options.rateLimitWindowMs ?? RATE_LIMIT_WINDOW_MS;
    const shared = readOnly.rateLimitRedisUrl === undefined ? undefined : await redisRateStore(readOnly.rateLimitRedisUrl, readOnly.rateLimit, windowMs, logger);
    const limiter = new RateLimiter(readOnly.rateLimit, windowMs, shared);
    rateLimit = { limiter, client: (req) => clientAddress(req, readOnly.trustProxy) };
  }
  const handler = createDispatcher({
    router,
    prefix: config.routerPrefix,
    services: { terminal, subscriptions, config, events, metrics },
    streams,
    keyCheck: apiKeyCheck(config.secretKey),
    logger,
    cors,
    rateLimit,
    site: SiteGuard.of(config),
    live: new EventChannels(events, terminal, config, logger),
    // TRADEAPI_COMPRESS: identity to near clients by default, their address resolved as the rate limit's is.
    compression: compressionPolicy(config.compression, config.trustProxy),
  });
  if (config.secretKey !== undefined && config.allowedHosts.length > 0) {
    logger.warn('TRADEAPI_ALLOWED_HOSTS has no effect while TRADEAPI_SECRET_KEY is set: the key guards every name');
  }
  const methods: string[] = [...new Set(router.routes.map((r) => r.method))];
  if (methods.includes('GET')) methods.push('HEAD'); // every GET route answers HEAD
  // Not listening: the Redis connection (if any) must not keep the process alive.
  const listening = await adapter.listen(options.host ?? config.host, options.port ?? config.port, handler, {
    ...config.connections,
    methods,
    // Answered by the adapter before the dispatcher saw a request: logged here instead.
    onProtocolError: (event) => logger.info(event, 'protocol error'),
    websocket: {
      path: `${config.routerPrefix}/ws`,
      // Client messages are small JSON operations.
      maxPayloadBytes: WS_MAX_MESSAGE_BYTES,
      // The session drops events once the queue bound is buffered; replies add little on top.
      maxBackpressureBytes: 2 * config.events.queueBytes + (1 << 20),
    },
  }).catch(async (e: unknown) => {
    await rateLimit?.limiter.close();
    throw e;
  });
  return {
    port: listening.port,
    adapter: adapter.name,
    subscriptions,
    eventStats: () => events.stats(),
    async close(graceMs = SHUTDOWN_GRACE_MS) {
      // Event streams never finish by themselves: end them (cleanly, what is queued is still sent)
      // so that the grace period is for the responses that do.
      await events.closeAll();
      const { aborted } = await listening.close(graceMs);
      // Their own request lines say 499; this says why.
      if (aborted > 0) logger.warn({ aborted, graceMs }, `shutdown: ${aborted} response(s) still in progress after the grace period were aborted`);
      await subscriptions.releaseAll();
      await rateLimit?.limiter.close();
    },
  };
}
