// Small helpers the route files share.
import { Type } from '@sinclair/typebox';

import type { FieldSpec } from '../terminal/records.js';
import type { Terminal } from '../terminal/terminal.js';
import { validationError } from '../http/problem.js';
import { defineRoute, type Route } from '../http/route.js';

/** A one-member key/value result, e.g. {"total": 3}, with its encoder columns and OpenAPI schema. */
export function scalar(name: string, kind: 'int64' | 'float64' | 'bool', description: string) {
  const columns: readonly FieldSpec[] = [[name, kind]];
  const value = kind === 'int64' ? Type.Integer({ description }) : kind === 'float64' ? Type.Number({ description }) : Type.Boolean({ description });
  return { columns, schema: Type.Object({ [name]: value }, { additionalProperties: false }) };
}

export const toSeconds = (ms: number): number => Math.floor(ms / 1000);

/** date_from must not be later than date_to. */
export function orderedRange(fromMs: number, toMs: number): void {
  if (fromMs > toMs) {
    throw validationError(
      `query parameter 'date_from' (${new Date(fromMs).toISOString()}) must not be later than 'date_to' (${new Date(toMs).toISOString()})`,
    );
  }
}

/** A parameterless count route answering {"total": n} (symbols_total, positions_total, ...). */
export function countRoute(options: {
  path: string;
  summary: string;
  tag: string;
  /** The terminal call it mirrors, for the OpenAPI description, e.g. 'positions_total()'. */
  call: string;
  /** What `total` counts, for its schema. */
  counts: string;
  count: (terminal: Terminal) => Promise<number>;
}): Route {
  const total = scalar('total', 'int64', options.counts);
  return defineRoute({
    method: 'GET',
    path: options.path,
    mt5: options.call.replace(/\(.*$/, ''),
    summary: options.summary,
    tags: [options.tag],
    operational: false,
    response: { kind: 'object', description: options.call, schema: total.schema },
    async handler({ terminal }) {
      return { kind: 'object', value: { total: await options.count(terminal) }, columns: total.columns };
    },
  });
}
