// Ticks: copy_ticks_from / copy_ticks_range, streamed. Dates go to the terminal in milliseconds.
import { Type } from '@sinclair/typebox';

import { defineRoute, type Route } from '../http/route.js';
import { Param } from '../http/params.js';
import { constants } from '../terminal/constants.js';
import { TickRow } from './series-schemas.js';
import { orderedRange } from './shared.js';

const flags = Type.Optional(Param.constant('COPY_TICKS', 'Which ticks; default COPY_TICKS_ALL'));
const compression = Type.Optional(Param.compression());
const response = { kind: 'series' as const, description: 'Ticks in ascending time', schema: Type.Array(TickRow) };
const errors = ['symbolNotFound'] as const;
const allTicks = (): number => constants('COPY_TICKS').get('COPY_TICKS_ALL') ?? -1;

export const tickRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/ticks/from',
    mt5: 'copy_ticks_from',
    summary: 'Ticks starting at a date',
    description: 'Up to `count` ticks at or after `date_from`, oldest first (copy_ticks_from).',
    tags: ['market data'],
    operational: false,
    query: { symbol: Param.symbol(), date_from: Param.date('First tick time'), count: Param.count(), flags, compression },
    errors,
    response,
    async handler({ terminal, query }) {
      const series = await terminal.copyTicksFrom(query.symbol, query.date_from, query.count, query.flags ?? allTicks());
      return { kind: 'series', which: 'ticks', series, compression: query.compression };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/ticks/range',
    mt5: 'copy_ticks_range',
    summary: 'Ticks in a date range',
    description: 'Ticks with date_from <= time_msc <= date_to (copy_ticks_range).',
    tags: ['market data'],
    operational: false,
    query: { symbol: Param.symbol(), date_from: Param.date('First tick time'), date_to: Param.date('Last tick time'), flags, compression },
    errors,
    response,
    async handler({ terminal, query }) {
      orderedRange(query.date_from, query.date_to);
      const series = await terminal.copyTicksRange(query.symbol, query.date_from, query.date_to, query.flags ?? allTicks());
      return { kind: 'series', which: 'ticks', series, compression: query.compression };
    },
  }),
];
