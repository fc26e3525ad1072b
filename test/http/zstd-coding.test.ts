// Content-Encoding: zstd for JSON answers (issue 34): the addon's streaming compressor
// (encode/zstd-stream.ts) is offered first among codings a client accepts with the same q, as
// Chromium (`gzip, deflate, br, zstd`) and curl --compressed offer it; every zstd answer is one
// frame with a checksum that decodes to the very bytes of the identity answer (decoded here by
// curl and by the zstd program, two independent decoders), on every adapter.
import { spawn } from 'node:child_process';
import http from 'node:http';

import t from 'tap';

import { supportedCodings } from '../../src/http/content-coding.js';
import { nativeZstdFactory, ZstdCompressStream } from '../../src/encode/zstd-stream.js';
import { addon } from '../../src/terminal/native.js';
import { getCoded } from '../helpers/raw-http.js';
import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);

function run(cmd: string, args: readonly string[], input?: Buffer): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr }));
    if (input) child.stdin!.end(input);
  });
}

const zstdCli = await run('zstd', ['--version']).catch(() => undefined);
const noZstdCli = zstdCli?.code === 0 ? false : 'the zstd program is not installed (Debian: apt-get install zstd)';
const curl = await run('curl', ['--version']).catch(() => undefined);
const noCurl = curl?.code === 0 && /zstd/i.test(curl.stdout.toString()) ? false : 'no curl built with zstd here';

t.test('the addon offers zstd, first', async (t) => {
  t.equal(typeof (addon as unknown as { ZstdStream?: unknown }).ZstdStream, 'function', 'the addon has ZstdStream');
  t.same(supportedCodings(), ['zstd', 'br', 'gzip']);
  t.equal(nativeZstdFactory(1, {}), null, 'an addon without it: zstd not offered');
});

t.test('ZstdCompressStream: one frame, decodes to what was written, the writer may reuse its buffer', { skip: noZstdCli }, async (t) => {
  const z = nativeZstdFactory()!();
  const out: Buffer[] = [];
  z.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise((r) => z.on('end', r));
  const input: Buffer[] = [];
  const chunk = Buffer.alloc(256 * 1024);
  for (let i = 0; i < 40; i++) {
    const text = Buffer.from(`[${Array.from({ length: 6000 }, (_, j) => `{"i":${i},"j":${j},"bid":${(1.1 + Math.sin(i * j) / 100).toFixed(5)}}`).join(',')}]`);
    const n = text.copy(chunk);
    input.push(Buffer.from(chunk.subarray(0, n)));
    await new Promise<void>((resolve, reject) => z.write(chunk.subarray(0, n), (e) => (e ? reject(e) : resolve())));
    chunk.fill(0); // reused at once, as the encoders do
  }
  z.end();
  await ended;
  const frame = Buffer.concat(out);
  const plain = Buffer.concat(input);
  t.same(frame.subarray(0, 4), ZSTD_MAGIC, 'a zstd frame');
  t.ok(frame.byteLength < plain.byteLength / 4, `${frame.byteLength} bytes for ${plain.byteLength}`);
  const decoded = await run('zstd', ['-dc'], frame);
  t.equal(decoded.code, 0, decoded.stderr);
  t.ok(decoded.stdout.equals(plain), 'decodes (checksum verified) to what was written');
});

t.test('ZstdStream refuses what it cannot do', async (t) => {
  const Ctor = (addon as unknown as { ZstdStream: new (level: unknown) => { compress(a: unknown, b: unknown): Promise<Buffer>; close(): void } }).ZstdStream;
  t.throws(() => new Ctor(99), /level must be an integer from/);
  t.throws(() => new Ctor('1'), /level must be a number/);
  const z = new Ctor(1);
  t.throws(() => z.compress('text', false), /must be a Uint8Array/);
  t.throws(() => z.compress(new Uint8Array(1), 'no'), /end must be a boolean/);
  const pending = z.compress(new Uint8Array(10), false);
  t.throws(() => z.compress(new Uint8Array(1), false), /one compress\(\) at a time/);
  await pending;
  z.close();
  t.throws(() => z.compress(new Uint8Array(1), false), /closed/);
  const s = new ZstdCompressStream(Ctor as never, 1);
  s.destroy();
  t.ok(s.destroyed, 'a stream destroyed before any write frees its compressor');
});


const terminal = simTerminal();
t.teardown(() => terminal.close());

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal, { TRADEAPI_COMPRESS: 'always' });
  const paths = [
    // a streamed series (several JSON pieces), a collected record list, a small object
    '/ticks/range?symbol=EURUSD&date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T11:00:00Z',
    '/symbols',
    '/account',
  ];
  for (const path of paths) {
    await t.test(`JSON ${path}`, async (t) => {
      const plain = await getCoded(s.base + path, {});
      t.equal(plain.status, 200);
      for (const ae of ['zstd', 'gzip, deflate, br, zstd', '*']) {
        const coded = await getCoded(s.base + path, { 'accept-encoding': ae });
        t.equal(coded.status, 200);
        if (plain.body.byteLength < 1024) {
          t.equal(coded.headers['content-encoding'], undefined, `${ae}: a small answer goes as it is`);
          t.same(coded.body, plain.body);
          continue;
        }
        t.equal(coded.headers['content-encoding'], 'zstd', `${ae}: zstd`);
        t.same(coded.body.subarray(0, 4), ZSTD_MAGIC, 'a zstd frame');
        t.match(String(coded.headers.vary), /Accept-Encoding/);
        if (!noZstdCli) {
          const decoded = await run('zstd', ['-dc'], coded.body);
          t.ok(decoded.stdout.equals(plain.body), `${ae}: the zstd program decodes it to the identity answer`);
        }
      }
      if (!noCurl) {
        const viaCurl = await run('curl', ['-sS', '--compressed', '-H', 'Accept-Encoding: zstd', s.base + path]);
        t.equal(viaCurl.code, 0, viaCurl.stderr);
        t.ok(viaCurl.stdout.equals(plain.body), 'curl --compressed decodes it to the identity answer');
      }
    });
  }
  await t.test('Parquet is never coded', async (t) => {
    const path = '/ticks/range?symbol=EURUSD&date_from=2024-01-09T10:00:00Z&date_to=2024-01-09T10:10:00Z&format=parquet';
    const asked = await getCoded(s.base + path, { 'accept-encoding': 'zstd' });
    t.equal(asked.headers['content-encoding'], undefined);
  });
});
