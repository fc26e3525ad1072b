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
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TREES = ['src', 'bench'];

/** Every .ts file (not .d.ts) under dir, relative to root. */
function sources(dir) {
  if (!existsSync(path.join(root, dir))) return [];
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return sources(rel);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

function compiledIsFresh() {
  if (process.env.TRADEAPI_TEST_SOURCES === '1') return false;
  try {
    const files = TREES.flatMap(sources);
    if (files.length === 0) return false;
    let newestSource = 0;
    let oldestCompiled = Infinity;
    for (const file of files) {
      newestSource = Math.max(newestSource, statSync(path.join(root, file)).mtimeMs);
      oldestCompiled = Math.min(oldestCompiled, statSync(path.join(root, 'dist', file.replace(/\.ts$/, '.js'))).mtimeMs);
    }
    return oldestCompiled >= newestSource;
  } catch {
    return false; // a source without its compiled file: dist/ is older than the sources
  }
}

const fresh = compiledIsFresh();
const prefixes = TREES.map((dir) => pathToFileURL(path.join(root, dir)).href + '/');
const distUrl = pathToFileURL(path.join(root, 'dist')).href + '/';
const rootUrl = pathToFileURL(root).href + '/';

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!fresh || !resolved.url.endsWith('.ts') || !prefixes.some((p) => resolved.url.startsWith(p))) return resolved;
  return { ...resolved, url: distUrl + resolved.url.slice(rootUrl.length).replace(/\.ts$/, '.js'), format: 'module' };
}
