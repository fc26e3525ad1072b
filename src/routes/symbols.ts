// Symbols: list, count, details, latest tick, market-watch visibility.
import { Type } from '@sinclair/typebox';

import { defineRoute, type Route } from '../http/route.js';
import { Param } from '../http/params.js';
import { ProblemError } from '../http/problem.js';
import { recordSchema } from '../http/record-schema.js';
import { TerminalError } from '../terminal/errors.js';
import { SymbolInfoColumns, TickColumns, type FieldSpec } from '../terminal/records.js';
import type { Terminal } from '../terminal/terminal.js';
import { countRoute } from './shared.js';

const SymbolSchema = recordSchema('SymbolInfo', SymbolInfoColumns);
const symbolPath = { symbol: Param.symbol() };

const SelectColumns: readonly FieldSpec[] = [['symbol', 'string'], ['selected', 'bool']];
const SelectSchema = Type.Object(
  { symbol: Type.String(), selected: Type.Boolean({ description: 'Whether the symbol is now shown in the market watch' }) },
  { title: 'SymbolSelection' },
);

/** A 409 naming the open positions and pending orders on `symbol`, if there are any. */
async function refuseIfInUse(terminal: Terminal, symbol: string): Promise<void> {
  const [positions, orders] = await Promise.all([terminal.positionsGet({ symbol }), terminal.ordersGet({ symbol })]);
  const uses = [
    positions.length > 0 ? plural(positions.length, 'open position') : undefined,
    orders.length > 0 ? plural(orders.length, 'pending order') : undefined,
  ].filter((u) => u !== undefined);
  if (uses.length === 0) return;
  throw new ProblemError(
    'symbolInUse',
    `${symbol} cannot be hidden from the market watch while it has ${uses.join(' and ')}; close or remove them first`,
  );
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

export const symbolRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/symbols',
    mt5: 'symbols_get',
    summary: 'List symbols',
    tags: ['symbols'],
    operational: false,
    query: { group: Type.Optional(Param.group()) },
    response: { kind: 'records', description: 'symbols_get(group)', schema: Type.Array(SymbolSchema) },
    async handler({ terminal, query }) {
      return { kind: 'records', rows: await terminal.symbolsGet(query.group), columns: SymbolInfoColumns };
    },
  }),
  countRoute({
    path: '/symbols/total',
    summary: 'Number of symbols',
    tag: 'symbols',
    call: 'symbols_total()',
    counts: 'Number of symbols',
    count: (terminal) => terminal.symbolsTotal(),
  }),
  defineRoute({
    method: 'GET',
    path: '/symbols/{symbol}',
    mt5: 'symbol_info',
    summary: 'Symbol details',
    tags: ['symbols'],
    operational: false,
    params: symbolPath,
    errors: ['symbolNotFound'],
    response: { kind: 'object', description: 'symbol_info(symbol)', schema: SymbolSchema },
    async handler({ terminal, params }) {
      return { kind: 'object', value: await terminal.symbolInfo(params.symbol), columns: SymbolInfoColumns };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/symbols/{symbol}/tick',
    mt5: 'symbol_info_tick',
    summary: 'Latest tick',
    tags: ['symbols'],
    operational: false,
    params: symbolPath,
    description:
      'Only for a symbol in Market Watch, as in MetaTrader 5: a known symbol that is hidden (`select` false) is refused ' +
      '(409 /errors/symbol-not-selected); show it with POST /symbols/{symbol}/select?enable=true first.',
    errors: ['symbolNotFound', 'symbolNotSelected'],
    response: { kind: 'object', description: 'symbol_info_tick(symbol)', schema: recordSchema('Tick', TickColumns) },
    async handler({ terminal, params }) {
      return { kind: 'object', value: await terminal.symbolInfoTick(params.symbol), columns: TickColumns };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/symbols/{symbol}/select',
    mt5: 'symbol_select',
    summary: 'Show or hide a symbol in the market-watch list',
    tags: ['symbols'],
    operational: true,
    params: symbolPath,
    query: { enable: Param.boolean('true (or 1) shows the symbol, false (or 0) hides it') },
    description:
      'Hiding a symbol that open positions or pending orders use is refused (409 /errors/symbol-in-use), as MetaTrader 5 refuses it; close or remove them first.',
    errors: ['symbolNotFound', 'symbolInUse'],
    response: { kind: 'object', description: 'symbol_select(symbol, enable) succeeded', schema: SelectSchema },
    async handler({ terminal, params, query }) {
      // MT5 answers False (the simulator: "Call failed") when hiding a symbol that trades use.
      // That is the caller's own condition, not a terminal fault: a 409 saying which trades hold
      // it. Any other refusal (a chart in a real terminal, say) stays a 502.
      let ok: boolean;
      try {
        ok = await terminal.symbolSelect(params.symbol, query.enable);
      } catch (e) {
        if (!query.enable && e instanceof TerminalError && e.kind === 'call_failed') await refuseIfInUse(terminal, params.symbol);
        throw e;
      }
      if (!ok) {
        if (!query.enable) await refuseIfInUse(terminal, params.symbol);
        throw new TerminalError('call_failed', -1, `the terminal refused symbol_select(${params.symbol}, ${query.enable})`);
      }
      return { kind: 'object', value: { symbol: params.symbol, selected: query.enable }, columns: SelectColumns };
    },
  }),
];
