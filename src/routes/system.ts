// Service and terminal status: /health, /version, /last-error, /account, /terminal.
import { Type } from '@sinclair/typebox';

import { defineRoute, type Route } from '../http/route.js';
import { recordSchema } from '../http/record-schema.js';
import { AccountInfoColumns, LastErrorColumns, TerminalInfoColumns, VersionColumns } from '../terminal/records.js';
import type { Version } from '../terminal/records.js';
import type { Terminal } from '../terminal/terminal.js';

const VersionSchema = recordSchema('Version', VersionColumns);

const HealthSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    terminal: Type.Object({
      connected: Type.Boolean(),
      version: Type.Union([VersionSchema, Type.Null()]),
    }),
  },
  { title: 'Health' },
);

/** Health never throws: any terminal failure is the answer "unavailable". */
async function health(terminal: Terminal): Promise<{ connected: boolean; version: Version | null }> {
  const [info, version] = await Promise.allSettled([terminal.terminalInfo(), terminal.version()]);
  const connected = info.status === 'fulfilled' && info.value.connected;
  return { connected, version: version.status === 'fulfilled' ? version.value : null };
}

export const systemRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/health',
    summary: 'API and terminal connection status',
    description: 'No authentication. 200 when the terminal answers and is connected, 503 (same shape) otherwise.',
    tags: ['system'],
    operational: false,
    public: true,
    response: { kind: 'json', description: 'Status of the API and the terminal connection', schema: HealthSchema },
    async handler({ terminal }) {
      const state = await health(terminal);
      const ok = state.connected && state.version !== null;
      return { kind: 'json', status: ok ? 200 : 503, value: { status: ok ? 'ok' : 'unavailable', terminal: state } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/version',
    summary: 'Terminal version',
    tags: ['system'],
    operational: false,
    response: { kind: 'object', description: 'version() of the terminal', schema: VersionSchema },
    async handler({ terminal }) {
      return { kind: 'object', value: await terminal.version(), columns: VersionColumns };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/last-error',
    summary: 'Last terminal error code and description',
    tags: ['system'],
    operational: false,
    response: { kind: 'object', description: 'last_error() of the terminal', schema: recordSchema('LastError', LastErrorColumns) },
    async handler({ terminal }) {
      return { kind: 'object', value: await terminal.lastError(), columns: LastErrorColumns };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/account',
    summary: 'Account balance, equity, margin and settings',
    tags: ['account'],
    operational: false,
    response: { kind: 'object', description: 'account_info()', schema: recordSchema('AccountInfo', AccountInfoColumns) },
    async handler({ terminal }) {
      return { kind: 'object', value: await terminal.accountInfo(), columns: AccountInfoColumns };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/terminal',
    summary: 'Terminal status and settings',
    tags: ['system'],
    operational: false,
    response: { kind: 'object', description: 'terminal_info()', schema: recordSchema('TerminalInfo', TerminalInfoColumns) },
    async handler({ terminal }) {
      return { kind: 'object', value: await terminal.terminalInfo(), columns: TerminalInfoColumns };
    },
  }),
];
