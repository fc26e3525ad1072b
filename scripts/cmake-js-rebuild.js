#!/usr/bin/env node
// prebuildify drives node-gyp; this stands in for it (`prebuildify --node-gyp scripts/cmake-js-rebuild.js`)
// so that prebuilds are compiled by cmake-js like every other build.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cmakeJs = path.join(root, 'node_modules', 'cmake-js', 'bin', 'cmake-js');
const result = spawnSync(process.execPath, [cmakeJs, 'rebuild', '--CDTRADEAPI_WERROR=ON'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
