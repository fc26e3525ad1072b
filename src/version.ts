// The package's version, read from package.json (from dist/src/ when compiled, src/ under tap).
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  for (const relative of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'tradeapi' && pkg.version) return pkg.version;
    } catch {
      // not at this depth; try the next
    }
  }
  return '0.0.0';
}
