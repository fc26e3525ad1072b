// Ticks: copy_ticks_from / copy_ticks_range, streamed. Dates go to the terminal in milliseconds.
import { Type } from '@sinclair/typebox';

import { defineRoute, type Route } from '../http/route.js';
import { Param } from '../http/params.js';
import { constants } from '../terminal/constants.js';
import { TickRow } from './series-schemas.js';
import { mergeSeries } from '../terminal/merged-series.js';
import { openEach, pickSymbols, symbolChoice } from './multi-symbol.js';
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
    description:
      'Ticks with date_from <= time_msc <= date_to (copy_ticks_range). With `symbols` or `group`, several symbols\' ticks' +
      ' in one answer ordered by time_msc (ties in the order listed), each with a `symbol` field.',
    tags: ['market data'],
    operational: false,
    query: { ...symbolChoice, date_from: Param.date('First tick time'), date_to: Param.date('Last tick time'), flags, compression },
    errors: [...errors, 'notFound', 'uriTooLong'],
    response: { ...response, description: 'Ticks in ascending time (with `symbols` or `group`: each with its `symbol`, first)' },
    async handler({ terminal, query, config }) {
      orderedRange(query.date_from, query.date_to);
      const flagsAsked = query.flags ?? allTicks();
      const pick = await pickSymbols(terminal, query, config.maxSymbolsPerRequest);
      if ('one' in pick) {
        const series = await terminal.copyTicksRange(pick.one, query.date_from, query.date_to, flagsAsked);
        return { kind: 'series', which: 'ticks', series, compression: query.compression };
      }
      const each = await openEach(terminal, pick.many, (name) => terminal.copyTicksRange(name, query.date_from, query.date_to, flagsAsked));
      return { kind: 'series', which: 'ticks', series: mergeSeries('ticks', each), compression: query.compression, symbols: pick.many };
    },
  }),
];
