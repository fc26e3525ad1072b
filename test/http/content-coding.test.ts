// Accept-Encoding for JSON answers (issue 24): the negotiation (q-values, *, identity), and every
// coded answer decodes to the very bytes of the identity answer, on every adapter; Parquet and
// Arrow are never coded; Vary names Accept-Encoding. The servers here run TRADEAPI_COMPRESS=always
// (the client is on loopback, which the default, auto, answers with identity:
// test/http/compress-policy.test.ts); gzip in parallel pieces (issue 34): ParallelGzipSink below.
import http from 'node:http';
import zlib from 'node:zlib';

import t from 'tap';

import { chooseCoding, CompressingSink, identityRefused, negotiateCoding, ParallelGzipSink } from '../../src/http/content-coding.js';
import { getCoded } from '../helpers/raw-http.js';
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

t.test('the policy: chooseCoding and identityRefused', async (t) => {
  const all = ['br', 'gzip'] as const;
  for (const [header, refused] of [
    [undefined, false],
    ['', false],
    ['gzip, deflate, br', false],
    ['identity;q=0', true],
    ['identity;q=0, gzip', true],
    ['*;q=0', true],
    ['identity;q=0, *;q=0', true],
    ['*;q=0, identity', false],
    ['*;q=0, identity;q=0.1', false],
    ['IDENTITY;Q=0', true],
  ] as const) {
    t.equal(identityRefused(header), refused, `${String(header)}: identity ${refused ? 'refused' : 'acceptable'}`);
  }
  t.equal(chooseCoding('gzip, deflate, br', 'compress', all), 'br', 'compress: as negotiated');
  t.equal(chooseCoding('gzip, deflate, br', 'prefer-identity', all), 'identity', 'a near client that offers codings: identity');
  t.equal(chooseCoding('identity;q=0, gzip', 'prefer-identity', all), 'gzip', 'a near client that refuses identity: what it asks');
  t.equal(chooseCoding('identity;q=0, *;q=0', 'prefer-identity', all), 'identity', 'everything refused: identity anyway');
  t.equal(chooseCoding('gzip', 'identity', all), 'identity', 'never: identity');
  t.equal(chooseCoding('identity;q=0, gzip', 'identity', all), 'identity', 'never: identity even when refused (RFC 9110 lets a server send it)');
});

/** Tick-like JSON text, `n` pieces of about `bytes` each. */
function jsonPieces(n: number, bytes: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    let text = i === 0 ? '[' : ',';
    for (let j = 0; text.length < bytes; j++) text += `${j === 0 ? '' : ','}{"time":${1704672000 + i * 1000 + j},"bid":${(1.065 + Math.sin(i * 31 + j) / 100).toFixed(5)},"ask":1.0651,"flags":6}`;
    out.push(Buffer.from(i === n - 1 ? `${text}]` : text));
  }
  return out;
}

/** The one gzip member's parts: its raw deflate decoded, and the CRC-32 and length in its tail. */
function member(gz: Buffer): { body: Buffer; crc: number; size: number } {
  return { body: zlib.inflateRawSync(gz.subarray(10, gz.length - 8)), crc: gz.readUInt32LE(gz.length - 8), size: gz.readUInt32LE(gz.length - 4) };
}

t.test('ParallelGzipSink: one gzip member, pieces deflated at once, backpressure', async (t) => {
  for (const [label, pieces, pieceBytes] of [
    ['JSON pieces of 0.5 MB', jsonPieces(12, 512 * 1024), undefined],
    ['JSON pieces of 0.5 MB, pieces of 300 KiB', jsonPieces(12, 512 * 1024), 300 * 1024],
    ['one write of 7 MB (cut into pieces)', [Buffer.concat(jsonPieces(14, 512 * 1024))], undefined],
    ['small writes (gathered)', jsonPieces(300, 1000), 64 * 1024],
    ['mixed sizes', [...jsonPieces(3, 100), ...jsonPieces(2, 300 * 1024), Buffer.from(' '), ...jsonPieces(1, 2_500_000)], 1 << 20],
  ] as const) {
    const out: Buffer[] = [];
    let held = 0;
    let most = 0;
    const sink = new ParallelGzipSink(
      {
        async write(chunk) {
          held++;
          most = Math.max(most, held);
          await new Promise((r) => setTimeout(r, 2)); // a socket that takes its time
          held--;
          out.push(Buffer.from(chunk));
        },
      },
      2,
      pieceBytes,
    );
    for (const piece of pieces) await sink.write(piece);
    await sink.close();
    const gz = Buffer.concat(out);
    const plain = Buffer.concat(pieces);
    t.equal(most, 1, `${label}: one write to the inner sink at a time`);
    t.same(zlib.gunzipSync(gz), plain, `${label}: node's gunzip reads the very bytes`);
    const m = member(gz);
    t.ok(m.body.equals(plain), `${label}: one member: its raw deflate is the whole body`);
    t.equal(m.crc, zlib.crc32(plain), `${label}: its CRC-32 is the whole body's`);
    t.equal(m.size, plain.length, `${label}: its ISIZE the whole length`);
    t.ok(gz.length < plain.length * 0.5, `${label}: compressed (${gz.length} of ${plain.length} bytes)`);
  }
  // Empty: a valid empty gzip.
  const empty: Buffer[] = [];
  const none = new ParallelGzipSink({ write: async (c) => void empty.push(Buffer.from(c)) }, 2);
  await none.close();
  t.same(zlib.gunzipSync(Buffer.concat(empty)), Buffer.alloc(0), 'no body: an empty gzip member');
});

t.test('ParallelGzipSink: the writer waits while parallelism + 1 pieces are held', async (t) => {
  const releases: Array<() => void> = [];
  const sink = new ParallelGzipSink({ write: () => new Promise<void>((resolve) => releases.push(resolve)) }, 2, 256 * 1024);
  const pieces = jsonPieces(8, 256 * 1024);
  let written = 0;
  const writer = (async () => {
    for (const p of pieces) {
      await sink.write(p);
      written++;
    }
    await sink.close();
  })();
  // The inner sink takes nothing: the writer gets three pieces in (2 deflating + 1 to send), then waits.
  await new Promise((r) => setTimeout(r, 300));
  t.equal(written, 2, 'two writes returned; the third waits while three pieces are held');
  t.equal(releases.length, 1, 'one piece is with the inner sink');
  // Now the inner sink takes a piece a millisecond.
  const finish = setInterval(() => releases.shift()?.(), 1);
  await writer;
  clearInterval(finish);
  t.equal(written, pieces.length, 'then every write went through');
});

t.test('ParallelGzipSink: failures reach the writer', async (t) => {
  const failing = new ParallelGzipSink({ write: () => Promise.reject(new Error('gone')) }, 2, 256 * 1024);
  await t.rejects(
    (async () => {
      for (const p of jsonPieces(20, 256 * 1024)) await failing.write(p);
      await failing.close();
    })(),
    /gone/,
    'an inner failure reaches the writer',
  );
  const stopped = new ParallelGzipSink({ write: () => new Promise<void>(() => undefined) }, 1, 256 * 1024);
  const pending = (async () => {
    for (const p of jsonPieces(20, 256 * 1024)) await stopped.write(p);
  })();
  await new Promise((r) => setTimeout(r, 50));
  stopped.destroy();
  await t.rejects(pending, /compression stopped/, 'destroy() releases a waiting writer with an error');
  await t.rejects(stopped.write(Buffer.from('x')), /compression stopped/, 'and refuses further writes');
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


function decode(coding: string | undefined, body: Buffer): Buffer {
  if (coding === undefined) return body;
  if (coding === 'gzip') return zlib.gunzipSync(body);
  if (coding === 'br') return zlib.brotliDecompressSync(body);
  throw new Error(`unexpected coding ${coding}`);
}

const terminal = simTerminal();
t.teardown(() => terminal.close());

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal, { TRADEAPI_COMPRESS: 'always' });
  const base = s.base;
  const paths = [
    // a streamed series (several JSON pieces), a collected record list, a small object
    '/ticks/range?symbol=EURUSD&date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T11:00:00Z',
    '/symbols',
    '/account',
  ];
  for (const path of paths) {
    await t.test(`JSON ${path}`, async (t) => {
      const plain = await getCoded(base + path, { accept: 'application/json' });
      t.equal(plain.status, 200);
      t.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: identity');
      t.match(String(plain.headers.vary), /Accept-Encoding/, 'Vary names Accept-Encoding');
      for (const ae of ['gzip', 'br', 'gzip, deflate, br', 'identity', 'br;q=0, gzip;q=0.3']) {
        const coded = await getCoded(base + path, { accept: 'application/json', 'accept-encoding': ae });
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
      const plain = await getCoded(base + path, {});
      const asked = await getCoded(base + path, { 'accept-encoding': 'gzip, br' });
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
