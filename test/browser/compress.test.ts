// Compressed JSON in a real browser (headless Chromium, see ./chromium.ts), issue 34: a big series
// gzip-compressed in parallel pieces is one gzip member, and the browser's fetch reads it whole,
// byte for byte the identity answer (Chromium silently drops whatever follows a first gzip member,
// so concatenated members would arrive truncated, without an error); br likewise. Under the
// default policy (TRADEAPI_COMPRESS=auto) the browser on loopback gets identity although it offers
// gzip, deflate, br and zstd.
import { createHash } from 'node:crypto';
import http from 'node:http';

import { chromium, type Browser, type Page } from 'playwright-core';
import t from 'tap';

import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import { serve, simTerminal } from '../helpers/server.js';
import { chromiumLaunch } from './chromium.js';

const launch = chromiumLaunch();
/** ~7 MB of JSON: 14 pieces as the encoder hands them over, several gzip pieces. */
const SERIES = '/ticks/range?symbol=EURUSD&date_from=2024-01-09T08:00:00Z&date_to=2024-01-09T14:00:00Z';

/** The identity answer, read by node with no Accept-Encoding. */
function identity(url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => (res.headers['content-encoding'] ? reject(new Error('coded')) : resolve(Buffer.concat(parts))));
      })
      .on('error', reject);
  });
}

/** What the page's fetch of SERIES reads: the Content-Encoding it saw, the length and SHA-256 of the body. */
async function fetchInPage(page: Page): Promise<{ coding: string | null; length: number; sha256: string }> {
  return page.evaluate(async (path) => {
    const res = await fetch(path);
    const body = await res.arrayBuffer();
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', body));
    return { coding: res.headers.get('content-encoding'), length: body.byteLength, sha256: [...digest].map((b) => b.toString(16).padStart(2, '0')).join('') };
  }, SERIES);
}

t.test('compressed JSON in headless Chromium', { skip: 'skip' in launch ? launch.skip : false }, async (t) => {
  if (!('options' in launch)) return;
  const terminal = simTerminal();
  t.teardown(() => terminal.close());
  const browser: Browser = await chromium.launch(launch.options);
  t.teardown(() => browser.close());

  await t.test('TRADEAPI_COMPRESS=always: gzip in parallel pieces, br and zstd, read whole', async (t) => {
    const s = await serve(t, nodeAdapter, terminal, { TRADEAPI_COMPRESS: 'always' });
    const plain = await identity(s.base + SERIES);
    t.ok(plain.length > 4_000_000, `several gzip pieces (${plain.length} bytes)`);
    const expected = { length: plain.length, sha256: createHash('sha256').update(plain).digest('hex') };
    for (const coding of ['gzip', 'br', 'zstd']) {
      const context = await browser.newContext({ extraHTTPHeaders: { 'accept-encoding': coding } });
      const page = await context.newPage();
      await page.goto(`${s.base}/health`);
      const got = await fetchInPage(page);
      t.equal(got.coding, coding, `${coding}: the answer was ${coding}`);
      t.same({ length: got.length, sha256: got.sha256 }, expected, `${coding}: the browser read the identity bytes, all of them`);
      await context.close();
    }
  });

  await t.test('auto (the default): identity to the browser on loopback', async (t) => {
    const s = await serve(t, nodeAdapter, terminal);
    const page = await browser.newPage();
    await page.goto(`${s.base}/health`);
    const got = await fetchInPage(page);
    const plain = await identity(s.base + SERIES);
    t.equal(got.coding, null, 'no Content-Encoding although the browser offered gzip, deflate, br, zstd');
    t.same({ length: got.length, sha256: got.sha256 }, { length: plain.length, sha256: createHash('sha256').update(plain).digest('hex') });
    await page.close();
  });
});
