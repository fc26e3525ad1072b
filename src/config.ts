// Service configuration, read once from the environment at start-up. Every variable is parsed up
// front so that a bad value stops the process before anything listens (see cli.ts: exit code 2).

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'fatal';
export type AdapterName = 'uws' | 'node';

export interface Config {
  /** Empty/unset disables authentication. Never logged. */
  readonly secretKey: string | undefined;
  readonly logLevel: LogLevel;
  readonly maxMarketBookSubscriptions: number;
  /** '' or '/segment[/segment…]' with no trailing slash. */
  readonly routerPrefix: string;
  /** Which terminal backs the service; only the simulated one exists so far. */
  readonly terminal: 'sim';
  /** Forced adapter; undefined = uWS where it loads, else node:http. */
  readonly http: AdapterName | undefined;
  readonly host: string;
  readonly port: number;
  readonly readOnly: boolean;
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
} as const;

export type Env = Readonly<Record<string, string | undefined>>;

/** Overrides from the command line; they win over the environment. */
export interface ConfigOverrides {
  host?: string;
  port?: string;
  readOnly?: boolean;
}

export function loadConfig(env: Env, overrides: ConfigOverrides = {}): Config {
  const secret = env.TRADEAPI_SECRET_KEY;
  return {
    secretKey: secret === undefined || secret === '' ? undefined : secret,
    logLevel: parseLogLevel(env.TRADEAPI_LOG_LEVEL),
    maxMarketBookSubscriptions: parsePositiveInt(
      'TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS',
      env.TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS,
      DEFAULTS.maxMarketBookSubscriptions,
    ),
    routerPrefix: normalizePrefix(env.TRADEAPI_ROUTER_PREFIX ?? ''),
    terminal: parseTerminal(env.TRADEAPI_TERMINAL),
    http: parseAdapter(env.TRADEAPI_HTTP),
    host: parseHost(overrides.host ?? env.TRADEAPI_HOST ?? DEFAULTS.host, overrides.host !== undefined ? '--host' : 'TRADEAPI_HOST'),
    port: parsePort(overrides.port ?? env.TRADEAPI_PORT, overrides.port !== undefined ? '--port' : 'TRADEAPI_PORT'),
    readOnly: overrides.readOnly ?? false,
  };
}

function parseLogLevel(raw: string | undefined): LogLevel {
  if (raw === undefined || raw.trim() === '') return 'info';
  const level = LOG_LEVELS[raw.trim().toUpperCase()];
  if (!level) {
    throw new ConfigError(`TRADEAPI_LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL (any case); got ${JSON.stringify(raw)}`);
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

function parseTerminal(raw: string | undefined): 'sim' {
  if (raw === undefined || raw.trim() === '' || raw.trim().toLowerCase() === 'sim') return 'sim';
  throw new ConfigError(`TRADEAPI_TERMINAL must be 'sim' (the only terminal available so far); got ${JSON.stringify(raw)}`);
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
