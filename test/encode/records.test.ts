// encodeRecords / encodeObject: JSON shape and order, typed Arrow and Parquet columns (times as UTC
// timestamps, unsigned ints, booleans, strings, the TradeRequest struct), empty results with schema.
import t from 'tap';

import { encodeObject, encodeRecords, MediaTypes } from '../../src/encode/index.js';
import {
  AccountInfoColumns,
  OrderCheckResultColumns,
  TickColumns,
  TradeOrderColumns,
  TradePositionColumns,
  TradeRequestColumns,
  type AccountInfo,
  type OrderCheckResult,
  type Tick,
  type TradeOrder,
  type TradePosition,
  type TradeRequest,
} from '../../src/terminal/records.js';
import { arrowTypes, collectingSink, readArrow, readParquet } from './fixtures/index.js';

const T = 1704888000; // 2024-01-10 12:00:00 UTC, seconds

function position(i: number): TradePosition {
  // Keys deliberately not in schema order: the encoders must order them.
  return {
    symbol: i % 2 ? 'EURUSD' : 'USDJPY',
    comment: i === 1 ? 'héllo ✓' : '',
    external_id: '',
    ticket: 500_000_000 + i,
    time: T - 3600 * i,
    time_msc: (T - 3600 * i) * 1000 + 123,
    time_update: T - 60 * i,
    time_update_msc: (T - 60 * i) * 1000 + 456,
    type: i % 2,
    magic: 0,
    identifier: 500_000_000 + i,
    reason: 3,
    volume: 0.1 * (i + 1),
    price_open: 1.09512 + i / 1e5,
    sl: 0,
    tp: 1.1,
    price_current: 1.0961,
    swap: -0.37,
    profit: 12.5 - i,
  };
}

function order(i: number): TradeOrder {
  return {
    ticket: 7 + i,
    time_setup: T - 100,
    time_setup_msc: (T - 100) * 1000 + 5,
    time_done: 0,
    time_done_msc: 0,
    time_expiration: T + 86400,
    type: 2,
    type_time: 1,
    type_filling: 2,
    state: 1,
    magic: 42,
    position_id: 0,
    position_by_id: 0,
    reason: 3,
    volume_initial: 1,
    volume_current: 1,
    price_open: 1.08,
    sl: 0,
    tp: 0,
    price_current: 1.0961,
    price_stoplimit: 0,
    symbol: 'EURUSD',
    comment: 'limit',
    external_id: '',
  };
}

const request: TradeRequest = {
  action: 1,
  magic: 0,
  order: 0,
  symbol: 'EURUSD',
  volume: 0.1,
  price: 1.0961,
  stoplimit: 0,
  sl: 1.09,
  tp: 1.1,
  deviation: 10,
  type: 0,
  type_filling: 1,
  type_time: 0,
  expiration: 0,
  comment: 'check',
  position: 0,
  position_by: 0,
};

const check: OrderCheckResult = {
  retcode: 0,
  balance: 10000,
  equity: 10012.5,
  profit: 12.5,
  margin: 109.61,
  margin_free: 9902.89,
  margin_level: 9134.57,
  comment: 'Done',
  request,
};

const account: AccountInfo = {
  login: 25115284, trade_mode: 0, leverage: 100, limit_orders: 200, margin_so_mode: 0, trade_allowed: true,
  trade_expert: false, margin_mode: 2, currency_digits: 2, fifo_close: false, balance: 10000, credit: 0, profit: 12.5,
  equity: 10012.5, margin: 109.61, margin_free: 9902.89, margin_level: 9134.57, margin_so_call: 50, margin_so_so: 30,
  margin_initial: 0, margin_maintenance: 0, assets: 0, liabilities: 0, commission_blocked: 0, name: 'Demo',
  server: 'MetaQuotes-Demo', currency: 'USD', company: 'MetaQuotes Ltd.',
};

async function body(encoded: { writeTo(sink: ReturnType<typeof collectingSink>): Promise<void> }) {
  const sink = collectingSink();
  await encoded.writeTo(sink);
  return sink;
}

t.test('JSON records: bare array, fields in schema order, integers kept', async (t) => {
  const rows = [position(0), position(1), position(2)];
  const e = encodeRecords('json', rows, TradePositionColumns);
  t.equal(e.contentType, MediaTypes.json);
  const text = (await body(e)).text();
  const parsed = JSON.parse(text) as Record<string, unknown>[];
  t.equal(parsed.length, 3);
  const names = TradePositionColumns.map(([n]) => n);
  for (const row of parsed) t.same(Object.keys(row), names, 'schema order');
  const ordered = rows.map((r) => Object.fromEntries(names.map((n) => [n, (r as unknown as Record<string, unknown>)[n]])));
  t.equal(text, JSON.stringify(ordered), 'equals JSON.stringify of the ordered rows');
  t.equal(parsed[1]!.time, T - 3600);
  t.equal(parsed[1]!.time_msc, (T - 3600) * 1000 + 123);
  t.equal(parsed[1]!.comment, 'héllo ✓', 'UTF-8 strings');
});

t.test('JSON records: empty result is []', async (t) => {
  t.equal((await body(encodeRecords('json', [], TradePositionColumns))).text(), '[]');
});

t.test('JSON records: a large result is written in several pieces', async (t) => {
  const rows = Array.from({ length: 2000 }, (_, i) => position(i));
  const sink = await body(encodeRecords('json', rows, TradePositionColumns));
  t.ok(sink.parts.length > 1, `${sink.parts.length} pieces`);
  t.equal((JSON.parse(sink.text()) as unknown[]).length, 2000);
});

t.test('JSON object: bare object in schema order, request nested in TradeRequest order', async (t) => {
  const shuffled = { ...check, request: Object.fromEntries(Object.entries(request).reverse()) } as unknown as object;
  const text = (await body(encodeObject('json', shuffled, OrderCheckResultColumns))).text();
  const parsed = JSON.parse(text) as Record<string, unknown>;
  t.same(Object.keys(parsed), OrderCheckResultColumns.map(([n]) => n));
  t.same(Object.keys(parsed.request as object), TradeRequestColumns.map(([n]) => n));
  t.same(parsed, check);
});

t.test('Arrow records: typed columns, times as UTC timestamps', async (t) => {
  const rows = [order(0), order(1)];
  const e = encodeRecords('arrow', rows, TradeOrderColumns);
  t.equal(e.contentType, MediaTypes.arrow);
  const table = readArrow((await body(e)).bytes());
  t.equal(table.numRows, 2);
  t.same(table.schema.fields.map((f) => f.name), TradeOrderColumns.map(([n]) => n));
  const types = arrowTypes(table);
  t.equal(types.ticket, 'Int64');
  t.equal(types.time_setup, 'Timestamp<SECOND, UTC>');
  t.equal(types.time_setup_msc, 'Timestamp<MILLISECOND, UTC>');
  t.equal(types.time_done, 'Timestamp<SECOND, UTC>');
  t.equal(types.time_expiration, 'Timestamp<SECOND, UTC>', 'time_expiration is a time');
  t.equal(types.volume_initial, 'Float64');
  t.equal(types.symbol, 'Utf8');
  t.same(Array.from(table.getChild('time_setup')!.data[0]!.values as BigInt64Array), [BigInt(T - 100), BigInt(T - 100)]);
  t.same(Array.from(table.getChild('time_setup_msc')!.data[0]!.values as BigInt64Array), [BigInt((T - 100) * 1000 + 5), BigInt((T - 100) * 1000 + 5)]);
  t.same(table.getChild('ticket')!.toArray(), BigInt64Array.of(7n, 8n));
  t.equal(table.getChild('comment')!.get(1), 'limit');
});

t.test('Arrow object: OrderCheckResult.request is a struct column', async (t) => {
  const table = readArrow((await body(encodeObject('arrow', check, OrderCheckResultColumns))).bytes());
  t.equal(table.numRows, 1);
  const types = arrowTypes(table);
  t.match(types.request, /^Struct<\{action:Int64, magic:Int64, order:Int64, symbol:Utf8, volume:Float64/);
  const req = table.getChild('request')!.get(0)!.toJSON() as Record<string, unknown>;
  t.equal(req.symbol, 'EURUSD');
  t.equal(req.volume, 0.1);
  t.equal(req.deviation, 10n);
});

t.test('Parquet records: typed columns read back by hyparquet', async (t) => {
  const rows = [position(0), position(1), position(2)];
  const e = encodeRecords('parquet', rows, TradePositionColumns);
  t.equal(e.contentType, MediaTypes.parquet);
  const back = await readParquet((await body(e)).bytes());
  t.equal(Number(back.metadata.num_rows), 3);
  t.same([...back.columns.keys()], TradePositionColumns.map(([n]) => n));
  const time = back.columns.get('time')!;
  t.match(time.logical_type, { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' }, 'time (seconds) stored as a UTC ms timestamp');
  t.match(back.columns.get('time_update_msc')!.logical_type, { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' });
  t.equal(back.columns.get('ticket')!.type, 'INT64');
  t.equal(back.columns.get('ticket')!.logical_type, undefined);
  t.match(back.columns.get('symbol')!.logical_type, { type: 'STRING' });
  const r1 = back.rows[1]!;
  t.same(r1.time, new Date((T - 3600) * 1000));
  t.same(r1.time_msc, new Date((T - 3600) * 1000 + 123));
  t.equal(r1.ticket, 500_000_001n);
  t.equal(r1.comment, 'héllo ✓');
  t.equal(r1.volume, 0.2);
});

t.test('Parquet records: tick record (uint64 volume, uint32 flags) and booleans', async (t) => {
  const tick: Tick = { time: T, bid: 1.0961, ask: 1.09622, last: 0, volume: 2 ** 40, time_msc: T * 1000 + 250, flags: 6, volume_real: 0 };
  const back = await readParquet((await body(encodeRecords('parquet', [tick], TickColumns))).bytes());
  t.match(back.columns.get('volume')!.logical_type, { type: 'INTEGER', bitWidth: 64, isSigned: false });
  t.match(back.columns.get('flags')!.logical_type, { type: 'INTEGER', bitWidth: 32, isSigned: false });
  t.equal(back.rows[0]!.volume, 2n ** 40n, 'uint64 as bigint');
  t.equal(back.rows[0]!.flags, 6);
  t.same(back.rows[0]!.time_msc, new Date(T * 1000 + 250));

  const acc = await readParquet((await body(encodeObject('parquet', account, AccountInfoColumns))).bytes());
  t.equal(acc.columns.get('trade_allowed')!.type, 'BOOLEAN');
  t.equal(acc.rows[0]!.trade_allowed, true);
  t.equal(acc.rows[0]!.trade_expert, false);
  t.equal(acc.rows[0]!.company, 'MetaQuotes Ltd.');
});

t.test('Parquet object: OrderCheckResult.request is a struct column', async (t) => {
  const back = await readParquet((await body(encodeObject('parquet', check, OrderCheckResultColumns))).bytes());
  t.equal(Number(back.metadata.num_rows), 1);
  const req = back.columns.get('request')!;
  t.equal(req.num_children, TradeRequestColumns.length, 'a group with one child per TradeRequest field');
  const row = back.rows[0]!;
  t.equal(row.retcode, 0n);
  t.equal(row.comment, 'Done');
  t.match(row.request, { action: 1n, symbol: 'EURUSD', volume: 0.1, sl: 1.09, comment: 'check', position_by: 0n });
});

t.test('empty results keep the full schema', async (t) => {
  const arrow = readArrow((await body(encodeRecords('arrow', [], TradeOrderColumns))).bytes());
  t.equal(arrow.numRows, 0);
  t.same(arrow.schema.fields.map((f) => f.name), TradeOrderColumns.map(([n]) => n));
  t.equal(arrowTypes(arrow).time_setup, 'Timestamp<SECOND, UTC>');

  const pq = await readParquet((await body(encodeRecords('parquet', [], TradeOrderColumns))).bytes());
  t.equal(Number(pq.metadata.num_rows), 0);
  t.same([...pq.columns.keys()], TradeOrderColumns.map(([n]) => n));
  t.match(pq.columns.get('time_setup')!.logical_type, { type: 'TIMESTAMP', unit: 'MILLIS' });
  t.equal(pq.columns.get('symbol')!.type, 'BYTE_ARRAY');

  const empty = await readParquet((await body(encodeRecords('parquet', [], OrderCheckResultColumns))).bytes());
  t.equal(empty.columns.get('request')!.num_children, TradeRequestColumns.length, 'struct kept when empty');
});

t.test('all compressions', async (t) => {
  for (const compression of ['zstd', 'snappy', 'lz4', 'none'] as const) {
    const back = await readParquet((await body(encodeRecords('parquet', [position(0), position(1)], TradePositionColumns, { compression }))).bytes());
    t.equal(back.rows.length, 2, compression);
    const codec = back.metadata.row_groups[0]!.columns[0]!.meta_data!.codec;
    t.equal(codec, { zstd: 'ZSTD', snappy: 'SNAPPY', lz4: 'LZ4_RAW', none: 'UNCOMPRESSED' }[compression], compression);
  }
});

t.test('a record missing a field is refused before any byte is written', async (t) => {
  const bad = { ...position(0) } as Partial<TradePosition>;
  delete bad.ticket;
  t.throws(() => encodeRecords('parquet', [bad as object], TradePositionColumns), { name: 'TypeError', message: /ticket/ });
  t.throws(() => encodeRecords('arrow', [bad as object], TradePositionColumns), TypeError);
});
