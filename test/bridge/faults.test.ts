// Faults behind the gateway, end to end: a real bridge (bridge/tests/hooked_bridge.py over the
// MetaTrader5 stand-in, whose test hooks lose/restore/slow the terminal) and a real gateway on
// loopback. Each fault must end as 503 + Retry-After (never 500, never a hang), /health must say
// which part is down, and the gateway must recover on its own. Short timeouts keep it quick.
import { createHmac, randomBytes } from 'node:crypto';
import net from 'node:net';

import t, { type Test } from 'tap';

import { Bridge, SECRET, WRONG, bridgeClockLagMs, freePort, prepareVenv, startGateway, waitFor, type Get } from '../helpers/bridge.js';
import { patience } from '../helpers/patience.js';

// The bridge notices a lost terminal within 0.2 s and retries initialize() every 0.1..0.3 s.
const FAST = ['--probe-interval', '0.2', '--reconnect-min', '0.1', '--reconnect-max', '0.3'];
const TICKS = '/ticks/range?symbol=EURUSD&date_from=2024-12-20T10:00:00Z&date_to=2024-12-20T10:01:00Z';

interface BridgeHealth {
  state: string;
  reachable: boolean;
  terminal_connected: boolean;
  since: string | null;
  last_error: { code: number; message: string } | null;
  reconnects: number;
}
interface Health {
  status: string;
  terminal: { connected: boolean };
  bridge?: BridgeHealth;
}

async function health(get: Get): Promise<{ status: number; body: Health; text: string }> {
  const res = await get('/health');
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Health, text };
}

/** Status of a request that must be 503 + Retry-After with the terminal-unavailable problem. */
async function expect503(tt: Test, get: Get, p: string, why: string): Promise<string> {
  const res = await get(p);
  const body = (await res.json()) as { type?: string; detail?: string };
  tt.equal(res.status, 503, `${why}: ${p.split('?')[0]} 503`);
  tt.ok(Number(res.headers.get('retry-after')) > 0, `${why}: ${p.split('?')[0]} has Retry-After`);
  tt.equal(body.type, '/errors/terminal-unavailable', `${why}: terminal-unavailable problem`);
  return body.detail ?? '';
}

const skip = prepareVenv();
if (skip) {
  t.plan(0, `bridge fault tests need Python 3 with venv: ${skip}`);
} else {
  t.test('terminal lost behind a live bridge: 503, /health "terminal down", recovery with depth re-added', async (tt) => {
    const port = await freePort();
    const bridge = await Bridge.start(port, SECRET, { hooked: true, args: FAST });
    tt.teardown(() => bridge.kill());
    const { get } = await startGateway(tt, port);

    const up = await health(get);
    tt.equal(up.status, 200);
    tt.match(up.body.bridge, { state: 'ok', reachable: true, terminal_connected: true, last_error: null, reconnects: 0 });
    tt.equal((await get('/market-book/EURUSD/subscribe', { method: 'POST' })).status, 200, 'depth subscribed');
    tt.same(await bridge.hook('_book_subscriptions'), ['EURUSD'], 'the terminal holds the subscription');

    const lostAt = Date.now();
    await bridge.hook('_lose_terminal', [-10001]);
    for (const p of ['/account', '/symbols/EURUSD', TICKS, '/positions', '/market-book/EURUSD']) {
      await expect503(tt, get, p, 'terminal lost');
    }
    const down = await waitFor(async () => {
      const h = await health(get);
      return h.body.bridge?.state === 'terminal_down' ? h : undefined;
    }, patience(300));
    tt.ok(down, '/health reports the terminal down');
    if (down) {
      tt.equal(down.status, 503, '/health 503');
      tt.match(down.body, { status: 'unavailable', terminal: { connected: false }, bridge: { reachable: true, terminal_connected: false } });
      // Stamped by the bridge (on its own clock, which scripts/clock/on.sh leaves alone).
      const since = Date.parse(down.body.bridge!.since ?? '') + bridgeClockLagMs();
      tt.ok(since >= lostAt - 1000 && since <= Date.now(), `since = when it was lost (${down.body.bridge!.since})`);
      tt.ok(down.body.bridge!.last_error && down.body.bridge!.last_error.code <= -10000, `last error is an IPC code (${JSON.stringify(down.body.bridge!.last_error)})`);
      tt.notMatch(down.text, SECRET, 'no secret in /health');
    }

    await bridge.hook('_restore_terminal');
    const t0 = Date.now();
    const ok = await waitFor(async () => ((await get('/account')).status === 200 ? true : undefined), patience(1_000));
    const ms = Date.now() - t0;
    tt.ok(ok, 'requests recover without a gateway restart');
    // The next reconnect attempt (backoff at most 500 ms) and one call: ~0.6 s idle.
    tt.ok(ms < patience(300), `within the backoff and a call (${ms} ms)`);
    tt.same(await bridge.hook('_book_subscriptions'), ['EURUSD'], 'the bridge re-added the depth subscription');
    tt.equal((await get('/market-book/EURUSD')).status, 200, 'depth served again');
    const back = await health(get);
    tt.equal(back.status, 200, '/health 200 again');
    tt.match(back.body.bridge, { state: 'ok', terminal_connected: true, reconnects: 1 });
  });

  t.test('slow terminal: timeouts are 503 quickly, waiting calls are capped, then recovery', async (tt) => {
    const port = await freePort();
    const bridge = await Bridge.start(port, SECRET, { hooked: true, args: FAST });
    tt.teardown(() => bridge.kill());
    const LIMIT = 8;
    // A call timeout (3 s) longer than the burst takes to arrive, even on a loaded machine: the first
    // LIMIT calls wait for the whole burst, so every other one finds the queue full. (With 1 s, a
    // burst spread over more than a second let a second batch wait as the first timed out.)
    const CALL_TIMEOUT_MS = 3_000;
    const { get } = await startGateway(tt, port, SECRET, { terminal: { backoffMaxMs: 500, callTimeoutMs: CALL_TIMEOUT_MS, queueLimit: LIMIT } });
    // Set-up, not the subject: the first call also connects and authenticates, which can take
    // longer than this gateway's 1 s call timeout on a loaded machine.
    const reached = await waitFor(async () => ((await get('/account')).status === 200 ? true : undefined), patience(1_000));
    tt.ok(reached, 'the gateway reached the bridge and its terminal');

    await bridge.hook('_set_delay', [(2.5 * CALL_TIMEOUT_MS) / 1000]);
    const N = 60;
    const t0 = Date.now();
    const results = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        const res = await get(i % 3 === 0 ? TICKS : i % 3 === 1 ? '/account' : '/symbols/EURUSD');
        const body = (await res.json()) as { detail?: string };
        return { status: res.status, retryAfter: res.headers.get('retry-after'), detail: body.detail ?? '', ms: Date.now() - t0 };
      }),
    );
    const slowest = Math.max(...results.map((r) => r.ms));
    // Bounded by the call timeout, not by the queue: uncapped, the 8th waiting call would end after
    // 8 × 2.5 call timeouts of terminal delay.
    tt.ok(slowest < CALL_TIMEOUT_MS + patience(300), `all ${N} requests ended in ${slowest} ms (call timeout ${CALL_TIMEOUT_MS} ms)`);
    tt.same([...new Set(results.map((r) => r.status))], [503], 'every one is a 503 (none 500, none hangs)');
    tt.ok(results.every((r) => Number(r.retryAfter) > 0), 'each with Retry-After');
    const busy = results.filter((r) => /terminal busy/.test(r.detail)).length;
    const timedOut = results.filter((r) => /timeout/.test(r.detail)).length;
    tt.ok(busy >= N - LIMIT - 2, `at most ${LIMIT} calls waited: ${busy} refused at once as busy`);
    tt.ok(timedOut >= 1, `the waiting ones timed out (${timedOut})`);
    // The addon sends its deadline with each REQUEST (timeout_ms): the bridge answers `timeout` itself
    // (the connection stays usable) instead of running the call for nobody.
    tt.ok(bridge.events('request_failed').some((e) => e.kind === 'timeout'), 'the bridge timed the call out at the deadline the addon sent');

    // /health answers while the worker is held: the bridge is reachable, the terminal does not answer.
    const h0 = Date.now();
    const slowHealth = await health(get);
    tt.ok(Date.now() - h0 < CALL_TIMEOUT_MS + patience(150), `/health answered in ${Date.now() - h0} ms (its probe's timeout is the call timeout, not the terminal's delay)`);
    tt.equal(slowHealth.status, 503, '/health 503 while the terminal does not answer');
    tt.match(slowHealth.body.bridge, { reachable: true });

    await bridge.hook('_set_delay', [0]);
    const r0 = Date.now();
    // The call still inside the terminal's delay ends first (a native call is never cut short).
    const ok = await waitFor(async () => ((await get('/account')).status === 200 ? true : undefined), 2.5 * CALL_TIMEOUT_MS + patience(1_000));
    tt.ok(ok, `served again once the terminal is quick (${Date.now() - r0} ms)`);
    // As many at once as may wait: all served, so nothing is left queued from the slow spell.
    const burst = await Promise.all(Array.from({ length: LIMIT }, () => get('/symbols/EURUSD').then((r) => r.status)));
    tt.same([...new Set(burst)], [200], `a burst of ${LIMIT} after recovery: all 200 (no backlog left behind)`);
  });

  t.test('bridge down at gateway start: 503, /health "unreachable", then recovery once it starts', async (tt) => {
    const port = await freePort();
    let bridge: Bridge | undefined;
    tt.teardown(() => bridge?.kill());
    const { get } = await startGateway(tt, port);

    const before = Date.now();
    const detail = await expect503(tt, get, '/account', 'no bridge');
    tt.match(detail, /unreachable/, 'the detail says the bridge is unreachable');
    await expect503(tt, get, TICKS, 'no bridge');
    const h = await health(get);
    tt.equal(h.status, 503, '/health 503');
    tt.match(h.body, { status: 'unavailable', terminal: { connected: false }, bridge: { state: 'unreachable', reachable: false, terminal_connected: false } });
    const since = Date.parse(h.body.bridge?.since ?? '');
    tt.ok(since >= before - 1000 && since <= Date.now(), `since = the first failed attempt (${h.body.bridge?.since})`);
    tt.match(h.body.bridge?.last_error?.message ?? '', /bridge unreachable/, 'last_error says why');

    bridge = await Bridge.start(port);
    const t0 = Date.now();
    const ok = await waitFor(async () => ((await get('/account')).status === 200 ? true : undefined), patience(1_000));
    tt.ok(ok, 'recovers once the bridge listens');
    tt.ok(Date.now() - t0 < patience(300), `within the backoff and a call (${Date.now() - t0} ms)`);
    const up = await health(get);
    tt.equal(up.status, 200);
    tt.match(up.body.bridge, { state: 'ok', reachable: true, terminal_connected: true, last_error: null });
  });

  t.test('wrong secret: /health "unreachable" naming the setting, no secret shown', async (tt) => {
    const port = await freePort();
    const bridge = await Bridge.start(port);
    tt.teardown(() => bridge.kill());
    const { get } = await startGateway(tt, port, WRONG);
    const h = await health(get);
    tt.equal(h.status, 503);
    tt.match(h.body.bridge, { state: 'unreachable', reachable: false });
    tt.match(h.body.bridge?.last_error?.message ?? '', /TRADEAPI_BRIDGE_SECRET differs/);
    tt.notMatch(h.text, WRONG);
    tt.notMatch(h.text, SECRET);
  });

  t.test('garbage and oversized frames on a raw socket: that connection dropped, the gateway unaffected', async (tt) => {
    const port = await freePort();
    const bridge = await Bridge.start(port);
    tt.teardown(() => bridge.kill());
    const { get } = await startGateway(tt, port);
    tt.equal((await get('/account')).status, 200);

    const header = (type: number, length: number, magic = 'TB') => {
      const h = Buffer.alloc(16);
      h.write(magic, 0, 'latin1');
      h[2] = 1;
      h[3] = type;
      h.writeUInt32LE(0, 8);
      h.writeUInt32LE(length, 12);
      return h;
    };
    const cases: Array<{ name: string; auth: boolean; send: Buffer; reason: RegExp }> = [
      { name: 'HTTP instead of a frame', auth: false, send: Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'), reason: /magic/ },
      { name: 'random bytes', auth: false, send: Buffer.concat([Buffer.from('XX'), randomBytes(62)]), reason: /magic/ },
      { name: 'AUTH claiming 4 GiB', auth: false, send: header(0x02, 0xffffffff), reason: /exceeds/ },
      { name: 'REQUEST of 16 MiB + 1 after authenticating', auth: true, send: header(0x10, 16 * 1024 * 1024 + 1), reason: /exceeds/ },
      { name: 'unknown frame type after authenticating', auth: true, send: header(0x7f, 0), reason: /unknown frame type/ },
      { name: 'REQUEST whose payload is not JSON', auth: true, send: Buffer.concat([header(0x10, 5), Buffer.from('{{{{{')]), reason: /not UTF-8 JSON|JSON/ },
    ];
    const statuses: number[] = [];
    for (const c of cases) {
      const dropsBefore = bridge.events('connection_dropped').length;
      // The gateway asks at the same time as the raw connection misbehaves.
      const [closed] = await Promise.all([
        rawConnection(port, c.auth, c.send),
        ...['/account', TICKS, '/symbols/EURUSD'].map(async (p) => {
          const res = await get(p);
          await res.arrayBuffer();
          statuses.push(res.status);
        }),
      ]);
      tt.ok(closed, `${c.name}: the bridge closed the connection`);
      const dropped = await waitFor(async () => (bridge.events('connection_dropped').length > dropsBefore ? true : undefined), patience(200));
      tt.ok(dropped, `${c.name}: logged connection_dropped`);
      const last = bridge.events('connection_dropped').pop();
      tt.match(String(last?.reason ?? ''), c.reason, `${c.name}: reason ${JSON.stringify(last?.reason)}`);
    }
    tt.equal(statuses.length, 3 * cases.length, `${statuses.length} gateway requests meanwhile`);
    tt.same([...new Set(statuses)], [200], 'every gateway request meanwhile answered 200');
    tt.equal(bridge.proc.exitCode, null, 'the bridge still runs');
  });
}

/**
 * Opens a raw connection to the bridge, optionally completes the handshake (§4), sends `bytes`,
 * and resolves true once the bridge closes the connection (false if it is still open after 3 s).
 */
function rawConnection(port: number, authenticate: boolean, bytes: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    let stage: 'hello' | 'auth_ok' | 'sent' = 'hello';
    const timer = setTimeout(() => {
      sock.destroy();
      resolve(false);
    }, 3000);
    const frame = (): { type: number; payload: Buffer } | undefined => {
      if (buf.length < 16) return undefined;
      const len = buf.readUInt32LE(12);
      if (buf.length < 16 + len) return undefined;
      const f = { type: buf[3]!, payload: buf.subarray(16, 16 + len) };
      buf = buf.subarray(16 + len);
      return f;
    };
    const send = () => {
      stage = 'sent';
      sock.write(bytes);
    };
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (let f = frame(); f; f = frame()) {
        if (stage === 'hello' && f.type === 0x01) {
          if (!authenticate) {
            send();
            continue;
          }
          const ns = Buffer.from((JSON.parse(f.payload.toString()) as { nonce: string }).nonce, 'hex');
          const nc = randomBytes(32);
          const mac = createHmac('sha256', SECRET).update(Buffer.concat([Buffer.from('tradeapi-bridge/1 client'), ns, nc])).digest('hex');
          const payload = Buffer.from(JSON.stringify({ protocol: 2, nonce: nc.toString('hex'), mac }));
          const h = Buffer.alloc(16);
          h.write('TB', 0, 'latin1');
          h[2] = 1;
          h[3] = 0x02;
          h.writeUInt32LE(payload.length, 12);
          sock.write(Buffer.concat([h, payload]));
          stage = 'auth_ok';
        } else if (stage === 'auth_ok' && f.type === 0x03) {
          send();
        }
      }
    });
    sock.on('error', () => undefined); // a reset is a close too
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(stage === 'sent');
    });
  });
}
