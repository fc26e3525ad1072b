// Structured logs: pino JSON lines on stdout. Nothing secret is ever passed in (no keys, no query strings).
import { pino, type Logger } from 'pino';

import type { LogLevel } from './config.js';

export type { Logger };

export function createLogger(level: LogLevel | 'silent'): Logger {
  return pino({ level, base: { service: 'tradeapi' }, timestamp: pino.stdTimeFunctions.isoTime });
}
