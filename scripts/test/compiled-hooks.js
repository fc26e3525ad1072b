// Module hooks for the test files (registered by compiled-sources.js, `.taprc`'s node-arg). They
// are the suite's TypeScript loader: tap's own (ts-node) is switched off in .taprc, because loading
// it cost ~0.55 CPU-s in every test process before a line ran, and transpiling a file's helpers
// another second: ~1.5 CPU-s a file, some 150 files a quick tier, on a 2-core machine whose quick
// tier is CPU-bound (issue 35: ≤ 6 min idle).
//
// - An import that resolves to src/**/*.ts or bench/**/*.ts is served from what `tsc -p
//   tsconfig.json` compiled of it (dist/src/**/*.js, dist/bench/**/*.js) when dist/ is the compiled
//   form of the sources as they are now (every source has its compiled file, none is older than the
//   newest source). The code under test is the same: dist/ is what `tradeapi` runs.
// - Any other .ts file of the repository (the tests and their helpers, or src/ while dist/ is not
//   fresh or with TRADEAPI_TEST_SOURCES=1) is transpiled (TypeScript's transpileModule: no type
//   check, as tap's loader did; the build stage type-checks) and kept in build/ts-cache under the
//   hash of its text, so that each file is transpiled once per edit, not once per process. The
//   TypeScript compiler is loaded only on a miss (the build stage fills the cache first:
//   transpile-tests.js). Source maps are inline: stack traces name the .ts lines.
// - A relative import written with `.js` (as NodeNext has TypeScript files import each other) finds
//   the `.ts` file beside it, as ts-node did.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { TREES, distIsFresh } from './dist-fresh.js';
import { cachedPath, transpile } from './transpile.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const fresh = process.env.TRADEAPI_TEST_SOURCES !== '1' && distIsFresh(root);
const prefixes = TREES.map((dir) => pathToFileURL(path.join(root, dir)).href + '/');
const distUrl = pathToFileURL(path.join(root, 'dist')).href + '/';
const rootUrl = pathToFileURL(root).href + '/';
const ours = (url) => url.startsWith(rootUrl) && url.endsWith('.ts') && !url.endsWith('.d.ts') && !url.includes('/node_modules/');

export async function resolve(specifier, context, nextResolve) {
  let resolved;
  try {
    resolved = await nextResolve(specifier, context);
  } catch (e) {
    const relative = specifier.startsWith('./') || specifier.startsWith('../') || specifier.startsWith('file:');
    if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !relative || !specifier.endsWith('.js')) throw e;
    resolved = await nextResolve(`${specifier.slice(0, -3)}.ts`, context);
  }
  if (!ours(resolved.url)) return resolved;
  if (fresh && prefixes.some((p) => resolved.url.startsWith(p))) {
    return { ...resolved, url: distUrl + resolved.url.slice(rootUrl.length).replace(/\.ts$/, '.js'), format: 'module' };
  }
  return { ...resolved, format: 'module' };
}

export async function load(url, context, nextLoad) {
  if (!ours(url)) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const text = readFileSync(file, 'utf8');
  const cached = cachedPath(root, file, text);
  let source;
  try {
    source = readFileSync(cached, 'utf8');
  } catch {
    source = await transpile(file, text);
    try {
      mkdirSync(path.dirname(cached), { recursive: true });
      const part = `${cached}.${process.pid}-${threadId}.part`;
      writeFileSync(part, source);
      renameSync(part, cached); // whole or not at all: test files load side by side
    } catch {
      // a read-only tree: transpiled again next time
    }
  }
  return { format: 'module', source, shortCircuit: true };
}
