// The documentation runs the `tradeapi` command the quick way (issue 35 §3.2): `node bin/tradeapi.js …`
// in the clone (or `tradeapi` after `npm link`), never `npx tradeapi …`, whose first run in a clone
// links it into npx's cache and takes some 18 s before the command starts.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import t from 'tap';

import { ROOT } from '../helpers/doc-blocks.js';

/** Every Markdown page of the repository but its dependencies and build output. */
function markdownPages(dir = ROOT): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || ['node_modules', 'dist', 'build', 'deps', 'prebuilds'].includes(entry.name)) continue;
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...markdownPages(p));
    else if (entry.name.endsWith('.md')) out.push(path.relative(ROOT, p));
  }
  return out.sort();
}

t.test('no page runs the command through npx', async (t) => {
  const pages = markdownPages();
  t.ok(pages.includes('README.md') && pages.includes(path.join('docs', 'store.md')), `read ${pages.length} pages`);
  for (const page of pages) {
    const lines = readFileSync(path.join(ROOT, page), 'utf8').split('\n');
    const hits = lines.flatMap((line, i) => (/\bnpx\s+tradeapi\b/.test(line) ? [`${page}:${i + 1}: ${line.trim()}`] : []));
    t.same(hits, [], `${page}: node bin/tradeapi.js (or tradeapi after npm link), not npx tradeapi`);
  }
});

t.test('the README says how to run the command', async (t) => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  t.match(readme, /`node bin\/tradeapi\.js/, 'node bin/tradeapi.js');
  t.match(readme, /`npm link`/, 'or npm link once');
});
