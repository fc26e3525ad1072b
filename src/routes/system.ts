// Service and terminal status: /health, /version, /last-error, /account, /terminal.
import { Type, type Static } from '@sinclair/typebox';

import { defineRoute, type Route } from '../http/route.js';
import { recordSchema } from '../http/record-schema.js';
import { AccountInfoColumns, LastErrorColumns, TerminalInfoColumns, VersionColumns } from '../terminal/records.js';
import type { Version } from '../terminal/records.js';
import { isTerminalError } from '../terminal/errors.js';
import type { BridgeStatus, Terminal } from '../terminal/terminal.js';

const VersionSchema = recordSchema('Version', VersionColumns);

const BridgeHealthSchema = Type.Object(
  {
    state: Type.Union(
      [Type.Literal('ok'), Type.Literal('terminal_down'), Type.Literal('not_answering'), Type.Literal('unreachable'), Type.Literal('version_mismatch')],
      {
        description:
          "'unreachable': the gateway cannot reach (or authenticate with) the bridge; 'version_mismatch': the bridge speaks another protocol version (last_error says which: upgrade the older side); " +
          "'not_answering': the bridge answers its status but terminal calls have been timing out since `since`; 'terminal_down': the bridge answers but its terminal is not connected",
      },
    ),
    reachable: Type.Boolean({ description: 'The bridge answers and accepts the shared secret' }),
    terminal_connected: Type.Boolean({ description: "The bridge's terminal is connected (false while unreachable)" }),
    since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the current state began (UTC): the terminal connected or lost per the bridge, or the bridge became unreachable',
    }),
    last_error: Type.Union([Type.Object({ code: Type.Integer(), message: Type.String() }), Type.Null()], {
      description: 'The failure that explains the state, if any',
    }),
    reconnects: Type.Integer({ description: 'Terminal re-initializations by the bridge after a loss' }),
  },
  { title: 'BridgeHealth' },
);

const HealthSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    terminal: Type.Object({
      connected: Type.Boolean(),
      version: Type.Union([VersionSchema, Type.Null()]),
    }),
    bridge: Type.Optional(BridgeHealthSchema),
  },
  { title: 'Health' },
);

type BridgeHealth = Static<typeof BridgeHealthSchema>;

const isoSeconds = (s: number | null): string | null => (s === null || !(s > 0) ? null : new Date(Math.round(s * 1000)).toISOString());

function bridgeHealth(r: PromiseSettledResult<BridgeStatus>): BridgeHealth {
  if (r.status === 'rejected') {
    // The status call itself failed (timed out, or a bridge without the op): not reachable as a bridge.
    const e: unknown = r.reason;
    const last = isTerminalError(e) ? { code: e.code, message: e.message } : { code: -1, message: e instanceof Error ? e.message : String(e) };
    return { state: 'unreachable', reachable: false, terminal_connected: false, since: null, last_error: last, reconnects: 0 };
  }
  const s = r.value;
  const state = !s.reachable
    ? s.version_mismatch === true ? 'version_mismatch' : 'unreachable'
    : s.answering === false ? 'not_answering' : s.terminal_connected ? 'ok' : 'terminal_down';
  return {
    state,
    reachable: s.reachable,
    terminal_connected: s.reachable && s.terminal_connected,
    since: isoSeconds(s.since),
    last_error: s.last_error,
    reconnects: s.reconnects,
  };
}

interface Health {
  connected: boolean;
  version: Version | null;
  bridge?: BridgeHealth;
}

/**
 * The probe in flight per terminal: health checks that arrive while one is running share its
 * answer, which is at most one probe old. A busy monitor (or a load balancer's 100 connections)
 * then costs the terminal one terminalInfo() and one version() per probe, not per request: two
 * thread-pool round trips were most of a /health answer's CPU (issue 24).
 */
const probes = new WeakMap<Terminal, Promise<Health>>();

function health(terminal: Terminal): Promise<Health> {
  const running = probes.get(terminal);
  if (running) return running;
  const probe = probeHealth(terminal).finally(() => probes.delete(terminal));
  probes.set(terminal, probe);
  return probe;
}

/** Health never throws: any terminal failure is the answer "unavailable". */
async function probeHealth(terminal: Terminal): Promise<Health> {
  const status = terminal.bridgeStatus?.();
  const [info, version, bridge] = await Promise.allSettled([terminal.terminalInfo(), terminal.version(), status]);
  const connected = info.status === 'fulfilled' && info.value.connected;
  const out: Health = { connected, version: version.status === 'fulfilled' ? version.value : null };
  if (status !== undefined) out.bridge = bridgeHealth(bridge as PromiseSettledResult<BridgeStatus>);
  return out;
}

export const systemRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/health',
    summary: 'API and terminal connection status',
    description:
      'No authentication. 200 when the terminal answers and is connected, 503 (same shape) otherwise. ' +
      'With a bridge (TRADEAPI_TERMINAL=tcp://…) `bridge` tells "bridge unreachable" from "bridge up, terminal down".',
    tags: ['system'],
    operational: false,
    public: true,
    response: { kind: 'json', description: 'Status of the API and the terminal connection', schema: HealthSchema },
    async handler({ terminal }) {
      const { bridge, ...state } = await health(terminal);
      const ok = state.connected && state.version !== null && (bridge === undefined || bridge.state === 'ok');
      const value = { status: ok ? 'ok' : 'unavailable', terminal: state, ...(bridge === undefined ? {} : { bridge }) };
      return { kind: 'json', status: ok ? 200 : 503, value };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/version',
    mt5: 'version',
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
    mt5: 'last_error',
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
    mt5: 'account_info',
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
    mt5: 'terminal_info',
    summary: 'Terminal status and settings',
    tags: ['system'],
    operational: false,
    response: { kind: 'object', description: 'terminal_info()', schema: recordSchema('TerminalInfo', TerminalInfoColumns) },
    async handler({ terminal }) {
      return { kind: 'object', value: await terminal.terminalInfo(), columns: TerminalInfoColumns };
    },
  }),
];
