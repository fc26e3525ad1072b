// JSON row shapes of the two series (numpy dtypes of mt5-reference §3), for OpenAPI.
import { Type } from '@sinclair/typebox';

export const RateRow = Type.Object(
  {
    time: Type.Integer({ description: 'Bar open time, seconds since the epoch (server time)' }),
    open: Type.Number(),
    high: Type.Number(),
    low: Type.Number(),
    close: Type.Number(),
    tick_volume: Type.Integer(),
    spread: Type.Integer(),
    real_volume: Type.Integer(),
  },
  { title: 'Rate' },
);

/** Custom bars (GET /ticks/bars): the fields of a rate, then the time of the bar's last tick. */
export const BarRow = Type.Object(
  {
    ...RateRow.properties,
    time_close_msc: Type.Integer({ description: "Time of the bar's last tick, milliseconds since the epoch" }),
  },
  { title: 'Bar' },
);

export const TickRow = Type.Object(
  {
    time: Type.Integer({ description: 'Seconds since the epoch (server time)' }),
    bid: Type.Number(),
    ask: Type.Number(),
    last: Type.Number(),
    volume: Type.Integer(),
    time_msc: Type.Integer({ description: 'Milliseconds since the epoch (server time)' }),
    flags: Type.Integer({ description: 'TICK_FLAG_* bits' }),
    volume_real: Type.Number(),
  },
  { title: 'Tick' },
);
