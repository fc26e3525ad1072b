// Python clients read our answers: test/interop/read_back.py runs pandas (docs/clients.md's snippet
// as written), pyarrow (Parquet and Arrow IPC schemas, every value), DuckDB (docs/clients.md's
// query, on a downloaded file and from the URL) and polars against a real server, and compares them
// with the JSON answers. Each of its checks becomes one assertion here.
//
// Python: TRADEAPI_TEST_PYTHON (`npm test` sets it to the venv it keeps at build/pyenv, installed
// from exactly examples/requirements.txt); unset, that venv if an earlier `npm test` left it, else
// python3 if it has the modules, else the test is skipped with the reason.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { runChild } from '../helpers/child.js';
import type { Run } from '../helpers/cli.js';
import { testPython } from '../helpers/python.js';
import { forEachAdapter, serve, simTerminal } from '../helpers/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const script = path.join(here, 'read_back.py');
const MODULES = ['pandas', 'pyarrow', 'duckdb', 'polars', 'requests', 'numpy'];

interface Check {
  name: string;
  ok: boolean;
  detail?: unknown;
}

interface Summary {
  ok: boolean;
  passed: number;
  failed: number;
  checks: Check[];
  skipped: Array<{ name: string; reason: string }>;
  versions: Record<string, string>;
}

function run(python: string, base: string): Promise<Run> {
  return runChild(python, [script, base], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }, killAfterMs: 100_000 });
}

const choice = testPython(MODULES);
if ('skip' in choice) {
  t.plan(0, choice.skip);
} else {
  const { python } = choice;
  if (python.includes('/') && !existsSync(python)) throw new Error(`TRADEAPI_TEST_PYTHON=${python} does not exist`);
  const terminal = simTerminal();
  t.teardown(() => terminal.close());

  await forEachAdapter(t, async (t, adapter) => {
    const s = await serve(t, adapter, terminal);
    const r = await run(python, s.base);
    let summary: Summary;
    try {
      summary = JSON.parse(r.stdout) as Summary;
    } catch {
      t.fail(`read_back.py printed no summary (exit ${r.code})`, { stdout: r.stdout.slice(-2000), stderr: r.stderr.slice(-4000) });
      return;
    }
    t.comment(`${python}: ${Object.entries(summary.versions).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    for (const c of summary.checks) t.ok(c.ok, c.name, c.ok ? {} : { detail: c.detail });
    for (const s of summary.skipped) t.comment(`skipped: ${s.name}: ${s.reason}`);
    t.ok(summary.checks.length >= 40, `read_back.py ran its checks (${summary.checks.length})`);
    t.equal(r.code, summary.ok ? 0 : 1, 'exit code agrees with the summary');
    if (r.code !== 0 && r.stderr) t.comment(r.stderr.slice(-2000));
  });
}
