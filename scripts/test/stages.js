// The stages of the test command and the tier each belongs to.
//
//   quick (`npm test`): the builds, the addon's suites, the HTTP suites on the one adapter that
//     serves here, the bridge (Python and TypeScript), interop (pandas, pyarrow, DuckDB, polars),
//     the browser and deploy suites (each skips with its reason where its program is missing), a
//     short schemathesis pass. The C++ core tests run only when the addon's sources differ from the
//     prebuild's (prebuilds/SOURCE_HASH): otherwise CI already ran them on exactly these sources.
//   full (`npm run test:all`, CI=true): all of that, the HTTP suites on the other adapter too
//     (uWebSockets.js natively where it loads, else in a Debian 13 root), the long runs (a 20 M-tick
//     pull with bounded memory), the C++ core and the addon under ASan+UBSan, schemathesis at depth,
//     and the gateway as a Windows program under Wine.
//
// Lanes run side by side: "tap" holds the TypeScript suites, "aux" the Python, fuzzing and
// foreign-platform stages, which mostly wait on other processes (and, in the quick tier, the
// browser and deploy suites, which wait on Chromium, nginx and Redis).
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

import { nativeSourceHash } from '../native-source-hash.js';
import { gtestCounts, plainCounts, tapCounts } from './counts.js';
import { distIsFresh } from './dist-fresh.js';
import { fileTimes, longestFirst } from './order.js';
import { runLogged, tail } from './process.js';

const require = createRequire(import.meta.url);
const MIN = 60_000;

/** Test files that only the full tier runs: long load runs, measured in minutes, not seconds. */
export const FULL_TIER_FILES = ['test/http/bigpull.test.ts'];

/**
 * The export command end to end (each file starts `tradeapi export` a dozen times and exports up to
 * a month of ticks to have something to interrupt: ~2.5 min of CPU together, the quick tier's
 * largest block). Only the full tier runs them, on the first adapter's stage and the weekend clock:
 * they speak no HTTP. The quick tier keeps export's argument checks (export-args.test.ts).
 */
export const FULL_TIER_EXPORT_FILES = ['test/cli/export.test.ts', 'test/cli/export-target.test.ts', 'test/cli/export-signals.test.ts', 'test/cli/export-empty.test.ts'];

/**
 * Which tap stage owns each test file (first match wins). Every *.test.ts must belong to one:
 * the runner refuses to start otherwise, so that a new suite is never silently left out.
 */
const TAP_OWNERS = [
  ['bridge', /^test\/(bridge\/|events\/(ws-|replay-)?bridge\.test\.ts$)/],
  ['addon', /^test\/(terminal|encode)\//],
  // examples.test.ts runs examples/ with the venv that the interop stage makes from exactly
  // examples/requirements.txt (in the HTTP stage it would find no such venv on a first run, and skip).
  ['interop', /^test\/(interop\/|examples\/examples\.test\.ts$)/],
  ['browser', /^test\/browser\//],
  ['deploy', /^test\/deploy\//],
  ['http', /^test\/(http|readonly|hardening|events|metrics|cli|examples|bench|house|store|mcp)\//],
];

/** The HTTP suites that the second adapter stage runs (the adapter-independent rest ran once already). */
const ADAPTER_SUITES = ['test/http', 'test/readonly', 'test/hardening', 'test/events/ws.test.ts', 'test/events/ws-slow-consumer.test.ts', 'test/events/sse.test.ts', 'test/events/replay.test.ts', 'test/events/ws-replay.test.ts', 'test/mcp/mcp.test.ts', 'test/mcp/protocol.test.ts'];

/** The suites that wait for live ticks or read the wall clock: the weekend-clock stage runs them on a Saturday. */
const WEEKEND_FILES = [/^test\/events\/(sse|ws|tick-feed|slow-consumer|ws-slow-consumer)\.test\.ts$/, /^test\/examples\/tour\.test\.ts$/, /^test\/cli\/export\.test\.ts$/, /^test\/metrics\//];

/** The times of earlier runs on this machine (build/test-times.json), plus this run's. */
function timesStore(file) {
  let known = {};
  try {
    known = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // none yet (a fresh clone), or unreadable: LONGEST_FILES alone orders
  }
  return {
    get: () => new Map(Object.entries(known).filter(([, v]) => typeof v === 'number')),
    add(times) {
      for (const [f, ms] of times) known[f] = Math.round(ms);
      try {
        writeFileSync(file, JSON.stringify(known, null, 1));
      } catch {
        // an ordering hint only
      }
    },
  };
}

export function testFiles(root) {
  const walk = (dir) => readdirSync(dir).sort().flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : name.endsWith('.test.ts') ? [path.relative(root, full).split(path.sep).join('/')] : [];
  });
  return walk(path.join(root, 'test'));
}

export function ownerOf(file) {
  return TAP_OWNERS.find(([, re]) => re.test(file))?.[0];
}

/**
 * @param {{ root: string, tier: 'quick'|'full', only: string[]|undefined, logDir: string }} ctx
 * @returns the stages to run, in table order
 */
export function buildStages(ctx) {
  const { root, tier, logDir } = ctx;
  const full = tier === 'full';
  const node = process.execPath;
  const bin = (pkg, file) => path.join(root, 'node_modules', pkg, file);
  const jobs = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  // tap files mostly wait (timers, sockets, child servers): twice the cores keeps both cores busy.
  const tapJobs = String(Number(process.env.TRADEAPI_TAP_JOBS ?? jobs * 2));
  const env = {}; // filled by the build stage (TRADEAPI_ADDON), read by the others
  const times = timesStore(path.join(root, 'build', 'test-times.json'));
  const log = (name) => path.join(logDir, `${name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase()}.log`);

  const files = testFiles(root);
  const byOwner = new Map();
  for (const f of files) {
    if (!full && (FULL_TIER_FILES.includes(f) || FULL_TIER_EXPORT_FILES.includes(f))) continue;
    const owner = ownerOf(f);
    if (owner === undefined) throw new Error(`${f} belongs to no stage: add it to TAP_OWNERS in scripts/test/stages.js`);
    byOwner.set(owner, [...(byOwner.get(owner) ?? []), f]);
  }

  const uwsHere = uwsLoads(root);
  const sourcesMatchPrebuild = prebuildMatches(root);

  async function tap(name, tapFiles, extraEnv = {}) {
    if (tapFiles.length === 0) return { notRun: 'no test files' };
    const ordered = longestFirst(tapFiles, times.get());
    const r = await runLogged(log(name), node, [bin('tap', 'dist/esm/run.mjs'), '--reporter=tap', `--jobs=${tapJobs}`, ...ordered], { cwd: root, env: { ...env, ...extraEnv }, timeoutMs: 30 * MIN });
    times.add(fileTimes(r.output));
    return tapCounts(r.output, r.status === 0);
  }

  async function steps(name, list) {
    // Each step: [label, cmd, args, opts]; stops at the first that fails.
    let passed = 0;
    for (const [label, cmd, args, opts] of list) {
      const r = await runLogged(log(name), cmd, args, { cwd: root, env, ...opts });
      if (r.status !== 0) return { passed, failed: 1, note: `${label} failed` };
      passed++;
    }
    return { passed, failed: 0 };
  }

  async function gtest(name, dir, extra) {
    const built = await steps(name, [
      ['configure', 'cmake', ['-S', '.', '-B', dir, '-G', 'Ninja', '-DTRADEAPI_CORE_TESTS=ON', '-DTRADEAPI_WERROR=ON', ...extra]],
      ['build', 'cmake', ['--build', dir, '-j', String(jobs), '--target', 'tradeapi_core_tests']],
    ]);
    if (built.failed) return built;
    const r = await runLogged(log(name), path.join(root, dir, 'tradeapi_core_tests'), ['--gtest_brief=1'], { cwd: root, timeoutMs: 20 * MIN });
    return gtestCounts(r.output, r.status === 0);
  }

  const adapterName = uwsHere ? 'uWS' : 'node';
  /** Whether a selected stage reads build/pyenv (set once the stages are chosen, below). */
  let pyenvWanted = false;
  const stages = [
    {
      name: 'build',
      lane: 'tap',
      async run() {
        const list = [];
        if (sourcesMatchPrebuild && process.env.TRADEAPI_BUILD_FROM_SOURCE !== '1') {
          env.TRADEAPI_ADDON = path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'tradeapi.node');
        } else {
          list.push(['addon (cmake-js, warnings as errors)', node, [bin('cmake-js', 'bin/cmake-js'), 'compile', '--CDTRADEAPI_WERROR=ON']]);
          env.TRADEAPI_ADDON = path.join(root, 'build', 'Release', 'tradeapi.node');
        }
        let r = await steps('build', list);
        if (!r.failed) {
          // The compilations side by side: each keeps a core busy, and no other stage runs before
          // the build is done. The type-check's and the loader's output join the build log at the end.
          // dist/ compiled from these very sources already (npm ci's `prepare` did it) is not
          // compiled again: the type-check covers src/ and bench/ as well as the tests.
          const typesLog = log('build (types)');
          const loaderLog = log('build (loader)');
          const emitted = distIsFresh(root);
          if (emitted) appendFileSync(log('build'), 'TypeScript: dist/ is the compiled form of the sources as they are (not compiled again)\n');
          const [emit, types, loader] = await Promise.all([
            emitted ? { passed: 0, failed: 0 } : steps('build', [['TypeScript', node, [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json']]]),
            steps('build (types)', [['type-check of the tests', node, [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.test.json']]]),
            // The test loader's ground: tap's Test class built with .taprc's plugins (tap would
            // rebuild it from every stage's runner at once, racing), and the tests transpiled once
            // into build/ts-cache (scripts/test/compiled-hooks.js) instead of in each test process.
            steps('build (loader)', [
              ['tap built with the plugins .taprc lists', node, [bin('tap', 'dist/esm/run.mjs'), 'build']],
              ['tests transpiled', node, [path.join(root, 'scripts', 'test', 'transpile-tests.js')]],
            ]),
          ]);
          for (const part of [typesLog, loaderLog]) {
            appendFileSync(log('build'), readFileSync(part, 'utf8'));
            rmSync(part, { force: true });
          }
          r = emit.failed ? emit : types.failed ? types : loader.failed ? loader : { passed: r.passed + 4, failed: 0 };
        }
        // The interop clients' venv (pandas, pyarrow, DuckDB, polars), started now beside the
        // stages that do not need it, so that neither the addon's stage nor interop waits on pip.
        if (!r.failed && pyenvWanted) void sharedPythonEnv(root, log('python env'));
        if (!r.failed) r.note = sourcesMatchPrebuild ? `addon: the prebuild (${path.relative(root, env.TRADEAPI_ADDON)}, same sources)` : 'addon: compiled (sources differ from the prebuild)';
        return r;
      },
    },
    {
      name: 'C++ core',
      lane: 'tap',
      after: ['build'],
      skipReason: !full && sourcesMatchPrebuild && process.env.TRADEAPI_CORE_TESTS !== '1'
        ? 'the addon sources are the prebuild\'s, which CI tested (TRADEAPI_CORE_TESTS=1 or npm run test:all runs them)'
        : undefined,
      run: () => gtest('C++ core', 'build/core-tests', ['-DCMAKE_BUILD_TYPE=Release']),
    },
    {
      // The largest block of CPU starts first, while pip fills build/pyenv.
      name: `HTTP (${adapterName})`,
      lane: 'tap',
      after: ['build'],
      run: () => tap(`HTTP (${adapterName})`, byOwner.get('http') ?? [], { TRADEAPI_TEST_ADAPTERS: uwsHere ? 'uws' : 'node' }),
    },
    {
      name: 'bridge',
      lane: 'aux',
      after: ['build'],
      async run() {
        const py = await runLogged(log('bridge'), 'sh', [path.join(root, 'bridge', 'tests', 'run.sh')], { cwd: root, timeoutMs: 20 * MIN });
        const a = plainCounts(py.output, py.status === 0);
        const b = await tap('bridge', byOwner.get('bridge') ?? []);
        return { passed: a.passed + (b.passed ?? 0), failed: a.failed + (b.failed ?? 0), skipped: a.skipped + (b.skipped ?? 0), note: 'Python suites + TypeScript client' };
      },
    },
    {
      // clients/python: tradeapi_client.mt5 against the MetaTrader5 stand-in through bridge + gateway
      // (parity), against the simulator at a frozen weekday clock, the README's "From Python"; vermin
      // --target=3.9-, and `pip install ./clients/python` pulling in numpy only. ~30 s.
      name: 'Python client',
      lane: 'aux',
      after: ['build'],
      async run() {
        const r = await runLogged(log('Python client'), 'sh', [path.join(root, 'clients', 'python', 'tests', 'run.sh')], { cwd: root, env, timeoutMs: 10 * MIN });
        return { ...plainCounts(r.output, r.status === 0), note: 'parity with the MetaTrader5 stand-in, simulator, README' };
      },
    },
    {
      name: 'addon',
      // Quick tier: beside the HTTP stage, which alone is the tap lane's length. Full tier: the aux
      // lane carries the second adapter, the weekend clock and Wine, so it stays in the tap lane.
      lane: full ? 'tap' : 'aux',
      after: ['build'],
      usesPythonEnv: true,
      async run() {
        // Its Parquet tests read back with pyarrow: build/pyenv, started after the build (it runs
        // after the bridge and Python client stages so that, from a fresh clone, pip has finished
        const python = await sharedPythonEnv(root, log('addon'));
        return tap('addon', byOwner.get('addon') ?? [], python.error ? {} : { TRADEAPI_TEST_PYTHON: python.path });
      },
    },
    {
      name: 'interop',
      lane: 'aux',
      after: ['build'],
      usesPythonEnv: true,
      async run() {
        const python = await sharedPythonEnv(root, log('interop'));
        if (python.error) return { failed: 1, note: python.error };
        return tap('interop', byOwner.get('interop') ?? [], { TRADEAPI_TEST_PYTHON: python.path });
      },
    },
    {
      name: 'fuzz',
      lane: 'aux',
      after: ['build'],
      async run() {
        const examples = process.env.TRADEAPI_FUZZ_EXAMPLES ?? (full ? '25' : '5');
        const reports = path.join(root, 'build', 'fuzz');
        rmSync(reports, { recursive: true, force: true });
        const r = await runLogged(log('fuzz'), 'bash', [path.join(root, 'test', 'fuzz', 'run-schemathesis.sh')], {
          cwd: root,
          env: { ...env, ST_MAX_EXAMPLES: examples, ST_PHASES: full ? 'examples,coverage,fuzzing' : 'examples,fuzzing', ST_VENV: path.join(root, 'build', 'fuzz-venv'), ST_REPORT_DIR: reports, SKIP_BUILD: '1' },
          timeoutMs: 25 * MIN,
        });
        let passed = 0;
        let failed = 0;
        for (const name of ['full', 'prefixed', 'read-only']) {
          const file = path.join(reports, `schemathesis-${name}.log`);
          const m = existsSync(file) ? /(\d+) generated, (\d+) passed(?:, (\d+) failed)?/.exec(readFileSync(file, 'utf8')) : null;
          passed += Number(m?.[2] ?? 0);
          failed += Number(m?.[3] ?? 0);
        }
        if (r.status !== 0 && failed === 0) failed = 1;
        return { passed, failed, note: `${examples} examples per operation${full ? '' : ', no coverage phase'}, 3 deployments` };
      },
    },
  ];

  // Chromium's and nginx/Redis's suites mostly wait on those programs. In the quick tier they have a
  // lane of their own beside the two busy ones (after the aux lane's stages they made it the longer
  // one); in the full tier the aux lane holds Wine, the longest, and they go on the tap lane.
  const waitingLane = full ? 'tap' : 'waiting';
  stages.push(
    { name: 'browser', lane: waitingLane, after: ['build'], run: () => tap('browser', byOwner.get('browser') ?? []) },
    { name: 'deploy (nginx, Redis)', lane: waitingLane, after: ['build'], run: () => tap('deploy (nginx, Redis)', byOwner.get('deploy') ?? []) },
  );

  if (full) {
    const other = uwsHere ? 'node' : 'uWS';
    stages.push(
      {
        name: `HTTP (${other})`,
        lane: 'aux',
        after: ['build'],
        async run() {
          // As files: tap finds no .ts file in a directory with its TypeScript plugin off (.taprc).
          const suites = files.filter((f) => [...ADAPTER_SUITES, ...FULL_TIER_FILES].some((s) => f === s || f.startsWith(`${s}/`)));
          if (other === 'node' || uwsHere) return tap(`HTTP (${other})`, suites, { TRADEAPI_TEST_ADAPTERS: other === 'node' ? 'node' : 'uws' });
          // uWebSockets.js needs glibc >= 2.38: a Debian 13 root (exit 3: it cannot be built here).
          const r = await runLogged(log(`HTTP (${other})`), 'bash', [path.join(root, 'scripts', 'uws-chroot-test.sh'), '--reporter=tap', `--jobs=${tapJobs}`, ...suites], {
            cwd: root,
            env: { ...env, TRADEAPI_TEST_ADAPTERS: 'uws' },
            timeoutMs: 35 * MIN,
          });
          if (r.status === 3) return { notRun: 'no Debian 13 root here (needs root, debootstrap and a Debian mirror; uWebSockets.js needs glibc >= 2.38)' };
          return { ...tapCounts(r.output, r.status === 0), note: 'in a Debian 13 root' };
        },
      },
      {
        // The suites that watch live ticks, again with node's clock on a Saturday (libfaketime,
        // scripts/clock/on.sh): FX is closed then, so a test that leans on an open market fails here
        // on every CI run, not only on the weekends someone happens to run it.
        name: 'weekend clock',
        lane: 'aux',
        after: ['build'],
        async run() {
          const lib = process.env.TRADEAPI_FAKETIME_LIB ?? '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
          if (!existsSync(lib)) return { notRun: 'libfaketime is not installed (Debian: apt-get install faketime)' };
          const live = files.filter((f) => WEEKEND_FILES.some((re) => re.test(f)));
          const r = await runLogged(log('weekend clock'), path.join(root, 'scripts', 'clock', 'on.sh'), ['saturday', node, bin('tap', 'dist/esm/run.mjs'), '--reporter=tap', `--jobs=${tapJobs}`, ...live], {
            cwd: root,
            env: { ...env, TRADEAPI_TEST_ADAPTERS: uwsHere ? 'uws' : 'node' },
            timeoutMs: 20 * MIN,
          });
          return { ...tapCounts(r.output, r.status === 0), note: `${live.length} live-data suites, node's clock on the next Saturday` };
        },
      },
      {
        name: 'C++ core (ASan+UBSan)',
        lane: 'tap',
        after: ['build'],
        run: () => gtest('C++ core (ASan+UBSan)', 'build/core-tests-asan', ['-DCMAKE_BUILD_TYPE=Debug', '-DTRADEAPI_SANITIZE=ON']),
      },
      {
        name: 'addon (ASan+UBSan)',
        lane: 'tap',
        after: ['build'],
        async run() {
          const name = 'addon (ASan+UBSan)';
          const built = await steps(name, [['instrumented build', node, [bin('cmake-js', 'bin/cmake-js'), 'compile', '-O', 'build/asan', '--CDTRADEAPI_SANITIZE=ON', '--CDTRADEAPI_WERROR=ON', '--CDCMAKE_BUILD_TYPE=RelWithDebInfo']]]);
          if (built.failed) return built;
          const runtime = async (lib) => (await runLogged(log(name), 'gcc', [`-print-file-name=${lib}`], {})).output.trim();
          return tap(name, [...(byOwner.get('addon') ?? [])], {
            TRADEAPI_ADDON: path.join(root, 'build/asan/Release/tradeapi.node'),
            LD_PRELOAD: `${await runtime('libasan.so')} ${await runtime('libubsan.so')}`,
            ASAN_OPTIONS: 'detect_leaks=0', // node itself is not leak-clean; the gtest run covers leaks
            UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
          });
        },
      },
      {
        name: 'Windows (Wine)',
        lane: 'aux',
        after: ['build'],
        async run() {
          const r = await runLogged(log('Windows (Wine)'), node, [path.join(root, 'scripts', 'wine-test.js')], { cwd: root, timeoutMs: 40 * MIN });
          if (r.status === 3) return { notRun: /^wine: not run: (.*)$/m.exec(r.output)?.[1] ?? 'Wine cannot start here' };
          const lines = [...r.output.matchAll(/^wine stage \| (.+): (\d+) passed, (\d+) failed$/gm)];
          const c = { passed: 0, failed: 0, skipped: 0 };
          for (const m of lines) { c.passed += Number(m[2]); c.failed += Number(m[3]); }
          if (r.status !== 0 && c.failed === 0) c.failed = 1;
          return { ...c, note: 'node.exe, both adapters' };
        },
      },
    );
  }

  for (const s of stages) s.onFailure = () => {
    console.log(`\n--- ${s.name}: the end of ${path.relative(root, log(s.name))} ---`);
    const text = tail(log(s.name), 60);
    console.log(text);
    const failures = readFileSync(log(s.name), 'utf8').split('\n').filter((l) => /^\s*not ok /.test(l)).slice(0, 40);
    if (failures.length) console.log(`--- failing tests ---\n${failures.join('\n')}`);
    console.log('---');
  };
  const wanted = ctx.only;
  const selected = wanted ? stages.filter((s) => s.name === 'build' || wanted.some((w) => s.name.toLowerCase().startsWith(w.toLowerCase()))) : stages;
  pyenvWanted = selected.some((s) => s.usesPythonEnv);
  return selected;
}

function prebuildMatches(root) {
  const stamp = path.join(root, 'prebuilds', 'SOURCE_HASH');
  const file = path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'tradeapi.node');
  if (!existsSync(stamp) || !existsSync(file)) return false;
  if (readFileSync(stamp, 'utf8').trim() !== nativeSourceHash(root)) return false;
  try {
    require(file);
    return true;
  } catch {
    return false;
  }
}

function uwsLoads(root) {
  try {
    require(path.join(root, 'node_modules', 'uWebSockets.js'));
    return true;
  } catch {
    return false;
  }
}

/**
 * The Python clients of the interop test and of examples/: a venv at build/pyenv made from exactly
 * examples/requirements.txt, what a user of the examples installs (test/interop/requirements.txt
 * only points there), (re)installed only when that file or the system python3 changed.
 */
/** build/pyenv, built once per run however many stages ask (two builds at once would remove each other's). */
let pyenvOnce;
function sharedPythonEnv(root, log) {
  pyenvOnce ??= pythonEnv(root, log);
  return pyenvOnce;
}

async function pythonEnv(root, log) {
  const venv = path.join(root, 'build', 'pyenv');
  const python = path.join(venv, 'bin', 'python');
  const stamp = path.join(venv, '.tradeapi-requirements');
  const requirements = path.join(root, 'examples', 'requirements.txt');
  const version = await runLogged(log, 'python3', ['--version'], {});
  if (version.status !== 0) return { error: 'python3 not found (Debian: apt-get install python3-venv)' };
  const want = createHash('sha256').update(readFileSync(requirements)).update(version.output).digest('hex');
  const have = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
  if (have === want && existsSync(python)) return { path: python };
  rmSync(venv, { recursive: true, force: true });
  mkdirSync(path.dirname(venv), { recursive: true });
  if ((await runLogged(log, 'python3', ['-m', 'venv', venv], {})).status !== 0) return { error: 'python3 -m venv failed (Debian: apt-get install python3-venv)' };
  if ((await runLogged(log, python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', requirements], {})).status !== 0) return { error: 'pip install -r examples/requirements.txt failed' };
  writeFileSync(stamp, `${want}\n`);
  return { path: python };
}
