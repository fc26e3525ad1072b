// /docs in a real browser (headless Chromium, see ./chromium.ts) on a gateway with a key, as a new
// user meets it: `/` leads to /docs, the page asks for the key, Swagger UI opens authorised,
// "Try it out" on GET /symbols/{symbol}/tick answers 200 with a tick; `format` is a dropdown;
// Swagger's own Authorize dialog logs out (the request is then refused) and in again. Every
// request the page makes is watched: none may leave loopback (Swagger UI is served by the gateway
// itself). The same under a prefix (/api): / leads to /api/docs, Try it out goes to /api/….
// Screenshots are kept in build/artifacts: docs.png (the whole page), docs-tick.png (the operation).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium, type Browser, type Page } from 'playwright-core';
import t from 'tap';

import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import { serve, simTerminal } from '../helpers/server.js';
import { chromiumLaunch, isLoopback } from './chromium.js';

const KEY = 'browser-test-key';
const artifacts = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../build/artifacts');
const launch = chromiumLaunch();

interface Tick {
  bid: number;
  ask: number;
  time_msc: number;
}

/** Expands an operation, presses "Try it out", fills the symbol and executes; returns the status and body shown. */
async function tryTick(page: Page, symbol: string): Promise<{ status: string; body: string }> {
  const op = page.locator('#operations-symbols-symbol_info_tick');
  if (!(await op.locator('.opblock-body').isVisible())) await op.locator('.opblock-summary').first().click();
  const tryOut = op.locator('button.try-out__btn');
  if ((await tryOut.textContent())?.trim() === 'Try it out') await tryOut.click();
  await op.locator('tr[data-param-name="symbol"] input').fill(symbol);
  const answered = page.waitForResponse((r) => r.url().includes(`/symbols/${symbol}/tick`));
  await op.locator('button.execute').click();
  await answered;
  const live = op.locator('.live-responses-table .response').first();
  await live.locator('.response-col_status').waitFor();
  const status = ((await live.locator('.response-col_status').textContent()) ?? '').trim();
  const body = (await live.locator('.response-col_description pre').first().textContent()) ?? '';
  return { status, body };
}

t.test('/docs in headless Chromium, with a key', { skip: 'skip' in launch ? launch.skip : false }, async (t) => {
  if (!('options' in launch)) return;
  const terminal = simTerminal();
  t.teardown(() => terminal.close());
  const s = await serve(t, nodeAdapter, terminal, { TRADEAPI_SECRET_KEY: KEY });

  const browser: Browser = await chromium.launch(launch.options);
  t.teardown(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const outside: string[] = [];
  const pageErrors: string[] = [];
  const sent: Array<{ url: string; key: string | undefined }> = [];
  // Every request of the page passes here: loopback goes on, anything else is refused (and noted
  // by the request listener below). Loads the page's CSP stops never become requests: noted too.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    return isLoopback(url) ? route.continue() : route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) outside.push(`refused by CSP: ${m.text()}`);
  });
  page.on('request', (r) => {
    if (!isLoopback(r.url())) outside.push(r.url());
    if (r.url().includes('/symbols/')) sent.push({ url: r.url(), key: r.headers()['x-api-key'] });
  });

  await page.goto(`${s.base}/`);
  t.equal(page.url(), `${s.base}/docs`, '/ leads to /docs');

  // The page's own key form, since the document is behind the key.
  const form = page.locator('#tradeapi-key');
  await form.waitFor({ state: 'visible' });
  t.match(await page.locator('#tradeapi-key-message').textContent(), /needs an API key/, 'the page asks for the key');
  await page.locator('#tradeapi-key-input').fill('not-the-key');
  await page.locator('#tradeapi-key button[type=submit]').click();
  await page.getByText('That key was refused').waitFor();
  t.pass('a wrong key is refused');
  t.equal(await page.locator('.opblock').count(), 0, 'and opens nothing');
  await page.locator('#tradeapi-key-input').fill(KEY);
  await page.locator('#tradeapi-key button[type=submit]').click();
  await page.locator('#operations-symbols-symbol_info_tick').waitFor();
  t.equal(await form.isVisible(), false, 'the right key opens Swagger UI and hides the form');
  t.ok((await page.locator('.opblock').count()) > 20, 'every operation is listed');

  // Swagger's Authorize button shows the scheme as authorised with that key.
  await page.locator('.auth-wrapper button.authorize').click();
  const dialog = page.locator('.dialog-ux .modal-ux');
  await dialog.waitFor();
  t.match(await dialog.textContent(), /ApiKey.*Authorized/s, "Swagger's Authorize dialog shows ApiKey authorised");
  await dialog.locator('button.close-modal').click();

  // Try it out: EURUSD is in the simulator's Market Watch from the start.
  const op = page.locator('#operations-symbols-symbol_info_tick');
  const first = await tryTick(page, 'EURUSD');
  t.equal(first.status, '200', 'Execute: 200');
  const tick = JSON.parse(first.body) as Tick;
  t.match(tick, { bid: Number, ask: Number, time_msc: Number }, 'the page shows a tick', { body: first.body });
  t.ok(tick.bid > 0 && tick.ask >= tick.bid, `bid ${tick.bid} ≤ ask ${tick.ask}`);
  const direct = (await (await s.get('/symbols/EURUSD/tick', { headers: { 'x-api-key': KEY } })).json()) as Tick;
  t.same(Object.keys(tick).sort(), Object.keys(direct).sort(), "the same members as the server's own answer");
  t.same(sent.at(-1), { url: `${s.base}/symbols/EURUSD/tick`, key: KEY }, 'Try it out sent the key');
  t.match(await op.locator('.curl-command').textContent(), /X-API-Key: browser-test-key/, 'and the curl shown carries it');

  // `format` is a dropdown of the formats, not a free-text box.
  const format = op.locator('tr[data-param-name="format"] select');
  t.equal(await format.count(), 1, 'format is a <select>');
  const options = (await format.locator('option').allTextContents()).map((o) => o.trim());
  t.same(options.filter((o) => o !== '--'), ['json', 'parquet'], 'offering json and parquet');

  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, 'docs.png'), fullPage: true });
  await op.screenshot({ path: path.join(artifacts, 'docs-tick.png') });

  // Authorize → Logout: Try it out goes without the key and is refused; log in again there.
  await page.locator('.auth-wrapper button.authorize').click();
  await dialog.locator('button', { hasText: 'Logout' }).click();
  await dialog.locator('button.close-modal').click();
  const loggedOut = await tryTick(page, 'EURUSD');
  t.equal(loggedOut.status, '401', 'logged out in Authorize: 401');
  t.equal(sent.at(-1)?.key, undefined, 'no key sent');
  await page.locator('.auth-wrapper button.authorize').click();
  await dialog.locator('input').fill(KEY);
  await dialog.locator('button[type=submit]', { hasText: 'Authorize' }).click();
  await dialog.locator('button.close-modal').click();
  const again = await tryTick(page, 'GBPUSD');
  t.equal(again.status, '200', "authorised again in Swagger's dialog: 200");
  t.match(JSON.parse(again.body), { bid: Number, ask: Number, time_msc: Number });

  t.same(outside, [], 'no request left loopback');
  t.same(pageErrors, [], 'no script error on the page');
});

t.test('/api/docs under a prefix, in headless Chromium', { skip: 'skip' in launch ? launch.skip : false }, async (t) => {
  if (!('options' in launch)) return;
  const terminal = simTerminal();
  t.teardown(() => terminal.close());
  const s = await serve(t, nodeAdapter, terminal, { TRADEAPI_SECRET_KEY: KEY, TRADEAPI_ROUTER_PREFIX: '/api' });
  const browser: Browser = await chromium.launch(launch.options);
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  const outside: string[] = [];
  await page.route('**/*', (route) => (isLoopback(route.request().url()) ? route.continue() : route.abort('blockedbyclient')));
  const ticks: string[] = [];
  page.on('request', (r) => {
    if (!isLoopback(r.url())) outside.push(r.url());
    if (r.url().includes('/tick')) ticks.push(r.url());
  });

  await page.goto(`${s.base}/`);
  t.equal(page.url(), `${s.base}/api/docs`, '/ leads to /api/docs');
  await page.locator('#tradeapi-key-input').fill(KEY);
  await page.locator('#tradeapi-key button[type=submit]').click();
  await page.locator('#operations-symbols-symbol_info_tick').waitFor();
  const answer = await tryTick(page, 'EURUSD');
  t.equal(answer.status, '200', 'Try it out on the tick: 200');
  t.match(JSON.parse(answer.body), { bid: Number, ask: Number, time_msc: Number }, 'with a tick');
  t.same(ticks, [`${s.base}/api/symbols/EURUSD/tick`], 'sent under the prefix');
  t.same(outside, [], 'no request left loopback');
});
