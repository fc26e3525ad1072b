// Runs the stages: each lane runs its stages one after another, the lanes side by side (the
// machine has two cores; a lane of Python and fuzzing beside a lane of tap suites keeps both busy).
// A stage starts once its `after` stages are done; if one of those did not pass it is "not run".
// A stage's own failure never stops another lane, nor the next stage of its lane.

/** @returns results in the stages' order: { name, status: 'passed'|'failed'|'not run', passed, failed, skipped, ms, note } */
export async function runStages(stages, { log = console.log } = {}) {
  const results = new Map();
  const done = new Map(stages.map((s) => [s.name, deferred()]));
  const lanes = [...new Set(stages.map((s) => s.lane))];
  await Promise.all(lanes.map(async (lane) => {
    for (const stage of stages.filter((s) => s.lane === lane)) {
      const before = await Promise.all((stage.after ?? []).map((name) => done.get(name)?.promise ?? Promise.resolve(undefined)));
      const blocker = before.find((r) => r !== undefined && r.status !== 'passed');
      let result;
      if (blocker) {
        result = notRun(stage, `${blocker.name} ${blocker.status === 'failed' ? 'failed' : 'did not run'}`);
      } else if (stage.skipReason) {
        result = notRun(stage, stage.skipReason);
      } else {
        log(`▶ ${stage.name}`);
        const started = Date.now();
        let r;
        try {
          r = await stage.run();
        } catch (e) {
          r = { failed: 1, note: `runner error: ${e instanceof Error ? e.message : String(e)}` };
        }
        const ms = Date.now() - started;
        const status = r.notRun ? 'not run' : r.failed > 0 ? 'failed' : 'passed';
        result = { name: stage.name, status, passed: r.passed ?? 0, failed: r.failed ?? 0, skipped: r.skipped ?? 0, ms, note: r.notRun ? `not run: ${r.notRun}` : (r.note ?? '') };
        log(`${status === 'passed' ? '✔' : status === 'failed' ? '✘' : '–'} ${stage.name} (${(ms / 1000).toFixed(0)} s${status === 'not run' ? `, ${result.note}` : ''})`);
        if (status === 'failed' && stage.onFailure) stage.onFailure();
      }
      results.set(stage.name, result);
      done.get(stage.name).resolve(result);
    }
  }));
  return stages.map((s) => results.get(s.name));
}

function notRun(stage, reason) {
  return { name: stage.name, status: 'not run', passed: 0, failed: 0, skipped: 0, ms: 0, note: `not run: ${reason}` };
}

function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}
