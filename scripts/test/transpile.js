// One TypeScript file to JavaScript for the test loader (compiled-hooks.js) and the build stage's
// warm-up (transpile-tests.js): TypeScript's transpileModule, no type check (the build stage's
// `tsc -p tsconfig.test.json` does that), ES modules, inline source maps with the sources.
import { createHash } from 'node:crypto';
import path from 'node:path';

let ts;

/** Where the transpiled form of `file` with contents `text` is kept: named by the text's hash (an edit makes a new entry). */
export function cachedPath(root, file, text) {
  const hash = createHash('sha1').update(text).digest('hex').slice(0, 16);
  return path.join(root, 'build', 'ts-cache', `${path.relative(root, file).replace(/\.ts$/, '')}.${hash}.js`);
}

/** `text` (the contents of `file`) as an ES module. */
export async function transpile(file, text) {
  ts ??= (await import('typescript')).default;
  const out = ts.transpileModule(text, {
    fileName: file,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      esModuleInterop: true,
      inlineSourceMap: true,
      inlineSources: true,
    },
  });
  return out.outputText;
}
