// GET /store/coverage: what the local history store (TRADEAPI_STORE, filled by `tradeapi sync`)
// holds of one symbol's ticks, day by day, and its gaps (the same report as `tradeapi store gaps`).
import { Type } from '@sinclair/typebox';

import { Param } from '../http/params.js';
import { ProblemError, validationError } from '../http/problem.js';
import { defineRoute, type Route } from '../http/route.js';
import { damagedDays, tickCoverage } from '../store/coverage.js';
import { dayKey } from '../store/layout.js';
import { readManifest, StoreMismatchError } from '../store/manifest.js';
import { orderedRange } from './shared.js';

/** The longest range one request reports on (ten years of days). */
const MAX_DAYS = 3660;

const Status = Type.Union(['complete', 'weekend', 'empty', 'partial', 'unavailable', 'missing', 'damaged'].map((s) => Type.Literal(s)), {
  description: 'complete: ticks stored; weekend / empty: fetched, the terminal had none (a Saturday or Sunday / a weekday); partial: fetched up to `through`; unavailable: the terminal refused the range; missing: never fetched; damaged: the file is not the one the manifest recorded (served from the terminal; `tradeapi verify --repair`)',
});

const CoverageSchema = Type.Object(
  {
    symbol: Type.String(),
    server: Type.String({ description: 'The trade server the store holds' }),
    zone: Type.String({ description: 'The server time zone the stamps were converted from' }),
    from: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
    to: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
    totals: Type.Record(Type.String(), Type.Integer(), { description: 'Days per status' }),
    unproven: Type.Integer({ description: 'Days with ticks stored without a proof (a tradeapi-store/1 store; `tradeapi verify --repair` adds them)' }),
    rows: Type.Integer({ description: 'Ticks stored in the range' }),
    days: Type.Array(Type.Object({
      date: Type.String({ format: 'date' }), status: Status, rows: Type.Integer(), through: Type.Optional(Type.String({ format: 'date-time' })),
      damage: Type.Optional(Type.String({ description: 'damaged: why the file is not the one recorded' })),
      unproven: Type.Optional(Type.Literal(true, { description: 'stored without a proof (a tradeapi-store/1 store)' })),
    })),
    gaps: Type.Array(Type.Object({ from: Type.String({ format: 'date' }), to: Type.String({ format: 'date' }), days: Type.Integer(), status: Status })),
  },
  { additionalProperties: false },
);

export const storeRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/store/coverage',
    summary: 'Coverage of the local history store',
    description:
      'What the local store (TRADEAPI_STORE, filled by `tradeapi sync`) holds of a symbol\'s ticks, per UTC day, and the gaps: ' +
      'days never fetched told apart from days fetched and empty (weekends, holidays). Without date_from/date_to: the days fetched. ' +
      'A 404 when no store is configured or it holds nothing of the symbol. See docs/store.md.',
    tags: ['market data'],
    operational: false,
    // A tool where the route is served: with TRADEAPI_STORE only (routes/index.ts).
    mcpTool: true,
    query: {
      symbol: Param.symbol(),
      date_from: Type.Optional(Param.date('First day to report on')),
      date_to: Type.Optional(Param.date('Last day to report on')),
    },
    errors: ['notFound'],
    response: { kind: 'json', description: 'Coverage per day and the gaps', schema: CoverageSchema },
    async handler({ config, query }) {
      const root = config.store;
      if (root === undefined) throw new ProblemError('notFound', 'no local history store is configured (set TRADEAPI_STORE to a directory filled by tradeapi sync)');
      const from = query.date_from;
      const to = query.date_to;
      if (from !== undefined && to !== undefined) orderedRange(from, to);
      let manifest;
      try {
        manifest = await readManifest(root, { symbols: [query.symbol] });
      } catch (e) {
        if (e instanceof StoreMismatchError) throw new ProblemError('notFound', `the store at TRADEAPI_STORE cannot be read: ${e.message}`);
        throw e;
      }
      if (!manifest) throw new ProblemError('notFound', 'the store at TRADEAPI_STORE has no manifest yet (run tradeapi sync)');
      const held = manifest.symbols[query.symbol];
      if (!held && from === undefined) throw new ProblemError('notFound', `the store holds nothing of ${query.symbol}`);
      const first = from ?? (to !== undefined ? to : undefined);
      const last = to ?? (from !== undefined ? Date.now() : undefined);
      if (first !== undefined && last !== undefined && (last - first) / 86_400_000 > MAX_DAYS) {
        throw validationError(`the range covers more than ${MAX_DAYS} days; ask for a shorter one`);
      }
      const damaged = await damagedDays(root, manifest, query.symbol, first === undefined ? undefined : dayKey(first), last === undefined ? undefined : dayKey(last));
      return { kind: 'json', status: 200, value: tickCoverage(manifest, query.symbol, first, last, damaged) };
    },
  }),
];
