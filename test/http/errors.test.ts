// Terminal failures and unexpected exceptions map onto problems; none is an unhandled 500 or a hang.
import t from 'tap';

import { TerminalError } from '../../src/terminal/errors.js';
import type { RateChunk, Series } from '../../src/terminal/series.js';
import { faultyTerminal } from '../helpers/faulty-terminal.js';
import { expectProblem, forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const real = simTerminal();
t.teardown(() => real.close());

const fail = (kind: TerminalError['kind']) => () => Promise.reject(new TerminalError(kind, -10004, `simulated ${kind}`));

/** A series that yields the real first chunk, then breaks. */
/** `inner`, failing as a lost connection does on its `failAt`-th chunk. */
function breakingSeries(inner: Series<RateChunk>, failAt = 2): Series<RateChunk> {
  let calls = 0;
  const series: Series<RateChunk> = {
    async next() {
      calls++;
      if (calls < failAt) return inner.next();
      inner.close();
      throw new TerminalError('unavailable', -10004, 'connection lost mid-series');
    },
    close: () => inner.close(),
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const c = await series.next();
        if (c === null) return;
        yield c;
      }
    },
  };
  return series;
}

await forEachAdapter(t, async (t, adapter) => {
  await t.test('terminal error kinds', async (t) => {
    const terminal = faultyTerminal(real, {
      accountInfo: fail('unavailable'),
      terminalInfo: fail('timeout'),
      version: fail('call_failed'),
      positionsGet: fail('invalid_params'),
      ordersGet: () => Promise.reject(new Error('a bug with internals /secret/path')),
      lastError: () => Promise.reject('not even an Error'),
    });
    const s = await serve(t, adapter, terminal);
    const unavailable = await s.get('/account');
    t.equal(unavailable.headers.get('retry-after'), '5');
    await expectProblem(t, unavailable, 503, '/errors/terminal-unavailable', '/account');
    await expectProblem(t, await s.get('/terminal'), 503, '/errors/terminal-unavailable');
    await expectProblem(t, await s.get('/version'), 502, '/errors/terminal-error', '/version');
    await expectProblem(t, await s.get('/positions'), 400, '/errors/validation-error');
    const bug = await expectProblem(t, await s.get('/orders'), 500, '/errors/internal', '/orders');
    t.notMatch(bug.detail, /secret|bug/, 'no internals');
    await expectProblem(t, await s.get('/last-error'), 500, '/errors/internal');
    const health = await s.get('/health');
    t.equal(health.status, 503, 'health says unavailable');
    t.same(await health.json(), { status: 'unavailable', terminal: { connected: false, version: null } });
  });

  await t.test('a series failing after the headers: the connection is dropped, not ended cleanly', async (t) => {
    const terminal = faultyTerminal(real, {
      copyRatesFrom: async (symbol, timeframe, dateFrom, count) =>
        // The 8th chunk fails: the JSON encoder keeps a few chunks in flight (json-native.ts), so an
        // earlier failure may still come before the first byte, which is the next test's case.
        breakingSeries(await real.copyRatesFrom(symbol, timeframe, dateFrom, count, { chunkRows: 1000 }), 8),
    });
    const s = await serve(t, adapter, terminal);
    const res = await s.get('/rates/from?symbol=EURUSD&timeframe=1&date_from=2024-01-10T00:00:00Z&count=20000');
    t.equal(res.status, 200, 'headers went out with the first chunk');
    await t.rejects(res.text(), 'the body is cut off, so the client sees an error');
    const health = await s.get('/health');
    t.equal(health.status, 200, 'still serving');
    await health.arrayBuffer();
  });

  await t.test('a series failing before any byte: a problem response', async (t) => {
    const terminal = faultyTerminal(real, {
      copyRatesFrom: async () => breakingSeries({
        next: fail('unavailable'),
        close: () => undefined,
        [Symbol.asyncIterator]: () => { throw new Error('unused'); },
      } as Series<RateChunk>),
    });
    const s = await serve(t, adapter, terminal);
    await expectProblem(t, await s.get('/rates/from?symbol=EURUSD&timeframe=1&date_from=2024-01-10T00:00:00Z&count=10'), 503, '/errors/terminal-unavailable');
  });

  await t.test('odd inputs never produce a 500', async (t) => {
    const s = await serve(t, adapter, real);
    const paths = [
      '/symbols/%E0%A4%A',
      '/symbols/%00',
      '/symbols/' + 'A'.repeat(500),
      '/rates/from?symbol=EURUSD&timeframe=%ZZ&date_from=x&count=1',
      '/rates/from?' + 'a=1&'.repeat(2000),
      '/calc/margin?action=0&symbol=EURUSD&volume=0x10&price=1',
      '/ticks/from?symbol=EURUSD&date_from=2024-01-09T10:00:00.1234567891Z&count=5',
      '/positions?ticket=99999999999999999999',
      '//symbols',
      '/symbols/EURUSD/tick/extra',
    ];
    for (const p of paths) {
      const res = await s.get(p);
      t.ok(res.status < 500, `${p.slice(0, 60)} -> ${res.status}`);
      await res.arrayBuffer();
    }
  });

  await t.test('string lengths count code points, in linear time', async (t) => {
    const s = await serve(t, adapter, real);
    const emoji = (n: number) => encodeURIComponent('\u{1F600}'.repeat(n));
    // 64 code points is a valid symbol (128 UTF-16 units, which TypeBox alone would count).
    await expectProblem(t, await s.get(`/symbols/${emoji(64)}`), 404, '/errors/symbol-not-found');
    const problem = await expectProblem(t, await s.get(`/symbols/${emoji(65)}`), 400, '/errors/validation-error');
    t.match(problem.detail, /symbol/);
    // A too-long string of surrogate pairs and plain characters: a length pattern whose alternatives
    // overlapped ("a pair, or any unit") backtracked exponentially here and froze the event loop.
    const started = performance.now();
    await expectProblem(t, await s.get(`/symbols/${emoji(30)}${'a'.repeat(40)}`), 400, '/errors/validation-error');
    const body = JSON.stringify({ request: { action: 1, symbol: 'EURUSD', comment: '\u{1F600}'.repeat(26) + 'a'.repeat(30) } });
    await expectProblem(t, await s.post('/order/check', { body, headers: { 'content-type': 'application/json' } }), 400, '/errors/validation-error');
    t.ok(performance.now() - started < 1000, `answered in ${Math.round(performance.now() - started)} ms`);
  });
});
