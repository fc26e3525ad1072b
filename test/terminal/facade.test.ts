// The terminal façade over the real addon: shapes, determinism, chunking, errors, and that the
// event loop keeps running while a long range is produced.
import t from 'tap';

import {
  AccountInfoColumns, SymbolInfoColumns, TerminalError, TickFields, constants, openSimTerminal, parseConstant,
  type Series, type TickChunk,
} from '../../src/terminal/index.js';

const NOW = Date.UTC(2024, 0, 10, 12, 0, 0); // Wednesday
const config = { seed: 42, nowMs: NOW, accountAnchor: Date.UTC(2024, 0, 10) / 1000 };

async function collect(series: Series<TickChunk>): Promise<TickChunk[]> {
  const chunks: TickChunk[] = [];
  for await (const c of series) chunks.push(c);
  return chunks;
}

function concat<T extends BigInt64Array | Float64Array | Uint32Array | BigUint64Array>(parts: T[]): number[] {
  return parts.flatMap((p) => Array.from(p as ArrayLike<number | bigint>, Number));
}

t.test('records have the package field lists in order', async (t) => {
  const term = openSimTerminal(config);
  t.teardown(() => term.close());
  const account = await term.accountInfo();
  t.same(Object.keys(account), AccountInfoColumns.map(([n]) => n));
  const eurusd = await term.symbolInfo('EURUSD');
  t.equal(Object.keys(eurusd).length, 96);
  t.same(Object.keys(eurusd), SymbolInfoColumns.map(([n]) => n));
  t.equal(eurusd.name, 'EURUSD');
  const tick = await term.symbolInfoTick('EURUSD');
  t.same(Object.keys(tick), [...TickFields]);
  t.ok(tick.ask > tick.bid, 'ask above bid');
  t.equal(tick.time, Math.floor(tick.time_msc / 1000));
  t.ok(tick.time_msc <= NOW, 'live tick not in the future');
  const version = await term.version();
  t.ok(version.terminal_version > 0 && version.build > 0);
  t.same(await term.lastError(), { code: 1, description: 'Success' });
});

t.test('same call gives the same bytes; chunked range equals one call', async (t) => {
  const a = openSimTerminal(config);
  const b = openSimTerminal(config);
  t.teardown(async () => { await a.close(); await b.close(); });
  const from = Date.UTC(2024, 0, 8, 9), to = Date.UTC(2024, 0, 8, 11);
  const flags = constants('COPY_TICKS').get('COPY_TICKS_ALL')!;
  const one = await collect(await a.copyTicksRange('EURUSD', from, to, flags, { chunkRows: 1_000_000 }));
  const many = await collect(await b.copyTicksRange('EURUSD', from, to, flags, { chunkRows: 997 }));
  t.equal(one.length, 1, 'one chunk');
  t.ok(many.length > 3, `several chunks (${many.length})`);
  for (const field of ['time_msc', 'bid', 'ask', 'flags'] as const) {
    t.same(concat(many.map((c) => c[field])), concat(one.map((c) => c[field])), `${field} identical`);
  }
  const rows = one[0]!.rows;
  t.ok(rows > 1000, `a busy two hours has ticks (${rows})`);
  t.ok(one[0]!.time_msc[0]! >= BigInt(from) && one[0]!.time_msc[rows - 1]! <= BigInt(to), 'inside the range');
});

t.test('reading ahead yields the same chunks, and stops when the consumer does', async (t) => {
  const term = openSimTerminal(config);
  t.teardown(() => term.close());
  const from = Date.UTC(2024, 0, 8, 9), to = Date.UTC(2024, 0, 8, 10);
  const plain = await collect(await term.copyTicksRange('EURUSD', from, to, -1, { chunkRows: 5000 }));
  const ahead = await term.copyTicksRange('EURUSD', from, to, -1, { chunkRows: 5000 });
  ahead.readAhead?.(true);
  const chunks = await collect(ahead);
  t.equal(chunks.length, plain.length, 'same number of chunks');
  t.same(concat(chunks.map((c) => c.time_msc)), concat(plain.map((c) => c.time_msc)), 'same rows');
  // A consumer that stops after one chunk: closing drops the chunk read ahead, nothing more is made.
  const early = await term.copyTicksRange('EURUSD', from, to, -1, { chunkRows: 5000 });
  early.readAhead?.(true);
  t.ok(await early.next());
  early.close();
  t.equal(await early.next(), null, 'closed series yields nothing');
  t.same(await term.version().then((v) => typeof v.build), 'number', 'the terminal still answers');
});

t.test('typed errors', async (t) => {
  const term = openSimTerminal(config);
  t.teardown(() => term.close());
  await t.rejects(term.symbolInfo('NOPE'), { name: 'TerminalError', kind: 'not_found', code: -4 });
  t.same((await term.lastError()).code, -4, 'last_error reflects the failure');
  await t.rejects(term.copyRatesFrom('EURUSD', 16385, NOW / 1000, 0), { name: 'TerminalError', kind: 'invalid_params', code: -2 });
  await t.rejects(term.copyTicksRange('EURUSD', NOW, NOW - 1000, 99), { name: 'TerminalError', kind: 'invalid_params' });
  await t.rejects(term.marketBookGet('EURUSD'), { name: 'TerminalError', kind: 'not_subscribed' });
  // ETHUSD is not in a fresh terminal's Market Watch: no live tick (the package's generic -1).
  t.equal((await term.symbolInfo('ETHUSD')).select, false, 'ETHUSD starts hidden');
  await t.rejects(term.symbolInfoTick('ETHUSD'), { name: 'TerminalError', kind: 'not_selected', code: -1, message: 'Terminal: Call failed' });
  await t.rejects(term.symbolInfoTick('NOPE'), { name: 'TerminalError', kind: 'not_found', code: -4 });
  await t.rejects(term.orderCalcProfit(2, 'EURUSD', 1, 1.1, 1.2), { name: 'TerminalError', kind: 'invalid_params' });
  const e = await term.symbolInfo('NOPE').catch((x: unknown) => x);
  t.ok(e instanceof TerminalError);
  await term.close();
  await t.rejects(term.version(), { name: 'TerminalError', kind: 'unavailable' }, 'closed terminal is unavailable');
});

t.test('margin and profit vectors (mt5-reference 6.4) through the façade', async (t) => {
  const term = openSimTerminal({ ...config, fixedQuotes: { EURUSD: { bid: 1.0990, ask: 1.0991 } } });
  t.teardown(() => term.close());
  const buy = parseConstant('ORDER_TYPE', 'ORDER_TYPE_BUY')!;
  const sell = parseConstant('ORDER_TYPE', 'ORDER_TYPE_SELL')!;
  t.equal(await term.orderCalcMargin(buy, 'USDJPY', 0.1, 150), 100);
  t.equal(await term.orderCalcMargin(buy, 'EURUSD', 0.1, 1.0991), 109.91);
  t.equal(await term.orderCalcMargin(buy, 'GBPUSD', 1, 1.31668), 1316.68);
  t.equal(await term.orderCalcProfit(buy, 'EURUSD', 1, 1.10757, 1.10881), 124);
  t.equal(await term.orderCalcProfit(sell, 'EURUSD', 1, 1.10753, 1.10881), -128);
  t.equal(await term.orderCalcProfit(buy, 'USDJPY', 1, 108.184, 108.484), 276.54);
  t.equal(await term.orderCalcProfit(sell, 'USDJPY', 1, 108.179, 107.879), 278.09);
});

t.test('the event loop keeps running while 20 M ticks are produced', async (t) => {
  const term = openSimTerminal({ seed: 7, nowMs: Date.UTC(2024, 6, 1) });
  t.teardown(() => term.close());
  let ticks = 0, beats = 0, maxGap = 0, last = Date.now();
  const timer = setInterval(() => {
    const now = Date.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
    beats++;
  }, 5);
  const series = await term.copyTicksFrom('EURUSD', Date.UTC(2024, 0, 2), 20_000_000, -1, { chunkRows: 1_000_000 });
  for await (const chunk of series) ticks += chunk.rows;
  clearInterval(timer);
  t.equal(ticks, 20_000_000, 'all 20 M ticks arrived');
  t.ok(beats > 5, `timer fired ${beats} times during production`);
  t.ok(maxGap < 1000, `longest pause of the event loop ${maxGap} ms`);
});
