// Accept-Encoding for JSON answers (issue 24): the negotiation (q-values, *, identity), and every
// coded answer decodes to the very bytes of the identity answer, on every adapter; Parquet and
// Arrow are never coded; Vary names Accept-Encoding.
import http from 'node:http';
import zlib from 'node:zlib';

import t from 'tap';

import { CompressingSink, negotiateCoding } from '../../src/http/content-coding.js';
import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';

t.test('negotiation', async (t) => {
  const all = ['zstd', 'br', 'gzip'] as const;
  const noZstd = ['br', 'gzip'] as const;
  t.equal(negotiateCoding(undefined, all), 'identity', 'no header');
  t.equal(negotiateCoding('', all), 'identity', 'empty header');
  t.equal(negotiateCoding('gzip', all), 'gzip');
  t.equal(negotiateCoding('x-gzip', all), 'gzip', 'x-gzip is gzip');
  t.equal(negotiateCoding('gzip, deflate, br', all), 'br', 'ties: br before gzip');
  t.equal(negotiateCoding('gzip, deflate, br, zstd', all), 'zstd', 'ties: zstd first');
  t.equal(negotiateCoding('gzip, deflate, br, zstd', noZstd), 'br', 'zstd only where available');
  t.equal(negotiateCoding('zstd', noZstd), 'identity', 'nothing available that was asked for');
  t.equal(negotiateCoding('br;q=0.5, gzip;q=0.8', all), 'gzip', 'highest q wins');
  t.equal(negotiateCoding('br;q=0, gzip', all), 'gzip', 'q=0 refuses');
  t.equal(negotiateCoding('GZIP;Q=0.5', all), 'gzip', 'case-insensitive');
  t.equal(negotiateCoding('*', all), 'zstd', '* covers every coding');
  t.equal(negotiateCoding('*;q=0.5, br;q=0', noZstd), 'gzip', '* covers the ones not named');
  t.equal(negotiateCoding('identity', all), 'identity', 'identity alone');
  t.equal(negotiateCoding('gzip;q=0.5, identity', all), 'identity', 'identity with a higher q');
  t.equal(negotiateCoding('gzip;q=0.5', all), 'gzip', 'identity unnamed does not outrank an asked-for coding');
  t.equal(negotiateCoding('identity;q=0, *;q=0', all), 'identity', 'everything refused: identity anyway');
  t.equal(negotiateCoding('br;q=abc, gzip;q=0.1', all), 'gzip', 'a malformed q refuses');
});

t.test('CompressingSink: backpressure and bytes', async (t) => {
  const out: Buffer[] = [];
  let writes = 0;
  const slow = {
    async write(chunk: Uint8Array) {
      writes++;
      await new Promise((r) => setTimeout(r, 1));
      out.push(Buffer.from(chunk));
    },
  };
  const sink = new CompressingSink(slow, 'gzip');
  const input: Buffer[] = [];
  for (let i = 0; i < 64; i++) {
    const chunk = Buffer.from(`[${Array.from({ length: 2000 }, (_, j) => `{"i":${i},"j":${j},"v":${Math.sin(i * j)}}`).join(',')}]`);
    input.push(Buffer.from(chunk));
    await sink.write(chunk);
    chunk.fill(0); // the caller may reuse its buffer once write() resolved
  }
  await sink.close();
  t.ok(writes > 0, 'compressed pieces went to the inner sink');
  t.same(zlib.gunzipSync(Buffer.concat(out)), Buffer.concat(input), 'decodes to what was written');
  const failing = new CompressingSink({ write: () => Promise.reject(new Error('gone')) }, 'br');
  await t.rejects(
    (async () => {
      for (let i = 0; i < 200; i++) await failing.write(Buffer.alloc(65536, i));
      await failing.close();
    })(),
    /gone/,
    'an inner failure reaches the writer',
  );
});

/** A raw GET (fetch would decode and hide Content-Encoding). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

function decode(coding: string | undefined, body: Buffer): Buffer {
  if (coding === undefined) return body;
  if (coding === 'gzip') return zlib.gunzipSync(body);
  if (coding === 'br') return zlib.brotliDecompressSync(body);
  throw new Error(`unexpected coding ${coding}`);
}

const terminal = simTerminal();
t.teardown(() => terminal.close());

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal);
  const base = s.base;
  const paths = [
    // a streamed series (several JSON pieces), a collected record list, a small object
    '/ticks/range?symbol=EURUSD&date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T11:00:00Z',
    '/symbols',
    '/account',
  ];
  for (const path of paths) {
    await t.test(`JSON ${path}`, async (t) => {
      const plain = await rawGet(base + path, { accept: 'application/json' });
      t.equal(plain.status, 200);
      t.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: identity');
      t.match(String(plain.headers.vary), /Accept-Encoding/, 'Vary names Accept-Encoding');
      for (const ae of ['gzip', 'br', 'gzip, deflate, br', 'identity', 'br;q=0, gzip;q=0.3']) {
        const coded = await rawGet(base + path, { accept: 'application/json', 'accept-encoding': ae });
        t.equal(coded.status, 200, `${ae}: 200`);
        const coding = coded.headers['content-encoding'];
        if (plain.body.byteLength >= 1024) t.equal(coding, negotiateCoding(ae, ['br', 'gzip']) === 'identity' ? undefined : negotiateCoding(ae, ['br', 'gzip']), `${ae}: coding`);
        t.same(decode(coding, coded.body), plain.body, `${ae}: decodes to the identity answer`);
        t.match(String(coded.headers.vary), /Accept-Encoding/);
      }
    });
  }
  await t.test('Parquet and Arrow are never coded', async (t) => {
    for (const format of ['parquet', 'arrow']) {
      const path = `/ticks/range?symbol=EURUSD&date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T10:10:00Z&format=${format}`;
      const plain = await rawGet(base + path, {});
      const asked = await rawGet(base + path, { 'accept-encoding': 'gzip, br' });
      t.equal(asked.headers['content-encoding'], undefined, `${format}: no Content-Encoding`);
      t.same(asked.body, plain.body, `${format}: same bytes`);
    }
  });
  await t.test('HEAD of a coded JSON series: the head as for GET, no body', async (t) => {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(base + paths[0], { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } }, resolve);
      req.on('error', reject);
      req.end();
    });
    res.resume();
    t.equal(res.statusCode, 200);
    t.equal(res.headers['content-encoding'], 'gzip');
  });
});
