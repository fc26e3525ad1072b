// Market depth (experimental): read the book, subscribe and unsubscribe under the configured cap.
import { Type } from '@sinclair/typebox';

import { defineRoute, type Route } from '../http/route.js';
import { Param } from '../http/params.js';
import { recordSchema } from '../http/record-schema.js';
import { BookInfoColumns, type FieldSpec } from '../terminal/records.js';

const SubscriptionColumns: readonly FieldSpec[] = [
  ['symbol', 'string'],
  ['subscribed', 'bool'],
  ['active', 'int64'],
  ['limit', 'int64'],
];
const SubscriptionSchema = Type.Object(
  {
    symbol: Type.String(),
    subscribed: Type.Boolean(),
    active: Type.Integer({ description: 'Active subscriptions after this request' }),
    limit: Type.Integer({ description: 'TRADEAPI_MAX_MARKET_BOOK_SUBSCRIPTIONS' }),
  },
  { title: 'MarketBookSubscription' },
);
const params = { symbol: Param.symbol() };

export const marketBookRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/market-book/{symbol}',
    mt5: 'market_book_get',
    summary: 'Market depth (experimental)',
    description: 'Needs an active subscription (POST …/subscribe); 409 otherwise.',
    tags: ['market depth'],
    operational: false,
    // Only the operational subscribe route can make it succeed, so the read-only mode leaves it out.
    readOnly: false,
    params,
    errors: ['symbolNotFound', 'notSubscribed'],
    response: { kind: 'records', description: 'market_book_get(symbol)', schema: Type.Array(recordSchema('BookInfo', BookInfoColumns)) },
    async handler({ terminal, params: p }) {
      return { kind: 'records', rows: await terminal.marketBookGet(p.symbol), columns: BookInfoColumns };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/market-book/{symbol}/subscribe',
    mt5: 'market_book_add',
    summary: 'Subscribe to market depth (experimental)',
    description: 'Idempotent: subscribing again answers 200 and takes no extra slot. 429 at the cap.',
    tags: ['market depth'],
    operational: true,
    params,
    errors: ['symbolNotFound', 'subscriptionLimit'],
    response: { kind: 'object', description: 'The subscription is active', schema: SubscriptionSchema },
    async handler({ subscriptions, params: p }) {
      return { kind: 'object', value: await subscriptions.subscribe(p.symbol), columns: SubscriptionColumns };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/market-book/{symbol}/unsubscribe',
    mt5: 'market_book_release',
    summary: 'Unsubscribe from market depth (experimental)',
    description: '404 when this service holds no subscription for the symbol.',
    tags: ['market depth'],
    operational: true,
    params,
    errors: ['notSubscribedHere'],
    response: { kind: 'object', description: 'The subscription is released', schema: SubscriptionSchema },
    async handler({ subscriptions, params: p }) {
      return { kind: 'object', value: await subscriptions.unsubscribe(p.symbol), columns: SubscriptionColumns };
    },
  }),
];
