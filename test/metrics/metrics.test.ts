// GET /metrics through a real server on loopback, full and read-only: the Prometheus text format,
// counters that move with the requests made, route templates as labels (never the raw URL), and
// the key like every other route.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import t, { type Test } from 'tap';

import { DOC_SNIPPETS, docBlock } from '../helpers/doc-blocks.js';
import { Bridge, freePort, prepareVenv, SECRET, startGateway, waitFor } from '../helpers/bridge.js';
import { expectProblem, forEachAdapter, READ_ONLY_KEY, serve, serveReadOnly, simTerminal, type TestServer } from '../helpers/server.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The text exposition format, minimally: `# HELP`/`# TYPE` lines and `name{a="b",...} value` samples. */
function parse(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!.replace(/\\(.)/g, (_x, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { samples, types };
}

function value(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  let found = false;
  for (const s of samples) {
    if (s.name !== name) continue;
    if (Object.entries(labels).some(([k, v]) => s.labels[k] !== v)) continue;
    sum += s.value;
    found = true;
  }
  return found ? sum : NaN;
}

async function scrape(t: Test, s: TestServer, path: string, key: string): Promise<Sample[]> {
  return scraped(t, await s.get(path, { headers: { 'x-api-key': key } }), path);
}

/** The samples of a scrape's answer (checked as such). */
async function scraped(t: Test, res: Response, path: string): Promise<Sample[]> {
  t.equal(res.status, 200, `${path} answers`);
  t.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/, 'Prometheus text media type');
  const { samples, types } = parse(await res.text());
  t.equal(types.get('tradeapi_http_requests_total'), 'counter');
  t.equal(types.get('tradeapi_http_request_duration_seconds'), 'histogram');
  return samples;
}

/** The answer with its body already read (so that the next request is not held up), to check later. */
async function buffered(answer: Promise<Response>): Promise<Response> {
  const res = await answer;
  return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers });
}

const terminal = simTerminal();
t.teardown(() => terminal.close());
const KEY = 'metrics-test-key';

await forEachAdapter(t, async (t, adapter) => {
  await t.test('full mode with a key', async (t) => {
    const s = await serve(t, adapter, terminal, { TRADEAPI_SECRET_KEY: KEY });
    // identity: the byte counts below are the bodies' own (fetch asks for gzip, which JSON answers honour).
    const auth = { headers: { 'x-api-key': KEY, 'accept-encoding': 'identity' } };
    await expectProblem(t, await s.get('/metrics'), 401, '/errors/unauthorized', '/metrics');
    await expectProblem(t, await s.get('/metrics', { headers: { 'x-api-key': 'wrong' } }), 401, '/errors/unauthorized');

    const before = await scrape(t, s, '/metrics', KEY);
    const ok = await s.get('/symbols/EURUSD', auth);
    t.equal(ok.status, 200);
    const okBytes = (await ok.arrayBuffer()).byteLength;
    await expectProblem(t, await s.get('/symbols/NOPE', auth), 404, '/errors/symbol-not-found');
    await expectProblem(t, await s.get('/no/such/path', auth), 404, '/errors/not-found');
    const bars = await s.get('/rates/from?symbol=EURUSD&timeframe=TIMEFRAME_M1&date_from=2024-01-09T00:00:00Z&count=500', auth);
    t.equal(bars.status, 200);
    await bars.arrayBuffer();
    const sub = await s.post('/market-book/EURUSD/subscribe', auth);
    t.equal(sub.status, 200);
    await sub.arrayBuffer();
    t.teardown(async () => void (await s.post('/market-book/EURUSD/unsubscribe', auth)).arrayBuffer());

    const head = await s.get('/account', { method: 'HEAD', ...auth });
    t.equal(head.status, 200);
    await head.arrayBuffer();
    const after = await scrape(t, s, '/metrics', KEY);
    const delta = (name: string, labels: Record<string, string>): number => (value(after, name, labels) || 0) - (value(before, name, labels) || 0);
    const reqs = 'tradeapi_http_requests_total';
    t.equal(delta(reqs, { method: 'GET', route: '/symbols/{symbol}', status: '200' }), 1, 'the 200 under its route template');
    t.equal(delta(reqs, { method: 'GET', route: '/symbols/{symbol}', status: '404' }), 1, 'the unknown symbol: a 404 under the same template');
    t.equal(delta(reqs, { method: 'GET', route: 'unmatched', status: '404' }), 1, 'an unknown path: route "unmatched"');
    t.equal(value(after, reqs, { method: 'GET', route: '/metrics', status: '401' }), 2, 'refused scrapes are counted');
    t.notOk(after.some((x) => Object.values(x.labels).some((v) => v.includes('EURUSD') || v.includes('NOPE') || v.includes('/no/such'))), 'no raw URL in any label');
    t.equal(delta('tradeapi_http_request_duration_seconds_count', { method: 'GET', route: '/rates/from' }), 1, 'latency histogram observed the series');
    t.ok(value(after, 'tradeapi_http_request_duration_seconds_bucket', { route: '/rates/from', le: '+Inf' }) >= 1);
    t.ok(delta('tradeapi_http_response_bytes_total', { route: '/symbols/{symbol}' }) >= okBytes, `bytes sent counted (>= ${okBytes})`);
    t.ok(delta('tradeapi_http_response_bytes_total', { route: '/rates/from' }) > 500 * 40, 'streamed bytes counted');
    t.equal(delta(reqs, { method: 'HEAD', route: '/account', status: '200' }), 1, 'a HEAD is counted');
    t.ok(Number.isNaN(value(after, 'tradeapi_http_response_bytes_total', { route: '/account' })), 'but sends no body bytes');
    t.ok(delta('tradeapi_terminal_call_duration_seconds_count', { op: 'symbolInfo' }) >= 2, 'terminal calls timed by operation');
    t.ok(delta('tradeapi_terminal_call_errors_total', { op: 'symbolInfo', kind: 'not_found' }) >= 1, 'terminal errors by operation and kind');
    t.equal(value(after, 'tradeapi_market_book_subscriptions'), 1, 'the depth subscription');
    t.equal(value(after, 'tradeapi_market_book_subscriptions_limit'), 100);
    t.equal(value(after, 'tradeapi_open_streams', { kind: 'series' }), 0, 'no series stream left open');
    t.equal(value(after, 'tradeapi_open_streams', { kind: 'sse' }), 0);
    t.equal(value(after, 'tradeapi_info', { terminal: 'sim', mode: 'full' }), 1);
    t.ok(Number.isNaN(value(after, 'tradeapi_bridge_reachable')), 'no bridge gauges with the simulator');
    t.ok(value(after, 'process_cpu_user_seconds_total') >= 0, 'process metrics');
    t.equal(value(after, 'tradeapi_rate_limit_refusals_total'), 0);

    // docs/operations.md's scrape, as written but for the address.
    const line = /^curl -s -H "X-API-Key: \$TRADEAPI_SECRET_KEY" http:\/\/127\.0\.0\.1:8000\/metrics.*$/m.exec(docBlock(DOC_SNIPPETS.metricsScrape) ?? '')?.[0];
    t.ok(line, `${DOC_SNIPPETS.metricsScrape.page}'s curl line`);
    // Asynchronous: the server answering it runs on this process's event loop.
    const r = await promisify(execFile)('bash', ['-c', (line ?? 'false').replace('http://127.0.0.1:8000', s.base)], { env: { ...process.env, TRADEAPI_SECRET_KEY: KEY } });
    t.match(r.stdout, /^tradeapi_http_requests_total\{method="GET",route="\/symbols\/\{symbol\}",status="200"\} 1$/m, 'and shows the request counts');

    // An open event stream shows while it is open.
    const ctl = new AbortController();
    const events = await s.get('/events?symbols=EURUSD', { headers: { 'x-api-key': KEY }, signal: ctl.signal });
    t.equal(events.status, 200);
    const during = await scrape(t, s, '/metrics', KEY);
    t.equal(value(during, 'tradeapi_open_streams', { kind: 'sse' }), 1, 'the SSE stream is counted while open');
    ctl.abort();
    await events.body?.cancel().catch(() => undefined);
  });

  await t.test('read-only mode: under /api/v1, behind the key, rate refusals counted', async (t) => {
    const WINDOW_MS = 1500;
    const key = { headers: { 'x-api-key': READ_ONLY_KEY } };
    // The 11 requests up to the refused scrape must all be answered within one window. On a machine
    // too busy for that, the attempt proves nothing and is made again on a fresh server (fresh
    // counts and metrics), at most 3 times; the checks are made on the attempt that fit.
    let s!: TestServer;
    let answers: Response[] = [];
    for (let attempt = 1; ; attempt++) {
      s = await serveReadOnly(t, adapter, terminal, { API_RATE_LIMIT: '8' }, { rateLimitWindowMs: WINDOW_MS });
      const started = performance.now();
      answers = [await buffered(s.get('/api/v1/metrics')), await buffered(s.get('/metrics', key)), await buffered(s.get('/api/v1/metrics', key))];
      // Spend the window: the rest of the 8 requests, then two refused, then a refused scrape.
      for (let i = 0; i < 7; i++) answers.push(await buffered(s.get('/api/v1/version', key)));
      answers.push(await buffered(s.get('/api/v1/metrics', key)));
      const took = performance.now() - started;
      if (took < WINDOW_MS) break;
      if (attempt === 3) return t.fail(`three attempts each took longer than the ${WINDOW_MS} ms window (the last ${took.toFixed(0)} ms)`);
      t.comment(`attempt ${attempt} took ${took.toFixed(0)} ms, longer than the ${WINDOW_MS} ms window: again`);
    }
    const [noKey, outside, firstScrape, ...rest] = answers as [Response, Response, Response, ...Response[]];
    await expectProblem(t, noKey, 401, '/errors/unauthorized', '/api/v1/metrics');
    await expectProblem(t, outside, 404, '/errors/not-found');
    const first = await scraped(t, firstScrape, '/api/v1/metrics');
    t.equal(value(first, 'tradeapi_info', { mode: 'read-only' }), 1);
    t.equal(value(first, 'tradeapi_rate_limit_refusals_total'), 0);
    t.equal(value(first, 'tradeapi_http_requests_total', { route: '/metrics', status: '401' }), 1, 'route labels without the prefix');
    const refusedCount = rest.slice(0, 7).filter((res) => res.status === 429).length;
    t.equal(refusedCount, 2, 'the limit refused two');
    const refusedScrape = rest[7] as Response;
    t.equal(refusedScrape.status, 429, 'the scrape is counted and refused like any request');
    await new Promise((r) => setTimeout(r, WINDOW_MS + 200));
    const after = await scrape(t, s, '/api/v1/metrics', READ_ONLY_KEY);
    t.equal(value(after, 'tradeapi_rate_limit_refusals_total'), 3, 'three refusals');
    t.equal(value(after, 'tradeapi_http_requests_total', { route: '/version', status: '429' }), 2);
    t.equal(value(after, 'tradeapi_http_requests_total', { route: '/metrics', status: '429' }), 1);
  });
});

t.test('bridge state: unreachable, then up', async (t) => {
  const skip = prepareVenv();
  const port = await freePort();
  const { get } = await startGateway(t, port, SECRET, { env: { TRADEAPI_SECRET_KEY: KEY } });
  const read = async (): Promise<Sample[]> => {
    const res = await get('/metrics', { headers: { 'x-api-key': KEY } });
    return parse(await res.text()).samples;
  };
  // Nothing listens yet: the gauges say so, and the failed calls are counted as 'unavailable'.
  const version = await get('/version', { headers: { 'x-api-key': KEY } });
  t.equal(version.status, 503);
  await version.arrayBuffer();
  const down = await read();
  t.equal(value(down, 'tradeapi_bridge_reachable'), 0, 'bridge unreachable');
  t.equal(value(down, 'tradeapi_bridge_terminal_connected'), 0);
  t.equal(value(down, 'tradeapi_info', { terminal: 'bridge' }), 1);
  t.ok(value(down, 'tradeapi_terminal_call_errors_total', { op: 'version', kind: 'unavailable' }) >= 1, 'the refused call is an unavailable error');
  if (skip) {
    t.comment(`bridge up: skipped (${skip})`);
    return;
  }
  const bridge = await Bridge.start(port);
  t.teardown(() => bridge.kill());
  // The bridge listens before its terminal is up (it connects it in the background), so a scrape
  // can see it reachable with the terminal not yet connected: wait for both.
  const up = await waitFor(async () => {
    const s = await read();
    return value(s, 'tradeapi_bridge_reachable') === 1 && value(s, 'tradeapi_bridge_terminal_connected') === 1 ? s : undefined;
  }, 15_000);
  t.ok(up, 'bridge reachable once it listens');
  t.equal(value(up ?? [], 'tradeapi_bridge_terminal_connected'), 1, "the bridge's terminal is connected");
  t.equal(value(up ?? [], 'tradeapi_bridge_reconnects'), 0);
});
