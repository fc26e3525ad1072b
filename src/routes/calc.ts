// order_calc_margin / order_calc_profit: results in the account currency.
import { defineRoute, type Route } from '../http/route.js';
import { Param } from '../http/params.js';
import { ProblemError } from '../http/problem.js';
import { scalar } from './shared.js';

const margin = scalar('margin', 'float64', 'Required margin in the account currency');
const profit = scalar('profit', 'float64', 'Profit in the account currency');
// What the terminal accepts: order_calc_margin takes any order type but CLOSE_BY, order_calc_profit
// only BUY and SELL; anything else is refused here, with the list, instead of an opaque terminal -2.
const marginAction = Param.constant('ORDER_TYPE', 'Order type: ORDER_TYPE_BUY (0), ORDER_TYPE_SELL (1) or a pending order type', [
  'ORDER_TYPE_BUY',
  'ORDER_TYPE_SELL',
  'ORDER_TYPE_BUY_LIMIT',
  'ORDER_TYPE_SELL_LIMIT',
  'ORDER_TYPE_BUY_STOP',
  'ORDER_TYPE_SELL_STOP',
  'ORDER_TYPE_BUY_STOP_LIMIT',
  'ORDER_TYPE_SELL_STOP_LIMIT',
]);
const profitAction = Param.constant('ORDER_TYPE', 'Order type, ORDER_TYPE_BUY (0) or ORDER_TYPE_SELL (1)', ['ORDER_TYPE_BUY', 'ORDER_TYPE_SELL']);
// Far beyond any symbol's volume_max and any quote, yet bounded so that volume x contract size x
// price, and its conversion to the account currency (which may divide by the close price, e.g.
// USDJPY), stay finite doubles. Unbounded, volume=1e300 made the margin Infinity, answered as
// {"margin": null}, and price_close=1e-296 a profit of -Infinity.
const MAX_VOLUME = 1e9;
const MIN_PRICE = 1e-9;
const MAX_PRICE = 1e12;
const volume = Param.positive('Volume in lots', MAX_VOLUME);
const price = (description: string) => Param.positive(description, MAX_PRICE, MIN_PRICE);

/** The schema documents a finite number; should the arithmetic still overflow, say so (400). */
function finite(name: string, value: number): number {
  if (!Number.isFinite(value)) throw new ProblemError('validation', `the ${name} for these volume and prices is not a finite number (${value})`);
  return value;
}

export const calcRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/calc/margin',
    mt5: 'order_calc_margin',
    summary: 'Margin required for an order',
    tags: ['calculations'],
    operational: false,
    // The spec lists margin/profit calculation among what Variant A offers beyond the read-only variant.
    readOnly: false,
    query: {
      action: marginAction,
      symbol: Param.symbol(),
      volume,
      price: price('Open price'),
    },
    errors: ['symbolNotFound'],
    response: { kind: 'object', description: 'order_calc_margin(...)', schema: margin.schema },
    async handler({ terminal, query: q }) {
      const value = await terminal.orderCalcMargin(q.action, q.symbol, q.volume, q.price);
      return { kind: 'object', value: { margin: finite('margin', value) }, columns: margin.columns };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/calc/profit',
    mt5: 'order_calc_profit',
    summary: 'Profit of a trade between two prices',
    tags: ['calculations'],
    operational: false,
    // The spec lists margin/profit calculation among what Variant A offers beyond the read-only variant.
    readOnly: false,
    query: {
      action: profitAction,
      symbol: Param.symbol(),
      volume,
      price_open: price('Open price'),
      price_close: price('Close price'),
    },
    errors: ['symbolNotFound'],
    response: { kind: 'object', description: 'order_calc_profit(...)', schema: profit.schema },
    async handler({ terminal, query: q }) {
      const value = await terminal.orderCalcProfit(q.action, q.symbol, q.volume, q.price_open, q.price_close);
      return { kind: 'object', value: { profit: finite('profit', value) }, columns: profit.columns };
    },
  }),
];
