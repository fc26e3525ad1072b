// /openapi.json and /docs (Swagger UI served from swagger-ui-dist, no CDN), under the prefix.
//
// What is public: the page and its files (Swagger UI's own generic assets and our initializer),
// so that a browser can open /docs on a gateway with a key. They say nothing about the API but
// where its document is. The document itself (/openapi.json, every route and parameter) stays
// behind the key: the page asks for the key when the document answers 401, keeps it in the tab's
// sessionStorage, sends it for the document and pre-authorises Swagger's ApiKey scheme with it, so
// "Try it out" sends it too (Swagger's Authorize button changes or removes it).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { Type } from '@sinclair/typebox';

import { asyncApiDocument } from '../events/asyncapi.js';
import { openApiDocument, type OpenApiOptions } from '../http/openapi.js';
import { defineRoute, type Route } from '../http/route.js';
import { ProblemError } from '../http/problem.js';
import { responseExamples } from './examples.js';

const require = createRequire(import.meta.url);

// Only these files are served; the name is a lookup key, never a path on disk.
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'";

function assetDir(): string {
  // Its absolute-path module only, not the package's index: that one executes the 1.4 MB Swagger
  // UI bundle in Node (for browserish uses), ~0.15-0.7 s of CPU at every server start.
  const getAbsoluteFSPath = require('swagger-ui-dist/absolute-path.js') as () => string;
  return getAbsoluteFSPath();
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

export function docsRoutes(apiRoutes: readonly Route[], options: OpenApiOptions): Route[] {
  const { prefix } = options;
  // Built once, on first request (the examples are the simulator's answers, made then): the table
  // does not change while the server runs. Should the examples fail, the document goes without.
  let document: Promise<Uint8Array> | undefined;
  let asyncDocument: Uint8Array | undefined;
  const build = (services: Parameters<typeof responseExamples>[1]): Promise<Uint8Array> =>
    responseExamples(apiRoutes, services).then(
      (examples) => encode(JSON.stringify(openApiDocument(apiRoutes, options, examples.main, examples.named))),
      () => encode(JSON.stringify(openApiDocument(apiRoutes, options))),
    );
  const cache = new Map<string, Uint8Array>();
  const dir = assetDir();
  const asset = (name: string): Uint8Array => {
    let bytes = cache.get(name);
    if (!bytes) cache.set(name, (bytes = readFileSync(path.join(dir, name))));
    return bytes;
  };
  const page = encode(`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>tradeapi – API docs</title>
  <link rel="stylesheet" href="${prefix}/docs/swagger-ui.css">
  <link rel="stylesheet" href="${prefix}/docs/index.css">
  <link rel="icon" type="image/png" href="${prefix}/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <form id="tradeapi-key" hidden style="font-family: sans-serif; margin: 2em auto; max-width: 40em">
    <p id="tradeapi-key-message">This gateway needs an API key to show its description.</p>
    <label>X-API-Key <input id="tradeapi-key-input" type="password" autocomplete="off" size="40"></label>
    <button type="submit">Open the docs</button>
  </form>
  <div id="swagger-ui"></div>
  <script src="${prefix}/docs/swagger-ui-bundle.js"></script>
  <script src="${prefix}/docs/swagger-ui-standalone-preset.js"></script>
  <script src="${prefix}/docs/swagger-initializer.js"></script>
</body>
</html>
`);
  // Our own initializer: the shipped one points at a public petstore; validatorUrl null keeps the
  // page from calling out to swagger.io. With a key, see the note at the top of this file.
  const initializer = encode(swaggerInitializer(`${prefix}/openapi.json`, options.authRequired));

  return [
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      summary: 'This API description (OpenAPI 3.1)',
      tags: ['docs'],
      operational: false,
      hidden: true,
      response: { kind: 'bytes', description: 'OpenAPI document', contentType: 'application/json' },
      async handler({ subscriptions, config, events, metrics }) {
        document ??= build({ subscriptions, config, events, metrics });
        return { kind: 'bytes', contentType: 'application/json', body: await document };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/asyncapi.json',
      summary: 'The live events (AsyncAPI 3.0)',
      tags: ['docs'],
      operational: false,
      hidden: true,
      terminal: false,
      response: { kind: 'bytes', description: 'AsyncAPI document', contentType: 'application/json' },
      async handler() {
        asyncDocument ??= encode(JSON.stringify(asyncApiDocument({ prefix, version: options.version, readOnly: options.rateLimit !== undefined, authRequired: options.authRequired })));
        return { kind: 'bytes', contentType: 'application/json', body: asyncDocument };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/docs',
      summary: 'Interactive docs',
      tags: ['docs'],
      operational: false,
      hidden: true,
      public: true,
      response: { kind: 'bytes', description: 'Swagger UI', contentType: 'text/html' },
      async handler() {
        return { kind: 'bytes', contentType: 'text/html; charset=utf-8', body: page, headers: { 'content-security-policy': CSP } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/docs/{asset}',
      summary: 'Swagger UI files',
      tags: ['docs'],
      operational: false,
      hidden: true,
      public: true,
      params: { asset: Type.String({ maxLength: 64 }) },
      response: { kind: 'bytes', description: 'Static file', contentType: 'application/octet-stream' },
      async handler({ params }) {
        if (params.asset === 'swagger-initializer.js') {
          return { kind: 'bytes', contentType: 'text/javascript; charset=utf-8', body: initializer };
        }
        const type = Object.hasOwn(ASSETS, params.asset) ? ASSETS[params.asset] : undefined;
        if (!type) throw new ProblemError('notFound', `no docs file named ${JSON.stringify(params.asset)}`);
        return { kind: 'bytes', contentType: type, body: asset(params.asset), headers: { 'cache-control': 'public, max-age=86400' } };
      },
    }),
  ];
}

/** The key is kept per tab and per prefix (two gateways on one origin keep theirs apart). */
export function swaggerInitializer(documentUrl: string, authRequired: boolean): string {
  const url = JSON.stringify(documentUrl);
  return `(function () {
  'use strict';
  var url = ${url};
  var authRequired = ${authRequired ? 'true' : 'false'};
  var store = 'tradeapi-api-key:' + url;
  function start(key) {
    window.ui = SwaggerUIBundle({
      url: url,
      dom_id: '#swagger-ui',
      deepLinking: true,
      validatorUrl: null,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      plugins: [SwaggerUIBundle.plugins.DownloadUrl],
      layout: 'StandaloneLayout',
      // The document needs the key too; "Try it out" gets it from the pre-authorised scheme.
      requestInterceptor: function (req) {
        if (req.loadSpec && key) req.headers['X-API-Key'] = key;
        return req;
      },
      onComplete: function () {
        if (key) window.ui.preauthorizeApiKey('ApiKey', key);
      }
    });
  }
  function ask(message) {
    var form = document.getElementById('tradeapi-key');
    document.getElementById('tradeapi-key-message').textContent = message;
    form.hidden = false;
    document.getElementById('tradeapi-key-input').focus();
  }
  function check(key) {
    fetch(url, { headers: key ? { 'X-API-Key': key } : {} }).then(function (res) {
      if (res.status === 401) {
        sessionStorage.removeItem(store);
        ask(key ? 'That key was refused; try again.' : 'This gateway needs an API key to show its description.');
        return;
      }
      if (key) sessionStorage.setItem(store, key);
      document.getElementById('tradeapi-key').hidden = true;
      start(key);
    }, function () {
      start(key);
    });
  }
  window.onload = function () {
    if (!authRequired) return start('');
    document.getElementById('tradeapi-key').addEventListener('submit', function (event) {
      event.preventDefault();
      check(document.getElementById('tradeapi-key-input').value);
    });
    check(sessionStorage.getItem(store) || '');
  };
})();
`;
}
