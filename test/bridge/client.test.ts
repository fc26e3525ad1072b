// The addon's bridge client end to end: a real bridge process (python -m tradeapi_bridge over the
// MetaTrader5 stand-in) and a real gateway on loopback. Answers are compared with what the stand-in
// returns for the same call in a Python process of its own. Skipped, saying why, where no Python
// 3 with venv is available.
import { spawn, spawnSync } from 'node:child_process';

import t from 'tap';

import { readParquet } from '../encode/fixtures/index.js';
import { Bridge, PY, SECRET, STAND_IN, WRONG, freePort, gateway, plain, prepareVenv, waitFor } from '../helpers/bridge.js';
import { cliCommand, root } from '../helpers/cli.js';
import { patience } from '../helpers/patience.js';

// Server time = UTC in the stand-in's default configuration: the gateway's UTC dates are its stamps.
const FROM_S = Date.UTC(2024, 11, 20, 10) / 1000;
const TO_S = Date.UTC(2024, 11, 20, 10, 5) / 1000;
const RATES_FROM_S = Date.UTC(2024, 11, 19, 0) / 1000;
const RATES_TO_S = Date.UTC(2024, 11, 19, 6) / 1000;
const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
const TICKS = `/ticks/range?symbol=EURUSD&date_from=${iso(FROM_S)}&date_to=${iso(TO_S)}`;
const RATES = `/rates/range?symbol=EURUSD&timeframe=TIMEFRAME_M1&date_from=${iso(RATES_FROM_S)}&date_to=${iso(RATES_TO_S)}`;

type Row = Record<string, unknown>;
interface Reference {
  account: Row;
  symbol: Row;
  positions: Row[];
  ticks: Row[];
  rates: Row[];
}

/** The same calls straight on the stand-in, in a Python process of its own. */
function reference(): Reference {
  const script = `
import json, MetaTrader5 as mt5
mt5.initialize()
rows = lambda a: [dict(zip(a.dtype.names, r.tolist())) for r in a]
print(json.dumps({
  "account": mt5.account_info()._asdict(),
  "symbol": mt5.symbol_info("EURUSD")._asdict(),
  "positions": [p._asdict() for p in mt5.positions_get()],
  "ticks": rows(mt5.copy_ticks_range("EURUSD", ${FROM_S}, ${TO_S}, mt5.COPY_TICKS_ALL)),
  "rates": rows(mt5.copy_rates_range("EURUSD", mt5.TIMEFRAME_M1, ${RATES_FROM_S}, ${RATES_TO_S})),
}))`;
  const r = spawnSync(PY, ['-c', script], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: STAND_IN }, maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`reference script failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Reference;
}

const skip = prepareVenv();
if (skip) {
  t.plan(0, `bridge client tests need Python 3 with venv: ${skip}`);
} else {
  const ref = reference();

  t.test('served through the bridge: records, series in JSON and Parquet, errors', async (tt) => {
    const port = await freePort();
    const bridge = await Bridge.start(port);
    tt.teardown(() => bridge.kill());
    const get = await gateway(tt, port);

    const health = await get('/health');
    tt.equal(health.status, 200, '/health 200');
    tt.match(await health.json(), { status: 'ok', terminal: { connected: true } });

    tt.same(await (await get('/account')).json(), ref.account, '/account = account_info()');
    tt.same(await (await get('/symbols/EURUSD')).json(), ref.symbol, '/symbols/EURUSD = symbol_info()');
    tt.same(await (await get('/positions')).json(), ref.positions, '/positions = positions_get()');

    tt.ok(ref.ticks.length > 100, `${ref.ticks.length} reference ticks`);
    tt.same(await (await get(TICKS)).json(), ref.ticks, '/ticks/range JSON = copy_ticks_range()');
    tt.ok(ref.rates.length > 300, `${ref.rates.length} reference bars`);
    tt.same(await (await get(RATES)).json(), ref.rates, '/rates/range JSON = copy_rates_range()');

    for (const [p, want] of [[TICKS, ref.ticks], [RATES, ref.rates]] as const) {
      const res = await get(`${p}&format=parquet`);
      tt.equal(res.status, 200);
      const back = await readParquet(new Uint8Array(await res.arrayBuffer()));
      tt.same(back.rows.map(plain), want, `${p.split('?')[0]} Parquet = the package's rows`);
    }

    const missing = await get('/symbols/NOPE');
    tt.equal(missing.status, 404, 'unknown symbol: 404');
    const ticksMissing = await get('/ticks/range?symbol=NOPE&date_from=2024-12-20T10:00:00Z&date_to=2024-12-20T10:05:00Z');
    tt.equal(ticksMissing.status, 404, 'unknown symbol in a series: 404 before any row');
  });

  t.test('bridge killed and back: 503 + Retry-After, then recovery without a restart', async (tt) => {
    const port = await freePort();
    let bridge = await Bridge.start(port);
    tt.teardown(() => bridge.kill());
    const get = await gateway(tt, port);
    tt.equal((await get('/account')).status, 200);

    await bridge.kill();
    const down = await get('/account');
    tt.equal(down.status, 503, 'bridge gone: 503');
    tt.ok(Number(down.headers.get('retry-after')) > 0, 'with Retry-After');
    tt.match((await down.json()) as object, { type: '/errors/terminal-unavailable' });
    tt.equal((await get('/health')).status, 503, '/health 503 while the bridge is down');

    bridge = await Bridge.start(port);
    const t0 = Date.now();
    const ok = await waitFor(async () => ((await get('/account')).status === 200 ? true : undefined), patience(1_000));
    tt.ok(ok, 'recovers');
    tt.ok(Date.now() - t0 < patience(300), `within the backoff and a call (${Date.now() - t0} ms)`);
    tt.same(await (await get('/symbols/EURUSD')).json(), ref.symbol);
  });

  t.test('bridge killed mid-stream: the response is aborted, never a complete body', async (tt) => {
    const port = await freePort();
    const bridge = await Bridge.start(port);
    tt.teardown(() => bridge.kill());
    const get = await gateway(tt, port);
    // Ten days (~2 M ticks): far more than the bridge may send ahead of what the gateway has taken
    // (its credit) while this client reads nothing. A single day is ~1 MB on the compact link
    // (protocol 2) and could be on the gateway whole before the kill: a complete body, rightly.
    const range = `/ticks/range?symbol=EURUSD&date_from=2024-12-09T00:00:00Z&date_to=2024-12-19T00:00:00Z&format=parquet`;
    const res = await get(range);
    tt.equal(res.status, 200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    tt.ok(first.value && first.value.length > 0, 'first bytes arrive');
    await bridge.kill();
    const rest = (async () => {
      for (;;) if ((await reader.read()).done) return 'complete';
    })();
    await tt.rejects(rest, 'reading the rest fails: the response was aborted');
  });

  t.test('wrong secret: refused, 503 naming the setting, the secret never shown', async (tt) => {
    const port = await freePort();
    const bridge = await Bridge.start(port);
    tt.teardown(() => bridge.kill());
    const get = await gateway(tt, port, WRONG);
    const res = await get('/account');
    tt.equal(res.status, 503);
    const body = JSON.stringify(await res.json());
    tt.match(body, /refused authentication: TRADEAPI_BRIDGE_SECRET differs/);
    tt.notMatch(body, WRONG);
    tt.notMatch(body, SECRET);

    // The CLI says so in its log at start, without the secret.
    const child = spawn(process.execPath, [...cliCommand(), 'serve'], {
      cwd: root,
      env: { ...process.env, TRADEAPI_TERMINAL: `tcp://127.0.0.1:${port}`, TRADEAPI_BRIDGE_SECRET: WRONG, TRADEAPI_PORT: '0', TRADEAPI_HOST: '127.0.0.1' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    // The gateway starts and dials the bridge: ~1 s idle.
    const seen = await waitFor(async () => (/refused authentication/.test(out) ? true : undefined), patience(2_000));
    child.kill('SIGKILL');
    tt.ok(seen, 'log line: the bridge refused authentication');
    tt.match(out, /TRADEAPI_BRIDGE_SECRET differs/);
    tt.notMatch(out, WRONG, 'the secret is not logged');
    tt.match(bridge.log, /auth/, 'the bridge logged the failed attempt');
  });
}
