// Hardening, item 12: strict numbers and booleans, malformed Accept ranges ignored one by one, no
// CORS preflight answer outside /api/v1, and "an ORDER_TYPE constant".
import t from 'tap';

import { expectProblem, forEachAdapter, READ_ONLY_KEY, serve, serveReadOnly, simTerminal } from '../helpers/server.js';

const terminal = simTerminal();
t.teardown(() => terminal.close());

const RATES = '/rates/from?symbol=EURUSD&timeframe=TIMEFRAME_H1&date_from=2024-01-10T00:00:00Z';
const TICKS = '/ticks/from?symbol=EURUSD&date_from=2024-01-09T10:00:00Z&count=5';
const MARGIN = '/calc/margin?symbol=EURUSD&action=ORDER_TYPE_BUY';
const APP = 'https://app.example.com';

await forEachAdapter(t, async (t, adapter) => {
  const s = await serve(t, adapter, terminal);
  const ok = async (path: string, init?: RequestInit) => {
    const res = await s.get(path, init);
    t.equal(res.status, 200, `${path}: 200`);
    return res;
  };

  await t.test('numbers and booleans: no surrounding whitespace, no plus sign', async (t) => {
    await (await ok(`${RATES}&count=5`)).arrayBuffer();
    const refused = [
      `${RATES}&count=%205`,
      `${RATES}&count=+5`,
      `${RATES}&count=%2B5`,
      `${RATES}&count=5%20`,
      `${RATES}&count=%095`,
      `${RATES}&count=5%0A`,
      '/rates/from-pos?symbol=EURUSD&timeframe=1&count=5&start_pos=%200',
      '/positions?ticket=+1',
      `${MARGIN}&volume=%200.1&price=1.1`,
      `${MARGIN}&volume=+0.1&price=1.1`,
      `${MARGIN}&volume=0.1&price=1.1%20`,
      '/rates/from?symbol=EURUSD&date_from=2024-01-10T00:00:00Z&count=5&timeframe=%2016385',
      '/rates/from?symbol=EURUSD&date_from=2024-01-10T00:00:00Z&count=5&timeframe=+16385',
      '/rates/from?symbol=EURUSD&date_from=2024-01-10T00:00:00Z&count=5&timeframe=%20TIMEFRAME_H1',
      `${TICKS}&flags=%20-1`,
      `${MARGIN.replace('ORDER_TYPE_BUY', '%200')}&volume=0.1&price=1.1`,
    ];
    for (const path of refused) {
      const p = await expectProblem(t, await s.get(path), 400, '/errors/validation-error');
      t.match(p.detail, /parameter '\w+' must be/, `${path}: names the parameter`);
    }
    for (const enable of ['%20true', 'true%20', '+1', '%201']) {
      await expectProblem(t, await s.post(`/symbols/EURUSD/select?enable=${enable}`), 400, '/errors/validation-error');
    }
    const selected = await s.post('/symbols/EURUSD/select?enable=true');
    t.equal(selected.status, 200, 'enable=true still accepted');
    await selected.arrayBuffer();
    await (await ok(`${TICKS}&flags=-1`)).arrayBuffer();
    await (await ok(`${MARGIN}&volume=0.1&price=1.1`)).arrayBuffer();
  });

  await t.test('Accept: malformed ranges are ignored one by one', async (t) => {
    const type = async (accept: string) => {
      const res = await s.get('/account', { headers: { accept } });
      t.equal(res.status, 200, `${JSON.stringify(accept)}: 200`);
      await res.arrayBuffer();
      return res.headers.get('content-type');
    };
    t.match(await type('application/json;q=abc'), /^application\/json/, 'a bad q makes the only range malformed: as if absent');
    t.match(await type(';;;,'), /^application\/json/, 'nothing well-formed: as if absent');
    t.match(await type('application/json;q=abc, application/parquet'), /^application\/parquet/, 'mixed: the well-formed range decides');
    t.match(await type('application/parquet;q=2, application/json;q=0.5'), /^application\/json/, 'q above 1 is malformed too');
    t.match(await type('application/parquet;q=0.5000, application/json;q=0.4'), /^application\/json/, 'more than three decimals');
    t.match(await type('application/parquet;q=0.5, application/json;q=0.4'), /^application\/parquet/, 'control: well-formed q honoured');
    t.match(await type('application/parquet;foo, application/json'), /^application\/json/, 'a parameter without a value');
    await expectProblem(t, await s.get('/account', { headers: { accept: 'text/html' } }), 406, '/errors/not-acceptable');
    await expectProblem(t, await s.get('/account', { headers: { accept: 'text/html, application/json;q=abc' } }), 406, '/errors/not-acceptable');
    await expectProblem(t, await s.get('/account', { headers: { accept: 'application/json;q=0' } }), 406, '/errors/not-acceptable');
  });

  await t.test('validation messages: "an" before a vowel', async (t) => {
    const margin = await expectProblem(t, await s.get(`${MARGIN.replace('ORDER_TYPE_BUY', 'NOPE')}&volume=0.1&price=1.1`), 400, '/errors/validation-error');
    t.match(margin.detail, /must be an ORDER_TYPE constant name/);
    const rates = await expectProblem(t, await s.get('/rates/from?symbol=EURUSD&timeframe=NOPE&date_from=2024-01-10T00:00:00Z&count=5'), 400, '/errors/validation-error');
    t.match(rates.detail, /must be a TIMEFRAME constant name/);
  });

  await t.test('read-only: a CORS preflight outside /api/v1 is answered like any request there', async (t) => {
    const r = await serveReadOnly(t, adapter, terminal, { API_CORS_ORIGINS: APP });
    const preflight = { origin: APP, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' };
    for (const path of ['/health', '/api/v1', '/api/v2/account', '/']) {
      const res = await r.get(path, { method: 'OPTIONS', headers: preflight });
      t.equal(res.headers.get('access-control-allow-methods'), null, `${path}: no Allow-Methods`);
      t.equal(res.headers.get('access-control-allow-headers'), null, `${path}: no Allow-Headers`);
      t.equal(res.headers.get('access-control-max-age'), null);
      await expectProblem(t, res, 401, '/errors/unauthorized', path);
    }
    const keyed = await r.get('/health', { method: 'OPTIONS', headers: { ...preflight, 'x-api-key': READ_ONLY_KEY } });
    await expectProblem(t, keyed, 404, '/errors/not-found', '/health');
    const inside = await r.get('/api/v1/account', { method: 'OPTIONS', headers: preflight });
    t.equal(inside.status, 204, 'under /api/v1 a preflight is still answered');
    t.equal(inside.headers.get('access-control-allow-methods'), 'GET, POST'); // POST: /mcp
    await inside.arrayBuffer();
  });
});
