// A bridge that stops answering, or speaks another protocol version (issue 22 items 2 and 11):
// a fake bridge on loopback (node:net, the §4 handshake with the shared secret) that answers
// bridge_status at once but trickles every other reply a byte at a time. The gateway must time the
// whole frame out, say in /health that the bridge stopped answering, and stop within its documented
// bound (grace + 5 s) on SIGTERM whatever the bridge does. A bridge of another protocol version is
// named as such at the handshake, in the log and in /health.
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import net from 'node:net';

import t, { type Test } from 'tap';

import { SECRET, startGateway, type Get } from '../helpers/bridge.js';
import { cliCommand, root } from '../helpers/cli.js';
import { patience } from '../helpers/patience.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function frame(type: number, id: number, body: object): Buffer {
  const payload = Buffer.from(JSON.stringify(body));
  const h = Buffer.alloc(16);
  h.write('TB', 0, 'latin1');
  h[2] = 1;
  h[3] = type;
  h.writeUInt32LE(id, 8);
  h.writeUInt32LE(payload.length, 12);
  return Buffer.concat([h, payload]);
}

interface FakeOptions {
  /** HELLO's protocol (2 = this gateway's; it still speaks 1). */
  protocol?: number;
  /** Milliseconds between the trickled bytes of every reply but bridge_status's. */
  trickleMs?: number;
}

/** A fake bridge; its port, and how many replies it has begun to trickle. */
async function fakeBridge(tt: Test, options: FakeOptions = {}): Promise<{ port: number; trickling: () => number; auths: () => Record<string, unknown>[] }> {
  const sockets = new Set<net.Socket>();
  const auths: Record<string, unknown>[] = [];
  let trickling = 0;
  const server = net.createServer((sock) => {
    sockets.add(sock);
    sock.on('error', () => undefined);
    sock.on('close', () => sockets.delete(sock));
    const ns = randomBytes(32);
    sock.write(frame(0x01, 0, { protocol: options.protocol ?? 2, nonce: ns.toString('hex'), bridge: 'fake-9.9' }));
    let buf = Buffer.alloc(0);
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 16 && buf.length >= 16 + buf.readUInt32LE(12)) {
        const type = buf[3]!;
        const id = buf.readUInt32LE(8);
        const body = JSON.parse(buf.subarray(16, 16 + buf.readUInt32LE(12)).toString() || '{}') as Record<string, unknown>;
        buf = buf.subarray(16 + buf.readUInt32LE(12));
        if (type === 0x02) {
          auths.push(body);
          if (body.protocol !== (options.protocol ?? 2)) {
            sock.end(frame(0x12, 0, { kind: 'protocol', code: -5, message: `protocol ${String(body.protocol)} not supported; this bridge speaks ${options.protocol ?? 2}` }));
            return;
          }
          const nc = Buffer.from(String(body.nonce), 'hex');
          const mac = createHmac('sha256', SECRET).update(Buffer.concat([Buffer.from('tradeapi-bridge/1 server'), ns, nc])).digest('hex');
          sock.write(frame(0x03, 0, { mac }));
        } else if (type === 0x10 && body.op === 'bridge_status') {
          sock.write(frame(0x11, id, { value: { terminal_connected: true, since: Date.now() / 1000, last_error: null, reconnects: 0 } }));
        } else if (type === 0x10) {
          // Begins the reply, then one byte now and then (never finishing within a test).
          const reply = frame(0x11, id, { value: 1, pad: ' '.repeat(200) });
          trickling++;
          sock.write(reply.subarray(0, 20));
          let at = 20;
          const timer = setInterval(() => {
            if (sock.destroyed || at >= reply.length) return clearInterval(timer);
            sock.write(reply.subarray(at, ++at));
          }, options.trickleMs ?? 200);
          sock.once('close', () => clearInterval(timer));
        } else if (type === 0x30) {
          sock.write(frame(0x31, id, {}));
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  tt.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return { port: (server.address() as net.AddressInfo).port, trickling: () => trickling, auths: () => auths };
}

interface Health {
  status: string;
  bridge?: { state: string; reachable: boolean; last_error: { code: number; message: string } | null; protocol?: unknown };
}

async function health(get: Get): Promise<{ status: number; body: Health }> {
  const res = await get('/health');
  return { status: res.status, body: (await res.json()) as Health };
}

t.test('a reply trickled a byte at a time times out as a whole, and /health says the bridge stopped answering', async (tt) => {
  const fake = await fakeBridge(tt);
  // Call timeout 1.5 s: the client's frame deadline is 1 s.
  const { get } = await startGateway(tt, fake.port, SECRET, { terminal: { backoffMaxMs: 200, callTimeoutMs: 1500 } });
  const started = Date.now();
  const res = await get('/account');
  await res.arrayBuffer();
  tt.equal(res.status, 503, '503 for a call the bridge never finishes');
  tt.ok(Date.now() - started < 4000, `answered in ${Date.now() - started} ms (a frame deadline, not a per-recv timeout)`);
  const h = await health(get);
  tt.equal(h.status, 503, '/health is 503');
  tt.equal(h.body.bridge?.state, 'not_answering', `bridge state: ${JSON.stringify(h.body.bridge)}`);
  tt.match(h.body.bridge?.last_error?.message ?? '', /in time/, 'last_error says what stopped');
});

t.test('SIGTERM stops the gateway within grace + 5 s while a bridge trickles a reply', async (tt) => {
  const fake = await fakeBridge(tt, { trickleMs: 1000 });
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const child = spawn(process.execPath, [...cliCommand(), 'serve', '--port', String(port)], {
    cwd: root,
    env: {
      ...process.env,
      TRADEAPI_HTTP: 'node',
      TRADEAPI_HOST: '127.0.0.1',
      TRADEAPI_LOG_LEVEL: 'INFO',
      TRADEAPI_TERMINAL: `tcp://127.0.0.1:${fake.port}`,
      TRADEAPI_BRIDGE_SECRET: SECRET,
      TRADEAPI_SHUTDOWN_GRACE_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  tt.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  // Its readiness line, or its exit: whichever comes first (a CLI start is ~0.5 s idle, over 10 s
  // with a CPU hog per core and a moved clock; the bound only names a start that never comes).
  const serving = Date.now() + patience(6_000);
  while (!out.includes('tradeapi serving') && child.exitCode === null && Date.now() < serving) await sleep(50);
  tt.ok(out.includes('tradeapi serving'), 'the gateway started');
  // The startup version() call and this request both reach the trickling bridge.
  void fetch(`http://127.0.0.1:${port}/account`).then((r) => r.arrayBuffer(), () => undefined);
  const trickling = Date.now() + patience(500);
  while (fake.trickling() < 1 && Date.now() < trickling) await sleep(100);
  tt.ok(fake.trickling() >= 1, 'a reply is being trickled');
  const signalled = Date.now();
  child.kill('SIGTERM');
  const giveUp = new Promise<'still running'>((r) => setTimeout(() => r('still running'), 6_000 + patience(1_000)).unref());
  const code = await Promise.race([exited, giveUp]);
  const ms = Date.now() - signalled;
  tt.equal(code, 0, `exit status (${ms} ms after SIGTERM)`);
  // The documented bound (grace 1 s + 5 s), plus the allowance for the exit itself on a loaded machine.
  tt.ok(ms < 6_000 + patience(300), `exited ${ms} ms after SIGTERM (documented bound: grace 1 s + 5 s)`);
});

t.test('a bridge of another protocol version is named as such at the handshake and in /health', async (tt) => {
  const fake = await fakeBridge(tt, { protocol: 3 });
  const { get } = await startGateway(tt, fake.port, SECRET, { terminal: { backoffMaxMs: 200, callTimeoutMs: 1500 } });
  const res = await get('/account');
  const body = (await res.json()) as { detail?: string };
  tt.equal(res.status, 503);
  tt.match(body.detail ?? '', /protocol 3 \(bridge fake-9.9\), this gateway speaks protocol 2 \(and 1\): upgrade the older/, `detail: ${body.detail}`);
  const h = await health(get);
  tt.equal(h.status, 503);
  tt.equal(h.body.bridge?.state, 'version_mismatch', `bridge: ${JSON.stringify(h.body.bridge)}`);
  tt.match(h.body.bridge?.last_error?.message ?? '', /protocol 3/);
});

t.test('a bridge of protocol 1 (rows, before the compact link) is still served', async (tt) => {
  const fake = await fakeBridge(tt, { protocol: 1 });
  const { get } = await startGateway(tt, fake.port, SECRET, { terminal: { backoffMaxMs: 200, callTimeoutMs: 1500 } });
  const h = await health(get); // 503: this fake's terminal never answers, but the bridge is reached
  tt.equal(h.body.bridge?.state, 'ok', `/health: ${JSON.stringify(h.body)}`);
  tt.equal(fake.auths().at(-1)?.protocol, 1, 'the gateway answered HELLO protocol 1 with AUTH protocol 1');
  tt.notOk('compression' in (fake.auths().at(-1) ?? {}), 'and asked for no compression');
});
