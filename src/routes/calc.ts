// order_calc_margin / order_calc_profit: results in the account currency.
import { defineRoute, type Route } from '../http/route.js';
import { Param } from '../http/params.js';
import { scalar } from './shared.js';

const margin = scalar('margin', 'float64', 'Required margin in the account currency');
const profit = scalar('profit', 'float64', 'Profit in the account currency');
const action = Param.constant('ORDER_TYPE', 'Order type, ORDER_TYPE_BUY (0) or ORDER_TYPE_SELL (1)');

export const calcRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/calc/margin',
    summary: 'Margin required for an order',
    tags: ['calculations'],
    operational: false,
    // The spec lists margin/profit calculation among what Variant A offers beyond the read-only variant.
    readOnly: false,
    query: {
      action,
      symbol: Param.symbol(),
      volume: Param.positive('Volume in lots'),
      price: Param.positive('Open price'),
    },
    errors: ['symbolNotFound'],
    response: { kind: 'object', description: 'order_calc_margin(...)', schema: margin.schema },
    async handler({ terminal, query: q }) {
      const value = await terminal.orderCalcMargin(q.action, q.symbol, q.volume, q.price);
      return { kind: 'object', value: { margin: value }, columns: margin.columns };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/calc/profit',
    summary: 'Profit of a trade between two prices',
    tags: ['calculations'],
    operational: false,
    // The spec lists margin/profit calculation among what Variant A offers beyond the read-only variant.
    readOnly: false,
    query: {
      action,
      symbol: Param.symbol(),
      volume: Param.positive('Volume in lots'),
      price_open: Param.positive('Open price'),
      price_close: Param.positive('Close price'),
    },
    errors: ['symbolNotFound'],
    response: { kind: 'object', description: 'order_calc_profit(...)', schema: profit.schema },
    async handler({ terminal, query: q }) {
      const value = await terminal.orderCalcProfit(q.action, q.symbol, q.volume, q.price_open, q.price_close);
      return { kind: 'object', value: { profit: value }, columns: profit.columns };
    },
  }),
];
