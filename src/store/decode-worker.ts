// The store's decoding thread for parquet-wasm (reader.ts starts it when the addon's native reader
// is not there or refuses the file, e.g. one written by another writer): a stored day file's bytes (read and checked by reader.ts), decoded by
// parquet-wasm, clipped to a range and handed back as tick columns in buffers of their own
// (transferred, not copied), `time` already back in seconds. Decoding off the main thread lets a
// response encode and send one day while the next is decoded.
import { parentPort } from 'node:worker_threads';

import { tableFromIPC, type RecordBatch } from 'apache-arrow';

import type { TickChunk } from '../terminal/series.js';
import { decodedTickColumns, lowerBound, msToSeconds, type DecodeReply, type DecodeRequest } from './decode-protocol.js';

const BATCH_ROWS = 65_536;

type ParquetWasm = typeof import('parquet-wasm');
let loading: Promise<ParquetWasm> | undefined;

async function decode(request: DecodeRequest): Promise<{ reply: DecodeReply; transfer: ArrayBuffer[] }> {
  const bytes = request.bytes;
  const pw = await (loading ??= import('parquet-wasm'));
  const direct = viaFfi(pw, bytes, request.fromMs, request.toMs);
  if (direct) return { reply: { id: request.id, batches: direct }, transfer: direct.flatMap(buffersOf) };
  const batches: RecordBatch[] = tableFromIPC(pw.readParquet(bytes, { batchSize: BATCH_ROWS }).intoIPCStream()).batches;
  const out = decodedTickColumns(batches, request.fromMs, request.toMs);
  return { reply: { id: request.id, batches: out.batches }, transfer: out.transfer };
}

const buffersOf = (c: TickChunk): ArrayBuffer[] =>
  [c.time, c.bid, c.ask, c.last, c.volume, c.time_msc, c.flags, c.volume_real].map((a) => a.buffer as ArrayBuffer);

/** The C Data Interface format of each tick column as the store writes it. */
const FORMATS: Record<string, string> = {
  time: 'tsm:UTC', bid: 'g', ask: 'g', last: 'g', volume: 'L', time_msc: 'tsm:UTC', flags: 'I', volume_real: 'g',
};
const WIDTH: Record<string, number> = { 'tsm:UTC': 8, g: 8, L: 8, I: 4 };

/**
 * The decoded day read straight out of wasm memory through the Arrow C Data Interface (wasm32
 * struct layouts), one copy per clipped column, no IPC round trip: ~30 % less work than
 * intoIPCStream + tableFromIPC. Undefined when anything is not as expected (then the IPC path).
 */
export function viaFfi(pw: ParquetWasm, bytes: Uint8Array, fromMs: number, toMs: number): TickChunk[] | undefined {
  let stream: ReturnType<ReturnType<ParquetWasm['readParquet']>['intoFFI']> | undefined;
  try {
    stream = pw.readParquet(bytes, { batchSize: BATCH_ROWS }).intoFFI();
    const mem = pw.wasmMemory().buffer;
    const view = new DataView(mem);
    const u32 = (at: number): number => view.getUint32(at, true);
    const i64 = (at: number): number => Number(view.getBigInt64(at, true));
    const cstr = (at: number): string => {
      let end = at;
      while (view.getUint8(end) !== 0) end++;
      return new TextDecoder().decode(new Uint8Array(mem, at, end - at));
    };
    // ArrowSchema: format@0 name@4 metadata@8 flags@16 n_children@24 children@32
    const schema = stream.schemaAddr();
    const nFields = i64(schema + 24);
    const fieldsAt = u32(schema + 32);
    const index = new Map<string, { at: number; format: string }>();
    for (let j = 0; j < nFields; j++) {
      const f = u32(fieldsAt + 4 * j);
      index.set(cstr(u32(f + 4)), { at: j, format: cstr(u32(f)) });
    }
    for (const [name, format] of Object.entries(FORMATS)) if (index.get(name)?.format !== format) return undefined;
    const out: TickChunk[] = [];
    const from = BigInt(fromMs);
    const to = BigInt(toMs);
    const n = stream.numArrays();
    for (let b = 0; b < n; b++) {
      // ArrowArray: length@0 null_count@8 offset@16 n_buffers@24 n_children@32 buffers@40 children@44
      const batch = stream.arrayAddr(b);
      const rows = i64(batch);
      const childrenAt = u32(batch + 44);
      const values = (name: string): number => {
        const col = u32(childrenAt + 4 * index.get(name)!.at);
        if (i64(col + 8) !== 0 || i64(col + 24) !== 2 || i64(col) !== rows) throw new Error(`unexpected column ${name}`);
        return u32(u32(col + 40) + 4) + i64(col + 16) * WIDTH[FORMATS[name]!]!;
      };
      const mscAt = values('time_msc');
      if (rows === 0) continue;
      const msc = mscAt % 8 === 0 ? new BigInt64Array(mem, mscAt, rows) : new BigInt64Array(mem.slice(mscAt, mscAt + rows * 8));
      if ((msc[rows - 1] as bigint) < from) continue;
      if ((msc[0] as bigint) > to) break;
      const lo = lowerBound(msc, from);
      const hi = lowerBound(msc, to + 1n);
      const copy = (name: string): ArrayBuffer => {
        const w = WIDTH[FORMATS[name]!]!;
        const at = values(name);
        return mem.slice(at + lo * w, at + hi * w);
      };
      if (hi > lo) {
        out.push({
          rows: hi - lo,
          time: msToSeconds(new BigInt64Array(copy('time'))),
          bid: new Float64Array(copy('bid')),
          ask: new Float64Array(copy('ask')),
          last: new Float64Array(copy('last')),
          volume: new BigUint64Array(copy('volume')),
          time_msc: new BigInt64Array(copy('time_msc')),
          flags: new Uint32Array(copy('flags')),
          volume_real: new Float64Array(copy('volume_real')),
        });
      }
      if (hi < rows) break;
    }
    return out;
  } catch {
    return undefined;
  } finally {
    stream?.free();
  }
}

const port = parentPort;
if (port) {
  port.on('message', (request: DecodeRequest) => {
    decode(request).then(
      ({ reply, transfer }) => port.postMessage(reply, transfer),
      (e: unknown) => port.postMessage({ id: request.id, error: e instanceof Error ? e.message : String(e) } satisfies DecodeReply),
    );
  });
}
