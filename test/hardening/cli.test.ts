// Hardening item 12 (CLI): our own message for a bad flag, and `tradeapi --version`.
import { readFileSync } from 'node:fs';
import path from 'node:path';

import t from 'tap';

import { root, runCli } from '../helpers/cli.js';

const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
const env = { PATH: process.env.PATH ?? '' };

t.test('--version and -v print the package version and exit 0', async (t) => {
  for (const flag of ['--version', '-v']) {
    const r = await runCli([flag], env);
    t.equal(r.code, 0, `${flag}: exit 0`);
    t.equal(r.stdout, `tradeapi ${version}\n`, `${flag}: the version`);
  }
});

t.test('a bad flag gets one plain line and exit 2, nothing listens', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['serve', '--bogus'], /^tradeapi: unknown option --bogus; see tradeapi --help\n$/],
    [['serve', '-x'], /^tradeapi: unknown option -x; see tradeapi --help\n$/],
    [['serve', '--port'], /^tradeapi: option --port needs a value; see tradeapi --help\n$/],
    [['serve', '--read-only=yes'], /^tradeapi: option --read-only takes no value; see tradeapi --help\n$/],
    [['launch'], /^tradeapi: unknown command "launch"; see tradeapi --help\n$/],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(args, env);
    t.equal(r.code, 2, `${args.join(' ')}: exit 2`);
    t.match(r.stderr, message, `${args.join(' ')}: our message`);
    t.notMatch(r.stderr, /positional argument|-- "/, `${args.join(' ')}: not node's parseArgs wording`);
  }
});

t.test('--help lists the limits and the shutdown grace period', async (t) => {
  const r = await runCli(['--help'], env);
  t.equal(r.code, 0);
  for (const name of ['TRADEAPI_MAX_STREAMS', 'TRADEAPI_SEND_TIMEOUT_MS', 'TRADEAPI_HEADERS_TIMEOUT_MS', 'TRADEAPI_SHUTDOWN_GRACE_MS', '--version']) {
    t.match(r.stdout, name, `mentions ${name}`);
  }
});

t.test('TRADEAPI_SERVER_TZ: a bad zone stops the start with exit 2; --help documents it', async (t) => {
  for (const bad of ['Mars/Olympus', '+2']) {
    const r = await runCli(['serve', '--port', '0'], { ...env, TRADEAPI_SERVER_TZ: bad });
    t.equal(r.code, 2, `${bad}: exit 2`);
    t.match(r.stderr, /^tradeapi: TRADEAPI_SERVER_TZ must be an IANA time zone/, `${bad}: our message`);
  }
  const help = await runCli(['--help'], env);
  t.match(help.stdout, /TRADEAPI_SERVER_TZ[^\n]*Europe\/Athens[\s\S]*no conversion/);
});
