#!/usr/bin/env node
// After `npm run build:prebuilds`: records which sources the prebuilds were compiled from.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { nativeSourceHash } from './native-source-hash.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
writeFileSync(path.join(root, 'prebuilds', 'SOURCE_HASH'), `${nativeSourceHash(root)}\n`);
