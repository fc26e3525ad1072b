// Contract: the gateway answers the same whether its terminal is the embedded simulator or a
// bridge (python -m tradeapi_bridge) over the MetaTrader5 stand-in serving that simulator's world.
//
// The simulator's world (frozen clock, four symbols: two FX pairs, gold and a stock with trade ticks)
// is exported by test/helpers/sim-world.ts and served by the stand-in's world mode (MT5_STUB_WORLD).
// Two gateways, one per terminal, get the same requests in the same order; every route of the route
// table is exercised (the list is derived from the table: a new route fails the coverage test until
// it gets a request here, or an entry in EXCLUDED with a reason). For each request, every format the
// route offers is compared: status, media type, JSON (parsed and byte for byte), Parquet schema,
// key/value metadata and rows (hyparquet), Arrow schema and rows (apache-arrow).
//
// The bridge runs with small windows (--window-rows, --window-bars) so that its paging of long
// series (package quirks: whole-second dates, shared milliseconds at window edges) is exercised by
// every series request here. Skipped, saying why, where no Python 3 with venv is available.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t, { type Test } from 'tap';

import { loadConfig } from '../../src/config/index.js';
import { PACKED_BAR_ROW_BYTES, PACKED_ROW_BYTES } from '../../src/encode/packed-rows.js';
import { availableAdapters } from '../../src/http/adapters/index.js';
import { createLogger } from '../../src/log.js';
import { routeTable } from '../../src/routes/index.js';
import { startServer } from '../../src/server.js';
import { openBridgeTerminal, openSimTerminal, type SimConfig, type Terminal, type TradeRequest } from '../../src/terminal/index.js';
import { arrowTypes, readArrow, readParquet } from '../encode/fixtures/index.js';
import { Bridge, freePort, prepareVenv } from '../helpers/bridge.js';
import { exportWorld, type MarginQuestion, type ProfitQuestion } from '../helpers/sim-world.js';

// Every route through a real bridge and the simulator side by side: ~35 s alone, but over tap's
// 120 s per file while CI compiles the C++ core on the other lane of the same 2 cores. The file's
// own bound, so that only a real hang fails it.
t.setTimeout(300_000);

const SECRET = 'tap-contract-secret-2b7e9d41c6a85f03';

// ------------------------------------------------------------------ the world

const NOW_MS = Date.UTC(2024, 0, 10, 12); // a Wednesday noon: FX open, the stock's session was yesterday
const H = 3600_000;
const D = 24 * H;
const SYMBOLS = ['EURUSD', 'USDJPY', 'XAUUSD', 'AAPL'];
// The trading schedule off (tradesPerHour 0): the account as generated up to the anchor, which the
// requests below rely on (gold in no position or order); the living account has suites of its own.
const CONFIG: SimConfig & { nowMs: number } = { seed: 42, nowMs: NOW_MS, accountAnchor: Date.UTC(2024, 0, 10) / 1000, symbols: SYMBOLS, tradesPerHour: 0 };
const AAPL_DAY = Date.UTC(2024, 0, 9); // its cash session: 14:30-21:00 UTC
const TICKS_FROM: Record<string, number> = { EURUSD: NOW_MS - 3 * H, USDJPY: NOW_MS - 3 * H, XAUUSD: NOW_MS - 3 * H, AAPL: AAPL_DAY + 14 * H };
const M1 = 1;
const H1 = 16385;
const D1 = 16408;
const RATES_FROM_S: Record<number, number> = { [M1]: (NOW_MS - 7 * D) / 1000, [H1]: (NOW_MS - 60 * D) / 1000, [D1]: (NOW_MS - 150 * D) / 1000 };

const MARGIN: MarginQuestion[] = [
  { action: 0, symbol: 'EURUSD', volume: 0.1, price: 1.05 },
  { action: 1, symbol: 'USDJPY', volume: 1.5, price: 145.123 },
  { action: 2, symbol: 'XAUUSD', volume: 0.3, price: 2010.55 },
  { action: 0, symbol: 'AAPL', volume: 10, price: 185.25 },
];
const PROFIT: ProfitQuestion[] = [
  { action: 0, symbol: 'EURUSD', volume: 1, price_open: 1.05, price_close: 1.0612 },
  { action: 1, symbol: 'USDJPY', volume: 0.5, price_open: 145, price_close: 144.1 },
  { action: 0, symbol: 'XAUUSD', volume: 0.1, price_open: 2000, price_close: 1990.5 },
  { action: 1, symbol: 'AAPL', volume: 100, price_open: 185, price_close: 180.3 },
];
const CHECK: Partial<TradeRequest>[] = [
  { action: 1, symbol: 'EURUSD', volume: 0.1, type: 0 },
  { action: 1, symbol: 'XAUUSD', volume: 50, type: 1, deviation: 10, comment: 'contract' },
  { action: 5, symbol: 'USDJPY', volume: 0.2, type: 2, price: 140.5, type_time: 0 },
  { action: 1, symbol: 'EURUSD', volume: 0.001, type: 0 },
  { action: 1, symbol: 'AAPL', volume: 3, type: 0, magic: 42, sl: 170, tp: 200 },
  { action: 8, order: 123456 },
  { action: 1, symbol: 'EURUSD', volume: 0.5, type: 1, comment: 'contrat € ü "q" \\ 😀' }, // non-ASCII, escapes
];

// ------------------------------------------------------------------ requests

type Format = 'json' | 'parquet' | 'arrow' | 'packed';

interface Req {
  method: 'GET' | 'POST';
  path: string; // with the query
  body?: unknown;
  /** The status both must answer (default 200): the situation each request is meant to test. */
  expect?: number;
  /** Rows a 200 is expected to hold: none, or any number (default: at least one). */
  rows?: 'none' | 'any';
  /** A known, documented difference: the statuses each side answers, and why. Not compared (none at present). */
  differs?: { sim: number; bridge: number; why: string };
  /** Only this format (a request that changes state is answered differently the second time). */
  format?: Format;
  /** Why it is here, when not obvious. */
  note?: string;
}

type Opts = Pick<Req, 'expect' | 'rows' | 'differs' | 'format' | 'note'>;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const get = (p: string, opts: Opts = {}): Req => ({ method: 'GET', path: p, ...opts });
const post = (p: string, body?: unknown, opts: Opts = {}): Req => ({ method: 'POST', path: p, ...(body !== undefined ? { body } : {}), ...opts });
const q = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
const unknown: Opts = { expect: 404, note: 'unknown symbol' };
const empty: Opts = { rows: 'none' };
const edge: Opts = { rows: 'any', note: 'group edge case' };

function seriesRequests(): Req[] {
  const out: Req[] = [];
  for (const s of SYMBOLS) {
    const stock = s === 'AAPL';
    // Ranges inside the exported windows; ms edges exercise the bridge's whole-second package dates.
    const [a, b] = stock ? [AAPL_DAY + 20 * H, AAPL_DAY + 21 * H] : [NOW_MS - 150 * 60_000, NOW_MS - 120 * 60_000];
    out.push(get(`/ticks/range?${q({ symbol: s, date_from: iso(a), date_to: iso(b) })}`));
    out.push(get(`/ticks/range?${q({ symbol: s, date_from: new Date(a + 250).toISOString(), date_to: new Date(a + 61_750).toISOString() })}`));
    out.push(get(`/ticks/from?${q({ symbol: s, date_from: new Date(a + 333).toISOString(), count: 2500 })}`));
    // Custom bars fold the ticks each gateway reads: time bars that open inside the exported window
    // (tick bars read from the server day's start, before it: test/bridge/custom-bars.test.ts has them).
    out.push(get(`/ticks/bars?${q({ symbol: s, period: '90s', date_from: iso(a), date_to: iso(b) })}`));
    out.push(get(`/ticks/bars?${q({ symbol: s, period: '15m', price: 'mid', date_from: iso(a), date_to: iso(b) })}`));
    for (const flags of ['COPY_TICKS_INFO', 'COPY_TICKS_TRADE']) {
      // No trade ticks on FX, gold or OTC share CFDs such as AAPL (issue 14): an empty series, whose
      // schema must still agree.
      const none = flags === 'COPY_TICKS_TRADE';
      out.push(get(`/ticks/range?${q({ symbol: s, date_from: iso(a), date_to: iso(a + 20 * 60_000), flags })}`, none ? empty : {}));
    }
    if (!stock) out.push(get(`/ticks/range?${q({ symbol: s, date_from: iso(NOW_MS - 10 * 60_000), date_to: iso(NOW_MS + H) })}`, { note: 'to beyond now' }));
    out.push(
      get(`/ticks/from?${q({ symbol: s, date_from: iso(NOW_MS - 5 * 60_000), count: 1_000_000 })}`, {
        note: 'count beyond the ticks up to now',
        ...(stock ? empty : {}), // the stock's session ended yesterday
      }),
    );

    out.push(get(`/rates/range?${q({ symbol: s, timeframe: 'TIMEFRAME_M1', date_from: iso(NOW_MS - 2 * D), date_to: iso(NOW_MS) })}`));
    out.push(get(`/rates/range?${q({ symbol: s, timeframe: 'TIMEFRAME_H1', date_from: iso(NOW_MS - 15 * D), date_to: iso(NOW_MS + D) })}`));
    out.push(get(`/rates/range?${q({ symbol: s, timeframe: D1, date_from: iso(NOW_MS - 120 * D), date_to: iso(NOW_MS) })}`));
    out.push(get(`/rates/from?${q({ symbol: s, timeframe: 'TIMEFRAME_M1', date_from: iso(NOW_MS - D + 30_500), count: 500 })}`));
    out.push(get(`/rates/from?${q({ symbol: s, timeframe: 'TIMEFRAME_H1', date_from: iso(NOW_MS - 2 * D), count: 100 })}`));
    out.push(get(`/rates/from?${q({ symbol: s, timeframe: 'TIMEFRAME_D1', date_from: iso(NOW_MS + D), count: 60 })}`));
    out.push(get(`/rates/from-pos?${q({ symbol: s, timeframe: 'TIMEFRAME_M1', start_pos: 0, count: 300 })}`));
    out.push(get(`/rates/from-pos?${q({ symbol: s, timeframe: 'TIMEFRAME_H1', start_pos: 3, count: 200 })}`));
    out.push(get(`/rates/from-pos?${q({ symbol: s, timeframe: 'TIMEFRAME_D1', start_pos: 0, count: 50 })}`));
  }
  out.push(get(`/rates/range?${q({ symbol: 'EURUSD', timeframe: 'TIMEFRAME_M1', date_from: iso(NOW_MS - D), date_to: iso(NOW_MS), compression: 'lz4' })}`));
  out.push(get(`/ticks/range?${q({ symbol: 'NOPE', date_from: iso(NOW_MS - H), date_to: iso(NOW_MS) })}`, unknown));
  out.push(get(`/ticks/from?${q({ symbol: 'NOPE', date_from: iso(NOW_MS - H), count: 10 })}`, unknown));
  out.push(get(`/ticks/bars?${q({ symbol: 'NOPE', period: '1m', date_from: iso(NOW_MS - H), date_to: iso(NOW_MS) })}`, unknown));
  out.push(get(`/rates/from-pos?${q({ symbol: 'NOPE', timeframe: 'TIMEFRAME_M1', start_pos: 0, count: 10 })}`, unknown));
  out.push(get(`/rates/from?${q({ symbol: 'NOPE', timeframe: 'TIMEFRAME_M1', date_from: iso(NOW_MS), count: 10 })}`, unknown));
  out.push(get(`/rates/range?${q({ symbol: 'NOPE', timeframe: 'TIMEFRAME_M1', date_from: iso(NOW_MS - H), date_to: iso(NOW_MS) })}`, unknown));
  out.push(
    get(`/rates/range?${q({ symbol: 'EURUSD', timeframe: 'TIMEFRAME_M1', date_from: iso(NOW_MS), date_to: iso(NOW_MS - H) })}`, { expect: 400, note: 'reversed range' }),
  );
  return out;
}

/** group masks at the edges of mt5-reference §2.4 (blank, '?', '[', case, spaces, exclusions first). */
const GROUPS = [' ', 'EURUS?', '*[*', 'eurusd', ' EUR* , !EURUSD ,USD*', '!EURUSD', ',,*JPY', '*\t', 'EURUSD\t'];

interface Tickets {
  position: number;
  order: number;
  historyOrder: number;
  historyPosition: number;
  dealOrder: number;
}

function requests(k: Tickets): Req[] {
  const hist = { date_from: '2023-01-01T00:00:00Z', date_to: iso(NOW_MS) };
  const narrow = { date_from: iso(NOW_MS - 30 * D), date_to: iso(NOW_MS - 10 * D) };
  const history = (what: 'orders' | 'deals', ticket: number): Req[] => [
    get(`/history/${what}?${q(hist)}`),
    get(`/history/${what}?${q(narrow)}`),
    get(`/history/${what}?${q({ ...hist, group: '*JPY*' })}`),
    get(`/history/${what}?${q({ ...hist, group: '*,!EUR*', symbol: 'AAPL' })}`),
    get(`/history/${what}?${q({ ...hist, symbol: 'XAUUSD' })}`),
    get(`/history/${what}?${q({ ...hist, group: 'NOPE*' })}`, empty),
    get(`/history/${what}?${q({ ticket })}`),
    get(`/history/${what}?${q({ position: k.historyPosition })}`),
    get(`/history/${what}?${q({ position: k.historyPosition, ...narrow })}`, { rows: 'none', note: 'the position lies outside the range' }),
    get(`/history/${what}?${q({ ticket: 999_999_999 })}`, { expect: 404, note: 'no such ticket: 404, as history_*_get fails with -4' }),
    ...GROUPS.flatMap((group) => [
      get(`/history/${what}?${q({ ...hist, group })}`, edge),
      get(`/history/${what}?${q({ ...hist, symbol: 'EURUSD', group })}`, edge),
    ]),
    get(`/history/${what}?${q({ date_from: hist.date_from })}`, { expect: 400, note: 'date_from alone' }),
    get(`/history/${what}/total?${q(hist)}`),
    get(`/history/${what}/total?${q(narrow)}`),
    get(`/history/${what}/total?${q({ date_from: hist.date_to, date_to: hist.date_from })}`, { expect: 400, note: 'reversed' }),
  ];
  const trade = (what: 'positions' | 'orders', ticket: number): Req[] => [
    get(`/${what}`),
    get(`/${what}?${q({ symbol: 'EURUSD' })}`),
    get(`/${what}?${q({ group: '*JPY*,AAPL' })}`),
    get(`/${what}?${q({ ticket })}`),
    get(`/${what}?${q({ symbol: 'AAPL', group: 'AA*' })}`),
    get(`/${what}?${q({ symbol: 'EURUSD', group: '!EUR*' })}`, { rows: 'none', note: 'group narrows symbol' }),
    get(`/${what}?${q({ ticket: 999_999_999 })}`, empty),
    get(`/${what}/total`),
    ...GROUPS.flatMap((group) => [
      get(`/${what}?${q({ group })}`, edge),
      get(`/${what}?${q({ symbol: 'EURUSD', group })}`, edge),
    ]),
  ];
  const margin = (m: MarginQuestion) => `/calc/margin?${q({ action: m.action, symbol: m.symbol, volume: m.volume, price: m.price })}`;
  const profit = (p: ProfitQuestion) =>
    `/calc/profit?${q({ action: p.action === 0 ? 'ORDER_TYPE_BUY' : 'ORDER_TYPE_SELL', symbol: p.symbol, volume: p.volume, price_open: p.price_open, price_close: p.price_close })}`;
  return [
    get('/health'),
    get('/version'),
    get('/terminal'),
    get('/account'),
    get('/account/changes?date_from=2024-01-02T00:00:00Z&limit=50'),
    get('/last-error', { note: 'after successful calls' }),
    get('/symbols'),
    get('/symbols/total'),
    get(`/symbols?${q({ group: '*USD*' })}`),
    get(`/symbols?${q({ group: '*,!EUR*,!*JPY' })}`),
    get(`/symbols?${q({ group: 'NOPE*' })}`, empty),
    ...GROUPS.map((group) => get(`/symbols?${q({ group })}`, edge)),
    ...SYMBOLS.flatMap((s) => [get(`/symbols/${s}`), get(`/symbols/${s}/tick`)]),
    get('/symbols/NOPE', unknown),
    get('/last-error', { note: 'after an unknown symbol' }),
    get('/symbols/NOPE/tick', unknown),
    get(`/symbols/${encodeURIComponent('NÖPE€😀')}`, unknown),
    post('/symbols/EURUSD/select?enable=true'),
    post('/symbols/EURUSD/select?enable=false', undefined, { expect: 409, note: 'in use by positions' }),
    post('/symbols/NOPE/select?enable=true', undefined, unknown),
    post('/symbols/XAUUSD/select?enable=false', undefined, { note: 'gold is in no position or order' }),
    get('/symbols/XAUUSD', { note: 'hidden' }),
    get('/symbols/XAUUSD/tick', { expect: 409, note: 'hidden: not in Market Watch (mt5-reference §2.3), 409 symbol-not-selected' }),
    get('/last-error', { note: "after a hidden symbol's tick: the tick's failure, not the bridge's symbol_info" }),
    post('/symbols/XAUUSD/select?enable=true'),
    get('/symbols/XAUUSD/tick', { note: 'shown again' }),

    get('/market-book/EURUSD', { expect: 409, note: 'before subscribe' }),
    post('/market-book/EURUSD/subscribe'),
    post('/market-book/EURUSD/subscribe', undefined, { note: 'again: idempotent' }),
    get('/market-book/EURUSD'),
    post('/market-book/AAPL/subscribe'),
    get('/market-book/AAPL'),
    post('/market-book/EURUSD/unsubscribe', undefined, { format: 'json' }),
    post('/market-book/EURUSD/unsubscribe', undefined, { expect: 404, note: 'again' }),
    get('/market-book/EURUSD', { expect: 409, note: 'after unsubscribe' }),
    post('/market-book/AAPL/unsubscribe', undefined, { format: 'parquet' }),
    post('/market-book/NOPE/subscribe', undefined, unknown),
    get('/market-book/NOPE', unknown),

    ...trade('positions', k.position),
    ...trade('orders', k.order),
    ...history('orders', k.historyOrder),
    ...history('deals', k.dealOrder),

    ...MARGIN.map((m) => get(margin(m))),
    get(margin({ action: 0, symbol: 'NOPE', volume: 1, price: 1 }), unknown),
    ...PROFIT.map((p) => get(profit(p))),
    get(profit({ action: 0, symbol: 'NOPE', volume: 1, price_open: 1, price_close: 2 }), unknown),
    ...CHECK.map((request) => post('/order/check', { request })),
    post('/order/check', { request: { action: 1, symbol: 'NOPE', volume: 1, type: 0 } }, unknown),
    post('/order/check', { request: { action: 1, volume: 1, type: 0 } }, { expect: 400, note: 'a deal without a symbol' }),

    ...seriesRequests(),
    get('/last-error', { note: 'after the series' }),

    get('/openapi.json'),
    get('/asyncapi.json'),
    get('/docs'),
    get('/docs/swagger-initializer.js'),
  ];
}

/** Routes not compared here, each with its reason. */
const EXCLUDED: Readonly<Record<string, string>> = {
  'GET /events': 'a live stream never ends and its ticks depend on when they are read; test/events/bridge.test.ts streams from a bridge',
  'GET /ws': 'a WebSocket of the same live feeds as /events (test/events/ws.test.ts)',
  'GET /metrics': "each gateway's own counters (requests, terminal calls, bridge gauges) differ by design (test/metrics/metrics.test.ts)",
  'POST /mcp': 'its tools run the very routes compared here, through their own handlers (test/mcp/)',
  'GET /server-time': "each gateway states its own clock: the simulator's is UTC, a bridge's terminal's zone is unknown without TRADEAPI_SERVER_TZ (clients/python/tests)",
};

// ------------------------------------------------------------------ what a response is

/** Values both readers may give, made comparable: int64 as 'n'-suffixed strings, dates as ISO. */
function norm(v: unknown): unknown {
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(norm);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)]));
  return v;
}

interface Snapshot {
  status: number;
  type: string;
  text?: string;
  json?: unknown;
  parquet?: { schema: unknown; kv: unknown; rows: unknown };
  arrow?: { types: unknown; metadata: unknown; rows: unknown };
  /** format=packed: 60-byte rows (custom bars 68), compared byte for byte (hex). */
  packed?: { rows: number; hex: string };
  headers: Record<string, string | null>;
}

async function snapshot(res: Response, format: Format | undefined): Promise<Snapshot> {
  const type = res.headers.get('content-type') ?? '';
  const headers = Object.fromEntries(['retry-after', 'content-disposition', 'cache-control'].map((h) => [h, res.headers.get(h)]));
  const bytes = new Uint8Array(await res.arrayBuffer());
  const snap: Snapshot = { status: res.status, type, headers };
  if (type.startsWith('application/json') || type.startsWith('application/problem+json')) {
    snap.text = new TextDecoder().decode(bytes);
    snap.json = JSON.parse(snap.text);
  } else if (format === 'parquet' && res.status === 200) {
    const back = await readParquet(bytes);
    // Row groups follow the chunks each terminal produced, so they may differ; the schema, the
    // key/value metadata and the rows may not.
    snap.parquet = { schema: norm(back.metadata.schema), kv: norm(back.metadata.key_value_metadata ?? null), rows: norm(back.rows) };
  } else if (format === 'arrow' && res.status === 200) {
    const table = readArrow(bytes);
    snap.arrow = {
      types: arrowTypes(table),
      metadata: Object.fromEntries(table.schema.metadata),
      rows: norm(table.toArray().map((r: { toJSON(): unknown }) => r.toJSON())),
    };
  } else if (format === 'packed' && res.status === 200) {
    const rowBytes = new URL(res.url).pathname.endsWith('/ticks/bars') ? PACKED_BAR_ROW_BYTES : PACKED_ROW_BYTES;
    snap.packed = { rows: bytes.byteLength / rowBytes, hex: Buffer.from(bytes).toString('hex') };
  } else {
    snap.text = new TextDecoder().decode(bytes);
  }
  return snap;
}

/** Rows in a 200 answer: array length (JSON), rows (Parquet, Arrow); 1 for anything else (an object, a page). */
function rowsOf(s: Snapshot): number {
  if (s.parquet) return (s.parquet.rows as unknown[]).length;
  if (s.arrow) return (s.arrow.rows as unknown[]).length;
  if (s.packed) return s.packed.rows;
  return Array.isArray(s.json) ? s.json.length : 1;
}

function routeKey(method: string, p: string): string {
  return `${method} ${p}`;
}

/** The route (template key) a concrete request path hits. */
function matchRoute(templates: readonly { method: string; path: string }[], req: Req): string | undefined {
  const pathOnly = req.path.split('?')[0]!;
  let best: { key: string; literal: number } | undefined;
  for (const r of templates) {
    if (r.method !== req.method) continue;
    const re = new RegExp(`^${r.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (!re.test(pathOnly)) continue;
    const literal = r.path.replace(/\{[^}]+\}/g, '').length; // the most specific template wins
    if (!best || literal > best.literal) best = { key: routeKey(r.method, r.path), literal };
  }
  return best?.key;
}

// ------------------------------------------------------------------ the test

const skip = prepareVenv();
if (skip) {
  t.plan(0, `contract tests need Python 3 with venv: ${skip}`);
} else {
  const adapter = availableAdapters()[0]!;
  const config = loadConfig({ TRADEAPI_HOST: '127.0.0.1', TRADEAPI_PORT: '0' });
  const table = routeTable({ prefix: config.routerPrefix, version: '0', authRequired: false, readOnly: false });
  const templates = table.map((r) => ({ method: r.method, path: r.path, formats: r.formats }));

  const serve = async (tt: Test, terminal: Terminal) => {
    const server = await startServer({ terminal, config, adapter, host: '127.0.0.1', port: 0, logger: createLogger('silent') });
    tt.teardown(async () => {
      await server.close(1000);
      await terminal.close();
    });
    const base = `http://127.0.0.1:${server.port}${config.routerPrefix}`;
    return (req: Req, format?: Format) => {
      const url = format ? `${req.path}${req.path.includes('?') ? '&' : '?'}format=${format}` : req.path;
      const init: RequestInit = { method: req.method };
      if (req.body !== undefined) {
        init.body = JSON.stringify(req.body);
        init.headers = { 'content-type': 'application/json' };
      }
      return fetch(base + url, init);
    };
  };

  t.test('every route: the simulator and a bridge over its world answer alike', async (tt) => {
    const started = Date.now();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-world-'));
    tt.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const summary = await exportWorld(dir, { config: CONFIG, ticksFromMs: TICKS_FROM, ratesFromS: RATES_FROM_S, margin: MARGIN, profit: PROFIT, check: CHECK });
    tt.same(summary.symbols, SYMBOLS, 'the world holds the configured symbols');
    for (const s of SYMBOLS) tt.ok(summary.ticks[s]! > 1000, `${s}: ${summary.ticks[s]} ticks exported`);
    const exported = Date.now();

    const port = await freePort();
    const bridge = await Bridge.start(port, SECRET, {
      env: { MT5_STUB_WORLD: dir },
      // Small windows: every series below is paged; no liveness probe between two requests
      // (it calls terminal_info(), which would reset last_error() under /last-error).
      args: ['--window-rows', '700', '--window-bars', '90', '--probe-interval', '3600'],
    });
    tt.teardown(() => bridge.kill());
    const sim = await serve(tt, openSimTerminal(CONFIG));
    const viaBridge = await serve(tt, openBridgeTerminal(`tcp://127.0.0.1:${port}`, SECRET, { backoffMaxMs: 500, compression: 'zstd' }));

    // Tickets to ask for, found on the simulator (the world holds the same).
    const first = async <T>(p: string, pick: (rows: T[]) => number | undefined): Promise<number> => {
      const rows = (await (await sim(get(p))).json()) as T[];
      const v = pick(rows);
      if (v === undefined) throw new Error(`no ticket found in ${p}`);
      return v;
    };
    type Row = Record<string, number | string>;
    const all = `date_from=2023-01-01T00:00:00Z&date_to=${iso(NOW_MS)}`;
    const closed = (rows: Row[]) => rows.find((r) => r.position_id !== 0 && r.symbol === 'USDJPY');
    const k: Tickets = {
      position: await first<Row>('/positions', (r) => r[1]?.ticket as number),
      order: await first<Row>('/orders', (r) => r[0]?.ticket as number),
      historyOrder: await first<Row>(`/history/orders?${all}`, (r) => closed(r)?.ticket as number),
      historyPosition: await first<Row>(`/history/orders?${all}`, (r) => closed(r)?.position_id as number),
      dealOrder: await first<Row>(`/history/deals?${all}`, (r) => closed(r)?.order as number),
    };

    const reqs = requests(k);
    const hit = new Set<string>();
    let compared = 0;
    let differences = 0;
    for (const req of reqs) {
      const key = matchRoute(templates, req);
      tt.ok(key, `${req.method} ${req.path} is a route`);
      if (!key) continue;
      hit.add(key);
      const route = templates.find((r) => routeKey(r.method, r.path) === key)!;
      const formats: (Format | undefined)[] = req.format ? [req.format] : route.formats.length > 0 ? [...route.formats] : [undefined];
      for (const format of formats) {
        const label = `${req.method} ${req.path}${format ? ` [${format}]` : ''}${req.note ? ` (${req.note})` : ''}`;
        // Sequential, simulator first: both terminals see the same calls in the same order.
        const a = await snapshot(await sim(req, format), format);
        const b = await snapshot(await viaBridge(req, format), format);
        if (req.path === '/health') {
          // Only a bridge terminal adds `bridge` (its reachability and its terminal's state); the
          // rest of the answer must be the simulator's.
          const health = b.json as { bridge?: { state?: string } };
          tt.equal(health.bridge?.state, 'ok', `${label}: the bridge reports itself up with its terminal connected`);
          delete health.bridge;
          b.text = JSON.stringify(health);
        }
        if (req.differs) {
          tt.same([a.status, b.status], [req.differs.sim, req.differs.bridge], `${label}: known difference, ${req.differs.why}`);
          differences++;
          continue;
        }
        compared++;
        tt.equal(a.status, req.expect ?? 200, `${label}: the simulator answers ${req.expect ?? 200}${a.status !== (req.expect ?? 200) ? `: ${a.text}` : ''}`);
        if (a.status === 200 && req.rows !== 'any') tt.equal(rowsOf(a) === 0, req.rows === 'none', `${label}: ${req.rows === 'none' ? 'no rows' : 'rows'} (${rowsOf(a)})`);
        tt.same(b, a, label);
      }
    }

    const routes = templates.map((r) => routeKey(r.method, r.path));
    for (const key of routes) {
      if (key in EXCLUDED) tt.notOk(hit.has(key), `${key} is excluded (${EXCLUDED[key]}) yet compared`);
      else tt.ok(hit.has(key), `${key} is compared`);
    }
    for (const key of Object.keys(EXCLUDED)) tt.ok(routes.includes(key), `excluded ${key} is still a route`);
    tt.comment(
      `${reqs.length} requests: ${compared} comparisons, ${differences} known differences, over ${hit.size} of ${routes.length} routes; ` +
        `world export ${exported - started} ms, total ${Date.now() - started} ms`,
    );
  });
}
