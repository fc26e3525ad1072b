// A hash of everything the addon is compiled from (binding/**, CMakeLists.txt, the node-addon-api
// version): prebuilds carry it in prebuilds/SOURCE_HASH, and the install hook compiles instead of
// using a prebuild made from other sources.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function files(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? files(full) : [full];
    });
}

export function nativeSourceHash(root) {
  const hash = createHash('sha256');
  for (const file of [...files(path.join(root, 'binding')), path.join(root, 'CMakeLists.txt')]) {
    hash.update(path.relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  const addonApi = JSON.parse(readFileSync(path.join(root, 'node_modules', 'node-addon-api', 'package.json'), 'utf8'));
  hash.update(`node-addon-api@${addonApi.version}`);
  return hash.digest('hex');
}
