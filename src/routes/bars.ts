// Custom bars: bars of any period built from ticks on the server (issue 36 §1), streamed.
import { Type } from '@sinclair/typebox';

import { validationError } from '../http/problem.js';
import { defineRoute, type Route } from '../http/route.js';
import { Param } from '../http/params.js';
import { BAR_PRICES, barPriceOf, parseBarPeriod } from '../terminal/bar-period.js';
import { openCustomBars } from '../terminal/custom-bars.js';
import { mergeSeries, sourceChunkRows } from '../terminal/merged-series.js';
import type { BarChunk, Series } from '../terminal/series.js';
import { openEach, pickSymbols, symbolChoice } from './multi-symbol.js';
import { BarRow } from './series-schemas.js';
import { orderedRange } from './shared.js';

const description =
  'Bars of any period built on the server from every tick (COPY_TICKS_ALL), with the terminal\'s bar rules, so that a period equal to an MT5 ' +
  'timeframe gives exactly /rates/range for it. `period`: `Ns`, `Nm`, `Nh` (any length that divides a day), `1d`, `1w` (opened on Sunday, as W1), ' +
  '`ticks:N` (a bar every N ticks, counted as tick_volume counts them) or `volume:N` (symbols with trades only: a bar closes at the first tick where ' +
  'the traded volume since its open reaches N; ticks are not split). Time bars are cut on the broker\'s server wall clock (TRADEAPI_SERVER_TZ): when ' +
  'clocks go back, both passes of the repeated hour fall into one bar stamped with the earlier instant; a skipped hour has no bars. Tick and volume ' +
  'bars restart at each server-time day start and carry `time_close_msc`, the time of their last tick. Bars whose time lies in [date_from, date_to] ' +
  'are returned, each built from all its ticks; no ticks, no bar. `spread` is the least spread of the bar\'s ticks in points (as the simulator ' +
  'builds it; not confirmed for MT5). The bar still forming at the terminal\'s current time (its last tick) is left out unless `forming=true`. ' +
  'With `symbols` or `group`, several symbols\' bars (each built as for that symbol alone, `price` applying to all) in one answer ordered by ' +
  'time (ties in the order listed), each with a `symbol` field.';

export const barRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/ticks/bars',
    summary: 'Bars of any period built from ticks',
    description,
    tags: ['market data'],
    operational: false,
    query: {
      ...symbolChoice,
      period: Param.barPeriod('Bar period: 90s, 3m, 2h (any length dividing a day), 1d, 1w, ticks:500 or volume:100'),
      date_from: Param.date('First bar time'),
      date_to: Param.date('Last bar time'),
      price: Type.Optional(
        Type.Union(BAR_PRICES.map((p) => Type.Literal(p)), { description: "Price the bars chart: bid, ask, mid or last (default: the symbol's chart_mode, bid or last)" }),
      ),
      forming: Type.Optional(Param.boolean('Include the bar still forming at the terminal\'s current time (default false)')),
      compression: Type.Optional(Param.compression()),
    },
    errors: ['symbolNotFound', 'notFound', 'uriTooLong'],
    response: { kind: 'series', description: 'Bars in ascending time (with `symbols` or `group`: each with its `symbol`, first)', schema: Type.Array(BarRow) },
    async handler({ terminal, config, query }) {
      orderedRange(query.date_from, query.date_to);
      const period = parseBarPeriod(query.period);
      if (typeof period === 'string') throw validationError(`query parameter 'period': ${period}`);
      const open = async (name: string, tickChunkRows?: number): Promise<Series<BarChunk>> => {
        const info = await terminal.symbolInfo(name);
        const price = barPriceOf(name, info, period, query.period, query.price);
        if (typeof price !== 'string') throw validationError(price.why);
        return openCustomBars(
          terminal,
          { symbol: name, period, price, digits: info.digits, fromMs: query.date_from, toMs: query.date_to, forming: query.forming ?? false,
            // Whole seconds, as bar ends are.
            lastTickMs: info.time * 1000 },
          config.serverTz,
          tickChunkRows === undefined ? {} : { tickChunkRows },
        );
      };
      const pick = await pickSymbols(terminal, query, config.maxSymbolsPerRequest, { snappy: true });
      if ('one' in pick) return { kind: 'series', which: 'bars', series: await open(pick.one), compression: query.compression };
      // Each symbol's ticks in chunks of the share a merge gives each source, as /ticks/range's are.
      const tickRows = sourceChunkRows(pick.many.length);
      const each = await openEach(terminal, pick.many, (name) => open(name, tickRows));
      return { kind: 'series', which: 'bars', series: mergeSeries('bars', each), compression: query.compression, symbols: pick.many };
    },
  }),
];
