// Bars: copy_rates_from / _from_pos / _range, streamed as they are produced.
import { Type } from '@sinclair/typebox';

import { defineRoute, type Route } from '../http/route.js';
import { Param } from '../http/params.js';
import { withinMaxBars } from './bar-limit.js';
import { RateRow } from './series-schemas.js';
import { mergeSeries } from '../terminal/merged-series.js';
import { openEach, pickSymbols, symbolChoice } from './multi-symbol.js';
import { orderedRange, toSeconds } from './shared.js';

const common = {
  symbol: Param.symbol(),
  timeframe: Param.constant('TIMEFRAME', 'Bar timeframe, e.g. TIMEFRAME_M1 or 1'),
  compression: Type.Optional(Param.compression()),
};
const response = { kind: 'series' as const, description: 'Bars in ascending time', schema: Type.Array(RateRow) };
const errors = ['symbolNotFound', 'notFound'] as const;
const maxbars =
  ' A terminal serves fewer than terminal_info().maxbars bars per request (MT5\'s "Max bars in chart"; 10000000 in the embedded' +
  ' simulator): a request that reaches it is a 400 naming the limit.';

export const rateRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/rates/from',
    mt5: 'copy_rates_from',
    summary: 'Bars ending at a date',
    description: 'The `count` bars whose open time is at or before `date_from`, oldest first (copy_rates_from).' + maxbars,
    tags: ['market data'],
    operational: false,
    query: { ...common, date_from: Param.date('Latest bar open time to include'), count: Param.count() },
    errors,
    response,
    async handler({ terminal, query }) {
      const series = await withinMaxBars(terminal, { count: query.count }, () =>
        terminal.copyRatesFrom(query.symbol, query.timeframe, toSeconds(query.date_from), query.count),
      );
      return { kind: 'series', which: 'rates', series, compression: query.compression };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/rates/from-pos',
    mt5: 'copy_rates_from_pos',
    summary: 'Bars starting at a position',
    description: 'Positions count from the present into the past; 0 is the current, unfinished bar (copy_rates_from_pos).' + maxbars,
    tags: ['market data'],
    operational: false,
    query: { ...common, start_pos: Param.startPos(), count: Param.count() },
    errors,
    response,
    async handler({ terminal, query }) {
      const series = await withinMaxBars(terminal, { count: query.count }, () =>
        terminal.copyRatesFromPos(query.symbol, query.timeframe, query.start_pos, query.count),
        query.symbol,
      );
      return { kind: 'series', which: 'rates', series, compression: query.compression };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/rates/range',
    mt5: 'copy_rates_range',
    summary: 'Bars in a date range',
    description:
      'Bars with date_from <= time <= date_to (copy_rates_range). A range wholly outside the history the terminal serves fails as in MT5: a 404 `/errors/not-found` (an unknown symbol: `/errors/symbol-not-found`).' +
      maxbars +
      ' With `symbols` or `group`, several symbols\' bars in one answer ordered by time (ties in the order listed), each with a `symbol` field; the limits and the 404s apply to each symbol.',
    tags: ['market data'],
    operational: false,
    query: { ...common, ...symbolChoice, date_from: Param.date('First bar open time'), date_to: Param.date('Last bar open time') },
    errors: [...errors, 'uriTooLong'],
    response: { ...response, description: 'Bars in ascending time (with `symbols` or `group`: each with its `symbol`, first)' },
    async handler({ terminal, query, config }) {
      orderedRange(query.date_from, query.date_to);
      const range = { timeframe: query.timeframe, fromMs: query.date_from, toMs: query.date_to };
      const open = (name: string) =>
        withinMaxBars(terminal, range, () => terminal.copyRatesRange(name, query.timeframe, toSeconds(query.date_from), toSeconds(query.date_to)), name);
      const pick = await pickSymbols(terminal, query, config.maxSymbolsPerRequest);
      if ('one' in pick) return { kind: 'series', which: 'rates', series: await open(pick.one), compression: query.compression };
      const each = await openEach(terminal, pick.many, open);
      return { kind: 'series', which: 'rates', series: mergeSeries('rates', each), compression: query.compression, symbols: pick.many };
    },
  }),
];
