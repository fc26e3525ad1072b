// /docs with a key: the page and its files are public, the OpenAPI document is not, so the page's
// initializer asks for the key, fetches the document with it, and pre-authorises Swagger's ApiKey
// scheme so that "Try it out" sends it. The initializer served by a real server is run here in a
// bare VM context against that server, with Swagger UI and the DOM replaced by recorders. (A real
// browser run is the headless Chromium test.)
import { runInNewContext } from 'node:vm';

import t from 'tap';

import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import { serve, simTerminal, type TestServer } from '../helpers/server.js';

interface Element {
  hidden: boolean;
  textContent: string;
  value: string;
  focus(): void;
  addEventListener(type: string, fn: (event: { preventDefault(): void }) => void): void;
  submit?: (event: { preventDefault(): void }) => void;
}

interface SwaggerOptions {
  url: string;
  requestInterceptor(req: { loadSpec?: boolean; headers: Record<string, string> }): { headers: Record<string, string> };
  onComplete(): void;
}

class Page {
  readonly elements = new Map<string, Element>();
  readonly started: SwaggerOptions[] = [];
  readonly preauthorized: Array<[string, string]> = [];
  readonly fetches: Array<{ url: string; key: string | undefined }> = [];
  private readonly pending: Array<Promise<unknown>> = [];
  private readonly window: Record<string, unknown>;

  constructor(s: TestServer, code: string, storage: Map<string, string>) {
    const element = (): Element => {
      const e: Element = { hidden: true, textContent: '', value: '', focus() {}, addEventListener: (type, fn) => { if (type === 'submit') e.submit = fn; } };
      return e;
    };
    const page = this;
    this.window = {
      fetch: (url: string, init: { headers: Record<string, string> }) => {
        page.fetches.push({ url, key: init.headers['X-API-Key'] });
        const answer = s.get(url, init);
        page.pending.push(answer);
        return answer;
      },
      document: { getElementById: (id: string) => this.elements.get(id) ?? (this.elements.set(id, element()), this.elements.get(id)) },
      sessionStorage: {
        getItem: (k: string) => storage.get(k) ?? null,
        setItem: (k: string, v: string) => void storage.set(k, v),
        removeItem: (k: string) => void storage.delete(k),
      },
      SwaggerUIBundle: Object.assign(
        (options: SwaggerOptions) => {
          page.started.push(options);
          return { preauthorizeApiKey: (name: string, key: string) => page.preauthorized.push([name, key]) };
        },
        { presets: { apis: {} }, plugins: { DownloadUrl: {} } },
      ),
      SwaggerUIStandalonePreset: {},
    };
    this.window.window = this.window;
    runInNewContext(code, this.window);
  }

  async load(): Promise<void> {
    (this.window.onload as () => void)();
    await this.settle();
  }

  async submit(key: string): Promise<void> {
    const form = this.elements.get('tradeapi-key') as Element;
    (this.elements.get('tradeapi-key-input') as Element).value = key;
    let prevented = false;
    form.submit?.({ preventDefault: () => (prevented = true) });
    if (!prevented) throw new Error('the form would navigate away');
    await this.settle();
  }

  /** Until every request the page made is answered and its callbacks have run (no fixed delay: a loaded machine is slow). */
  private async settle(): Promise<void> {
    while (this.pending.length > 0) {
      await Promise.allSettled(this.pending.splice(0));
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  get ui(): { preauthorizeApiKey(name: string, key: string): void } | undefined {
    return this.window.ui as never;
  }
}

const terminal = simTerminal();
t.teardown(() => terminal.close());

t.test('with a key: asked for, checked, kept for the tab, sent for the document and by Try it out', async (t) => {
  const s = await serve(t, nodeAdapter, terminal, { TRADEAPI_SECRET_KEY: 's3cret', TRADEAPI_ROUTER_PREFIX: '/api' });
  const code = await (await s.get('/api/docs/swagger-initializer.js')).text();
  const html = await (await s.get('/api/docs')).text();
  for (const id of ['tradeapi-key', 'tradeapi-key-message', 'tradeapi-key-input']) t.match(html, `id="${id}"`, `the page has #${id}`);
  const storage = new Map<string, string>();

  const page = new Page(s, code, storage);
  await page.load();
  t.same(page.fetches, [{ url: '/api/openapi.json', key: undefined }], 'the document is tried without a key first');
  t.equal(page.started.length, 0, 'Swagger UI does not start without the document');
  t.equal(page.elements.get('tradeapi-key')?.hidden, false, 'the key form is shown');
  t.match(page.elements.get('tradeapi-key-message')?.textContent, /needs an API key/);

  await page.submit('wrong');
  t.equal(page.started.length, 0, 'a wrong key opens nothing');
  t.match(page.elements.get('tradeapi-key-message')?.textContent, /refused/);
  t.equal(storage.size, 0, 'a refused key is not kept');

  await page.submit('s3cret');
  t.equal(page.started.length, 1, 'the right key starts Swagger UI');
  t.equal(page.elements.get('tradeapi-key')?.hidden, true, 'and hides the form');
  const options = page.started[0] as SwaggerOptions;
  t.equal(options.url, '/api/openapi.json');
  const specRequest = options.requestInterceptor({ loadSpec: true, headers: {} });
  t.same(specRequest.headers, { 'X-API-Key': 's3cret' }, 'the document is fetched with the key');
  const doc = await s.get(options.url, { headers: specRequest.headers });
  t.equal(doc.status, 200, 'which the server accepts');
  const scheme = ((await doc.json()) as { components: { securitySchemes: Record<string, unknown> } }).components.securitySchemes;
  t.same(options.requestInterceptor({ headers: {} }).headers, {}, 'other requests are left to the Authorize state');
  options.onComplete();
  t.same(page.preauthorized, [['ApiKey', 's3cret']], 'the ApiKey scheme is pre-authorised (Try it out sends the key)');
  t.ok(scheme.ApiKey, 'ApiKey is the name of the scheme in the document');
  t.same([...storage.values()], ['s3cret'], 'the key is kept in sessionStorage');

  const again = new Page(s, code, storage);
  await again.load();
  t.equal(again.started.length, 1, 'a reload in the same tab starts at once with the kept key');
  t.equal(again.elements.get('tradeapi-key')?.hidden, true, 'without showing the form');
});

t.test('without a key: Swagger UI starts at once', async (t) => {
  const s = await serve(t, nodeAdapter, terminal);
  const code = await (await s.get('/docs/swagger-initializer.js')).text();
  const page = new Page(s, code, new Map());
  await page.load();
  t.equal(page.started.length, 1);
  t.same(page.fetches, [], 'no extra request');
  t.same(page.started[0]?.requestInterceptor({ loadSpec: true, headers: {} }).headers, {}, 'no key sent');
  page.started[0]?.onComplete();
  t.same(page.preauthorized, [], 'nothing to authorise');
});
