// Module hooks for the test files (registered by compiled-sources.js): an import that resolves to
// src/**/*.ts or bench/**/*.ts is served from what `tsc -p tsconfig.json` compiled of it
// (dist/src/**/*.js, dist/bench/**/*.js), when dist/ is the compiled form of the sources as they
// are now. tap's TypeScript loader (ts-node, transpiling each file as it loads) then only handles
// the test files and their helpers: loading the sources through it cost ~4 CPU seconds per test
// file (some 100 files per run), loading them compiled a fraction of one. The code under test is
// the same: dist/ is those sources compiled, and it is what `tradeapi` runs.
//
// Fresh means: every source file has its compiled file, and none is older than the newest source
// (tsc writes every output on each build). Otherwise, or with TRADEAPI_TEST_SOURCES=1, nothing is
// redirected and the sources load through the TypeScript loader as before (an edit not yet built).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { TREES, distIsFresh } from './dist-fresh.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const fresh = process.env.TRADEAPI_TEST_SOURCES !== '1' && distIsFresh(root);
const prefixes = TREES.map((dir) => pathToFileURL(path.join(root, dir)).href + '/');
const distUrl = pathToFileURL(path.join(root, 'dist')).href + '/';
const rootUrl = pathToFileURL(root).href + '/';

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!fresh || !resolved.url.endsWith('.ts') || !prefixes.some((p) => resolved.url.startsWith(p))) return resolved;
  return { ...resolved, url: distUrl + resolved.url.slice(rootUrl.length).replace(/\.ts$/, '.js'), format: 'module' };
}
