// README.md's "A 30-second tour", run as written (only the address swapped) so that the block cannot
// rot. Its outputs are the simulator's at TOUR_CLOCK (scripts/readme-tour.js writes them) and the
// simulator is deterministic, so against a server whose clock is frozen at that instant every step
// must answer exactly what the README shows: health, the tick, the bars, the week's Parquet (status,
// bytes and the tick count in its comment; not the download time, which is live), the margin, the
// order check. The event stream is live: it runs against a clock running from TOUR_CLOCK (whatever
// day it really is), its events (the README's too) are checked tick for tick against the
// simulator's schedule, and the wait for them is derived from that schedule, not guessed.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import t, { type Test } from 'tap';

import { nodeAdapter } from '../../src/http/adapters/node/adapter.js';
import { openSimTerminal } from '../../src/terminal/index.js';
import { readTicks } from '../../src/events/tick-feed.js';
import {
  TOUR_CLOCK,
  TOUR_CLOCK_MS,
  SHOWN_EVENTS_WITHIN_MS,
  captureStream,
  isStreaming,
  loadSchedule,
  parseStream,
  renderOutput,
  runCommand,
  streamProblems,
  streamSymbols,
  tourBlock,
  type CommandResult,
  type TourStep,
} from '../../scripts/readme-tour.js';
import { serve, testConfig } from '../helpers/server.js';

const readme = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md'), 'utf8');
const steps = tourBlock(readme)?.steps ?? [];
const label = (step: TourStep): string => `\`${step.command.slice(0, 60)}…\``;

/** The simulator's ticks in [fromMs, toMs], from a terminal frozen at toMs (same seed as `npm start`'s). */
async function ticksOf(symbol: string, fromMs: number, toMs: number) {
  const frozen = openSimTerminal({ nowMs: toMs });
  try {
    const series = await frozen.copyTicksRange(symbol, fromMs, toMs, -1);
    try {
      return await readTicks(series);
    } finally {
      series.close();
    }
  } finally {
    frozen.close();
  }
}

t.test('the tour parser finds commands, continuations and outputs', async (t) => {
  const block = tourBlock('x\n## A 30-second tour\n\ntext\n```console\n$ curl a \\\n    b\n{"k":1}\nmore\n$ echo\n```\n## Next\n```console\n$ no\n```\n');
  t.same(block?.steps, [
    { command: 'curl a  b', commandLines: ['$ curl a \\', '    b'], output: ['{"k":1}', 'more'] },
    { command: 'echo', commandLines: ['$ echo'], output: [] },
  ]);
  t.equal(tourBlock('## A 30-second tour\n```console\n```\n'), undefined, 'no block without the heading line');
});

t.test('outputs are rendered as the service answers them, byte for byte but for elisions and times', async (t) => {
  const answer = (stdout: string, parquetRows: Record<string, number> = {}): CommandResult => ({ code: 0, signal: null, stopped: false, timedOut: false, stdout, stderr: '', parquetRows });
  const step = (command: string, output: string[]): TourStep => ({ command, commandLines: [`$ ${command}`], output });
  t.same(renderOutput(step('curl -s x', ['{"a":0}']), answer('{"a":1,"b":[1,2]}\n')), ['{"a":1,"b":[1,2]}'], 'as it came');
  t.same(
    renderOutput(step('curl -s x', ['[{"a":0},', ' {"a":0}]']), answer('[{"a":1,"s":"x,]"},{"a":2}]')),
    ['[{"a":1,"s":"x,]"},{"a":2}]'],
    'an array on one line as curl prints it, however the block wrapped it',
  );
  t.same(
    renderOutput(step('curl -s x', ['{"a":0,...,"c":"x","r":{...}}']), answer('{"a":1,"b":2,"c":"y, z","r":{"q":1}}')),
    ['{"a":1,...,"c":"y, z","r":{...}}'],
    'members left out stay left out',
  );
  t.same(
    renderOutput(step("curl -s -o w.parquet -w '%{http_code} %{size_download} bytes in %{time_total}s\\n' x", ['200 12 bytes in 0.5s      # a week: 1 000 ticks, zstd']), answer('200 3799544 bytes in 0.012345s\n', { 'w.parquet': 976883 })),
    ['200 3799544 bytes in 0.5s  # a week: 976 883 ticks, zstd'],
    'the time stays as shown, the comment counts the rows written',
  );
  t.same(
    parseStream(': connected\nretry: 1000\n\nid: 1-0\nevent: tick\ndata: {}\n\nid: 2-0\nevent: tick\ndata: {"x":', { captured: true }),
    { header: [': connected', 'retry: 1000', ''], events: [{ id: '1-0', event: 'tick', data: '{}' }] },
    'a captured stream counts complete events only',
  );
});

t.test(`the README's tour, as written, on the simulator at ${TOUR_CLOCK}`, async (t) => {
  t.ok(steps.length >= 5, `the tour has its commands (${steps.length})`);
  t.ok(steps.some(isStreaming), 'the tour has its event stream');
  const frozen = openSimTerminal({ nowMs: TOUR_CLOCK_MS });
  t.teardown(() => frozen.close());
  const server = await serve(t, nodeAdapter, frozen);
  const host = server.base.replace(/^http:\/\//, '');
  for (const step of steps) {
    t.match(step.command, /localhost:8000/, `${label(step)} addresses the default server`);
    if (isStreaming(step)) {
      await t.test(`${label(step)}: live events, checked against the simulator's schedule`, (tt) => streamStep(tt, step));
      continue;
    }
    const answer = await runCommand(step.command, { host });
    t.equal(answer.code, 0, `${label(step)} exits 0`, { stderr: answer.stderr.slice(-1000) });
    const live = step.command.includes('%{time_') ? ' (but the download time: live, not compared)' : '';
    t.equal(step.output.join('\n'), renderOutput(step, answer).join('\n'), `${label(step)}: the README shows what the service answers${live} (else: node scripts/readme-tour.js)`);
  }
});

async function streamStep(t: Test, step: TourStep): Promise<void> {
  const symbols = streamSymbols(step.command);
  t.ok(symbols.length > 0, `the stream names its symbols (${symbols.join(',')})`);
  const shown = parseStream(step.output.join('\n'));
  t.ok(shown.events.length > 0, `the README shows events (${shown.events.length})`);
  t.equal(step.output[step.output.length - 1], '...', 'and that the stream goes on');
  for (const symbol of symbols) t.ok(shown.events.some((e) => JSON.parse(e.data ?? '{}').symbol === symbol), `the README shows a ${symbol} event`);
  const window = { fromMs: TOUR_CLOCK_MS - 60_000, toMs: TOUR_CLOCK_MS + 300_000 };
  const schedule = await loadSchedule(ticksOf, symbols, window.fromMs, window.toMs);
  t.same(
    streamProblems(shown.events, { symbols, schedule, afterMs: TOUR_CLOCK_MS, beforeMs: TOUR_CLOCK_MS + SHOWN_EVENTS_WITHIN_MS }),
    [],
    `the README's events are the simulator's ticks just after ${TOUR_CLOCK} (else: node scripts/readme-tour.js)`,
  );

  // A clock running from TOUR_CLOCK: a busy Wednesday market whatever day and hour it really is.
  t.comment("live: the ticks streamed depend on when the stream starts, so they are checked against the simulator's schedule, not the README");
  const started = performance.now();
  const running = openSimTerminal({ clockStartMs: TOUR_CLOCK_MS });
  t.teardown(() => running.close());
  const server = await serve(t, nodeAdapter, running);
  const simNow = (): number => TOUR_CLOCK_MS + (performance.now() - started); // never behind the terminal's clock
  const count = shown.events.length;
  const capture = await captureStream(step.command, {
    host: server.base.replace(/^http:\/\//, ''),
    count,
    schedule,
    simNow,
    pollMs: testConfig().events.pollMs,
    slackMs: 5_000,
  });
  t.ok(capture.stopped && capture.signal !== null, 'the stream ran until stopped', { code: capture.code, stderr: capture.stderr.slice(-1000) });
  t.ok(capture.connectedMs !== undefined && capture.connectedMs < window.toMs - 60_000, 'it connected within the schedule loaded');
  t.ok(capture.waitMs !== undefined, "the schedule gives the wait for the README's number of events", { waitMs: capture.waitMs });
  t.ok(capture.events.length >= count, `${count} events arrived in ${Math.round(capture.tookMs)} ms (the schedule allowed ${Math.round(capture.waitMs ?? 0)} ms once connected)`);
  t.same(capture.header, shown.header, 'the stream opens as the README shows');
  t.same(streamProblems(capture.events, { symbols, schedule, afterMs: TOUR_CLOCK_MS, beforeMs: window.toMs }), [], "every event is the simulator's next tick, its id every symbol's position");
  const members = (data: string | undefined): string => Object.keys(JSON.parse(data ?? '{}') as object).join(',');
  const shownMembers = members(shown.events[0]?.data);
  t.same(capture.events.map((e) => members(e.data)), capture.events.map(() => shownMembers), `with the members the README shows (${shownMembers})`);
}

t.test("the tour's event stream shows ticks whatever the day and hour a newcomer runs it", async (t) => {
  // The stream runs on the wall clock under `npm start`. FX closes from Friday 17:00 to Sunday 17:00
  // New York and is slow at night; the listed symbols together must still tick every few seconds,
  // every hour of a week (the week after the tour's instant; any week is alike).
  const step = steps.find(isStreaming);
  const symbols = step ? streamSymbols(step.command) : [];
  const fromMs = Date.UTC(2026, 10, 30);
  const toMs = fromMs + 7 * 86_400_000;
  const times: number[] = [];
  const frozen = openSimTerminal({ nowMs: toMs });
  t.teardown(() => frozen.close());
  for (const symbol of symbols) {
    const series = await frozen.copyTicksRange(symbol, fromMs, toMs, -1);
    for (let chunk = await series.next(); chunk; chunk = await series.next()) for (let i = 0; i < chunk.rows; i++) times.push(Number(chunk.time_msc[i]));
    series.close();
  }
  times.sort((a, b) => a - b);
  let longest = 0;
  let at = fromMs;
  let previous = fromMs;
  for (const time of [...times, toMs]) {
    if (time - previous > longest) [longest, at] = [time - previous, previous];
    previous = time;
  }
  t.ok(longest <= 15_000, `${symbols.join(',')}: at most 15 s without a tick all week (longest ${longest} ms, from ${new Date(at).toISOString()})`);
});
