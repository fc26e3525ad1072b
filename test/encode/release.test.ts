// The encoders release each chunk of the addon's series once nothing reads it any more
// (Series.release), and the bodies stay byte for byte what they are without release, through a sink
// that releases its writes (as uWS) and one that keeps references to them until the end (as
// node:http). Arrow hands the sink views of the chunk, so it releases only through the former, or
// once a sink that keeps them says they were flushed (afterWritten, as node:http's write callbacks).
import t from 'tap';

import { encodeSeries, type Format, type SeriesEncodeOptions } from '../../src/encode/index.js';
import { addon } from '../../src/terminal/native.js';
import { openSimTerminal, type Series, type TickChunk } from '../../src/terminal/index.js';
import type { BodySink } from '../../src/encode/types.js';

const NOW = Date.UTC(2024, 0, 10, 12, 0, 0);
const FROM = Date.UTC(2024, 0, 8, 6);
const TO = Date.UTC(2024, 0, 8, 18);
// Chunks, JSON pieces and row groups do not line up: pieces and groups span chunks and chunks span
// groups, so a chunk is released only after several encodes that read it have finished. 10 K rows:
// Arrow hands the sink the 8-byte columns themselves (80 KB, above ipc-stream-parts.ts JOIN_BELOW).
const OPTIONS: SeriesEncodeOptions = { jsonPieceRows: 3_000, rowGroupRows: 7_000, parallelism: 3 };
const CHUNK_ROWS = 10_000;

const term = openSimTerminal({ seed: 42, nowMs: NOW });
t.teardown(() => term.close());
const released = (): number => addon.columnPoolStats!().released;

/** The terminal's series, with or without release (a wrapper that leaves it out). */
async function ticks(release: boolean): Promise<Series<TickChunk>> {
  const s = await term.copyTicksRange('EURUSD', FROM, TO, -1, { chunkRows: CHUNK_ROWS });
  s.readAhead?.(true); // chunks produced while earlier ones are encoded, as over HTTP
  if (release) return s;
  return {
    next: () => s.next(),
    close: () => s.close(),
    async *[Symbol.asyncIterator]() {
      for (let c = await s.next(); c !== null; c = await s.next()) yield c;
    },
  };
}

interface TestSink extends BodySink {
  body(): Buffer;
}

/** As uWS: write() resolves once the bytes are taken (copied here, a turn later); the caller may then reuse or release them. */
function releasingSink(): TestSink {
  const parts: Buffer[] = [];
  return {
    releasesWrites: true,
    async write(chunk) {
      await new Promise((r) => setImmediate(r));
      parts.push(Buffer.from(chunk)); // a view of a released chunk would read as empty: the body would differ
    },
    body: () => Buffer.concat(parts),
  };
}

/** As node:http: the written chunks themselves are kept (no copy) and read only at the end. */
function keepingSink(): TestSink {
  const parts: Uint8Array[] = [];
  return {
    write(chunk) {
      parts.push(chunk);
      return Promise.resolve();
    },
    body: () => Buffer.concat(parts),
  };
}

/**
 * As node:http: the written chunks are kept (no copy) until "flushed" a turn later, and
 * afterWritten runs its callbacks only after the flush of every write made before it. A chunk
 * released before its bytes were flushed would be copied empty: the body would differ.
 */
function flushingSink(): TestSink & { early: () => number } {
  const parts: Buffer[] = [];
  let pending: Uint8Array[] = [];
  let waiters: Array<{ upTo: number; fn: () => void }> = [];
  let written = 0;
  let flushed = 0;
  let early = 0;
  const flush = (): void => {
    for (const chunk of pending) parts.push(Buffer.from(chunk));
    flushed += pending.length;
    pending = [];
    const ready = waiters.filter((w) => w.upTo <= flushed);
    waiters = waiters.filter((w) => w.upTo > flushed);
    for (const w of ready) w.fn();
  };
  return {
    write(chunk) {
      pending.push(chunk);
      written++;
      setImmediate(flush); // a later turn, as the kernel takes the bytes
      return Promise.resolve();
    },
    afterWritten(fn) {
      if (flushed >= written) {
        early++;
        fn();
      } else waiters.push({ upTo: written, fn });
    },
    body: () => {
      flush();
      return Buffer.concat(parts);
    },
    early: () => early,
  };
}

const CASES: readonly { name: string; format: Format; options?: SeriesEncodeOptions; keepingReleases: boolean }[] = [
  { name: 'JSON (native)', format: 'json', keepingReleases: true },
  { name: 'JSON (js)', format: 'json', options: { jsonEngine: 'js' }, keepingReleases: true },
  { name: 'Parquet (native)', format: 'parquet', keepingReleases: true },
  { name: 'Parquet (wasm)', format: 'parquet', options: { parquetEngine: 'wasm' }, keepingReleases: true },
  { name: 'Arrow', format: 'arrow', keepingReleases: false },
  { name: 'packed', format: 'packed', keepingReleases: true },
];

for (const c of CASES) {
  t.test(`${c.name}: the same bytes with and without release, through either sink`, async (t) => {
    const options = { ...OPTIONS, ...c.options };
    const encode = async (release: boolean, sink: TestSink): Promise<{ body: Buffer; released: number; rows: number; chunks: number }> => {
      let rows = 0;
      let chunks = 0;
      const onRows = (n: number): void => {
        rows += n;
        if (n > 0) chunks++;
      };
      const before = released();
      await encodeSeries(c.format, 'ticks', await ticks(release), { ...options, onRows }).writeTo(sink);
      return { body: sink.body(), released: released() - before, rows, chunks };
    };
    const plain = await encode(false, keepingSink());
    t.ok(plain.rows > 4 * CHUNK_ROWS, `${plain.rows} ticks`);
    t.equal(plain.released, 0, 'nothing released without release');
    const chunks = plain.chunks;

    const viaReleasing = await encode(true, releasingSink());
    t.ok(viaReleasing.body.equals(plain.body), `releasing sink: same ${plain.body.byteLength} bytes`);
    t.equal(viaReleasing.released, chunks * 8, `releasing sink: every chunk released (${chunks} chunks, 8 columns)`);

    const viaKeeping = await encode(true, keepingSink());
    t.ok(viaKeeping.body.equals(plain.body), 'keeping sink: same bytes');
    t.equal(viaKeeping.released, c.keepingReleases ? chunks * 8 : 0, c.keepingReleases ? 'keeping sink: released (the body holds no view of a chunk)' : 'keeping sink: nothing released (the body holds views of the chunks)');

    const flushing = flushingSink();
    const before = released();
    await encodeSeries(c.format, 'ticks', await ticks(true), options).writeTo(flushing);
    const body = flushing.body(); // flushes what is left, running the last callbacks
    t.ok(body.equals(plain.body), 'flushing sink (afterWritten): same bytes');
    t.equal(released() - before, chunks * 8, 'flushing sink: every chunk released');
    if (c.format === 'arrow') t.ok(flushing.early() < chunks, `Arrow waited for the flush of its chunks (${flushing.early()} of ${chunks} were flushed already)`);
  });
}

t.test('a failing sink: chunks still read by an encode in flight are not released under it', async (t) => {
  for (const format of ['json', 'parquet'] as const) {
    let writes = 0;
    const sink: BodySink = {
      releasesWrites: true,
      write: async () => {
        if (++writes === 3) throw new Error('client went away');
      },
    };
    await t.rejects(encodeSeries(format, 'ticks', await ticks(true), OPTIONS).writeTo(sink), /client went away/, `${format}: the error comes through`);
  }
  // Encodes left running finish on the pool against intact chunks (a detached one would crash or
  // fail them); give them a moment, then the terminal still answers.
  await new Promise((r) => setTimeout(r, 200));
  const s = await ticks(true);
  t.ok(((await s.next())?.rows ?? 0) > 0, 'the terminal goes on');
  s.close();
});
