// Reads src/'s imports as text and holds them against the house's order of rooms: each room may
// import only rooms below it, never a sibling, and no file may reach itself through imports. Type-only
// imports and module augmentations (`declare module '…'`) count like any other: a circle of types is
// still a circle for the reader. Used by test/house/imports.test.ts.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The rooms from top to bottom. Rooms sharing a rank are siblings and may not import each other.
 * A file's room is its first folder under src/, or its own name for a file at src/'s top.
 */
export const ROOM_RANKS: Readonly<Record<string, number>> = {
  cli: 0,
  index: 0,
  verify: 0.25,
  sync: 0.5,
  server: 1,
  export: 1,
  routes: 2,
  events: 3,
  access: 3,
  http: 4,
  store: 4.5,
  encode: 5,
  terminal: 6,
  metrics: 7,
  log: 8,
  'pid-file': 8.5,
  config: 9,
  version: 9,
};

/** Inside http/: the pipeline is built on the adapters' seam (http/adapter.ts), never on an adapter. */
const SUBROOMS: readonly { from: RegExp; to: RegExp; why: string }[] = [
  { from: /^http\/(?!adapters\/)/, to: /^http\/adapters\//, why: 'the request pipeline must not import a server adapter (adapters sit on its seam)' },
  { from: /^http\/adapters\/node\//, to: /^http\/adapters\/uws\//, why: 'the two adapters are siblings' },
  { from: /^http\/adapters\/uws\//, to: /^http\/adapters\/node\//, why: 'the two adapters are siblings' },
];

export type ImportGraph = ReadonlyMap<string, readonly string[]>;

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\bdeclare\s+module\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

/** Every relative import of every .ts file under dir, as paths relative to dir without extension. */
export function readGraph(dir: string): ImportGraph {
  const graph = new Map<string, string[]>();
  const walk = (sub: string): void => {
    for (const name of readdirSync(path.join(dir, sub)).sort()) {
      const rel = sub === '' ? name : `${sub}/${name}`;
      if (statSync(path.join(dir, rel)).isDirectory()) walk(rel);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) {
        const text = readFileSync(path.join(dir, rel), 'utf8');
        const from = rel.replace(/\.ts$/, '');
        const targets = [...text.matchAll(SPECIFIER)].map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(from), (m[1] as string).replace(/\.(js|ts)$/, ''))));
        graph.set(from, [...new Set(targets)]);
      }
    }
  };
  walk('');
  return graph;
}

export const roomOf = (file: string): string => (file.includes('/') ? (file.split('/')[0] as string) : file);

/** Edges against the order of rooms, each as "a → b: why". */
export function orderViolations(graph: ImportGraph): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = roomOf(from);
      const b = roomOf(to);
      const ra = ROOM_RANKS[a];
      const rb = ROOM_RANKS[b];
      if (ra === undefined) out.push(`${from}: room '${a}' has no place in the order (test/helpers/house.ts)`);
      else if (rb === undefined) out.push(`${from} → ${to}: room '${b}' has no place in the order`);
      else if (a !== b && ra === rb) out.push(`${from} → ${to}: '${a}' and '${b}' are siblings`);
      else if (a !== b && ra > rb) out.push(`${from} → ${to}: '${a}' is below '${b}'`);
      for (const rule of SUBROOMS) if (rule.from.test(from) && rule.to.test(to)) out.push(`${from} → ${to}: ${rule.why}`);
    }
  }
  return [...new Set(out)];
}

/** Every circle of imports (strongly connected set of more than one file, or a file importing itself). */
export function circles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm, iterative enough for a few hundred files.
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    order.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, order.get(w) as number));
    }
    if (low.get(v) === order.get(v)) {
      const set: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(set.sort());
    }
  };
  for (const v of graph.keys()) if (!order.has(v)) visit(v);
  return found;
}
