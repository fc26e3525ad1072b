// deploy/nginx (scale-out a): two gateways, one per account, behind Debian's real nginx with TLS
// ended there and routed by path (/accounts/{id}/…, each gateway started with
// TRADEAPI_ROUTER_PREFIX=/accounts/{id} and a key of its own). The committed configuration files
// are used as they are, but for the lines a deployment changes anyway (ports, certificate paths,
// account map), each replacement checked. Checks: routing reaches the right gateway and only it,
// an unknown account is a 404, a big Parquet pull comes through byte for byte and unbuffered
// (a client that stops reading holds the gateway back), SSE events arrive promptly, the WebSocket
// upgrade passes.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';

import { createParser } from 'eventsource-parser';
import { parquetMetadata } from 'hyparquet';
import t from 'tap';
import WebSocket from 'ws';

import { root } from '../helpers/cli.js';
import { findTool, freePort, get, selfSignedCertificate, startGateway, startNginx, tempDir } from '../helpers/deploy.js';
import { wallClockSchedule } from '../helpers/live-sim.js';

const nginx = findTool('nginx');
const openssl = findTool('openssl');
if (nginx === undefined || openssl === undefined) {
  t.plan(0, `${nginx === undefined ? 'nginx' : 'openssl'} is not installed (Debian: apt-get install nginx openssl; .ci/run installs it as root)`);
} else {
  await main(nginx);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Replaces `from` (which must occur exactly once) in a committed file's text. */
function replaceOnce(text: string, from: string | RegExp, to: string, file: string): string {
  const count = typeof from === 'string' ? text.split(from).length - 1 : (text.match(new RegExp(from.source, `${from.flags.replace('g', '')}g`)) ?? []).length;
  if (count !== 1) throw new Error(`${file}: expected one ${String(from)}, found ${count} (the test follows the committed file; update both)`);
  return text.replace(from, to);
}

async function main(nginxBin: string): Promise<void> {
  const dir = tempDir(t, 'nginx');
  const logs = path.join(dir, 'gateways');
  const cert = selfSignedCertificate(dir);
  const accounts = { '1001': 'key-of-account-1001', '1002': 'key-of-account-1002' } as const;
  const gateways: Record<string, Awaited<ReturnType<typeof startGateway>>> = {};
  const POLL_MS = 50;
  for (const [id, key] of Object.entries(accounts)) {
    gateways[id] = await startGateway(t, `gateway-${id}`, logs, { TRADEAPI_ROUTER_PREFIX: `/accounts/${id}`, TRADEAPI_SECRET_KEY: key, TRADEAPI_EVENTS_POLL_MS: String(POLL_MS) });
  }
  // The gateways' simulator runs on the machine's clock (the lag of an event is measured against
  // it): BTCUSD trades at every hour, and its schedule says how long its ticks take to come.
  const schedule = wallClockSchedule();
  t.teardown(() => schedule.close());
  const port = await freePort();

  // The committed files, with the deployment-specific lines replaced.
  const conf = path.join(dir, 'tradeapi');
  mkdirSync(conf);
  const src = path.join(root, 'deploy', 'nginx');
  for (const file of ['tradeapi-proxy.conf', 'tradeapi-upgrade.conf']) cpSync(path.join(src, file), path.join(conf, file));
  let map = readFileSync(path.join(src, 'tradeapi-accounts.conf'), 'utf8');
  map = replaceOnce(map, '127.0.0.1:8001;', `127.0.0.1:${gateways['1001']!.port};`, 'tradeapi-accounts.conf');
  map = replaceOnce(map, '127.0.0.1:8002;', `127.0.0.1:${gateways['1002']!.port};`, 'tradeapi-accounts.conf');
  writeFileSync(path.join(conf, 'tradeapi-accounts.conf'), map);
  let site = readFileSync(path.join(src, 'tradeapi-site.conf'), 'utf8');
  site = replaceOnce(site, /^ {4}listen 443 ssl;$/m, `    listen 127.0.0.1:${port} ssl;`, 'tradeapi-site.conf');
  site = replaceOnce(site, /^ {4}listen \[::\]:443 ssl;\n/m, '', 'tradeapi-site.conf');
  site = replaceOnce(site, '/etc/nginx/tradeapi/tls/tradeapi.crt', cert.cert, 'tradeapi-site.conf');
  site = replaceOnce(site, '/etc/nginx/tradeapi/tls/tradeapi.key', cert.key, 'tradeapi-site.conf');
  writeFileSync(path.join(conf, 'tradeapi-site.conf'), site);

  const base = `https://127.0.0.1:${port}`;
  // The includes of deploy/nginx/tradeapi.conf for (a).
  const includes = ['tradeapi-upgrade.conf', 'tradeapi-accounts.conf', 'tradeapi-site.conf'];
  const entry = readFileSync(path.join(src, 'tradeapi.conf'), 'utf8');
  for (const file of includes) if (!entry.includes(`include tradeapi/${file};`)) throw new Error(`deploy/nginx/tradeapi.conf does not include ${file}`);
  await startNginx(t, nginxBin, dir, includes.map((f) => `  include tradeapi/${f};`).join('\n'), port);
  const fetchVia = (p: string, key?: string, headers: Record<string, string> = {}) => get(`${base}${p}`, { ...headers, ...(key ? { 'x-api-key': key } : {}) }, cert.pem);

  t.test('deploy/nginx/tradeapi.conf as a whole (both set-ups) passes nginx -t', async (t) => {
    const whole = path.join(dir, 'whole');
    mkdirSync(path.join(whole, 'tradeapi'), { recursive: true });
    for (const file of readdirSync(src).filter((f) => f.endsWith('.conf'))) {
      const text = readFileSync(path.join(src, file), 'utf8').replaceAll('/etc/nginx/tradeapi/tls/tradeapi.crt', cert.cert).replaceAll('/etc/nginx/tradeapi/tls/tradeapi.key', cert.key);
      writeFileSync(path.join(whole, 'tradeapi', file), text);
    }
    writeFileSync(path.join(whole, 'nginx.conf'), `pid ${whole}/nginx.pid;\nerror_log ${whole}/error.log;\nevents {}\nhttp {\n  include tradeapi/tradeapi.conf;\n}\n`);
    const r = spawnSync(nginxBin, ['-t', '-c', path.join(whole, 'nginx.conf'), '-p', whole], { encoding: 'utf8' });
    t.equal(r.status, 0, `nginx -t: ${r.stderr.trim().split('\n').pop() ?? ''}`);
  });

  t.test('a request reaches its account\'s gateway, and only it', async (t) => {
    for (const [id, key] of Object.entries(accounts)) {
      const gw = gateways[id]!;
      const before = readFileSync(gw.process.logFile, 'utf8').length;
      const probe = `probe-${id}-${process.pid}`;
      const res = await fetchVia(`/accounts/${id}/version`, key, { 'x-request-id': probe });
      t.equal(res.status, 200, `/accounts/${id}/version through nginx`);
      t.equal(res.headers['x-request-id'], probe, 'answered by a gateway');
      // The request line is logged (asynchronously) once the answer is sent.
      for (let i = 0; i < 50 && !readFileSync(gw.process.logFile, 'utf8').slice(before).includes(probe); i++) await sleep(100);
      t.match(readFileSync(gw.process.logFile, 'utf8').slice(before), `"id":"${probe}"`, `gateway ${id} logged it`);
      const other = gateways[id === '1001' ? '1002' : '1001']!;
      t.notMatch(readFileSync(other.process.logFile, 'utf8'), probe, 'the other gateway never saw it');
    }
    // Each account's key opens its own gateway only: the request did reach the other process.
    const crossed = await fetchVia('/accounts/1002/account', accounts['1001']);
    t.equal(crossed.status, 401, "account 1001's key on /accounts/1002");
    t.equal(crossed.headers['content-type'], 'application/problem+json');
    const unknown = await fetchVia('/accounts/9999/version', accounts['1001']);
    t.equal(unknown.status, 404, 'an account with no gateway');
    t.match(JSON.parse(unknown.body.toString('utf8')), { status: 404, type: '/errors/not-found' });
    t.equal(unknown.headers['content-type'], 'application/problem+json');
    t.equal((await fetchVia('/accounts/10011/version', accounts['1001'])).status, 404, 'a longer id is not account 1001');
    t.equal((await fetchVia('/version')).status, 404, 'nothing outside /accounts/');
    // The encoded or dotted spellings of another account's path end at a 404, never at its data.
    for (const p of ['/accounts/1001/../1002/account', '/accounts/1001%2F..%2F1002/account', '/accounts/%31002/account']) {
      const res = await fetchVia(p, accounts['1002']);
      t.not(res.status, 200, `${p}: ${res.status}`);
    }
    const health = JSON.parse((await fetchVia('/accounts/1002/health')).body.toString('utf8')) as { status: string };
    t.equal(health.status, 'ok', 'the public health check of a gateway, through nginx');
  });

  t.test('TLS is ended at nginx with the certificate given', async (t) => {
    const peer = await new Promise<string>((resolve, reject) => {
      const req = https.get(`${base}/accounts/1001/health`, { ca: cert.pem, agent: false }, (res) => {
        res.resume();
        const socket = res.socket as import('node:tls').TLSSocket;
        resolve(`${socket.getPeerCertificate().subject?.CN ?? ''} ${socket.getProtocol() ?? ''}`);
      });
      req.on('error', reject);
    });
    t.match(peer, /^localhost TLSv1\.[23]$/);
    await t.rejects(get(`${base}/accounts/1001/health`), /self-signed|self signed/, 'an unknown certificate is refused by a verifying client');
  });

  t.test('a big Parquet pull streams through intact, without nginx buffering it', async (t) => {
    const q = '/ticks/range?symbol=EURUSD&date_from=2024-01-02T00:00:00Z&date_to=2024-02-20T00:00:00Z&format=parquet';
    const gw = gateways['1001']!;
    const direct = await get(`http://127.0.0.1:${gw.port}/accounts/1001${q}`, { 'x-api-key': accounts['1001'] });
    t.equal(direct.status, 200);

    // A client that stops reading after its first chunk: unbuffered, nginx stops reading from the
    // gateway once the socket buffers are full, so the gateway cannot finish (and log) the answer;
    // buffered, nginx would take all of it into temp files and the gateway would be done.
    const probe = `bigpull-${process.pid}`;
    const req = https.get(`${base}/accounts/1001${q}`, { ca: cert.pem, agent: false, headers: { 'x-api-key': accounts['1001'], 'x-request-id': probe } });
    const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      req.once('response', resolve);
      req.once('error', reject);
    });
    t.equal(res.statusCode, 200);
    t.equal(res.headers['content-type'], direct.headers['content-type']);
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve) => res.once('data', (c: Buffer) => (chunks.push(c), res.pause(), resolve())));
    await sleep(2000);
    t.notMatch(readFileSync(gw.process.logFile, 'utf8'), probe, 'while the client does not read, the gateway is still sending');
    const body = await new Promise<Buffer>((resolve, reject) => {
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () => resolve(Buffer.concat(chunks)));
      res.once('error', reject);
      res.resume();
    });
    t.ok(body.length > 20e6, `a big answer (${(body.length / 1e6).toFixed(1)} MB, more than the socket buffers on the way hold)`);
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    t.equal(sha(body), sha(direct.body), 'the same bytes as straight from the gateway');
    const meta = parquetMetadata(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer);
    t.ok(Number(meta.num_rows) > 1_000_000, `a readable Parquet file of ${meta.num_rows} rows`);
    t.same(readdirSync(path.join(dir, 'proxy')), [], 'nothing was spooled to nginx temp files');
  });

  t.test('SSE events come through promptly', async (t) => {
    const arrivals: Array<{ lagMs: number }> = [];
    const req = https.get(`${base}/accounts/1001/events?symbols=BTCUSD`, { ca: cert.pem, agent: false, headers: { 'x-api-key': accounts['1001'], accept: 'text/event-stream' } });
    const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      req.once('response', resolve);
      req.once('error', reject);
    });
    t.equal(res.statusCode, 200);
    t.match(res.headers['content-type'], /^text\/event-stream/);
    const done = new Promise<void>((resolve) => {
      const parser = createParser({
        onEvent: (e) => {
          if (e.event !== 'tick') return;
          const tick = JSON.parse(e.data) as { time_msc: number };
          arrivals.push({ lagMs: Date.now() - tick.time_msc });
          if (arrivals.length >= 5) resolve();
        },
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => parser.feed(chunk));
      res.on('close', () => resolve()); // cut by the timer below: too few events (asserted next)
    });
    const timer = setTimeout(() => req.destroy(), await schedule.window(['BTCUSD'], 5, { pollMs: POLL_MS }));
    await done;
    clearTimeout(timer);
    req.destroy();
    t.ok(arrivals.length >= 5, `five events in the time the simulator takes to make five BTCUSD ticks (${arrivals.length})`);
    // Buffered, events would wait for a proxy buffer (4-8 KB, ~20-40 ticks) to fill.
    const worst = Math.max(...arrivals.map((a) => a.lagMs));
    t.ok(worst < 1500, `each event within 1.5 s of its tick (worst ${worst} ms)`);
  });

  t.test('the WebSocket upgrade passes through (wss)', async (t) => {
    const ws = new WebSocket(`wss://127.0.0.1:${port}/accounts/1001/ws`, { ca: cert.pem, headers: { 'x-api-key': accounts['1001'] }, perMessageDeflate: false });
    const messages: Array<{ event: string; data?: { symbol?: string } }> = [];
    const got = new Promise<void>((resolve, reject) => {
      ws.on('message', (d: Buffer) => {
        messages.push(JSON.parse(d.toString('utf8')) as { event: string });
        if (messages.some((m) => m.event === 'tick')) resolve();
      });
      ws.once('error', reject);
      ws.once('unexpected-response', (_q, r) => reject(new Error(`upgrade refused: ${r.statusCode}`)));
      ws.once('close', () => resolve()); // cut by the timer below: no tick (asserted next)
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    ws.send(JSON.stringify({ op: 'subscribe', symbols: ['BTCUSD'] }));
    const timer = setTimeout(() => ws.terminate(), await schedule.window(['BTCUSD'], 1, { pollMs: POLL_MS }));
    await got;
    clearTimeout(timer);
    t.ok(messages.some((m) => m.event === 'subscribed'), 'subscribed');
    t.equal(messages.find((m) => m.event === 'tick')?.data?.symbol, 'BTCUSD', 'a live tick over wss');
    ws.close();
  });
}
