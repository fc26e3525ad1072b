// TRADEAPI_COMPRESS (issue 34): JSON answers compressed by the deployment's policy, not only by the
// client's default headers. Through the real server on loopback, as clients ask: `auto` (the
// default) answers identity to a near client (loopback here) whatever it offers, unless it refuses
// identity, and compresses for a far one (a client named by a trusted proxy's X-Forwarded-For, or
// loopback itself once TRADEAPI_COMPRESS_NEAR leaves it out); `always` compresses for everyone,
// `never` for no one; everything refused is still a 200 identity answer, as before. A big gzip
// answer, deflated in parallel pieces, is one gzip member that node's zlib, fetch (undici), curl
// --compressed and Python's requests decode to the identity answer byte for byte.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import http from 'node:http';
import zlib from 'node:zlib';

import t, { type Test } from 'tap';

import { getCoded, type CodedResponse } from '../helpers/raw-http.js';
import { testPython } from '../helpers/python.js';
import { forEachAdapter, READ_ONLY_KEY, serve, serveReadOnly, simTerminal, type TestServer } from '../helpers/server.js';

/** A streamed series of ~7 MB (14 JSON pieces, so several gzip pieces) and a collected record list. */
const SERIES = '/ticks/range?symbol=EURUSD&date_from=2024-01-09T08:00:00Z&date_to=2024-01-09T14:00:00Z';
const RECORDS = '/symbols';
/** What browsers, fetch, requests and httpx send by default (Chromium's, the longest). */
const BROWSER = 'gzip, deflate, br, zstd';
const FAR = '203.0.113.7';

type Raw = CodedResponse;


/** The zstd program decodes zstd here (node 20's zlib has none); not there (Windows under Wine), only the coding is checked. */
const ZSTD_CLI = spawnSync('zstd', ['--version']).status === 0;

/** The decoded body, or null for a zstd body where no zstd program is at hand. */
function decode(r: Raw): Buffer | null {
  const coding = r.headers['content-encoding'];
  if (coding === undefined) return r.body;
  if (coding === 'gzip') return zlib.gunzipSync(r.body);
  if (coding === 'br') return zlib.brotliDecompressSync(r.body);
  // node 20's zlib has no zstd: the zstd program decodes it (the body is all here already, so
  // blocking this process's loop for it holds up nothing).
  if (coding === 'zstd') {
    if (!ZSTD_CLI) return null;
    const z = spawnSync('zstd', ['-dc'], { input: r.body, maxBuffer: 1 << 30 });
    if (z.status !== 0) throw new Error(`zstd -dc: ${z.error?.message ?? z.stderr.toString()}`);
    return z.stdout;
  }
  throw new Error(`unexpected coding ${coding}`);
}

function sameBytes(t: Test, decoded: Buffer | null, expected: Buffer, what: string): void {
  if (decoded === null) t.pass(`${what}: not decoded (no zstd program here)`);
  else t.ok(decoded.equals(expected), what);
}

/** Runs a command without blocking this process's event loop (the server answers from it). */
function run(cmd: string, args: readonly string[]): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr }));
  });
}

const terminal = simTerminal();
t.teardown(() => terminal.close());

await forEachAdapter(t, async (t, adapter) => {
  const plainOf = new Map<string, Buffer>();
  /** The identity answer of `path` (asked with no Accept-Encoding), once. */
  async function identity(s: TestServer, path: string, headers: Record<string, string> = {}): Promise<Buffer> {
    const key = path + JSON.stringify(headers);
    const known = plainOf.get(key);
    if (known) return known;
    const r = await getCoded(s.base + path, headers);
    if (r.status !== 200 || r.headers['content-encoding'] !== undefined) throw new Error(`${path}: ${r.status} ${String(r.headers['content-encoding'])}`);
    plainOf.set(key, r.body);
    return r.body;
  }

  /** Asks `path` with `headers` and checks the coding and that it decodes to the identity answer. */
  async function expectCoding(t: Test, s: TestServer, path: string, headers: Record<string, string>, coding: string | undefined, what: string, base: Record<string, string> = {}): Promise<void> {
    const r = await getCoded(s.base + path, { ...base, ...headers });
    t.equal(r.status, 200, `${what}: 200`);
    t.equal(r.headers['content-encoding'], coding, `${what}: ${coding ?? 'identity'}`);
    t.match(String(r.headers.vary), /Accept-Encoding/, `${what}: Vary names Accept-Encoding`);
    sameBytes(t, decode(r), await identity(s, path, base), `${what}: the identity answer's bytes`);
  }

  await t.test('auto (the default): identity to a near client, compressed for a far one', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_TRUST_PROXY: '1' });
    for (const path of [SERIES, RECORDS]) {
      await expectCoding(t, s, path, { 'accept-encoding': BROWSER }, undefined, `${path}, loopback offering ${BROWSER}`);
      await expectCoding(t, s, path, { 'accept-encoding': 'gzip' }, undefined, `${path}, loopback offering gzip`);
      await expectCoding(t, s, path, { 'accept-encoding': BROWSER, 'x-forwarded-for': FAR }, 'zstd', `${path}, ${FAR} through the trusted proxy`);
      await expectCoding(t, s, path, { 'accept-encoding': 'gzip, deflate', 'x-forwarded-for': FAR }, 'gzip', `${path}, ${FAR} offering gzip`);
      await expectCoding(t, s, path, { 'accept-encoding': BROWSER, 'x-forwarded-for': `${FAR}, 10.1.2.3` }, undefined, `${path}, a LAN client (10.1.2.3) through the proxy`);
      await expectCoding(t, s, path, { 'accept-encoding': BROWSER, 'x-forwarded-for': '::ffff:192.168.7.7' }, undefined, `${path}, an IPv4-mapped private address`);
      await expectCoding(t, s, path, { 'accept-encoding': BROWSER, 'x-forwarded-for': 'not-an-address' }, undefined, `${path}, junk in X-Forwarded-For: the socket's address`);
      // A near client that cannot take identity gets what it asks for.
      await expectCoding(t, s, path, { 'accept-encoding': 'identity;q=0, gzip' }, 'gzip', `${path}, loopback refusing identity`);
      // Refusing everything is answered as before: 200, identity (RFC 9110 allows it; a 406 would help no one).
      await expectCoding(t, s, path, { 'accept-encoding': 'identity;q=0, *;q=0' }, undefined, `${path}, loopback refusing everything`);
      await expectCoding(t, s, path, { 'accept-encoding': 'identity;q=0, *;q=0', 'x-forwarded-for': FAR }, undefined, `${path}, ${FAR} refusing everything`);
    }
    // Parquet is never coded, near or far.
    const parquet = await getCoded(`${s.base}${SERIES}&format=parquet`, { 'accept-encoding': BROWSER, 'x-forwarded-for': FAR });
    t.equal(parquet.headers['content-encoding'], undefined, 'Parquet: never coded');
  });

  await t.test('auto without a trusted proxy: X-Forwarded-For is not read', async (t) => {
    const s = await serve(t, adapter, terminal);
    await expectCoding(t, s, SERIES, { 'accept-encoding': BROWSER, 'x-forwarded-for': FAR }, undefined, 'a loopback client naming itself far');
  });

  await t.test('auto with TRADEAPI_COMPRESS_NEAR leaving loopback out: loopback is far', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_COMPRESS_NEAR: '10.0.0.0/8, fd00::/8' });
    for (const path of [SERIES, RECORDS]) {
      await expectCoding(t, s, path, { 'accept-encoding': BROWSER }, 'zstd', `${path}, loopback offering ${BROWSER}`);
      await expectCoding(t, s, path, { 'accept-encoding': 'gzip' }, 'gzip', `${path}, loopback offering gzip`);
      await expectCoding(t, s, path, {}, undefined, `${path}, loopback offering nothing`);
    }
  });

  await t.test('always: compressed for everyone who asks', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_COMPRESS: 'always' });
    for (const path of [SERIES, RECORDS]) {
      await expectCoding(t, s, path, { 'accept-encoding': BROWSER }, 'zstd', `${path}, loopback offering ${BROWSER}`);
      await expectCoding(t, s, path, { 'accept-encoding': 'identity;q=0, *;q=0' }, undefined, `${path}, refusing everything`);
    }
  });

  await t.test('odd Accept-Encoding values and clients that leave: never a 500', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_COMPRESS: 'always' });
    for (const ae of [';;;,', 'gzip;q=', 'gzip;q=abc', ',,,', 'br;q=0.5;q=0.9', '*', 'x-gzip', 'deflate', 'compress', 'zstd', 'GZIP', `gzip, ${'x'.repeat(4000)}`]) {
      const r = await getCoded(s.base + RECORDS, { 'accept-encoding': ae });
      t.equal(r.status, 200, `${ae.slice(0, 24)}: 200`);
      sameBytes(t, decode(r), await identity(s, RECORDS), `${ae.slice(0, 24)}: ${r.headers['content-encoding'] ?? 'identity'}, the identity bytes`);
    }
    // A client that goes away in the middle of a gzip and of a br series; the next requests are answered.
    for (const coding of ['gzip', 'br']) {
      await new Promise<void>((resolve) => {
        const req = http.get(`${s.base}/ticks/range?symbol=EURUSD&date_from=2024-01-08T00:00:00Z&date_to=2024-01-10T00:00:00Z`, { headers: { 'accept-encoding': coding } }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', () => resolve());
      });
    }
    await expectCoding(t, s, SERIES, { 'accept-encoding': 'gzip' }, 'gzip', 'after two clients left: gzip');
    await expectCoding(t, s, SERIES, { 'accept-encoding': 'br' }, 'br', 'and br');
  });

  await t.test('never: identity for everyone', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_COMPRESS: 'never', TRADEAPI_TRUST_PROXY: '1' });
    for (const path of [SERIES, RECORDS]) {
      await expectCoding(t, s, path, { 'accept-encoding': BROWSER, 'x-forwarded-for': FAR }, undefined, `${path}, ${FAR} offering ${BROWSER}`);
      await expectCoding(t, s, path, { 'accept-encoding': 'identity;q=0, gzip', 'x-forwarded-for': FAR }, undefined, `${path}, ${FAR} refusing identity`);
    }
  });

  await t.test('read-only: the client behind API_TRUST_PROXY', async (t) => {
    const s = await serveReadOnly(t, adapter, terminal, { API_TRUST_PROXY: '1', API_RATE_LIMIT: '1000' });
    const key = { 'x-api-key': READ_ONLY_KEY };
    const path = `/api/v1${SERIES}`;
    await expectCoding(t, s, path, { 'accept-encoding': BROWSER }, undefined, 'loopback', key);
    await expectCoding(t, s, path, { 'accept-encoding': BROWSER, 'x-forwarded-for': FAR }, 'zstd', `${FAR} through the proxy`, key);
  });

  await t.test('gzip in parallel pieces: one member, read by zlib, fetch, curl and requests', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_COMPRESS: 'always' });
    const plain = await identity(s, SERIES);
    t.ok(plain.length > 4_000_000, `a body of several pieces (${plain.length} bytes)`);
    const r = await getCoded(s.base + SERIES, { 'accept-encoding': 'gzip' });
    t.equal(r.headers['content-encoding'], 'gzip');
    t.ok(zlib.gunzipSync(r.body).equals(plain), "node's gunzip: the identity bytes");
    // One member: the head, the raw deflate of the whole body, its CRC-32 and length.
    t.ok(zlib.inflateRawSync(r.body.subarray(10, r.body.length - 8)).equals(plain), 'one gzip member: its deflate data is the whole body');
    t.equal(r.body.readUInt32LE(r.body.length - 8), zlib.crc32(plain), "the member's CRC-32 is the body's");
    t.equal(r.body.readUInt32LE(r.body.length - 4), plain.length, 'and its ISIZE the length');
    t.ok(r.body.length < plain.length * 0.12, `at most 12 % of the identity bytes (${((100 * r.body.length) / plain.length).toFixed(1)} %)`);

    const fetched = await fetch(s.base + SERIES); // undici's default Accept-Encoding: gzip, deflate
    t.equal(fetched.headers.get('content-encoding'), 'gzip', 'fetch with its default headers gets gzip');
    t.ok(Buffer.from(await fetched.arrayBuffer()).equals(plain), 'fetch decodes it to the identity bytes');

    const curl = await run('curl', ['--version']).catch(() => undefined);
    await t.test('curl --compressed', { skip: curl?.code === 0 ? false : 'curl is not installed' }, async (t) => {
      const r = await run('curl', ['-sS', '--compressed', '-H', 'Accept-Encoding: gzip', s.base + SERIES]);
      t.equal(r.code, 0, `curl exits 0 ${r.stderr}`);
      t.ok(r.stdout.equals(plain), 'the identity bytes');
    });

    const py = testPython(['requests']);
    await t.test("Python's requests", { skip: 'skip' in py ? py.skip : false }, async (t) => {
      if ('skip' in py) return;
      const script = [
        'import hashlib, sys, requests',
        'r = requests.get(sys.argv[1], headers={"Accept-Encoding": "gzip"})',
        'print(r.headers.get("Content-Encoding"), len(r.content), hashlib.sha256(r.content).hexdigest())',
      ].join('\n');
      const out = await run(py.python, ['-c', script, s.base + SERIES]);
      t.equal(out.stdout.toString().trim(), `gzip ${plain.length} ${createHash('sha256').update(plain).digest('hex')}`, `the identity bytes ${out.stderr}`);
    });
  });
});
