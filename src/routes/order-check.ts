// POST /order/check: order_check(request) without executing anything.
import { Type } from '@sinclair/typebox';

import { defineRoute, type Route } from '../http/route.js';
import { recordSchema } from '../http/record-schema.js';
import { OrderCheckResultColumns } from '../terminal/records.js';
import type { TradeRequest } from '../terminal/records.js';

const int = (description: string) => Type.Integer({ minimum: -(2 ** 53) + 1, maximum: 2 ** 53 - 1, description });
const num = (description: string) => Type.Number({ description });

/**
 * The 17 members of MqlTradeRequest (mt5-reference §4.9). Only `action` is required: which other
 * members matter depends on the action (a REMOVE needs only `order`), and the terminal answers a
 * missing one with a retcode, as MT5 does (omitted members are 0 / ''). Unknown members are refused.
 */
export const TradeRequestBody = Type.Object(
  {
    action: Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, description: 'TRADE_ACTION_* value, e.g. 1 = TRADE_ACTION_DEAL' }),
    magic: Type.Optional(int('Expert magic number')),
    order: Type.Optional(int('Order ticket (modify/remove a pending order)')),
    symbol: Type.Optional(Type.String({ maxLength: 64, description: 'Symbol name' })),
    volume: Type.Optional(Type.Number({ minimum: 0, description: 'Volume in lots' })),
    price: Type.Optional(Type.Number({ minimum: 0, description: 'Order price' })),
    stoplimit: Type.Optional(num('Limit price of a stop-limit order')),
    sl: Type.Optional(num('Stop loss price (0 = none)')),
    tp: Type.Optional(num('Take profit price (0 = none)')),
    deviation: Type.Optional(int('Maximum deviation from price, in points')),
    type: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, description: 'ORDER_TYPE_* value' })),
    type_filling: Type.Optional(int('ORDER_FILLING_* value')),
    type_time: Type.Optional(int('ORDER_TIME_* value')),
    expiration: Type.Optional(int('Expiration time, seconds (ORDER_TIME_SPECIFIED)')),
    // MT5 keeps 31 characters of a comment; the package refuses longer ones (-2).
    comment: Type.Optional(Type.String({ maxLength: 31, description: 'Order comment, at most 31 characters' })),
    position: Type.Optional(int('Position ticket (close/modify a position)')),
    position_by: Type.Optional(int('Opposite position ticket (close by)')),
  },
  { additionalProperties: false, title: 'TradeRequest' },
);

const Body = Type.Object({ request: TradeRequestBody }, { additionalProperties: false });

export const orderCheckRoutes: readonly Route[] = [
  defineRoute({
    method: 'POST',
    path: '/order/check',
    summary: 'Check a trade request without executing it',
    description:
      'Body {"request": {...}} with Content-Type application/json, at most 64 KiB. retcode 0 means the check passed; otherwise a TRADE_RETCODE_* value.',
    tags: ['trading'],
    operational: true,
    body: Body,
    errors: ['symbolNotFound', 'payloadTooLarge', 'unsupportedMediaType'],
    response: { kind: 'object', description: 'order_check(request)', schema: recordSchema('OrderCheckResult', OrderCheckResultColumns) },
    async handler({ terminal, body }) {
      const result = await terminal.orderCheck(body.request as Partial<TradeRequest>);
      return { kind: 'object', value: result, columns: OrderCheckResultColumns };
    },
  }),
];
