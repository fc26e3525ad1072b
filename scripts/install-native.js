#!/usr/bin/env node
// npm install hook: use a prebuilt addon (prebuilds/<platform>-<arch>, found by node-gyp-build) when
// it was built from exactly these sources (prebuilds/SOURCE_HASH) and loads here; otherwise compile
// with cmake-js. TRADEAPI_BUILD_FROM_SOURCE=1 forces the compile.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { nativeSourceHash } from './native-source-hash.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

function usablePrebuild() {
  const stamp = path.join(root, 'prebuilds', 'SOURCE_HASH');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8').trim() !== nativeSourceHash(root)) return false;
  try {
    require('node-gyp-build')(root);
    return true;
  } catch {
    return false;
  }
}

if (process.env.TRADEAPI_BUILD_FROM_SOURCE !== '1' && usablePrebuild()) {
  console.log('tradeapi: using the prebuilt addon in prebuilds/');
  process.exit(0);
}
const cmakeJs = path.join(root, 'node_modules', 'cmake-js', 'bin', 'cmake-js');
const result = spawnSync(process.execPath, [cmakeJs, 'rebuild', '--CDTRADEAPI_WERROR=ON'], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
