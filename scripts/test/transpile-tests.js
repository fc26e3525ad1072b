// Fills build/ts-cache (compiled-hooks.js) with every test file and helper before the tap stages
// start, in one process: otherwise the first test processes, side by side, each load the TypeScript
// compiler (~0.5 CPU-s) to transpile the same helpers.
//   node scripts/test/transpile-tests.js
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { cachedPath, transpile } from './transpile.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function tsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : tsFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

let made = 0;
const files = tsFiles(path.join(root, 'test'));
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const cached = cachedPath(root, file, text);
  if (existsSync(cached)) continue;
  mkdirSync(path.dirname(cached), { recursive: true });
  writeFileSync(cached, await transpile(file, text));
  made++;
}
console.log(`transpiled ${made} of ${files.length} test files (build/ts-cache)`);
