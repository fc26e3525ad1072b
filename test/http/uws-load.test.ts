// The start-up reason given when uWebSockets.js does not load: its loader blames the Node version
// for every failure; when the real cause is glibc (its Linux binaries need 2.38) we say so.
import t from 'tap';

import { loadUws, uwsLoadError } from '../../src/http/adapters/uws/adapter.js';

// What uWS 20.57's loader throws on Debian 12 (glibc 2.36), as measured here.
const ON_OLD_GLIBC =
  'This version of uWS.js (v20.57.0) supports only Node.js versions 20, 22, 24 and 25 on (glibc) Linux, macOS and Windows, on Tier 1 platforms (https://github.com/nodejs/node/blob/master/BUILDING.md#platform-list).\n\n' +
  "Error: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found (required by /x/node_modules/uWebSockets.js/uws_linux_x64_115.node)";

t.test('a glibc failure is named as one, with both versions, and node is not blamed', async (t) => {
  const reason = uwsLoadError(ON_OLD_GLIBC, () => '2.36');
  t.match(reason, /needs glibc >= 2\.38, this system has glibc 2\.36/);
  t.match(reason, /node \d+\.\d+\.\d+ itself is fine/);
  t.notMatch(reason, /supports only Node\.js/);
  t.match(uwsLoadError(ON_OLD_GLIBC, () => undefined), /needs glibc >= 2\.38, this system has an older one/);
});

t.test('any other failure keeps its first line', async (t) => {
  t.equal(uwsLoadError("Cannot find module 'uWebSockets.js'\nRequire stack:\n- x"), "Cannot find module 'uWebSockets.js'");
});

t.test('on this machine: either uWS loads or the reason is specific', async (t) => {
  const r = loadUws();
  if ('module' in r) return t.pass('uWebSockets.js loads here');
  const glibc = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime;
  if (glibc && Number(glibc.split('.')[1]) < 38 && glibc.startsWith('2.')) {
    t.match(r.error, new RegExp(`needs glibc >= 2\\.38, this system has glibc ${glibc.replace('.', '\\.')}`));
  } else t.ok(r.error.length > 0, `reason: ${r.error}`);
});
