// Which Python the tests that drive Python clients (pyarrow, pandas, DuckDB, polars) use, in one
// place so that no test looks for `python3` on PATH on its own and silently skips its checks:
//   1. TRADEAPI_TEST_PYTHON (`npm test` sets it to the venv it keeps at build/pyenv): must work;
//      a missing module there is a failure, never a skip;
//   2. build/pyenv/bin/python, if an earlier `npm test` left it finished and it has the modules;
//   3. python3 on PATH, if it has the modules;
//   else a reason to skip.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const VENV_PYTHON = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../build/pyenv/bin/python');
/** Written by scripts/test/stages.js pythonEnv() after pip installed everything. */
const VENV_STAMP = path.resolve(path.dirname(VENV_PYTHON), '../.tradeapi-requirements');

export type PythonChoice = { python: string; configured: boolean } | { skip: string };

function probe(python: string, modules: readonly string[]): { ok: boolean; why: string } {
  const r = spawnSync(python, ['-c', `import ${modules.join(', ')}`], { encoding: 'utf8' });
  if (r.status === 0) return { ok: true, why: '' };
  return { ok: false, why: r.error ? r.error.message : (r.stderr.trim().split('\n').pop() ?? `exit ${r.status}`) };
}

export function testPython(modules: readonly string[]): PythonChoice {
  const configured = process.env.TRADEAPI_TEST_PYTHON;
  if (configured) {
    const p = probe(configured, modules);
    // Set by scripts/test.js: a Python that cannot import the modules is a broken set-up, not a skip.
    if (!p.ok) throw new Error(`TRADEAPI_TEST_PYTHON=${configured} cannot import ${modules.join(', ')}: ${p.why}`);
    return { python: configured, configured: true };
  }
  // Only a finished venv: scripts/test.js writes the stamp once pip is done, and a stage running
  // beside the one that builds it must not pick a half-installed one (CI: pyarrow vanished mid-file).
  if (existsSync(VENV_PYTHON) && existsSync(VENV_STAMP) && probe(VENV_PYTHON, modules).ok) return { python: VENV_PYTHON, configured: false };
  const system = probe('python3', modules);
  if (system.ok) return { python: 'python3', configured: false };
  return {
    skip:
      `no Python with ${modules.join(', ')}: set TRADEAPI_TEST_PYTHON to one (npm test makes build/pyenv from ` +
      `examples/requirements.txt and sets it), or pip install -r examples/requirements.txt (python3: ${system.why})`,
  };
}
