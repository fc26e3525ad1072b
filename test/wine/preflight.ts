// Run by scripts/wine-test.js with Windows node.exe under Wine, in build/wine-tree, before the
// suites: fails (exit 1) unless this is win32, node-gyp-build resolves the addon to the win32-x64
// prebuild (what a Windows user without a compiler gets), a simulated terminal answers through it,
// and uWebSockets.js loads, so that the suites really run on both adapters.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { availableAdapters } from '../../src/http/adapters/index.js';
import { loadUws } from '../../src/http/adapters/uws/adapter.js';
import { openSimTerminal } from '../../src/terminal/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const problems: string[] = [];
const check = (ok: boolean, what: string): void => {
  console.log(`${ok ? 'ok' : 'FAILED'}: ${what}`);
  if (!ok) problems.push(what);
};

check(process.platform === 'win32' && process.arch === 'x64', `platform ${process.platform}-${process.arch}, node ${process.version}`);
check(process.env.TRADEAPI_ADDON === undefined, 'TRADEAPI_ADDON is not set (the addon comes from node-gyp-build)');
const gypBuild = createRequire(import.meta.url)('node-gyp-build') as { path(dir: string): string };
const resolved = gypBuild.path(root);
check(path.relative(root, resolved) === path.join('prebuilds', 'win32-x64', 'tradeapi.node'), `node-gyp-build resolves ${resolved}`);

const terminal = openSimTerminal({ nowMs: Date.UTC(2024, 0, 10, 12), seed: 42 });
try {
  const tick = await terminal.symbolInfoTick('EURUSD');
  check(tick.bid > 0 && tick.ask > tick.bid, `the simulated terminal answers (EURUSD ${tick.bid}/${tick.ask})`);
} finally {
  await terminal.close();
}

const uws = loadUws();
check('module' in uws, `uWebSockets.js loads${'error' in uws ? `: ${uws.error}` : ''}`);
const adapters = availableAdapters().map((a) => a.name);
check(adapters.includes('node') && adapters.includes('uws'), `adapters: ${adapters.join(', ')}`);

process.exitCode = problems.length === 0 ? 0 : 1;
