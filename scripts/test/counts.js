// Passed / failed / skipped, read from each tool's own output. A tool that failed without saying
// what (a crash, a timeout) counts one failure, so that a red stage never shows 0 failed.

/**
 * tap's TAP output (`--reporter=tap`): the points directly under each test file (its subtests and
 * top-level assertions) are counted; a file skipped as a whole counts one skip; a file that failed
 * with no failing point (it crashed, or timed out) one failure.
 */
export function tapCounts(output, ok) {
  const c = { passed: 0, failed: 0, skipped: 0 };
  const reasons = new Set();
  let fileFailures = 0;
  let filePoints = 0;
  for (const line of output.split('\n')) {
    const point = /^    (not )?ok \d+ - .*?(?: # (SKIP|TODO)\b:? ?(.*))?$/.exec(line);
    if (point) {
      filePoints++;
      if (point[2]) {
        c.skipped++;
        if (point[2] === 'SKIP' && point[3]) reasons.add(point[3].trim());
      }
      else if (point[1]) { c.failed++; fileFailures++; }
      else c.passed++;
      continue;
    }
    const file = /^(not )?ok \d+ - (\S+)(?: # (SKIP|TODO)\b.*)?/.exec(line);
    if (file) {
      if (filePoints === 0 && file[3]) c.skipped++;
      else if (file[1] && fileFailures === 0) c.failed++;
      else if (filePoints === 0 && !file[1]) c.passed++;
      fileFailures = 0;
      filePoints = 0;
    }
  }
  if (!ok && c.failed === 0) c.failed = 1;
  // What was skipped and why, for the stage table (a stage that skipped everything must say so
  // there, not only in its log).
  if (reasons.size > 0) {
    const list = [...reasons];
    c.note = `skipped: ${list.slice(0, 2).join('; ')}${list.length > 2 ? ` (+${list.length - 2} more reasons in the log)` : ''}`;
  }
  return c;
}

/** GoogleTest (`--gtest_brief=1` still prints the closing PASSED / FAILED / SKIPPED lines). */
export function gtestCounts(output, ok) {
  const n = (re) => Number(re.exec(output)?.[1] ?? 0);
  const c = { passed: n(/\[  PASSED  \] (\d+) test/), failed: n(/\[  FAILED  \] (\d+) test/), skipped: n(/\[  SKIPPED \] (\d+) test/) };
  if (!ok && c.failed === 0) c.failed = 1;
  return c;
}

/** A "N passed, N failed[, N skipped]" line (bridge/tests/run.sh, the Wine stage's summary). */
export function plainCounts(output, ok) {
  const all = [...output.matchAll(/(\d+) passed, (\d+) failed(?:, (\d+) skipped)?/g)];
  const m = all[all.length - 1];
  const c = { passed: Number(m?.[1] ?? 0), failed: Number(m?.[2] ?? 0), skipped: Number(m?.[3] ?? 0) };
  if (!ok && c.failed === 0) c.failed = 1;
  return c;
}
