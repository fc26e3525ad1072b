// Live ticks as one self-contained Arrow IPC stream (schema, one record batch, end-of-stream): the
// binary frames of a WebSocket subscribed with "format":"arrow". The columns are those of a tick
// series in Arrow (series-layout.ts: `time` timestamp[s, UTC], `time_msc` timestamp[ms, UTC], the
// same buffers a /ticks/range answer has) behind a leading utf8 `symbol` column, so that a frame
// with several symbols' ticks stays one table.
import { Field, makeData, RecordBatch, Schema as ArrowSchema, Struct, Utf8, vectorFromArray } from 'apache-arrow';

import type { Tick } from '../terminal/records.js';
import type { TickChunk } from '../terminal/series.js';
import { IpcStreamParts } from './ipc-stream-parts.js';
import { TickLayout } from './series-layout.js';

const tickSchema = TickLayout.schema('arrow');
const SYMBOL = new Field('symbol', new Utf8(), false);
export const LIVE_TICK_SCHEMA = new ArrowSchema([SYMBOL, ...tickSchema.fields]);

function chunkOf(ticks: readonly Tick[]): TickChunk {
  return {
    rows: ticks.length,
    time: BigInt64Array.from(ticks, (r) => BigInt(r.time)),
    bid: Float64Array.from(ticks, (r) => r.bid),
    ask: Float64Array.from(ticks, (r) => r.ask),
    last: Float64Array.from(ticks, (r) => r.last),
    volume: BigUint64Array.from(ticks, (r) => BigInt(r.volume)),
    time_msc: BigInt64Array.from(ticks, (r) => BigInt(r.time_msc)),
    flags: Uint32Array.from(ticks, (r) => r.flags),
    volume_real: Float64Array.from(ticks, (r) => r.volume_real),
  };
}

/** The ticks, in the order given, as one Arrow IPC stream. */
export function liveTicksIpc(rows: ReadonlyArray<{ readonly symbol: string; readonly tick: Tick }>): Uint8Array {
  const ticks = TickLayout.batch(chunkOf(rows.map((r) => r.tick)), 'arrow');
  const symbols = vectorFromArray(
    rows.map((r) => r.symbol),
    new Utf8(),
  ).data[0];
  const data = makeData({ type: new Struct(LIVE_TICK_SCHEMA.fields), length: rows.length, nullCount: 0, children: [symbols!, ...ticks.data.children] });
  const ipc = new IpcStreamParts(LIVE_TICK_SCHEMA);
  ipc.write(new RecordBatch(LIVE_TICK_SCHEMA, data));
  ipc.finish();
  return Buffer.concat(ipc.take());
}
