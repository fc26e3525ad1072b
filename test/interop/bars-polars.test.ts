// Custom bars (GET /ticks/bars) against an independent reference: test/interop/bars_polars.py
// builds the same bars with Polars from /ticks/range (group_by_dynamic on the naive server wall
// clock for time bars, a cumulative count per server day for tick bars, a restarting running sum
// for volume bars) over a week in which the broker's clocks go back, on a symbol charted by bid
// (BTCUSD, also by mid) and one by last (AMZN), and compares every field. Each of its checks
// becomes one assertion here.
//
// Python: as test/interop/python.test.ts (test/helpers/python.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { parseServerZone } from '../../src/config/server-zone.js';
import { openSimTerminal, simServerZone } from '../../src/terminal/index.js';
import { runChild } from '../helpers/child.js';
import { testPython } from '../helpers/python.js';
import { ANCHOR_S, serve, testAdapters } from '../helpers/server.js';

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bars_polars.py');
const BROKER = 'America/New_York+07:00';

interface Summary {
  ok: boolean;
  checks: Array<{ name: string; ok: boolean; detail?: unknown }>;
  versions: Record<string, string>;
}


const choice = testPython(['polars', 'numpy']);
if ('skip' in choice) {
  t.plan(0, choice.skip);
} else {
  const zone = parseServerZone(BROKER);
  const nowMs = Date.UTC(2024, 10, 10, 12);
  const terminal = openSimTerminal({ ...simServerZone(zone), nowMs: nowMs + zone.offsetMs(nowMs), accountAnchor: ANCHOR_S, seed: 42 });
  t.teardown(() => terminal.close());
  const s = await serve(t, testAdapters()[0]!, terminal, { TRADEAPI_SERVER_TZ: BROKER });
  const r = await runChild(choice.python, [script, s.base], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
  let summary: Summary | undefined;
  try {
    summary = JSON.parse(r.stdout) as Summary;
  } catch {
    t.fail(`bars_polars.py printed no summary (exit ${r.code})`, { stdout: r.stdout.slice(-2000), stderr: r.stderr.slice(-4000) });
  }
  if (summary) {
    t.comment(`${choice.python}: ${Object.entries(summary.versions).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    for (const c of summary.checks) t.ok(c.ok, c.name, c.ok ? {} : { detail: c.detail });
    t.ok(summary.checks.length >= 27, `bars_polars.py ran its checks (${summary.checks.length})`);
    t.equal(r.code, summary.ok ? 0 : 1, 'exit code agrees with the summary');
  }
}
