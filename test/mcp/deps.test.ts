// The MCP SDK's dependency tree, as package-lock.json pins it: pinned exactly in package.json, no
// package in it runs an install script, and every one runs on the Node.js our engines admit (20).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string }; dependencies: Record<string, string> };
interface Locked {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  engines?: { node?: string } | string[];
  hasInstallScript?: boolean;
}
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, Locked> };

const SDK = '@modelcontextprotocol/sdk';
const NODE_MAJOR = 20;

/** Where npm resolves `name` required from the package at `from` (a lockfile key). */
function resolve(from: string, name: string): string | undefined {
  for (let dir = from; ; ) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (dir === '') return undefined;
    const at = dir.lastIndexOf('/node_modules/');
    dir = at < 0 ? '' : dir.slice(0, at);
  }
}

/** Whether a semver range admits every Node.js 20 (checked at 20.0.0 and 20.99.99). */
function admitsNode20(range: string): boolean {
  const admits = (version: readonly number[]): boolean =>
    range.split('||').some((alternative) => {
      const comparators = alternative.trim().replace(/([<>=^~]+)\s+/g, '$1').split(/\s+/).filter((c) => c !== '');
      return comparators.every((c) => {
        const m = /^(>=|<=|>|<|=|\^|~)?v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?/.exec(c);
        if (!m) return c === '*' || c === 'x';
        const want = [Number(m[2]), Number(m[3] ?? 0) || 0, Number(m[4] ?? 0) || 0];
        const cmp = version[0]! - want[0]! || version[1]! - want[1]! || version[2]! - want[2]!;
        switch (m[1]) {
          case '>=':
            return cmp >= 0;
          case '>':
            return cmp > 0;
          case '<=':
            return cmp <= 0;
          case '<':
            return cmp < 0;
          case '^':
          case '~':
            return cmp >= 0 && version[0] === want[0];
          default:
            return m[3] === undefined || m[3] === 'x' || m[3] === '*' ? version[0] === want[0] : cmp === 0;
        }
      });
    });
  return admits([NODE_MAJOR, 0, 0]) && admits([NODE_MAJOR, 99, 99]);
}

t.test('the SDK is pinned to an exact version', async (t) => {
  t.match(pkg.dependencies[SDK], /^\d+\.\d+\.\d+$/, `${SDK} ${pkg.dependencies[SDK]}`);
  t.equal(lock.packages[`node_modules/${SDK}`]?.version, pkg.dependencies[SDK], 'the lockfile has that version');
  t.ok(admitsNode20(pkg.engines.node), `our engines (${pkg.engines.node}) admit Node.js 20`);
});

t.test('its dependency tree: no install scripts, runs on Node.js 20', async (t) => {
  const seen = new Set<string>();
  const queue = [`node_modules/${SDK}`];
  while (queue.length > 0) {
    const key = queue.shift() as string;
    if (seen.has(key)) continue;
    seen.add(key);
    const p = lock.packages[key] as Locked;
    t.notOk(p.hasInstallScript, `${key}@${p.version}: no install script`);
    const engines = Array.isArray(p.engines) ? undefined : p.engines?.node;
    if (engines !== undefined) t.ok(admitsNode20(engines), `${key}@${p.version}: engines ${engines} admit Node.js 20`);
    for (const name of Object.keys({ ...p.dependencies, ...p.optionalDependencies })) {
      const dep = resolve(key, name);
      if (dep) queue.push(dep);
      else t.ok(p.optionalDependencies?.[name] !== undefined, `${key} → ${name} is in the lockfile`);
    }
  }
  t.ok(seen.size > 10, `${seen.size} packages checked`);
  t.ok(admitsNode20('>=18') && admitsNode20('>= 0.8') && !admitsNode20('>=22') && !admitsNode20('^18.0.0') && admitsNode20('^18 || ^20'), 'the range check itself');
});
