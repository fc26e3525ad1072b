// The test command's runner (scripts/test/): a command leaves nothing running behind it, however it
// ends (issue 35: an export a timed-out test file had started ran on for 13 minutes after the
// suite), and a stage that skips says why in the stage table.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import t from 'tap';

import { tapCounts } from '../../scripts/test/counts.js';
import { fileTimes, longestFirst } from '../../scripts/test/order.js';
import { runLogged } from '../../scripts/test/process.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-runner-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const log = path.join(dir, 'stage.log');

/** Whether `pid` is still a live process (a zombie waiting for its reaper counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

/** Resolves once `pid` has gone (the test's own time limit bounds the wait). */
async function gone(pid: number): Promise<void> {
  while (alive(pid)) await new Promise((r) => setTimeout(r, 20));
}

const posix = process.platform === 'linux';

t.test('a process a command left behind is killed when the command ends', { skip: posix ? false : 'reads /proc' }, async (t) => {
  // The shell starts a sleeper holding the output pipe and exits at once, as a test file whose
  // server outlives it would.
  const r = await runLogged(log, 'sh', ['-c', 'sleep 300 & echo $!']);
  t.equal(r.status, 0);
  const pid = Number(r.output.trim());
  t.ok(pid > 0, `the sleeper's pid (${pid})`);
  await gone(pid);
  t.notOk(alive(pid), 'the sleeper is gone');
  t.match(readFileSync(log, 'utf8'), /\$ sh -c sleep 300/, 'the command is in the log');
});

t.test("a command past its time limit is killed with its whole group", { skip: posix ? false : 'reads /proc' }, async (t) => {
  const marker = path.join(dir, 'sleeper.pid');
  const r = await runLogged(log, 'sh', ['-c', `sleep 301 & echo $! > ${marker}; wait`], { timeoutMs: 300 });
  t.not(r.status, 0, 'a failure');
  const pid = Number(readFileSync(marker, 'utf8').trim());
  await gone(pid);
  t.notOk(alive(pid), 'the sleeper is gone too');
  t.match(readFileSync(log, 'utf8'), /no end after 0 s: killed/);
});

t.test('a stage that skips says why in its note', async (t) => {
  const out = [
    '# Subtest: test/browser/console.test.ts',
    '    ok 1 - the console # SKIP no Chromium at /usr/bin/chromium (apt-get install chromium)',
    '    1..1',
    'ok 1 - test/browser/console.test.ts',
    '# Subtest: test/deploy/nginx.test.ts',
    '    ok 1 - behind nginx # SKIP nginx is not installed',
    '    ok 2 - a point that ran',
    '    1..2',
    'ok 2 - test/deploy/nginx.test.ts',
  ].join('\n');
  const c = tapCounts(out, true);
  t.same({ passed: c.passed, failed: c.failed, skipped: c.skipped }, { passed: 1, failed: 0, skipped: 2 });
  t.equal(c.note, 'skipped: no Chromium at /usr/bin/chromium (apt-get install chromium); nginx is not installed');
  t.equal(tapCounts('    ok 1 - a\nok 1 - f.test.ts', true).note, undefined, 'nothing skipped: no note');
});

t.test('a stage hands tap its longest files first', async (t) => {
  const files = ['test/a/one.test.ts', 'test/store/sync.test.ts', 'test/b/two.test.ts', 'test/hardening/shutdown.test.ts'];
  // With no earlier times: the known long files first, in their order, then the rest as given.
  t.same(longestFirst(files), ['test/hardening/shutdown.test.ts', 'test/store/sync.test.ts', 'test/a/one.test.ts', 'test/b/two.test.ts']);
  // Earlier times on this machine come first, longest first.
  const times = fileTimes(['ok 1 - test/b/two.test.ts # time=900.5ms', 'not ok 2 - test/a/one.test.ts # time=2000ms', '    ok 3 - nested # time=99999ms'].join('\n'));
  t.same([...times], [['test/b/two.test.ts', 900.5], ['test/a/one.test.ts', 2000]]);
  t.same(longestFirst(files, times), ['test/a/one.test.ts', 'test/b/two.test.ts', 'test/hardening/shutdown.test.ts', 'test/store/sync.test.ts']);
});
