// The README's "30-second tour" runs as written against a live server on the wall-clock simulator
// (as `npm start` serves it), so that the block cannot rot: every `$ ` command is run by bash (the
// address swapped), must exit 0, and its answer must carry every JSON member the README shows
// (values differ: the market is live) — or, for the Parquet download, the status it shows.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { nodeAdapter } from '../../src/http/node-adapter.js';
import { openSimTerminal } from '../../src/terminal/index.js';
import { serve } from '../helpers/server.js';

interface Step {
  command: string;
  shown: string;
}

/** The tour's `console` block as commands (with their `\` continuations) and the output shown under each. */
function tourSteps(readme: string): Step[] {
  const section = readme.split('\n## A 30-second tour\n')[1]?.split('\n## ')[0];
  const block = section === undefined ? undefined : /```console\n(.*?)```/s.exec(section)?.[1];
  if (block === undefined) return [];
  const steps: Step[] = [];
  const lines = block.replace(/\n$/, '').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (!line.startsWith('$ ')) {
      if (steps.length > 0) (steps[steps.length - 1] as Step).shown += `${line}\n`;
      continue;
    }
    let command = line.slice(2);
    while (command.endsWith('\\') && i + 1 < lines.length) command = `${command.slice(0, -1)} ${(lines[++i] as string).trim()}`;
    steps.push({ command, shown: '' });
  }
  return steps;
}

/** bash -c in a scratch directory; a never-ending command (the event stream) is stopped after `stopAfterMs`. */
function run(command: string, stopAfterMs?: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cwd = mkdtempSync(path.join(tmpdir(), 'tradeapi-tour-'));
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-c', command], { cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), stopAfterMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      rmSync(cwd, { recursive: true, force: true });
      resolve({ code: stopAfterMs === undefined ? code : 0, stdout, stderr });
    });
  });
}

const readme = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md'), 'utf8');
const steps = tourSteps(readme);

t.test('the tour parser finds commands, continuations and outputs', async (t) => {
  const parsed = tourSteps('x\n## A 30-second tour\n\n```console\n$ curl a \\\n    b\n{"k":1}\nmore\n$ echo\n```\n## Next\n');
  t.same(parsed, [
    { command: 'curl a  b', shown: '{"k":1}\nmore\n' },
    { command: 'echo', shown: '' },
  ]);
});

t.test("the README's tour, as written", async (t) => {
  t.ok(steps.length >= 5, `the tour has its commands (${steps.length})`);
  const terminal = openSimTerminal();
  t.teardown(() => terminal.close());
  const server = await serve(t, nodeAdapter, terminal);
  const host = server.base.replace(/^http:\/\//, '');
  for (const step of steps) {
    t.match(step.command, /localhost:8000/, `${step.command.slice(0, 40)}…: addresses the default server`);
    const streaming = step.command.includes('text/event-stream');
    const r = await run(step.command.replaceAll('localhost:8000', host), streaming ? 2_500 : undefined);
    t.equal(r.code, 0, `${step.command.slice(0, 60)}… exits 0`, { stderr: r.stderr.slice(-1000) });
    const members = [...new Set([...step.shown.matchAll(/"(\w+)":/g)].map((m) => m[1] as string))];
    for (const member of members) t.match(r.stdout, `"${member}":`, `${step.command.slice(0, 40)}… answers with "${member}"`);
    const status = /^(\d{3}) /.exec(step.shown)?.[1];
    if (status !== undefined) t.match(r.stdout, new RegExp(`^${status} `), `${step.command.slice(0, 40)}… status ${status}`);
    if (streaming) t.match(r.stdout, /event: tick\ndata: \{"symbol":"EURUSD"/, 'the stream carries EURUSD ticks');
    t.ok(members.length > 0 || status !== undefined, `${step.command.slice(0, 40)}… shows something to check`);
  }
});
