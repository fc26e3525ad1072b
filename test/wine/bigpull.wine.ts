// A big Parquet pull from the gateway as Windows runs it: `tradeapi serve` started with Windows
// node.exe under Wine (the win32-x64 addon, on each HTTP adapter), pulled by Linux node over
// loopback, read back with hyparquet and compared value by value with what the Linux addon's
// simulator yields for the same range (same seed: both builds must produce the same ticks).
//
// Not a *.test.ts file: `npm test`'s tap run does not pick it up. scripts/wine-test.js runs it,
// with TRADEAPI_WINE (the wine64 loader), TRADEAPI_WINE_NODE (node.exe) and TRADEAPI_WINE_TREE
// (the copy of the package Windows node runs, whose only addon is prebuilds/win32-x64) set, and
// WINEPREFIX naming a Windows 10 prefix.
import { createWriteStream } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

import { asyncBufferFromFile, parquetMetadataAsync, parquetRead } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import t from 'tap';

import { freePort, ServerProcess } from '../../bench/processes.js';
import { toEpochMs } from '../../bench/pull.js';
import { openSimTerminal } from '../../src/terminal/index.js';

const wine = process.env.TRADEAPI_WINE;
const nodeExe = process.env.TRADEAPI_WINE_NODE;
const tree = process.env.TRADEAPI_WINE_TREE;

/** ~5 M EURUSD ticks, historical (the server's clock does not matter). */
const RANGE = { from: '2024-01-02T00:00:00Z', to: '2024-02-02T00:00:00Z' };
const PATH = `/ticks/range?${new URLSearchParams({ symbol: 'EURUSD', date_from: RANGE.from, date_to: RANGE.to, flags: 'COPY_TICKS_ALL', format: 'parquet' }).toString()}`;

/** The columns compared, as the Parquet file names them; times compared in ms since the epoch. */
const COLUMNS = ['time', 'bid', 'ask', 'last', 'volume', 'time_msc', 'flags', 'volume_real'] as const;
type Column = (typeof COLUMNS)[number];

/** An order-sensitive digest of a column's values (FNV-1a over their float64 bits). */
class Digest {
  private h = 0x811c9dc5;
  private readonly view = new DataView(new ArrayBuffer(8));
  private readonly bytes = new Uint8Array(this.view.buffer);
  count = 0;

  add(value: number): void {
    this.view.setFloat64(0, value);
    let h = this.h;
    for (const b of this.bytes) h = Math.imul(h ^ b, 0x01000193);
    this.h = h;
    this.count++;
  }

  get value(): string {
    return `${this.count}:${(this.h >>> 0).toString(16)}`;
  }
}

type Digests = Record<Column, Digest>;
const digests = (): Digests => Object.fromEntries(COLUMNS.map((c) => [c, new Digest()])) as Digests;
const summary = (d: Digests): Record<Column, string> => Object.fromEntries(COLUMNS.map((c) => [c, d[c].value])) as Record<Column, string>;

/** A Parquet value as a plain number: timestamps to ms since the epoch, 64-bit integers to numbers. */
function plain(column: Column, value: unknown): number {
  if (column === 'time' || column === 'time_msc') return toEpochMs(value);
  return typeof value === 'bigint' ? Number(value) : Number(value);
}

if (wine === undefined || nodeExe === undefined || tree === undefined) {
  t.plan(0, 'run by scripts/wine-test.js (needs TRADEAPI_WINE, TRADEAPI_WINE_NODE and TRADEAPI_WINE_TREE)');
} else {
  await main(wine, nodeExe, tree);
}

async function main(wine: string, nodeExe: string, tree: string): Promise<void> {
  // What the Windows server must send, from the Linux addon opened as the CLI opens it.
  const expected = digests();
  const terminal = openSimTerminal();
  try {
    const series = await terminal.copyTicksRange('EURUSD', Date.parse(RANGE.from), Date.parse(RANGE.to), -1);
    for await (const chunk of series) {
      for (let i = 0; i < chunk.rows; i++) {
        expected.time.add(Number(chunk.time[i]) * 1000);
        expected.bid.add(chunk.bid[i] ?? Number.NaN);
        expected.ask.add(chunk.ask[i] ?? Number.NaN);
        expected.last.add(chunk.last[i] ?? Number.NaN);
        expected.volume.add(Number(chunk.volume[i]));
        expected.time_msc.add(Number(chunk.time_msc[i]));
        expected.flags.add(Number(chunk.flags[i]));
        expected.volume_real.add(chunk.volume_real[i] ?? Number.NaN);
      }
    }
  } finally {
    await terminal.close();
  }
  const rows = expected.time_msc.count;
  t.ok(rows > 1_000_000, `the range holds ${rows} ticks (> 1 M)`);

  for (const adapter of ['node', 'uws'] as const) {
    await t.test(`Windows node.exe under Wine, TRADEAPI_HTTP=${adapter}`, async (t) => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const logDir = t.testdir({});
      // Under Wine, node's stdout and stderr must be files (ServerProcess gives it a log file).
      // `env -u NODE_OPTIONS`: tap's process tracking adds its Linux loader paths to the
      // NODE_OPTIONS of every child it sees spawned, which Windows node cannot resolve.
      const server = await ServerProcess.start({
        name: `wine-${adapter}`,
        command: 'env',
        args: ['-u', 'NODE_OPTIONS', wine, nodeExe, 'bin/tradeapi.js', 'serve', '--host', '127.0.0.1', '--port', String(port)],
        cwd: tree,
        env: { ...process.env, TRADEAPI_HTTP: adapter, TRADEAPI_SECRET_KEY: '', TRADEAPI_LOG_LEVEL: 'INFO', TRADEAPI_ROUTER_PREFIX: '' },
        logDir,
        readyUrl: `${base}/health`,
        readyTimeoutMs: 120_000,
      });
      t.teardown(() => server.stop());
      // The start-up line names the adapter that serves: uws must not have fallen back to node.
      t.match(server.logSince(0), new RegExp(`"adapter":"${adapter}"`), `the server says it serves with ${adapter}`);

      const file = path.join(logDir, 'ticks.parquet');
      const started = performance.now();
      const status = await new Promise<number>((resolve, reject) => {
        http
          .get(base + PATH, { agent: false }, (res) => {
            pipeline(res, createWriteStream(file)).then(() => resolve(res.statusCode ?? 0), reject);
          })
          .on('error', reject);
      });
      const seconds = (performance.now() - started) / 1000;
      t.equal(status, 200, 'HTTP 200');

      const buffer = await asyncBufferFromFile(file);
      const metadata = await parquetMetadataAsync(buffer);
      t.comment(`${adapter}: ${(buffer.byteLength / 2 ** 20).toFixed(1)} MiB of Parquet in ${seconds.toFixed(1)} s, ${metadata.row_groups.length} row groups`);
      t.equal(Number(metadata.num_rows), rows, 'rows in the footer');
      const groupRows = metadata.row_groups.map((g) => Number(g.num_rows));
      t.equal(groupRows.reduce((a, b) => a + b, 0), rows, 'row groups add up');

      // Every value of every column, row group by row group (bounded memory), in row order.
      const got = digests();
      let rowStart = 0;
      for (const groupSize of groupRows) {
        const chunks = new Map<Column, unknown[]>();
        await parquetRead({
          file: buffer,
          metadata,
          compressors,
          columns: [...COLUMNS],
          rowStart,
          rowEnd: rowStart + groupSize,
          onChunk: ({ columnName, columnData, rowStart: at }) => {
            const list = (chunks.get(columnName as Column) ?? []) as unknown[];
            list.push([at, columnData]);
            chunks.set(columnName as Column, list);
          },
        });
        for (const column of COLUMNS) {
          const parts = ((chunks.get(column) ?? []) as Array<[number, ArrayLike<unknown>]>).sort((a, b) => a[0] - b[0]);
          for (const [, data] of parts) for (let i = 0; i < data.length; i++) got[column].add(plain(column, data[i]));
        }
        rowStart += groupSize;
      }
      t.same(summary(got), summary(expected), 'every value of every column equals the Linux build\'s');
    });
  }
}
