// A hash of everything the addon is compiled from (binding/**, the vendored libraries compiled into
// it, CMakeLists.txt, cmake/**, the node-addon-api version): prebuilds carry it in
// prebuilds/SOURCE_HASH, and the install hook compiles instead of using a prebuild made from other
// sources. The same checkout must hash the same on every platform: paths are hashed with '/' and
// text with LF line endings (Git for Windows checks out CRLF by default).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

// Compiled into the addon. deps/googletest is not: it only builds the C++ core tests.
const SOURCE_DIRS = ['binding', 'cmake', 'deps/lz4', 'deps/nlohmann', 'deps/xxhash', 'deps/zstd'];

function files(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? files(full) : [full];
    });
}

function lfText(buffer) {
  return buffer.includes(0x0d) ? Buffer.from(buffer.toString('latin1').replace(/\r\n/g, '\n'), 'latin1') : buffer;
}

export function nativeSourceHash(root) {
  const hash = createHash('sha256');
  const dirs = SOURCE_DIRS.map((dir) => path.join(root, dir)).filter((dir) => existsSync(dir));
  for (const file of [...dirs.flatMap(files), path.join(root, 'CMakeLists.txt')]) {
    const name = path.relative(root, file).split(path.sep).join('/');
    hash.update(name).update('\0').update(lfText(readFileSync(file))).update('\0');
  }
  const addonApi = JSON.parse(readFileSync(path.join(root, 'node_modules', 'node-addon-api', 'package.json'), 'utf8'));
  hash.update(`node-addon-api@${addonApi.version}`);
  return hash.digest('hex');
}
