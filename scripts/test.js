#!/usr/bin/env node
// The test command. `npm test` runs the quick tier, `npm run test:all` (and any run with CI=true)
// the full one; scripts/test/stages.js says what each holds. Every stage runs and is reported, in
// one table at the end; the exit status is non-zero if any stage failed.
//
//   node scripts/test.js [--all] [--only STAGE[,STAGE…]]
//
// --only runs the named stages (by the start of their name: `--only addon,http`) after the build.
// Each stage's output is in build/test-logs/<stage>.log; a failing stage's end is printed.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { runStages } from './test/scheduler.js';
import { buildStages } from './test/stages.js';
import { stageTable } from './test/table.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const full = args.includes('--all') || process.env.CI === 'true' || process.env.TRADEAPI_TEST_TIER === 'full';
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? (args[onlyAt + 1] ?? '').split(',').filter((s) => s !== '') : undefined;
const unknown = args.filter((a, i) => a !== '--all' && a !== '--only' && !(onlyAt >= 0 && i === onlyAt + 1));
if (unknown.length) {
  console.error(`unknown arguments: ${unknown.join(' ')}\nusage: node scripts/test.js [--all] [--only STAGE[,STAGE…]]`);
  process.exit(2);
}

const logDir = path.join(root, 'build', 'test-logs');
rmSync(logDir, { recursive: true, force: true });
mkdirSync(logDir, { recursive: true });

const started = Date.now();
const tier = full ? 'full' : 'quick';
const stages = buildStages({ root, tier, only, logDir });
console.log(`tradeapi tests, ${tier} tier: ${stages.map((s) => s.name).join(', ')}\n(logs: ${path.relative(root, logDir)}/)`);
const results = await runStages(stages);
// .ci/run passes the seconds it spent installing packages, so that the table shows the whole run.
const setupS = Number(process.env.TRADEAPI_CI_SETUP_S ?? Number.NaN);
const setup = Number.isFinite(setupS) ? [{ name: 'setup (apt-get, npm ci)', status: 'passed', passed: 0, failed: 0, skipped: 0, ms: setupS * 1000, note: '.ci/run' }] : [];
console.log(`\n${stageTable([...setup, ...results], Date.now() - started + (setup.length ? setupS * 1000 : 0))}`);
process.exit(results.some((r) => r.status === 'failed') ? 1 : 0);
