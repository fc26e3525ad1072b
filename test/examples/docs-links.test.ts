// The documentation holds together: README.md stays a front door (at most 250 lines), every
// relative link of README.md, docs/*.md, examples/README.md and bench/README.md reaches a file that
// exists, and a `#anchor` a heading of that page (GitHub's slugs); every page is reachable from the
// README; and the pages whose snippets other tests run as written still hold those blocks
// (test/helpers/doc-blocks.ts), so that moving or deleting one fails here by name.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import t from 'tap';

import { tourBlock } from '../../scripts/readme-tour.js';
import { DOC_SNIPPETS, ROOT, docBlock, readPage } from '../helpers/doc-blocks.js';

const README_MAX_LINES = 250;

const pages = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`),
  ...['examples/README.md', 'bench/README.md'].filter((f) => existsSync(path.join(ROOT, f))),
];

/** Markdown without its fenced code blocks (a heading or a link there is neither). */
function withoutFences(markdown: string): string {
  return markdown.replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?^ {0,3}\1[^\n]*$/gm, '');
}

/** Inline links and images, [text](target) or [text](target "title"), outside code; autolinks <…> are absolute. */
function links(markdown: string): string[] {
  const text = withoutFences(markdown).replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, (span) => span.replace(/[[\]()]/g, ' '));
  return [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string);
}

/** GitHub's heading anchors: the heading's text in lower case, punctuation dropped, spaces to '-', repeats numbered -1, -2… */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of withoutFences(markdown).matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/gm)) {
    const text = (m[1] as string)
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link: its text
      .replace(/<[^>]+>/g, '') // inline HTML
      .replace(/[*`~]/g, ''); // emphasis and code marks
    const base = text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** What is wrong with one link of `page` (relative to the repository), or undefined. */
function brokenLink(page: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined; // http:, https:, mailto:
  const [file, anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURIComponent(file)));
  if (resolved.startsWith('..')) return `${target}: leaves the repository`;
  const full = path.join(ROOT, resolved);
  if (!existsSync(full)) return `${target}: ${resolved} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(full).isDirectory() || !resolved.endsWith('.md')) return `${target}: an anchor into ${resolved}, which is not a Markdown page`;
  if (!anchors(readFileSync(full, 'utf8')).has(decodeURIComponent(anchor).toLowerCase())) return `${target}: ${resolved} has no heading #${anchor}`;
  return undefined;
}

t.test('the link and anchor readers', async (t) => {
  t.same(links('a [x](b.md) `[no](c.md)` [`y`](d.md#e "t")\n```\n[no](f.md)\n```\n<https://x.y> ![i](g.png)'), ['b.md', 'd.md#e', 'g.png']);
  const heads = anchors('# A\n## `tradeapi export`\n## A broker\'s clock and calendar\n### Rate limit\n## Rate limit\n## When something is down (503)\n```\n# not a heading\n```\n');
  for (const a of ['a', 'tradeapi-export', 'a-brokers-clock-and-calendar', 'rate-limit', 'rate-limit-1', 'when-something-is-down-503']) t.ok(heads.has(a), a);
  t.notOk(heads.has('not-a-heading'));
});

t.test(`README.md is a front door: at most ${README_MAX_LINES} lines`, async (t) => {
  const lines = readPage('README.md').replace(/\n$/, '').split('\n').length;
  t.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines (at most ${README_MAX_LINES}: move the depth to a page under docs/)`);
});

t.test('every relative link resolves, anchors included', async (t) => {
  let checked = 0;
  for (const page of pages) {
    const broken = links(readPage(page)).map((target) => brokenLink(page, target)).filter((b) => b !== undefined);
    checked += links(readPage(page)).length;
    t.same(broken, [], `${page}: every link resolves`);
  }
  t.ok(checked > 50, `links checked: ${checked}`);
});

t.test('every page under docs/ is reachable from README.md', async (t) => {
  const reached = new Set(['README.md']);
  const queue = ['README.md'];
  while (queue.length > 0) {
    const page = queue.shift() as string;
    if (!page.endsWith('.md') || !existsSync(path.join(ROOT, page)) || statSync(path.join(ROOT, page)).isDirectory()) continue;
    for (const target of links(readPage(page))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const file = target.split('#')[0] as string;
      if (file === '') continue;
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
      if (!reached.has(resolved)) {
        reached.add(resolved);
        queue.push(resolved);
      }
    }
  }
  for (const page of pages.filter((p) => p.startsWith('docs/'))) t.ok(reached.has(page), `${page} is linked from README.md or a page it links to`);
});

t.test('the pages still hold the blocks that tests run as written', async (t) => {
  t.ok((tourBlock(readPage('README.md'))?.steps.length ?? 0) > 0, 'README.md: "## A 30-second tour" with its ```console block (test/examples/tour.test.ts)');
  for (const [name, s] of Object.entries(DOC_SNIPPETS)) {
    t.ok(docBlock(s), `${s.page}: a \`\`\`${s.lang} block holding ${JSON.stringify(s.marker)} (the ${name} snippet, run by ${s.runBy})`);
  }
  // read_back.py (Python) names its page and markers itself: they must be this table's.
  const readBack = readFileSync(path.join(ROOT, 'test/interop/read_back.py'), 'utf8');
  const snippets = Object.values(DOC_SNIPPETS).filter((s) => s.runBy === 'test/interop/read_back.py');
  for (const page of new Set(snippets.map((s) => s.page))) t.ok(readBack.includes(`DOC = "${page}"`), `read_back.py reads ${page}`);
  for (const s of snippets) t.ok(readBack.includes(`doc_block(doc, "${s.lang}", "${s.marker}")`), `read_back.py runs the ${s.lang} block holding ${JSON.stringify(s.marker)}`);
});
