// The house's rule, enforced: src/ is in rooms ordered top to bottom (cli → server, export →
// routes → events, access → http → encode → terminal → metrics → log → config), each importing only
// rooms below it, with no circle anywhere, type-only imports included. Each folder opens with a
// README.md that says what it holds and what it may import.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { circles, orderViolations, readGraph, ROOM_RANKS, roomOf } from '../helpers/house.js';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const graph = readGraph(src);

t.test('the checker sees what it must', async (t) => {
  // A small made-up house: an upward import, a sibling import, a circle through type imports.
  const bad = new Map<string, string[]>([
    ['terminal/a', ['http/b']],
    ['events/c', ['access/d']],
    ['http/e', ['http/f']],
    ['http/f', ['http/e']],
    ['http/dispatch', ['http/adapters/node/adapter']],
  ]);
  t.same(orderViolations(bad).length, 3, 'upward, sibling and pipeline-on-adapter imports are refused');
  t.same(circles(bad), [['http/e', 'http/f']]);
  t.same(circles(new Map([['a', ['a']]])), [['a']], 'a file importing itself is a circle');
  // The reader counts `import type`, re-exports, dynamic imports and augmentations.
  t.ok(graph.size > 50, `read ${graph.size} files`);
  const server = graph.get('server') ?? [];
  t.ok(server.includes('config/index'), 'server.ts imports config/index.ts');
  t.ok(graph.get('events/channels')?.includes('http/route'), 'a module augmentation (declare module) counts as an import');
  t.ok(graph.get('http/live')?.includes('http/route'), 'an import type counts');
});

t.test('every file of src/ sits in a room of the order', async (t) => {
  const unknown = [...new Set([...graph.keys()].map(roomOf))].filter((r) => ROOM_RANKS[r] === undefined);
  t.same(unknown, []);
});

t.test('imports go only downward', async (t) => {
  t.same(orderViolations(graph), []);
});

t.test('no circle of imports', async (t) => {
  t.same(circles(graph), []);
});

t.test('each folder of src/ opens with a README saying what it holds and may import', async (t) => {
  const folders: string[] = [];
  const walk = (dir: string): void => {
    folders.push(dir);
    for (const name of readdirSync(dir)) if (statSync(path.join(dir, name)).isDirectory()) walk(path.join(dir, name));
  };
  walk(src);
  for (const dir of folders) {
    const readme = path.join(dir, 'README.md');
    const rel = path.relative(path.dirname(src), dir);
    if (!existsSync(readme)) {
      t.fail(`${rel}/README.md is missing`);
      continue;
    }
    t.match(readFileSync(readme, 'utf8'), /may import/i, `${rel}/README.md says what it may import`);
  }
});
