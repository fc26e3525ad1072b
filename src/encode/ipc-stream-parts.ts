// An Arrow IPC stream produced piece by piece: apache-arrow's RecordBatchStreamWriter writes into a
// queue that we drain after each batch, so each batch's message goes out at once and nothing
// accumulates. Body buffers come out as views of the batch's own arrays (no copy); small pieces
// (message headers, padding) are joined so that the sink sees few, reasonably sized writes.
import { AsyncByteQueue, RecordBatchStreamWriter, type RecordBatch, type Schema as ArrowSchema } from 'apache-arrow';

/** Pieces smaller than this are copied together; larger ones are passed on as they are. */
const JOIN_BELOW = 64 * 1024;

class PartQueue extends AsyncByteQueue {
  parts: Uint8Array[] = [];
  override write(value: Parameters<AsyncByteQueue['write']>[0]): void {
    const bytes = value instanceof Uint8Array ? value : ArrayBuffer.isView(value) ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : null;
    if (!bytes) throw new TypeError('Arrow IPC writer: unexpected chunk type');
    if (bytes.byteLength > 0) this.parts.push(bytes);
  }
}

export class IpcStreamParts {
  private readonly queue = new PartQueue();
  private readonly writer = new RecordBatchStreamWriter();

  /** Queues the schema message (taken with the first `take()`). */
  constructor(schema: ArrowSchema) {
    this.writer.reset(this.queue, schema);
  }

  /** A batch of the stream's schema (a different schema would end the stream: apache-arrow's rule). */
  write(batch: RecordBatch): void {
    this.writer.write(batch);
  }

  /** Queues the end-of-stream marker. */
  finish(): void {
    this.writer.finish();
  }

  /** Everything written so far, as few pieces as possible without copying large buffers. */
  take(): Uint8Array[] {
    const parts = this.queue.parts;
    this.queue.parts = [];
    const out: Uint8Array[] = [];
    let small: Uint8Array[] = [];
    let smallBytes = 0;
    const flushSmall = (): void => {
      if (small.length === 1) out.push(small[0]!);
      else if (small.length > 1) {
        const joined = new Uint8Array(smallBytes);
        let at = 0;
        for (const p of small) {
          joined.set(p, at);
          at += p.byteLength;
        }
        out.push(joined);
      }
      small = [];
      smallBytes = 0;
    };
    for (const p of parts) {
      if (p.byteLength >= JOIN_BELOW) {
        flushSmall();
        out.push(p);
      } else {
        small.push(p);
        smallBytes += p.byteLength;
      }
    }
    flushSmall();
    return out;
  }
}
