// What `tradeapi export -o FILE` does to what is already at FILE (issue 22, item 5): a regular file
// is replaced atomically and keeps its mode (and owner, as root); a symbolic link is written
// through to its target and stays a link; a FIFO, a character device and `-o -` (stdout) are
// written straight into and stay what they were; a directory, a socket, a block device and a
// dangling link are refused with one line and exit 2; temp files left by a killed export are
// removed by the next export of the same FILE; an interrupted export leaves FILE as it was. The
// real CLI in child processes, on a past range (the simulator's history is fixed by its seed).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import t from 'tap';

import { cliCommand } from '../helpers/cli.js';
import { patience } from '../helpers/patience.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeapi-export-target-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const isRoot = process.getuid?.() === 0;

/** The environment of the child: no terminal settings from the caller's shell. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['TRADEAPI_TERMINAL', 'TRADEAPI_BRIDGE_SECRET', 'TRADEAPI_SERVER_TZ', 'TRADEAPI_SIM_SERVER_TZ', 'TRADEAPI_SIM_CLOCK']) delete env[name];
  return env;
}

interface Run {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

function exportCli(args: readonly string[], onSpawn?: (pid: number) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliCommand(), 'export', ...args], { cwd: dir, env: childEnv() });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => stdout.push(d));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), patience(9_000));
    child.on('error', reject);
    child.on('spawn', () => onSpawn?.(child.pid as number));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(stdout), stderr });
    });
  });
}

/** Ten minutes of EURUSD ticks: a few hundred KB of JSON, the same bytes every run. */
const RANGE = ['ticks', 'EURUSD', '--from', '2024-01-09T10:00:00Z', '--to', '2024-01-09T10:10:00Z'];
const at = (name: string): string => path.join(dir, name);
/** Names in `where` that start with `base` (FILE and any temp file beside it). */
const leftovers = (base: string, where = dir): string[] => readdirSync(where).filter((f) => f.startsWith(base)).sort();
const mode = (p: string): number => statSync(p).mode & 0o7777;
const ONE_LINE = /^tradeapi export: [^\n]+\n$/;

// The bytes every test compares with: the same range into a new regular file.
const reference = await exportCli([...RANGE, '-o', 'reference.json']);
t.equal(reference.code, 0, 'the reference export', { stderr: reference.stderr });
const expected = readFileSync(at('reference.json'));

await t.test('a new regular file: the usual mode for a new file (0666 less the umask)', async (t) => {
  writeFileSync(at('umask-probe'), '');
  t.equal(mode(at('reference.json')), mode(at('umask-probe')), 'as any new file');
});

await t.test('an existing regular file is replaced and keeps its mode (and owner, as root)', async (t) => {
  writeFileSync(at('private.json'), 'old');
  chmodSync(at('private.json'), 0o600);
  const r = await exportCli([...RANGE, '-o', 'private.json']);
  t.equal(r.code, 0, r.stderr);
  t.ok(readFileSync(at('private.json')).equals(expected), 'new content');
  t.equal(mode(at('private.json')).toString(8), '600', 'mode 600 kept');
  t.same(leftovers('private.json'), ['private.json'], 'no temp file');

  writeFileSync(at('group.json'), 'old');
  chmodSync(at('group.json'), 0o640);
  if (isRoot) chownSync(at('group.json'), 4321, 4322);
  const g = await exportCli([...RANGE, '-o', 'group.json']);
  t.equal(g.code, 0, g.stderr);
  t.equal(mode(at('group.json')).toString(8), '640', 'mode 640 kept');
  if (isRoot) {
    const st = statSync(at('group.json'));
    t.same([st.uid, st.gid], [4321, 4322], 'owner and group kept (the export ran as root)');
  } else t.comment('owner not checked: only root can give a file to someone else');
});

await t.test('a symbolic link is written through to its target and stays a link', async (t) => {
  mkdirSync(at('real'));
  writeFileSync(at('real/data.json'), 'old');
  chmodSync(at('real/data.json'), 0o600);
  symlinkSync('real/data.json', at('link.json'));
  symlinkSync('link.json', at('link-to-link.json'));
  const r = await exportCli([...RANGE, '-o', 'link-to-link.json']);
  t.equal(r.code, 0, r.stderr);
  t.ok(lstatSync(at('link-to-link.json')).isSymbolicLink(), 'the first link is still a link');
  t.ok(lstatSync(at('link.json')).isSymbolicLink(), 'the second link is still a link');
  t.equal(readlinkSync(at('link.json')), 'real/data.json', 'pointing where it did');
  t.ok(readFileSync(at('real/data.json')).equals(expected), 'the target has the new content');
  t.equal(mode(at('real/data.json')).toString(8), '600', 'and its mode');
  t.same(leftovers('link'), ['link-to-link.json', 'link.json'], 'no temp file beside the links');
  t.same(leftovers('data.json', at('real')), ['data.json'], 'no temp file beside the target');
});

await t.test('a dangling symbolic link is refused (as cp does), and left alone', async (t) => {
  symlinkSync('nowhere/missing.json', at('dangling.json'));
  const r = await exportCli([...RANGE, '-o', 'dangling.json']);
  t.equal(r.code, 2, 'exit 2');
  t.match(r.stderr, ONE_LINE);
  t.match(r.stderr, /dangling\.json.* symbolic link to .*missing\.json.*, which does not exist/);
  t.equal(readlinkSync(at('dangling.json')), 'nowhere/missing.json', 'the link is as it was');
  t.notOk(existsSync(at('nowhere')), 'nothing created where it points');
  t.same(leftovers('dangling.json'), ['dangling.json'], 'no temp file');
});

const fifo = spawnSync('mkfifo', [at('pipe')]);
await t.test('a FIFO is written straight into and stays a FIFO', { skip: fifo.status === 0 ? false : `mkfifo failed: ${fifo.stderr.toString().trim()}` }, async (t) => {
  const reader = spawn('cat', [at('pipe')]);
  const got: Buffer[] = [];
  reader.stdout.on('data', (d: Buffer) => got.push(d));
  const readerDone = new Promise<number | null>((resolve) => reader.on('close', resolve));
  const r = await exportCli([...RANGE, '--format', 'json', '-o', 'pipe']);
  t.equal(r.code, 0, r.stderr);
  // A reader still waiting for a writer after the export has ended would wait for ever.
  const hung = setTimeout(() => reader.kill(), patience(500));
  t.equal(await readerDone, 0, 'the reader saw the end of the stream');
  clearTimeout(hung);
  t.ok(Buffer.concat(got).equals(expected), 'the reader got the whole export');
  t.ok(lstatSync(at('pipe')).isFIFO(), 'still a FIFO');
  t.same(leftovers('pipe'), ['pipe'], 'no temp file');
});

// Our own null device in the temp dir: the real /dev/null is never at risk.
const nullDevice = isRoot ? spawnSync('mknod', [at('null'), 'c', '1', '3']) : undefined;
const noDevice = !nullDevice ? 'mknod needs root' : nullDevice.status !== 0 ? `mknod failed: ${nullDevice.stderr.toString().trim()}` : false;
await t.test('a character device is written straight into and stays a device', { skip: noDevice }, async (t) => {
  const before = statSync(at('null'));
  const r = await exportCli([...RANGE, '--format', 'parquet', '-o', 'null']);
  t.equal(r.code, 0, r.stderr);
  const after = lstatSync(at('null'));
  t.ok(after.isCharacterDevice(), 'still a character device');
  t.equal(after.rdev, before.rdev, 'the same device (1,3)');
  t.equal(after.mode, before.mode, 'the same mode');
  t.same(leftovers('null'), ['null'], 'no temp file');
});

await t.test('-o - writes to stdout', async (t) => {
  const r = await exportCli([...RANGE, '--format', 'json', '-o', '-']);
  t.equal(r.code, 0, r.stderr);
  t.ok(r.stdout.equals(expected), 'stdout is the export, byte for byte');
  t.equal(r.stderr, '', 'nothing else');
  t.notOk(existsSync(at('-')), 'no file named "-"');
  const p = await exportCli([...RANGE, '--format', 'parquet', '-o', '-']);
  t.equal(p.code, 0, p.stderr);
  t.equal(p.stdout.subarray(0, 4).toString(), 'PAR1', 'Parquet to a pipe');
  const noFormat = await exportCli([...RANGE, '-o', '-']);
  t.equal(noFormat.code, 2, 'no format for stdout: exit 2');
  t.match(noFormat.stderr, /--format/);
});

// util-linux `script` puts the CLI on a pseudo-terminal, as a user at a shell would be.
const script = spawnSync('script', ['--version'], { encoding: 'utf8' });
await t.test('-o - refuses Parquet and Arrow to a terminal', { skip: script.status === 0 ? false : 'util-linux script is not installed' }, async (t) => {
  const command = [process.execPath, ...cliCommand(), 'export', ...RANGE, '--format', 'parquet', '-o', '-'].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const r = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: dir, env: childEnv(), encoding: 'utf8', timeout: patience(6_000) });
  t.equal(r.status, 2, 'exit 2');
  t.match(r.stdout, /tradeapi export: .*terminal/, 'says why');
  t.notMatch(r.stdout, /PAR1/, 'no binary on the screen');
});

await t.test('refused: a directory, a socket, a block device; one line, exit 2, left as they were', async (t) => {
  mkdirSync(at('adir.json'));
  const cases: Array<[name: string, message: RegExp]> = [['adir.json', /adir\.json.* is a directory/]];
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(at('sock.json'), resolve));
  t.teardown(() => server.close());
  cases.push(['sock.json', /sock\.json.* is a socket/]);
  if (isRoot && spawnSync('mknod', [at('disk.json'), 'b', '7', '200']).status === 0) cases.push(['disk.json', /disk\.json.* is a block device/]);
  else t.comment('no block device: mknod needs root');
  for (const [name, message] of cases) {
    const before = lstatSync(at(name));
    const r = await exportCli([...RANGE, '-o', name]);
    t.equal(r.code, 2, `${name}: exit 2`);
    t.match(r.stderr, ONE_LINE, '  one line');
    t.match(r.stderr, message, `  says ${message}`);
    const after = lstatSync(at(name));
    t.same([after.mode, after.ino, after.rdev], [before.mode, before.ino, before.rdev], '  left as it was');
    t.same(leftovers(name), [name], '  no temp file');
  }
});

await t.test('stale temp files of a killed export are removed by the next export of FILE', async (t) => {
  // A PID that is certainly not running: a process that has just exited.
  const dead = spawnSync('true').pid;
  const live = process.pid;
  for (const name of [`out.json.tmp-${dead}`, `out.json.tmp-${live}`, 'out.json.tmp-notapid', `other.json.tmp-${dead}`]) writeFileSync(at(name), 'partial');
  const r = await exportCli([...RANGE, '-o', 'out.json']);
  t.equal(r.code, 0, r.stderr);
  t.ok(readFileSync(at('out.json')).equals(expected), 'FILE written');
  t.notOk(existsSync(at(`out.json.tmp-${dead}`)), 'the dead export\'s temp file is gone');
  t.ok(existsSync(at(`out.json.tmp-${live}`)), 'a running export\'s temp file is kept');
  t.ok(existsSync(at('out.json.tmp-notapid')), 'a name that is not FILE.tmp-<pid> is kept');
  t.ok(existsSync(at(`other.json.tmp-${dead}`)), 'another FILE\'s temp file is kept');
});

await t.test('SIGTERM while replacing a 600 file: FILE as it was, the temp file private and gone', async (t) => {
  const file = 'keep.json';
  writeFileSync(at(file), 'previous export');
  chmodSync(at(file), 0o600);
  let pid = 0;
  const run = exportCli(['ticks', 'EURUSD', '--from', '2023-12-01T00:00:00Z', '--to', '2024-01-01T00:00:00Z', '-o', file], (p) => (pid = p));
  const temp = (): string => at(`${file}.tmp-${pid}`);
  const deadline = Date.now() + patience(6_000);
  let tempMode: number | undefined;
  while (Date.now() < deadline && tempMode === undefined) {
    try {
      if (statSync(temp()).size > 0) tempMode = mode(temp());
    } catch {
      // not created yet
    }
    if (tempMode === undefined) await new Promise((r) => setTimeout(r, 20));
  }
  t.ok(tempMode !== undefined, 'the temp file was being written');
  t.equal(tempMode?.toString(8), '600', 'readable by no one else while written');
  process.kill(pid, 'SIGTERM');
  const r = await run;
  t.equal(r.code, 143, 'exit 143');
  t.equal(readFileSync(at(file), 'utf8'), 'previous export', 'FILE untouched');
  t.equal(mode(at(file)).toString(8), '600', 'its mode too');
  t.same(leftovers(file), [file], 'no temp file');
});
