// Service configuration, read once from the environment at start-up. Every variable is parsed up
// front so that a bad value stops the process before anything listens (see cli.ts: exit code 2).
import os from 'node:os';
import path from 'node:path';

import { DEFAULT_NEAR_RANGES, NetRanges } from './net-ranges.js';
import { parseServerZone, type ServerZone } from './server-zone.js';

/**
 * Default cap on concurrent series streams: one per 32 MiB of RAM, at least 32, at most 1024. A
 * stream whose client reads nothing holds ~2.5 MB of RSS (bench/stalled.ts), so even a full house
 * of stalled streams stays under a tenth of the memory; most streams are short (a few hundred bars)
 * and a 1 000-connection mixed load (bench/hardening.ts) needs a few hundred slots at its peaks.
 */
export function defaultMaxStreams(totalMemory = os.totalmem()): number {
  return Math.min(1024, Math.max(32, Math.floor(totalMemory / (32 * 1024 * 1024))));
}

/** Default send timeout: a stream whose peer takes nothing for this long is closed. */
export const DEFAULT_SEND_TIMEOUT_MS = 60_000;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'fatal';
export type AdapterName = 'uws' | 'node';
/** TRADEAPI_COMPRESS: when a JSON answer may be compressed (docs/api.md#compression). */
export type CompressMode = 'auto' | 'always' | 'never';

/** Content codings of JSON answers (src/access/compression.ts applies them). */
export interface CompressionSettings {
  /**
   * auto: identity for clients in `near` (a fast link: compressing would cost more time than it
   * saves), compressed as they ask otherwise; always: compressed as every client asks; never: identity.
   */
  readonly mode: CompressMode;
  /** TRADEAPI_COMPRESS_NEAR: the client addresses `auto` treats as near (default: loopback and private ranges). */
  readonly near: NetRanges;
}

export interface Config {
  /** Empty/unset disables authentication. Never logged. */
  readonly secretKey: string | undefined;
  readonly logLevel: LogLevel;
  readonly maxMarketBookSubscriptions: number;
  /** '' or '/segment[/segment…]' with no trailing slash. */
  readonly routerPrefix: string;
  /**
   * TRADEAPI_ALLOWED_HOSTS (full variant): lower-case host names a keyless server also answers to,
   * besides IP literals, localhost and the listen host (src/access/site-guard.ts); [] in read-only mode.
   */
  readonly allowedHosts: readonly string[];
  /**
   * Reverse-proxy hops whose X-Forwarded-For entries name the client (src/access/client-address.ts);
   * 0: the socket's peer is the client. TRADEAPI_TRUST_PROXY in the full variant, where only the
   * compression policy reads the client's address; API_TRUST_PROXY in read-only mode (the same
   * value as readOnly.trustProxy, which the rate limit counts by).
   */
  readonly trustProxy: number;
  /** TRADEAPI_COMPRESS, TRADEAPI_COMPRESS_NEAR (both modes). */
  readonly compression: CompressionSettings;
  /** Which terminal backs the service: the embedded simulator, or a bridge (TRADEAPI_TERMINAL=tcp://HOST:PORT). */
  readonly terminal: TerminalChoice;
  /**
   * TRADEAPI_SERVER_TZ: the broker's server time zone, in which the terminal stamps every time
   * (mt5-reference §3.3). Set: times go out as true UTC and request dates go in as server time.
   * Unset: no conversion (the terminal's stamps are passed on as they are).
   */
  readonly serverTz: ServerZone | undefined;
  /**
   * TRADEAPI_SIM_SERVER_TZ: the simulator's own server time zone (default UTC), so that it stamps
   * like a broker's terminal; only with TRADEAPI_TERMINAL=sim.
   */
  readonly simServerTz: ServerZone | undefined;
  /**
   * TRADEAPI_SIM_CLOCK: the UTC instant (ms) the simulator's clock reads at start, running at wall
   * speed from there (a busy Wednesday on a Saturday, say); undefined = the wall clock. Sim only.
   */
  readonly simClockStartMs: number | undefined;
  /**
   * TRADEAPI_SIM_CLOCK_RATE: how many simulated seconds pass per real second (default 1), so that an
   * hour of the living account passes in a minute at 60. Sim only.
   */
  readonly simClockRate: number | undefined;
  /**
   * TRADEAPI_SIM_TRADES_PER_HOUR: the simulated account's trading schedule, actions per hour on
   * average (default 4; 0 = none: pending orders, SL/TP and stop-out still play). Sim only.
   */
  readonly simTradesPerHour: number | undefined;
  /** Forced adapter; undefined = uWS where it loads, else node:http. */
  readonly http: AdapterName | undefined;
  readonly host: string;
  readonly port: number;
  /** TRADEAPI_MAX_STREAMS: series responses (ticks, rates) in progress at once; more get 503. */
  readonly maxStreams: number;
  /**
   * TRADEAPI_MAX_SYMBOLS_PER_REQUEST: symbols one multi-symbol series request (`symbols=`, `group=`
   * on /ticks/range and /rates/range) may name or match, 1..65536 (default 100); more get 400.
   */
  readonly maxSymbolsPerRequest: number;
  /** TRADEAPI_SEND_TIMEOUT_MS: a stream whose peer takes nothing for this long is closed. */
  readonly sendTimeoutMs: number;
  /** TRADEAPI_SHUTDOWN_GRACE_MS: on SIGTERM/SIGINT, responses in flight get this long, then are aborted. */
  readonly shutdownGraceMs: number;
  /** Connection-level protection: timeouts, connection cap, listen backlog (both modes). */
  readonly connections: ConnectionSettings;
  /** Live events (GET /events, both modes). */
  readonly events: EventSettings;
  /**
   * TRADEAPI_STORE: a local history store (`tradeapi sync`, docs/store.md) that /ticks/* and
   * /rates/* answer from for what it covers; unset or empty: off. Both modes.
   */
  readonly store?: string | undefined;
  /**
   * TRADEAPI_STORE_WRITE=1: whole past UTC days of ticks the gateway fetched from the terminal are
   * written back into the store, at most TRADEAPI_STORE_WRITE_MAX_ROWS ticks held per request
   * (default 1 000 000). Undefined: off (the default; also without TRADEAPI_STORE).
   */
  readonly storeWrite?: { readonly maxRows: number } | undefined;
  /**
   * Present exactly in read-only mode (`serve --read-only`, Variant B): then the routes sit under
   * the fixed prefix /api/v1, the key is mandatory, and these settings apply.
   */
  readonly readOnly: ReadOnlySettings | undefined;
}

/** 'sim', or the bridge to reach: `url` is the normalised tcp://HOST:PORT. */
export type TerminalChoice = 'sim' | BridgeTarget;

export interface BridgeTarget {
  readonly kind: 'bridge';
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** TRADEAPI_BRIDGE_SECRET; never logged (toJSON leaves it out). */
  readonly secret: string;
  /** TRADEAPI_BRIDGE_COMPRESSION: series compression asked of the bridge (docs/bridge-protocol.md §4). */
  readonly compression: 'auto' | 'zstd' | 'none';
  toJSON(): { kind: 'bridge'; url: string; compression: 'auto' | 'zstd' | 'none' };
}

/** Settings of the read-only mode, from its own variables (API_*, TRADE_API_KEY). */
export interface ReadOnlySettings {
  /** API_RATE_LIMIT: requests per minute per client. */
  readonly rateLimit: number;
  /** API_CORS_ORIGINS: '*' (any origin) or serialized origins (e.g. https://app.example.com); empty = no cross-origin access. */
  readonly corsOrigins: '*' | readonly string[];
  /** API_TRUST_PROXY: reverse-proxy hops whose X-Forwarded-For entries are trusted; 0 = use the socket address. */
  readonly trustProxy: number;
  /**
   * API_RATE_LIMIT_REDIS_URL: redis[s]://[user:password@]host[:port][/db] of a Redis that several
   * instances share the count in; unset = each instance counts in its own memory. May hold a
   * password: never logged (see redisLabel).
   */
  readonly rateLimitRedisUrl: string | undefined;
}

/**
 * How long a client may take and how many may connect. Production values, not node's defaults
 * (300 s for a request, 60 s for its headers), so that a slow or stalled client cannot hold a
 * connection and its memory for minutes.
 */
export interface ConnectionSettings {
  /** TRADEAPI_HEADERS_TIMEOUT_MS: the request line and headers must arrive within this (408 otherwise). */
  readonly headersTimeoutMs: number;
  /** TRADEAPI_REQUEST_TIMEOUT_MS: the whole request, body included, must arrive within this (408 otherwise); >= the headers timeout. */
  readonly requestTimeoutMs: number;
  /** TRADEAPI_KEEPALIVE_TIMEOUT_MS: an idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
  /** TRADEAPI_MAX_CONNECTIONS: open connections beyond this are answered 503 and closed. */
  readonly maxConnections: number;
  /** TRADEAPI_LISTEN_BACKLOG: the listen queue (the kernel caps it at net.core.somaxconn). */
  readonly backlog: number;
  /**
   * TRADEAPI_NATIVE_ACCEPT: a native thread also accepts connections and hands them over in batches
   * (node adapter, POSIX; see src/http/adapters/node/native-accept.ts). On by default; 0 leaves node's own alone.
   */
  readonly nativeAccept: boolean;
}

/** Live events: how the feeds poll the terminal and what one client may hold (src/events/hub.ts). */
export interface EventSettings {
  /** TRADEAPI_EVENTS_POLL_MS: interval between two polls of a watched symbol's ticks and depth. */
  readonly pollMs: number;
  /** TRADEAPI_EVENTS_HEARTBEAT_MS: a comment line after this long without an event. */
  readonly heartbeatMs: number;
  /** TRADEAPI_MAX_EVENT_CLIENTS: event streams open at once; more get 503 + Retry-After. */
  readonly maxClients: number;
  /** TRADEAPI_EVENTS_MAX_SYMBOLS: symbols one stream may list; more get 400. */
  readonly maxSymbols: number;
  /** TRADEAPI_EVENTS_QUEUE_BYTES: events waiting for one client, at most; beyond, dropped and a `gap` event sent. */
  readonly queueBytes: number;
  /** TRADEAPI_EVENTS_CATCHUP_MS: how far back a reconnect (Last-Event-ID) is caught up from history. */
  readonly catchupMs: number;
  /** TRADEAPI_EVENTS_CATCHUP_TICKS: ticks per symbol a reconnect is caught up with, at most. */
  readonly catchupTicks: number;
  /** TRADEAPI_EVENTS_AUTH_TIMEOUT_MS: a WebSocket opened without a key must send {"op":"auth"} within this. */
  readonly authTimeoutMs: number;
  /** TRADEAPI_EVENTS_MAX_AUTHENTICATING: WebSockets opened without a key and not yet authenticated, at most (they hold no event slot). */
  readonly maxAuthenticating: number;
  /** TRADEAPI_EVENTS_TRADE_MS: interval between two polls of the account's positions, orders and deals (deal/order/position events). */
  readonly tradeMs: number;
  /** TRADEAPI_EVENTS_ACCOUNT_MS: `account` events (balance, equity, margin) come at most this often. */
  readonly accountMs: number;
}

/** A configuration value the service refuses; the message names the variable and the value. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

// Python logging names as the spec's examples use them, mapped onto pino's levels.
const LOG_LEVELS: Readonly<Record<string, LogLevel>> = {
  DEBUG: 'debug',
  INFO: 'info',
  WARNING: 'warn',
  WARN: 'warn',
  ERROR: 'error',
  CRITICAL: 'fatal',
};

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8000,
  maxMarketBookSubscriptions: 100,
  /** API_RATE_LIMIT when unset: the spec's example value, requests per minute per client. */
  rateLimit: 100,
  shutdownGraceMs: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  /** node's own default, kept: long enough for a client's next request, short enough to free idle sockets. */
  keepAliveTimeoutMs: 5_000,
  maxConnections: 10_000,
  /**
   * node's default (511) is smaller than a burst of 1 000 simultaneous connects: the kernel then
   * drops SYNs and the clients retry after 1 s, 3 s, 7 s. Linux caps this at net.core.somaxconn
   * (4096 since kernel 5.4).
   */
  backlog: 4096,
  nativeAccept: true,
  eventsPollMs: 100,
  eventsHeartbeatMs: 15_000,
  maxEventClients: 1_000,
  eventsMaxSymbols: 20,
  /** ~1 700 tick events; with the write in flight a stalled client holds ~0.5 MB at most. */
  eventsQueueBytes: 256 * 1024,
  eventsCatchupMs: 5 * 60_000,
  eventsCatchupTicks: 10_000,
  eventsAuthTimeoutMs: 5_000,
  /**
   * Browsers authenticating by message at once: a burst of page loads fits; keyless sockets held
   * open by someone without the key fill this pool, never the event slots of keyed clients.
   */
  eventsMaxAuthenticating: 100,
  eventsTradeMs: 100,
  eventsAccountMs: 1_000,
} as const;

/** The fixed route prefix of the read-only mode. */
export const READ_ONLY_PREFIX = '/api/v1';

/**
 * The full variant's own variables: read-only mode ignores them (the process-level TRADEAPI_HOST,
 * TRADEAPI_PORT, TRADEAPI_HTTP, TRADEAPI_TERMINAL and the connection settings apply in both modes).
 */
export const FULL_VARIANT_ONLY = ['TRADEAPI_SECRET_KEY', 'TRADEAPI_LOG_LEVEL', 'TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS', 'TRADEAPI_ROUTER_PREFIX', 'TRADEAPI_ALLOWED_HOSTS', 'TRADEAPI_TRUST_PROXY'] as const;

export type Env = Readonly<Record<string, string | undefined>>;

/** Overrides from the command line; they win over the environment. */
export interface ConfigOverrides {
  host?: string;
  port?: string;
  readOnly?: boolean;
}

export function loadConfig(env: Env, overrides: ConfigOverrides = {}): Config {
  const common = processSettings(env, overrides);
  if (overrides.readOnly) return loadReadOnlyConfig(env, common);
  const secret = env.TRADEAPI_SECRET_KEY;
  return {
    secretKey: secret === undefined || secret === '' ? undefined : secret,
    logLevel: parseLogLevel('TRADEAPI_LOG_LEVEL', env.TRADEAPI_LOG_LEVEL),
    maxMarketBookSubscriptions: parsePositiveInt(
      'TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS',
      env.TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS,
      DEFAULTS.maxMarketBookSubscriptions,
    ),
    routerPrefix: normalizePrefix(env.TRADEAPI_ROUTER_PREFIX ?? ''),
    allowedHosts: parseAllowedHosts(env.TRADEAPI_ALLOWED_HOSTS),
    trustProxy: parseTrustProxy('TRADEAPI_TRUST_PROXY', env.TRADEAPI_TRUST_PROXY),
    ...common,
    readOnly: undefined,
  };
}

export type TerminalSettings = Pick<Config, 'terminal' | 'serverTz' | 'simServerTz' | 'simClockStartMs' | 'simClockRate' | 'simTradesPerHour'>;

/** The terminal settings alone (TRADEAPI_TERMINAL, TRADEAPI_BRIDGE_SECRET, TRADEAPI_SERVER_TZ, TRADEAPI_SIM_SERVER_TZ, TRADEAPI_SIM_CLOCK), as `tradeapi export` reads them. */
export function loadTerminalSettings(env: Env): TerminalSettings {
  const terminal = parseTerminal(env.TRADEAPI_TERMINAL, env.TRADEAPI_BRIDGE_SECRET, env.TRADEAPI_BRIDGE_COMPRESSION);
  return {
    terminal,
    serverTz: parseServerTz('TRADEAPI_SERVER_TZ', env.TRADEAPI_SERVER_TZ),
    simServerTz: parseSimServerTz(env.TRADEAPI_SIM_SERVER_TZ, terminal),
    simClockStartMs: parseSimClock(env.TRADEAPI_SIM_CLOCK, terminal),
    simClockRate: parseSimNumber('TRADEAPI_SIM_CLOCK_RATE', env.TRADEAPI_SIM_CLOCK_RATE, terminal, { min: 0, minInclusive: false, max: 1e6 }),
    simTradesPerHour: parseSimNumber('TRADEAPI_SIM_TRADES_PER_HOUR', env.TRADEAPI_SIM_TRADES_PER_HOUR, terminal, { min: 0, minInclusive: true, max: 3600 }),
  };
}

type ProcessSettings = Pick<
  Config,
  'terminal' | 'serverTz' | 'simServerTz' | 'simClockStartMs' | 'simClockRate' | 'simTradesPerHour' | 'http' | 'host' | 'port' | 'maxStreams' | 'maxSymbolsPerRequest' | 'sendTimeoutMs' | 'shutdownGraceMs' | 'connections' | 'events' | 'store' | 'storeWrite' | 'compression'
>;

/** What the process runs on and listens at: the same variables and flags in both modes. */
function processSettings(env: Env, overrides: ConfigOverrides): ProcessSettings {
  return {
    ...loadTerminalSettings(env),
    http: parseAdapter(env.TRADEAPI_HTTP),
    host: parseHost(overrides.host ?? env.TRADEAPI_HOST ?? DEFAULTS.host, overrides.host !== undefined ? '--host' : 'TRADEAPI_HOST'),
    port: parsePort(overrides.port ?? env.TRADEAPI_PORT, overrides.port !== undefined ? '--port' : 'TRADEAPI_PORT'),
    maxStreams: parsePositiveInt('TRADEAPI_MAX_STREAMS', env.TRADEAPI_MAX_STREAMS, defaultMaxStreams()),
    maxSymbolsPerRequest: parseMaxSymbolsPerRequest(env.TRADEAPI_MAX_SYMBOLS_PER_REQUEST),
    sendTimeoutMs: parseMs(env, 'TRADEAPI_SEND_TIMEOUT_MS', DEFAULT_SEND_TIMEOUT_MS),
    shutdownGraceMs: parseMs(env, 'TRADEAPI_SHUTDOWN_GRACE_MS', DEFAULTS.shutdownGraceMs),
    connections: parseConnectionSettings(env),
    events: parseEventSettings(env),
    store: parseStoreDir(env.TRADEAPI_STORE),
    storeWrite: parseStoreWrite(env),
    compression: parseCompression(env),
  };
}

/** The most symbols a merged series may carry: its symbol column is a uint16 index. */
export const MAX_SYMBOLS_PER_REQUEST_CEILING = 65_536;

function parseMaxSymbolsPerRequest(raw: string | undefined): number {
  const n = parsePositiveInt('TRADEAPI_MAX_SYMBOLS_PER_REQUEST', raw, 100);
  if (n > MAX_SYMBOLS_PER_REQUEST_CEILING) {
    throw new ConfigError(`TRADEAPI_MAX_SYMBOLS_PER_REQUEST must be at most ${MAX_SYMBOLS_PER_REQUEST_CEILING} (a merged series indexes its symbols in 16 bits); got ${JSON.stringify(raw)}`);
  }
  return n;
}

const COMPRESS_MODES: readonly CompressMode[] = ['auto', 'always', 'never'];

/** TRADEAPI_COMPRESS (auto, always, never; any case) and TRADEAPI_COMPRESS_NEAR (comma-separated CIDRs). */
function parseCompression(env: Env): CompressionSettings {
  const raw = env.TRADEAPI_COMPRESS;
  const text = raw?.trim().toLowerCase() ?? '';
  const mode = text === '' ? 'auto' : COMPRESS_MODES.find((m) => m === text);
  if (mode === undefined) {
    throw new ConfigError(
      `TRADEAPI_COMPRESS must be auto (identity to clients in TRADEAPI_COMPRESS_NEAR, compressed as asked otherwise), always or never; got ${JSON.stringify(raw)}`,
    );
  }
  const nearRaw = env.TRADEAPI_COMPRESS_NEAR;
  let near: NetRanges;
  try {
    near = NetRanges.parse(nearRaw === undefined || nearRaw.trim() === '' ? DEFAULT_NEAR_RANGES.join(',') : nearRaw);
  } catch (e) {
    throw new ConfigError(
      `TRADEAPI_COMPRESS_NEAR must be IP ranges in CIDR notation separated by commas (e.g. 127.0.0.0/8,10.0.0.0/8,fd00::/8; a bare address is that one address): ${e instanceof Error ? e.message : String(e)}; got ${JSON.stringify(nearRaw)}`,
    );
  }
  return { mode, near };
}

/** TRADEAPI_STORE_WRITE ('1' on, '0' or unset off) and TRADEAPI_STORE_WRITE_MAX_ROWS; needs TRADEAPI_STORE. */
function parseStoreWrite(env: Env): { maxRows: number } | undefined {
  const raw = env.TRADEAPI_STORE_WRITE;
  if (raw === undefined || raw === '' || raw === '0') return undefined;
  if (raw !== '1') throw new ConfigError(`TRADEAPI_STORE_WRITE must be 1 (on) or 0 (off); got ${JSON.stringify(raw)}`);
  if (parseStoreDir(env.TRADEAPI_STORE) === undefined) throw new ConfigError('TRADEAPI_STORE_WRITE=1 needs TRADEAPI_STORE (the store to write into)');
  return { maxRows: parsePositiveInt('TRADEAPI_STORE_WRITE_MAX_ROWS', env.TRADEAPI_STORE_WRITE_MAX_ROWS, 1_000_000) };
}

/** TRADEAPI_STORE: an absolute directory (a relative one is resolved against the working directory). */
function parseStoreDir(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw.includes('\0')) throw new ConfigError('TRADEAPI_STORE must be a directory path');
  return path.resolve(raw);
}

function parseEventSettings(env: Env): EventSettings {
  const int = (name: string, fallback: number): number => parsePositiveInt(name, env[name], fallback);
  const pollMs = parseMs(env, 'TRADEAPI_EVENTS_POLL_MS', DEFAULTS.eventsPollMs);
  if (pollMs < 10) throw new ConfigError(`TRADEAPI_EVENTS_POLL_MS must be at least 10 milliseconds; got ${JSON.stringify(env.TRADEAPI_EVENTS_POLL_MS)}`);
  const queueBytes = int('TRADEAPI_EVENTS_QUEUE_BYTES', DEFAULTS.eventsQueueBytes);
  const atLeast10 = (name: string, fallback: number): number => {
    const ms = parseMs(env, name, fallback);
    if (ms < 10) throw new ConfigError(`${name} must be at least 10 milliseconds; got ${JSON.stringify(env[name])}`);
    return ms;
  };
  if (queueBytes < 4096) throw new ConfigError(`TRADEAPI_EVENTS_QUEUE_BYTES must be at least 4096 (a few events); got ${JSON.stringify(env.TRADEAPI_EVENTS_QUEUE_BYTES)}`);
  return {
    pollMs,
    heartbeatMs: parseMs(env, 'TRADEAPI_EVENTS_HEARTBEAT_MS', DEFAULTS.eventsHeartbeatMs),
    maxClients: int('TRADEAPI_MAX_EVENT_CLIENTS', DEFAULTS.maxEventClients),
    maxSymbols: int('TRADEAPI_EVENTS_MAX_SYMBOLS', DEFAULTS.eventsMaxSymbols),
    queueBytes,
    catchupMs: parseMs(env, 'TRADEAPI_EVENTS_CATCHUP_MS', DEFAULTS.eventsCatchupMs),
    catchupTicks: int('TRADEAPI_EVENTS_CATCHUP_TICKS', DEFAULTS.eventsCatchupTicks),
    authTimeoutMs: parseMs(env, 'TRADEAPI_EVENTS_AUTH_TIMEOUT_MS', DEFAULTS.eventsAuthTimeoutMs),
    maxAuthenticating: int('TRADEAPI_EVENTS_MAX_AUTHENTICATING', DEFAULTS.eventsMaxAuthenticating),
    tradeMs: atLeast10('TRADEAPI_EVENTS_TRADE_MS', DEFAULTS.eventsTradeMs),
    accountMs: atLeast10('TRADEAPI_EVENTS_ACCOUNT_MS', DEFAULTS.eventsAccountMs),
  };
}

/** Longest timer node can arm (2^31 - 1 ms, ~24.8 days); beyond it setTimeout fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** A positive duration in milliseconds that a timer can hold. */
function parseMs(env: Env, name: string, fallback: number): number {
  const value = parsePositiveInt(name, env[name], fallback);
  if (value > MAX_TIMER_MS) throw new ConfigError(`${name} must be at most ${MAX_TIMER_MS} milliseconds; got ${JSON.stringify(env[name])}`);
  return value;
}

function parseConnectionSettings(env: Env): ConnectionSettings {
  const ms = (name: string, fallback: number): number => parseMs(env, name, fallback);
  const headersTimeoutMs = ms('TRADEAPI_HEADERS_TIMEOUT_MS', DEFAULTS.headersTimeoutMs);
  const requestTimeoutMs = ms('TRADEAPI_REQUEST_TIMEOUT_MS', DEFAULTS.requestTimeoutMs);
  // The headers are part of the request: node refuses a headers timeout above the request timeout.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      `TRADEAPI_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed TRADEAPI_REQUEST_TIMEOUT_MS (${requestTimeoutMs}): the headers are part of the request`,
    );
  }
  const backlog = parsePositiveInt('TRADEAPI_LISTEN_BACKLOG', env.TRADEAPI_LISTEN_BACKLOG, DEFAULTS.backlog);
  if (backlog > 65_535) throw new ConfigError(`TRADEAPI_LISTEN_BACKLOG must be from 1 to 65535; got ${JSON.stringify(env.TRADEAPI_LISTEN_BACKLOG)}`);
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: ms('TRADEAPI_KEEPALIVE_TIMEOUT_MS', DEFAULTS.keepAliveTimeoutMs),
    maxConnections: parsePositiveInt('TRADEAPI_MAX_CONNECTIONS', env.TRADEAPI_MAX_CONNECTIONS, DEFAULTS.maxConnections),
    backlog,
    nativeAccept: parseSwitch('TRADEAPI_NATIVE_ACCEPT', env.TRADEAPI_NATIVE_ACCEPT, DEFAULTS.nativeAccept),
  };
}

/**
 * Read-only mode (Variant B): TRADE_API_KEY (required), API_LOG_LEVEL, API_RATE_LIMIT,
 * API_CORS_ORIGINS, API_TRUST_PROXY; the full variant's TRADEAPI_* settings are not read at all,
 * so that even an invalid value there cannot matter.
 */
function loadReadOnlyConfig(env: Env, common: ProcessSettings): Config {
  const trustProxy = parseTrustProxy('API_TRUST_PROXY', env.API_TRUST_PROXY);
  return {
    secretKey: parseRequiredKey(env.TRADE_API_KEY),
    logLevel: parseLogLevel('API_LOG_LEVEL', env.API_LOG_LEVEL),
    // No subscribe route in this mode, so the cap never applies.
    maxMarketBookSubscriptions: DEFAULTS.maxMarketBookSubscriptions,
    routerPrefix: READ_ONLY_PREFIX,
    // The key is mandatory here, so the Host rule never applies (see src/access/site-guard.ts).
    allowedHosts: [],
    trustProxy,
    ...common,
    readOnly: {
      rateLimit: parsePositiveInt('API_RATE_LIMIT', env.API_RATE_LIMIT, DEFAULTS.rateLimit),
      corsOrigins: parseCorsOrigins(env.API_CORS_ORIGINS),
      trustProxy,
      rateLimitRedisUrl: parseRedisUrl(env.API_RATE_LIMIT_REDIS_URL),
    },
  };
}

/** The full-variant variables set in `env`, which read-only mode ignores (names only, never values). */
export function ignoredInReadOnly(env: Env): string[] {
  return FULL_VARIANT_ONLY.filter((name) => env[name] !== undefined && env[name] !== '');
}

function parseRequiredKey(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') {
    throw new ConfigError('TRADE_API_KEY must be set to a non-empty API key in read-only mode (clients send it as X-API-Key); refusing to start without one');
  }
  // HTTP strips a header value's surrounding whitespace: such a key could never be presented.
  if (raw !== raw.trim()) throw new ConfigError('TRADE_API_KEY must not begin or end with whitespace (HTTP strips it from the X-API-Key header)');
  if (!/^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/.test(raw)) {
    throw new ConfigError('TRADE_API_KEY must be printable ASCII (it travels in an HTTP header)');
  }
  return raw;
}

/**
 * '*' or a comma-separated list of origins (scheme://host[:port], no path). Each is stored in its
 * serialized form, which is what browsers send in Origin: lower-case host, default port left out.
 */
export function parseCorsOrigins(raw: string | undefined): '*' | readonly string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const items = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (items.includes('*')) {
    if (items.length > 1) throw new ConfigError(`API_CORS_ORIGINS: '*' allows every origin and cannot be combined with a list; got ${JSON.stringify(raw)}`);
    return '*';
  }
  const origins = new Set<string>();
  for (const item of items) {
    let url: URL;
    try {
      url = new URL(item);
    } catch {
      throw new ConfigError(`API_CORS_ORIGINS entries must be origins such as https://app.example.com; got ${JSON.stringify(item)}`);
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash || url.pathname !== '/') {
      throw new ConfigError(`API_CORS_ORIGINS entries must be http(s)://host[:port] with no path, query or credentials; got ${JSON.stringify(item)}`);
    }
    origins.add(url.origin);
  }
  return [...origins];
}

/**
 * TRADEAPI_ALLOWED_HOSTS: comma-separated host names (no scheme, port or path: a proxy such as
 * nginx forwards the name without the port, and a rebinding page may use any port). Stored as the
 * URL parser writes them (lower case, punycode), which is how a Host header is compared. No
 * wildcard: every name that may reach a keyless gateway is one the operator chose.
 */
export function parseAllowedHosts(raw: string | undefined): readonly string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const names = new Set<string>();
  for (const item of raw.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    // ASCII labels (an internationalised name in its xn-- form); the URL parser then writes it as
    // a Host header is compared (lower case; a numeric form of an IPv4 address as dotted quad).
    let hostname: string | undefined;
    if (/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/.test(item)) {
      try {
        hostname = new URL(`http://${item}`).hostname;
      } catch {
        hostname = undefined;
      }
    }
    if (hostname === undefined) {
      throw new ConfigError(`TRADEAPI_ALLOWED_HOSTS must be host names separated by commas (e.g. trade.example.lan), without scheme, port, path or wildcard; got ${JSON.stringify(item)}`);
    }
    names.add(hostname);
  }
  return [...names];
}

function parseRedisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const text = raw.trim();
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  // The value may hold a password: the message shows it only with the credentials masked.
  if (url === undefined || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') {
    throw new ConfigError(`API_RATE_LIMIT_REDIS_URL must be redis://[user:password@]host[:port][/db] (or rediss:// for TLS); got ${JSON.stringify(redisLabel(text))}`);
  }
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d{1,2}$/.test(url.pathname)) {
    throw new ConfigError(`API_RATE_LIMIT_REDIS_URL: the path selects a database and must be a number (e.g. /0); got ${JSON.stringify(redisLabel(text))}`);
  }
  return text;
}

/** A Redis URL fit for logs and messages: scheme, host, port and database, never the credentials. */
export function redisLabel(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url !== undefined && (url.protocol === 'redis:' || url.protocol === 'rediss:')) {
    // ioredis also reads options (a password among them) from the query string.
    if (url.search !== '') url.search = '?***';
    if (url.username !== '' || url.password !== '') {
      url.username = '';
      url.password = '';
      return url.toString().replace('//', '//***@');
    }
    return url.toString();
  }
  // Not a Redis URL ('host:password@…' even parses as a URL of scheme 'host:'): with an '@' in it,
  // part of it could be a password; show none of it.
  return raw.includes('@') ? '***' : raw;
}

function parseTrustProxy(name: string, raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 0;
  const text = raw.trim();
  if (!/^\d+$/.test(text) || Number(text) > 10) {
    throw new ConfigError(`${name} must be the number of reverse proxies in front of the service (0 to 10; 1 for a single nginx or Caddy); got ${JSON.stringify(raw)}`);
  }
  return Number(text);
}

function parseLogLevel(name: string, raw: string | undefined): LogLevel {
  if (raw === undefined || raw.trim() === '') return 'info';
  const level = LOG_LEVELS[raw.trim().toUpperCase()];
  if (!level) {
    throw new ConfigError(`${name} must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL (any case); got ${JSON.stringify(raw)}`);
  }
  return level;
}

function parsePositiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const text = raw.trim();
  // Digits only: '1e2', '0x10', '1.0' and '+5' are refused rather than guessed at.
  if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw new ConfigError(`${name} must be a positive integer; got ${JSON.stringify(raw)}`);
  }
  return Number(text);
}

/**
 * 'api/v1', '/api/v1' and '/api/v1/' all become '/api/v1'; '' and '/' mean no prefix. Segments
 * are restricted to URL-safe characters so that the prefix can never escape or confuse routing.
 */
export function normalizePrefix(raw: string): string {
  const trimmed = raw.trim();
  if (trimmed === '' || trimmed === '/') return '';
  const inner = trimmed.replace(/^\//, '').replace(/\/$/, '');
  const segments = inner.split('/');
  for (const segment of segments) {
    if (!/^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/.test(segment) || segment === '.' || segment === '..') {
      throw new ConfigError(
        `TRADEAPI_ROUTER_PREFIX must be path segments of letters, digits, '-', '_', '.', '~' separated by single '/' (e.g. /api/v1); got ${JSON.stringify(raw)}`,
      );
    }
  }
  return `/${segments.join('/')}`;
}

/** An on/off switch: 1 or 0 (unset or empty: the default). */
function parseSwitch(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (raw === '1') return true;
  if (raw === '0') return false;
  throw new ConfigError(`${name} must be 1 or 0; got ${JSON.stringify(raw)}`);
}

/** The bridge refuses shorter secrets (docs/bridge-protocol.md §4). */
export const MIN_BRIDGE_SECRET_BYTES = 16;

function parseTerminal(raw: string | undefined, secret: string | undefined, compressionRaw?: string): TerminalChoice {
  const compression = (compressionRaw ?? '').trim().toLowerCase() || 'auto';
  if (compression !== 'auto' && compression !== 'zstd' && compression !== 'none') {
    throw new ConfigError(`TRADEAPI_BRIDGE_COMPRESSION must be auto, zstd or none; got ${JSON.stringify(compressionRaw)}`);
  }
  if (raw === undefined || raw.trim() === '' || raw.trim().toLowerCase() === 'sim') return 'sim';
  const m = /^tcp:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(raw.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || !(port >= 1 && port <= 65535)) {
    throw new ConfigError(`TRADEAPI_TERMINAL must be 'sim' or tcp://HOST:PORT (a bridge, port 1-65535); got ${JSON.stringify(raw)}`);
  }
  if (secret === undefined || secret === '') throw new ConfigError('TRADEAPI_TERMINAL=tcp://… needs TRADEAPI_BRIDGE_SECRET (the secret the bridge was started with)');
  if (Buffer.byteLength(secret, 'utf8') < MIN_BRIDGE_SECRET_BYTES) {
    throw new ConfigError(`TRADEAPI_BRIDGE_SECRET must be at least ${MIN_BRIDGE_SECRET_BYTES} bytes`);
  }
  const host = m[1]!.replace(/^\[(.*)\]$/, '$1');
  const url = `tcp://${m[1]}:${port}`;
  const target = { kind: 'bridge' as const, url, host, port, compression, toJSON: () => ({ kind: 'bridge' as const, url, compression }) };
  // Not enumerable: spreading or inspecting the config never shows it.
  Object.defineProperty(target, 'secret', { value: secret, enumerable: false });
  return target as BridgeTarget;
}

/** An IANA zone (Europe/Athens), a fixed offset (+02:00, -05:30) or a shifted zone (America/New_York+07:00); unset or empty: none. */
function parseServerTz(name: string, raw: string | undefined): ServerZone | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    return parseServerZone(raw);
  } catch (e) {
    throw new ConfigError(
      `${name} must be an IANA time zone (e.g. Europe/Athens), a fixed offset +HH:MM / -HH:MM, or an IANA zone moved by one (e.g. America/New_York+07:00); got ${JSON.stringify(raw)} (${e instanceof Error ? e.message : String(e)})`,
    );
  }
}

/** The simulator's server zone: meaningless for a real terminal, whose broker sets its clock. */
function parseSimServerTz(raw: string | undefined, terminal: TerminalChoice): ServerZone | undefined {
  const zone = parseServerTz('TRADEAPI_SIM_SERVER_TZ', raw);
  if (zone !== undefined && terminal !== 'sim') {
    throw new ConfigError('TRADEAPI_SIM_SERVER_TZ sets the simulator\'s clock; with TRADEAPI_TERMINAL=tcp://… the broker sets it (describe it with TRADEAPI_SERVER_TZ instead)');
  }
  return zone;
}

/** TRADEAPI_SIM_CLOCK: an ISO 8601 instant with its zone (2026-11-25T14:00:00Z), from 2020 on. */
function parseSimClock(raw: string | undefined, terminal: TerminalChoice): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const text = raw.trim();
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(ms) || ms < Date.UTC(2020, 0, 2)) {
    throw new ConfigError(`TRADEAPI_SIM_CLOCK must be an ISO 8601 instant with its zone, from 2020-01-02 on (e.g. 2026-11-25T14:00:00Z); got ${JSON.stringify(raw)}`);
  }
  if (terminal !== 'sim') throw new ConfigError('TRADEAPI_SIM_CLOCK sets the simulator\'s clock; a real terminal keeps its own');
  return ms;
}

/** A number setting of the simulator (TRADEAPI_SIM_CLOCK_RATE, TRADEAPI_SIM_TRADES_PER_HOUR): decimal, in its range. */
function parseSimNumber(
  name: string,
  raw: string | undefined,
  terminal: TerminalChoice,
  range: { min: number; minInclusive: boolean; max: number },
): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const text = raw.trim();
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  const low = range.minInclusive ? value >= range.min : value > range.min;
  if (!Number.isFinite(value) || !low || value > range.max) {
    const from = range.minInclusive ? `${range.min}` : `above ${range.min}`;
    throw new ConfigError(`${name} must be a decimal number from ${from} to ${range.max}; got ${JSON.stringify(raw)}`);
  }
  if (terminal !== 'sim') throw new ConfigError(`${name} sets the simulator's account and clock; a real terminal has its own`);
  return value;
}

function parseAdapter(raw: string | undefined): AdapterName | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = raw.trim().toLowerCase();
  if (value === 'uws' || value === 'node') return value;
  throw new ConfigError(`TRADEAPI_HTTP must be 'uws' or 'node'; got ${JSON.stringify(raw)}`);
}

function parseHost(raw: string, source: string): string {
  const host = raw.trim();
  if (host === '' || /[\s/?#@]/.test(host)) throw new ConfigError(`${source} must be a host name or IP address; got ${JSON.stringify(raw)}`);
  return host;
}

function parsePort(raw: string | undefined, source: string): number {
  if (raw === undefined || raw.trim() === '') return DEFAULTS.port;
  const text = raw.trim();
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new ConfigError(`${source} must be an integer from 0 to 65535; got ${JSON.stringify(raw)}`);
  return port;
}
