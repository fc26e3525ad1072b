// POST /order/check: order_check(request) without executing anything.
import { Type } from '@sinclair/typebox';

import { validationError } from '../http/problem.js';
import { Param, resolveConstants } from '../http/params.js';
import { defineRoute, type Route } from '../http/route.js';
import { recordSchema } from '../http/record-schema.js';
import { unknownSymbol } from '../http/symbol-hint.js';
import { constantName, constants } from '../terminal/constants.js';
import { TerminalError } from '../terminal/errors.js';
import { OrderCheckResultColumns } from '../terminal/records.js';
import type { TradeRequest } from '../terminal/records.js';
import type { Terminal } from '../terminal/terminal.js';

const int = (description: string) => Type.Integer({ minimum: -(2 ** 53) + 1, maximum: 2 ** 53 - 1, description });
const num = (description: string) => Type.Number({ description });

/** Actions that open something on `symbol` and so cannot be checked without it. */
const NEEDS_SYMBOL = ['TRADE_ACTION_DEAL', 'TRADE_ACTION_PENDING'].map((name) => constants('TRADE_ACTION').get(name) as number);

/**
 * The 17 members of MqlTradeRequest (mt5-reference §4.9); `action`, `type`, `type_filling` and
 * `type_time` by constant name or integer, as the query takes constants. Only `action` is required by the schema:
 * which other members matter depends on the action (a REMOVE needs only `order`), and the terminal
 * answers a missing one with a retcode, as MT5 does (omitted members are 0 / ''), except the
 * symbol of a DEAL or PENDING request (see checkSymbol). Unknown members are refused.
 */
export const TradeRequestBody = Type.Object(
  {
    action: Param.bodyConstant('TRADE_ACTION', 'The trade operation', 0, 2 ** 31 - 1),
    magic: Type.Optional(int('Expert magic number')),
    order: Type.Optional(int('Order ticket (modify/remove a pending order)')),
    symbol: Type.Optional(Type.String({ maxLength: 64, description: 'Symbol name; required for TRADE_ACTION_DEAL and TRADE_ACTION_PENDING' })),
    volume: Type.Optional(Type.Number({ minimum: 0, description: 'Volume in lots' })),
    price: Type.Optional(Type.Number({ minimum: 0, description: 'Order price' })),
    stoplimit: Type.Optional(num('Limit price of a stop-limit order')),
    sl: Type.Optional(num('Stop loss price (0 = none)')),
    tp: Type.Optional(num('Take profit price (0 = none)')),
    deviation: Type.Optional(int('Maximum deviation from price, in points')),
    type: Type.Optional(Param.bodyConstant('ORDER_TYPE', 'Order type', 0, 2 ** 31 - 1)),
    type_filling: Type.Optional(Param.bodyConstant('ORDER_FILLING', 'Filling policy', -(2 ** 53) + 1, 2 ** 53 - 1)),
    type_time: Type.Optional(Param.bodyConstant('ORDER_TIME', 'Order lifetime', -(2 ** 53) + 1, 2 ** 53 - 1)),
    expiration: Type.Optional(int('Expiration time, seconds (ORDER_TIME_SPECIFIED)')),
    // MT5 keeps 31 characters of a comment; the package refuses longer ones (-2).
    comment: Type.Optional(Type.String({ maxLength: 31, description: 'Order comment, at most 31 characters' })),
    position: Type.Optional(int('Position ticket (close/modify a position)')),
    position_by: Type.Optional(int('Opposite position ticket (close by)')),
  },
  {
    additionalProperties: false,
    title: 'TradeRequest',
    // For the OpenAPI document (JSON Schema 2020-12), so that clients and fuzzers know the rule;
    // TypeBox does not evaluate if/then, checkSymbol enforces it with a detail that names it.
    if: { properties: { action: { enum: [...NEEDS_SYMBOL, ...NEEDS_SYMBOL.map((v) => constantName('TRADE_ACTION', v))] } } },
    then: { required: ['symbol'], properties: { symbol: { minLength: 1 } } },
  },
);

const Body = Type.Object({ request: TradeRequestBody }, { additionalProperties: false });

/**
 * The one thing checked here rather than by the terminal, under one rule: the gateway answers only
 * what the terminal cannot answer with a retcode. A DEAL or PENDING request without a symbol gets
 * no result at all from order_check (None, (-2, 'Invalid "symbol" argument')), so it is a 400 that
 * names the member; an unknown symbol is a 404, as on every route that takes one. Everything else
 * (a zero volume, a pending order without a price, an unknown ticket) is the terminal's judgement:
 * a 200 whose retcode says why, exactly as order_check reports it.
 */
async function checkSymbol(terminal: Terminal, request: Partial<TradeRequest>): Promise<void> {
  const symbol = request.symbol ?? '';
  const action = request.action as number;
  if (symbol === '') {
    if (!NEEDS_SYMBOL.includes(action)) return;
    throw validationError(
      `body member 'request.symbol' is required for action ${action} (${constantName('TRADE_ACTION', action)}); received ${request.symbol === undefined ? 'nothing' : '""'}`,
    );
  }
  try {
    await terminal.symbolInfo(symbol);
  } catch (e) {
    if (e instanceof TerminalError && e.kind === 'not_found') throw await unknownSymbol(terminal, symbol, { what: 'request.symbol' });
    throw e;
  }
}

export const orderCheckRoutes: readonly Route[] = [
  defineRoute({
    method: 'POST',
    path: '/order/check',
    mt5: 'order_check',
    summary: 'Check a trade request without executing it',
    description:
      'Body {"request": {...}} with Content-Type application/json, at most 64 KiB. `action`, `type`, `type_filling` and `type_time` take the ' +
      'MT5 constant name or its integer, as query parameters do ("TRADE_ACTION_DEAL" or 1); an unknown name is a 400 listing the names. ' +
      'Only `action` is required; a DEAL (1) or PENDING (5) ' +
      'request also needs `symbol` (400 without it), and an unknown `symbol` is a 404. Everything else is judged by the terminal: ' +
      'a failed check is still a 200, whose retcode is a TRADE_RETCODE_* value (0 means the check passed), as order_check reports it.',
    tags: ['trading'],
    operational: true,
    body: Body,
    errors: ['symbolNotFound', 'payloadTooLarge', 'unsupportedMediaType'],
    response: { kind: 'object', description: 'order_check(request)', schema: recordSchema('OrderCheckResult', OrderCheckResultColumns) },
    async handler({ terminal, body }) {
      // Names already resolved by the dispatcher; again here for a caller that only checked the schema.
      const request = resolveConstants(TradeRequestBody, body.request, 'request') as Partial<TradeRequest>;
      await checkSymbol(terminal, request);
      const result = await terminal.orderCheck(request);
      return { kind: 'object', value: result, columns: OrderCheckResultColumns };
    },
  }),
];
