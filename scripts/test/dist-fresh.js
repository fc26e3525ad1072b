// Whether dist/ is the compiled form of the sources as they are now: every source file has its
// compiled file, and none is older than the newest source (tsc writes every output on each build).
// Read by the test hooks (load src/ compiled while it is) and the build stage (compile only if not).
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The trees `tsc -p tsconfig.json` compiles into dist/. */
export const TREES = ['src', 'bench'];

/** Every .ts file (not .d.ts) under dir, relative to root. */
function sources(root, dir) {
  if (!existsSync(path.join(root, dir))) return [];
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return sources(root, rel);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Whether dist/ is the compiled form of src/ and bench/ as they are now. */
export function distIsFresh(root) {
  try {
    const files = TREES.flatMap((dir) => sources(root, dir));
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

