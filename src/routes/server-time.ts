// GET /server-time: how the times this gateway returns relate to the broker's server time, so that
// a client never has to guess (clients/python gives scripts the server-time values the MetaTrader5
// package would, or true UTC on request). A terminal stamps in the broker's wall clock written as
// if it were UTC (mt5-reference §3.3); with TRADEAPI_SERVER_TZ the gateway converts to true UTC.
import { Type } from '@sinclair/typebox';

import { zoneTransitions, type ServerZone } from '../config/server-zone.js';
import { defineRoute, type Route } from '../http/route.js';

/** The table spans 1970 to 2100: every stamp a terminal writes. */
const FROM_S = 0;
const TO_S = Date.UTC(2100, 0, 1) / 1000;

const ServerTimeSchema = Type.Object(
  {
    utc: Type.Boolean({ description: 'The times this gateway returns (and the dates it takes) are true UTC' }),
    zone: Type.Union([Type.String(), Type.Null()], {
      description: "The broker's server time zone when known: TRADEAPI_SERVER_TZ, or 'UTC' for the simulator at its default clock; null when the gateway passes the terminal's stamps on without knowing their zone",
    }),
    // A pair as a two-item array, not Type.Tuple: TypeBox writes a tuple as draft-07 `items: [...]`,
    // which OpenAPI 3.1 (JSON Schema 2020-12) rejects.
    transitions: Type.Array(Type.Array(Type.Integer(), { minItems: 2, maxItems: 2, description: '[from UTC second, server minus UTC in seconds]' }), {
      description:
        'When the gateway converts (TRADEAPI_SERVER_TZ): [from UTC second, server minus UTC in seconds] from each change on, ascending; ' +
        'server time = UTC + the offset in force. A server stamp in the hour repeated when clocks go back is read as the earlier instant. Empty when nothing is converted.',
    }),
  },
  { additionalProperties: false },
);

const tables = new WeakMap<ServerZone, Array<[number, number]>>();

function transitionsOf(zone: ServerZone): Array<[number, number]> {
  let t = tables.get(zone);
  if (!t) {
    t = zoneTransitions(zone, FROM_S, TO_S);
    tables.set(zone, t);
  }
  return t;
}

export const serverTimeRoutes: readonly Route[] = [
  defineRoute({
    method: 'GET',
    path: '/server-time',
    summary: "How this gateway's times relate to the broker's server time",
    description:
      "A terminal stamps every time in the broker's server time written as if it were UTC. With TRADEAPI_SERVER_TZ the gateway converts times " +
      'to true UTC both ways and gives the offsets here, so that a client can give scripts the server-time values the MetaTrader5 package would.',
    tags: ['system'],
    operational: false,
    mcpTool: true,
    response: { kind: 'json', description: 'The clock of the returned times', schema: ServerTimeSchema },
    async handler({ config }) {
      let value: { utc: boolean; zone: string | null; transitions: Array<[number, number]> };
      if (config.serverTz) {
        value = { utc: true, zone: config.serverTz.name, transitions: transitionsOf(config.serverTz) };
      } else if (config.terminal === 'sim' && (config.simServerTz === undefined || transitionsOf(config.simServerTz).every(([, o]) => o === 0))) {
        value = { utc: true, zone: 'UTC', transitions: [] }; // the simulator at its default clock stamps in UTC
      } else {
        value = { utc: false, zone: null, transitions: [] };
      }
      return { kind: 'json', status: 200, value };
    },
  }),
];
