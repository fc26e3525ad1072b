// The closing table of the test command: one row per stage, then the total and the wall time.

export function stageTable(results, wallMs) {
  const rows = results.map((r) => [r.name, r.status, String(r.passed), String(r.failed), String(r.skipped), r.status === 'not run' ? '' : seconds(r.ms), r.note]);
  const sum = (k) => results.reduce((a, r) => a + r[k], 0);
  const failedStages = results.filter((r) => r.status === 'failed').length;
  rows.push(['TOTAL', failedStages ? `${failedStages} failed` : 'passed', String(sum('passed')), String(sum('failed')), String(sum('skipped')), seconds(wallMs), 'wall time']);
  const head = ['stage', 'result', 'passed', 'failed', 'skipped', 'time', 'note'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i >= 2 && i <= 5 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  return [line(head), `|${widths.map((w, i) => (i >= 2 && i <= 5 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`, ...rows.map(line)].join('\n');
}

function seconds(ms) {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, '0')} s` : `${s} s`;
}
