#!/usr/bin/env node
// npm install hook: use a binary that loads (build/Release or prebuilds/<platform>-<arch>, found by
// node-gyp-build), else compile the addon with cmake-js. Set TRADEAPI_BUILD_FROM_SOURCE=1 to force
// the compile (CI does, so that tests always run against the sources).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

function loads() {
  try {
    require('node-gyp-build')(root);
    return true;
  } catch {
    return false;
  }
}

if (process.env.TRADEAPI_BUILD_FROM_SOURCE !== '1' && loads()) process.exit(0);
const cmakeJs = path.join(root, 'node_modules', 'cmake-js', 'bin', 'cmake-js');
const result = spawnSync(process.execPath, [cmakeJs, 'rebuild', '--CDTRADEAPI_WERROR=ON'], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
