#!/usr/bin/env node
// The whole test suite, in the order that finds problems cheapest:
//   1. compile the addon from source with warnings as errors (incremental: `npm ci` already built it),
//      and the TypeScript; the test files are type-checked too (tap's loader does not type-check);
//   2. the C++ core's GoogleTest suite (and, with TRADEAPI_SANITIZE=1 or in CI, once more built with
//      AddressSanitizer + UBSan);
//   3. the tap suites (test/**/*.test.ts) against the real addon and real HTTP servers on loopback,
//      with TRADEAPI_TEST_PYTHON naming the Python of build/pyenv, a venv kept in step with
//      test/interop/requirements.txt (the Python clients of the interop test);
//   4. the bridge's Python suites (bridge/tests/run.sh), then schemathesis against the OpenAPI
//      documents of the full, prefixed+key and read-only servers;
//   5. in CI (or TRADEAPI_UWS_CHROOT=1, as root): the HTTP suites once more inside a Debian 13 root,
//      where uWebSockets.js loads;
//   6. in CI (or TRADEAPI_WINE=1): the gateway as a Windows program, under Wine (scripts/wine-test.js):
//      the mingw-w64 cross build, its C++ core tests, the HTTP suites with Windows node.exe on both
//      adapters, and a big Parquet pull from the Windows server.
// Prints one plain "N passed, N failed" line per stage and a total at the end.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import os from 'node:os';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const node = process.execPath;
const bin = (pkg, file) => path.join(root, 'node_modules', pkg, file);
const sanitize = process.env.TRADEAPI_SANITIZE === '1' || process.env.CI === 'true';
const jobs = String(Math.max(1, os.cpus().length));
const summary = [];

function run(label, cmd, args, opts = {}) {
  console.log(`\n=== ${label}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: opts.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit', encoding: 'utf8', env: { ...process.env, ...opts.env } });
  if (opts.capture) process.stdout.write(r.stdout ?? '');
  return { ok: r.status === 0, status: r.status, stdout: r.stdout ?? '' };
}

function fail(label) {
  console.log(`\n${label} failed`);
  printSummary();
  process.exit(1);
}

function printSummary() {
  let passed = 0, failed = 0;
  console.log('\n=== summary');
  for (const s of summary) {
    console.log(`${s.label}: ${s.passed} passed, ${s.failed} failed`);
    passed += s.passed;
    failed += s.failed;
  }
  console.log(`TOTAL: ${passed} passed, ${failed} failed`);
}

// 1. Builds.
if (!run('native addon', node, [bin('cmake-js', 'bin/cmake-js'), 'compile', '--CDTRADEAPI_WERROR=ON']).ok) fail('native build');
if (!run('typescript', node, [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json']).ok) fail('typescript build');
if (!run('typescript (tests)', node, [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.test.json']).ok) fail('typescript type-check of the tests');

// 2. C++ core tests.
function gtest(label, dir, extra) {
  if (!run(`${label} configure`, 'cmake', ['-S', '.', '-B', dir, '-G', 'Ninja', '-DTRADEAPI_CORE_TESTS=ON', '-DTRADEAPI_WERROR=ON', ...extra]).ok) fail(label);
  if (!run(`${label} build`, 'cmake', ['--build', dir, '-j', jobs]).ok) fail(label);
  const r = run(label, path.join(dir, 'tradeapi_core_tests'), ['--gtest_brief=1'], { capture: true });
  const passed = Number(/\[  PASSED  \] (\d+) test/.exec(r.stdout)?.[1] ?? 0);
  const failed = Number(/\[  FAILED  \] (\d+) test/.exec(r.stdout)?.[1] ?? (r.ok ? 0 : 1));
  summary.push({ label, passed, failed });
  if (!r.ok) fail(label);
}
gtest('C++ core (gtest)', 'build/core-tests', ['-DCMAKE_BUILD_TYPE=Release']);
if (sanitize) gtest('C++ core under ASan+UBSan', 'build/core-tests-asan', ['-DCMAKE_BUILD_TYPE=Debug', '-DTRADEAPI_SANITIZE=ON']);

// 2b. The addon itself under ASan+UBSan: an instrumented build in build/asan, loaded through
// TRADEAPI_ADDON with the sanitizer runtimes preloaded into node, for the suites that exercise
// the N-API layer directly (worker queue, cursors, external buffers, the Parquet writer).
if (sanitize) {
  const label = 'addon under ASan+UBSan (tap)';
  if (!run(`${label} build`, node, [bin('cmake-js', 'bin/cmake-js'), 'compile', '-O', 'build/asan', '--CDTRADEAPI_SANITIZE=ON', '--CDTRADEAPI_WERROR=ON', '--CDCMAKE_BUILD_TYPE=RelWithDebInfo']).ok) fail(label);
  const runtime = (lib) => spawnSync('gcc', [`-print-file-name=${lib}`], { encoding: 'utf8' }).stdout.trim();
  const r = run(label, node, [bin('tap', 'dist/esm/run.mjs'), '--reporter=tap', 'test/terminal', 'test/encode/parquet-native.test.ts'], {
    capture: true,
    env: {
      TRADEAPI_ADDON: path.join(root, 'build/asan/Release/tradeapi.node'),
      LD_PRELOAD: `${runtime('libasan.so')} ${runtime('libubsan.so')}`,
      ASAN_OPTIONS: 'detect_leaks=0', // node itself is not leak-clean; leaks are covered by the gtest run
      UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
    },
  });
  const c = /# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/.exec(r.stdout);
  summary.push({ label, passed: Number(c?.[2] ?? 0), failed: Number(c?.[3] ?? (r.ok ? 0 : 1)) });
  if (!r.ok) fail(label);
}

// 3a. The Python clients of test/interop/python.test.ts: a venv at build/pyenv, (re)installed only
// when test/interop/requirements.txt or the system python3 changed since the last install.
function pythonEnv() {
  const label = 'python venv (test/interop/requirements.txt)';
  const venv = path.join(root, 'build', 'pyenv');
  const python = path.join(venv, 'bin', 'python');
  const stamp = path.join(venv, '.tradeapi-requirements');
  const requirements = path.join(root, 'test', 'interop', 'requirements.txt');
  const version = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  if (version.status !== 0) {
    console.log(`\n${label}: python3 not found (${version.error?.message ?? version.stderr}); the interop test needs it`);
    fail(label);
  }
  const want = createHash('sha256').update(readFileSync(requirements)).update(version.stdout + version.stderr).digest('hex');
  const have = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
  if (have === want && existsSync(python)) return python;
  if (existsSync(venv)) rmSync(venv, { recursive: true, force: true });
  if (!run(`${label}: create`, 'python3', ['-m', 'venv', venv]).ok) fail(label);
  if (!run(`${label}: install`, python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', requirements]).ok) fail(label);
  writeFileSync(stamp, `${want}\n`);
  return python;
}
const testPython = pythonEnv();

// 3. tap.
const tap = run('tap', node, [bin('tap', 'dist/esm/run.mjs'), '--reporter=tap', ...process.argv.slice(2)], { capture: true, env: { TRADEAPI_TEST_PYTHON: testPython } });
const counts = /# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/.exec(tap.stdout);
let tapPassed = 0, tapFailed = 0;
if (counts) {
  tapPassed = Number(counts[2]);
  tapFailed = Number(counts[3] ?? 0);
} else {
  tapPassed = (tap.stdout.match(/^ok /gm) ?? []).length;
  tapFailed = (tap.stdout.match(/^not ok /gm) ?? []).length;
}
summary.push({ label: 'tap (TypeScript suites)', passed: tapPassed, failed: tapFailed + (tap.ok || tapFailed ? 0 : 1) });
if (!tap.ok) fail('tap');

// 3b. The bridge beside a real terminal (bridge/, Python): vermin --target=3.9 and its unittest suites
// (frames, the HMAC handshake, real bridge processes over the MetaTrader5 stand-in), in a venv it
// keeps at build/bridge-venv.
{
  const label = 'bridge (Python, over the MetaTrader5 stand-in)';
  const r = run(label, 'sh', [path.join(root, 'bridge', 'tests', 'run.sh')], { capture: true });
  const c = /(\d+) passed, (\d+) failed/.exec(r.stdout);
  summary.push({ label, passed: Number(c?.[1] ?? 0), failed: Number(c?.[2] ?? (r.ok ? 0 : 1)) });
  if (!r.ok) fail(label);
}

// 3c. Schemathesis against the three deployments' own OpenAPI documents (test/fuzz/run-schemathesis.sh,
// every operation, --checks all), with a bounded number of examples so that it fits the CI budget
// (TRADEAPI_FUZZ_EXAMPLES, default 25 per operation: ~2 min on 2 cores). Its venv is kept in
// build/fuzz-venv; reports and server logs go to build/fuzz.
{
  const label = 'schemathesis (full, prefixed+key, read-only)';
  const reports = path.join(root, 'build', 'fuzz');
  rmSync(reports, { recursive: true, force: true });
  const r = run(label, 'bash', [path.join(root, 'test', 'fuzz', 'run-schemathesis.sh')], {
    env: {
      ST_MAX_EXAMPLES: process.env.TRADEAPI_FUZZ_EXAMPLES ?? '25',
      ST_VENV: path.join(root, 'build', 'fuzz-venv'),
      ST_REPORT_DIR: reports,
      SKIP_BUILD: '1',
    },
  });
  let passed = 0;
  for (const name of ['full', 'prefixed', 'read-only']) {
    const log = path.join(reports, `schemathesis-${name}.log`);
    const m = existsSync(log) ? /(\d+) generated, (\d+) passed/.exec(readFileSync(log, 'utf8')) : null;
    passed += Number(m?.[2] ?? 0);
  }
  summary.push({ label, passed, failed: r.ok ? 0 : 1 });
  if (!r.ok) fail(label);
}

// The WebSocket suites: /ws is served by uWS's own WebSocket code there, by the ws package on node.
const WS_SUITES = ['test/events/ws.test.ts', 'test/events/ws-slow-consumer.test.ts'];

// 4. In CI (root on a glibc < 2.38 machine, where uWebSockets.js does not load): the HTTP suites
// once more inside a Debian 13 root, where it does, so that both adapters are tested. A root that
// cannot be built here (exit 3: no mirror, no mount permission) is reported as not run.
if (process.env.CI === 'true' || process.env.TRADEAPI_UWS_CHROOT === '1') {
  const label = 'HTTP suites in a Debian 13 root (node + uWebSockets.js)';
  const r = run(label, 'bash', [path.join(root, 'scripts', 'uws-chroot-test.sh'), 'test/http', 'test/readonly', 'test/hardening', ...WS_SUITES], { capture: true });
  if (r.status === 3) {
    console.log(`${label}: not run (the root could not be set up on this machine)`);
  } else {
    const c = /# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/.exec(r.stdout);
    summary.push({ label, passed: Number(c?.[2] ?? 0), failed: Number(c?.[3] ?? (r.ok ? 0 : 1)) });
    if (!r.ok) fail(label);
  }
}

// 5. In CI (or TRADEAPI_WINE=1): Windows node.exe under Wine, with the cross-built win32-x64 addon
// and uWebSockets.js's win32 binary (scripts/wine-test.js). Where Wine cannot start (exit 3: no
// wine64, no registry for node.exe, a prefix that does not boot) the stage is reported as not run.
if (process.env.CI === 'true' || process.env.TRADEAPI_WINE === '1') {
  const label = 'Windows node.exe under Wine';
  const r = run(label, node, [path.join(root, 'scripts', 'wine-test.js')], { capture: true });
  if (r.status === 3) {
    console.log(`${label}: ${/^wine: (not run: .*)$/m.exec(r.stdout)?.[1] ?? 'not run'}`);
  } else {
    const lines = [...r.stdout.matchAll(/^wine stage \| (.+): (\d+) passed, (\d+) failed$/gm)];
    for (const m of lines) summary.push({ label: `Wine: ${m[1]}`, passed: Number(m[2]), failed: Number(m[3]) });
    if (lines.length === 0) summary.push({ label, passed: 0, failed: 1 });
    if (!r.ok) fail(label);
  }
}

printSummary();
process.exit(0);
