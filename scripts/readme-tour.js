#!/usr/bin/env node
// Regenerates what README.md's "A 30-second tour" prints under each of its commands. Typed by hand,
// those outputs rotted (bars the simulator never made); but the simulator is deterministic (history
// is a pure function of seed, symbol and time), so a server whose clock reads TOUR_CLOCK answers the
// tour the same way every time. This script serves the simulator at that instant (a frozen clock for
// every step but the event stream, which gets a clock running from it), runs each `$ ` command of
// the block as written (address swapped), and writes the answers in the block's own layout.
//
//   npm run build:ts && node scripts/readme-tour.js     rewrite the block in README.md in place
//   node scripts/readme-tour.js --check                 exit 1 with a diff when the block is stale
//
// Needs the compiled package (dist/), bash and curl. Genuinely live parts stay as written while they
// are still true: the download time (never compared), and the events, which must be the
// simulator's own ticks just after TOUR_CLOCK (rewritten from a fresh capture otherwise).
// test/examples/tour.test.ts uses the functions exported here and fails on a stale block.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { parquetMetadata } from 'hyparquet';

/** The instant the tour's outputs come from: a Wednesday, FX and crypto open, a few days after the
 *  dates the tour asks about (bars of 2026-11-20, ticks of the week of 2026-11-16). */
export const TOUR_CLOCK = '2026-11-25T14:00:00Z';
export const TOUR_CLOCK_MS = Date.parse(TOUR_CLOCK);
/** Events shown when the block shows none yet. */
const DEFAULT_EVENTS = 3;
/** The README's events must be ticks of the first minute after TOUR_CLOCK. */
export const SHOWN_EVENTS_WITHIN_MS = 60_000;

// ---- the block ------------------------------------------------------------------------------------

/**
 * The tour's ```console block: `start`/`end` delimit its body in `readme`; each step is a `$ `
 * command with its `\` continuation lines, then the lines shown under it.
 */
export function tourBlock(readme) {
  const heading = readme.indexOf('\n## A 30-second tour\n');
  if (heading < 0) return undefined;
  const next = readme.indexOf('\n## ', heading + 1);
  const sectionEnd = next < 0 ? readme.length : next;
  const fence = readme.indexOf('\n```console\n', heading);
  if (fence < 0 || fence > sectionEnd) return undefined;
  const start = fence + '\n```console\n'.length;
  const close = readme.indexOf('\n```', start - 1);
  if (close < 0 || close > sectionEnd) return undefined;
  const end = close + 1;
  const lines = readme.slice(start, end).replace(/\n$/, '').split('\n');
  const preamble = [];
  const steps = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.startsWith('$ ')) {
      (steps.length > 0 ? steps[steps.length - 1].output : preamble).push(line);
      continue;
    }
    const commandLines = [line];
    let command = line.slice(2);
    while (command.endsWith('\\') && i + 1 < lines.length) {
      const more = lines[++i];
      commandLines.push(more);
      command = `${command.slice(0, -1)} ${more.trim()}`;
    }
    steps.push({ command, commandLines, output: [] });
  }
  return { start, end, preamble, steps };
}

/** The block body for these steps (outputs[i] replacing steps[i].output where given). */
export function blockText(block, outputs = []) {
  const lines = [...block.preamble];
  block.steps.forEach((step, i) => lines.push(...step.commandLines, ...(outputs[i] ?? step.output)));
  return `${lines.join('\n')}\n`;
}

export function isStreaming(step) {
  return step.command.includes('text/event-stream');
}

/** The symbols of an /events command. */
export function streamSymbols(command) {
  const m = /[?&]symbols=([^&'"\s]+)/.exec(command);
  return m ? decodeURIComponent(m[1]).split(',') : [];
}

// ---- running a command ----------------------------------------------------------------------------

/**
 * Runs `command` with bash -e in a scratch directory, `localhost:8000` swapped for `host`. `watch`
 * sees the stdout so far after each read and may call `stop` (which ends the command's process
 * group: a stream never ends by itself). Resolves with the rows of every Parquet file it wrote.
 */
export function runCommand(command, { host, watch, onSpawn, timeoutMs = 60_000 }) {
  const cwd = mkdtempSync(path.join(tmpdir(), 'tradeapi-tour-'));
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-c', command.replaceAll('localhost:8000', host)], { cwd, detached: true });
    let stdout = '';
    let stderr = '';
    let stopped = false;
    let timedOut = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    onSpawn?.(stop);
    child.stdout.on('data', (d) => {
      stdout += d.toString();
      watch?.(stdout, stop);
    });
    child.stderr.on('data', (d) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const parquetRows = {};
      try {
        for (const name of readdirSync(cwd).filter((n) => n.endsWith('.parquet'))) {
          const bytes = readFileSync(path.join(cwd, name));
          parquetRows[name] = Number(parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)).num_rows);
        }
      } catch (e) {
        stderr += `\n(reading the Parquet it wrote: ${e instanceof Error ? e.message : String(e)})`;
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
      resolve({ code, signal, stopped, timedOut, stdout, stderr, parquetRows });
    });
  });
}

// ---- what a step shows ----------------------------------------------------------------------------

/** The items of a JSON object or array text (its top level split at commas, strings respected). */
function topLevelItems(text) {
  const items = [];
  let depth = 0;
  let inString = false;
  let from = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) items.push(text.slice(from, i));
    } else if (c === ',' && depth === 1) {
      items.push(text.slice(from, i));
      from = i + 1;
    }
  }
  return items.filter((s) => s !== '');
}

const MEMBER = /^("(?:[^"\\]|\\.)*"):([\s\S]*)$/;

/**
 * A JSON object shown with `...` for members left out: the same members, in the same places, with
 * the answer's values; a value shown as `{...}` or `[...]` stays elided.
 */
function elided(template, answer) {
  const values = new Map();
  for (const item of topLevelItems(answer)) {
    const m = MEMBER.exec(item);
    if (m) values.set(m[1], m[2]);
  }
  const parts = topLevelItems(template).map((item) => {
    const m = MEMBER.exec(item);
    if (!m) return item; // `...`
    if (m[2] === '{...}' || m[2] === '[...]') return item;
    return `${m[1]}:${values.has(m[1]) ? values.get(m[1]) : '<absent>'}`;
  });
  return `{${parts.join(',')}}`;
}

/** Groups of three digits with a space, as the README writes counts (976 883). */
function spaced(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

/**
 * A curl `-w` line: the answer's, with its times (`0.68s`: live, never compared) as the README has
 * them, and a trailing `# comment` kept in its column, its `N ticks` being the rows of the Parquet
 * file the command wrote.
 */
function writeOutLine(shown, answer, command, parquetRows) {
  const m = /^(.*?)(\s{2,})(# .*)$/.exec(shown) ?? [shown, shown, '', ''];
  const [, shownOut, , comment] = m;
  const shownTimes = shownOut.match(/\b\d+(?:\.\d+)?s\b/g) ?? [];
  let k = 0;
  const out = answer.replace(/\b\d+(?:\.\d+)?s\b/g, (t) => shownTimes[k++] ?? t);
  if (!comment) return out;
  const file = /(?:^|\s)-o\s+(\S+)/.exec(command)?.[1];
  const rows = file === undefined ? undefined : parquetRows[file];
  const note = rows === undefined ? comment : comment.replace(/\b\d{1,3}(?: \d{3})*(?= ticks\b)/, spaced(rows));
  return `${out}${' '.repeat(Math.max(2, shown.indexOf(comment) - out.length))}${note}`;
}

/**
 * The lines a deterministic step shows for `answer` (runCommand's result): a `-w` status line; a
 * JSON object with `...` for members left out; otherwise the answer byte for byte as curl prints
 * it (an array on one line as it comes, never re-wrapped for the page: a reader compares the two).
 */
export function renderOutput(step, answer) {
  const text = answer.stdout.replace(/\n$/, '');
  const shown = step.output.join('\n');
  if (/(?:^|\s)-w\s/.test(step.command)) return text.split('\n').map((line, i) => writeOutLine(step.output[i] ?? '', line, step.command, answer.parquetRows));
  if (shown.includes('...') && text.startsWith('{')) return [elided(shown, text)];
  return text.split('\n');
}

// ---- the event stream -----------------------------------------------------------------------------

/**
 * An SSE text's lines before its first event, and its events. The block shows a stream as its
 * first lines, some events and `...`; a captured stream may end inside an event: only complete ones
 * (ended by a blank line) count there.
 */
export function parseStream(text, { captured = false } = {}) {
  const body = captured ? text.slice(0, text.lastIndexOf('\n\n') + 2) : text;
  const lines = body.split('\n');
  const firstEvent = lines.findIndex((l) => l.startsWith('id: ') || l.startsWith('event: '));
  const header = firstEvent < 0 ? lines : lines.slice(0, firstEvent);
  const events = [];
  let current;
  for (const line of firstEvent < 0 ? [] : lines.slice(firstEvent)) {
    if (line === '' || line === '...') {
      if (current) events.push(current);
      current = undefined;
      continue;
    }
    current ??= { id: undefined, event: undefined, data: undefined };
    const m = /^(id|event|data): (.*)$/.exec(line);
    if (m) current[m[1]] = m[2];
  }
  if (current && !captured) events.push(current);
  return { header, events };
}

/** A stream's lines as the block shows them: its first lines, `count` events, then `...`. */
export function renderStream(stdout, count) {
  const { header, events } = parseStream(stdout, { captured: true });
  const lines = [...header];
  events.slice(0, count).forEach((e, i) => {
    if (i > 0) lines.push('');
    lines.push(`id: ${e.id}`, `event: ${e.event}`, `data: ${e.data}`);
  });
  lines.push('...');
  return lines;
}

/**
 * The simulator's ticks of `symbols` between two instants, as a frozen terminal has them: what a
 * terminal whose clock runs through that window publishes. `ticksOf(symbol, fromMs, toMs)` reads
 * them (copyTicksRange, COPY_TICKS_ALL). Each tick gets its seq, its index within its millisecond.
 */
export async function loadSchedule(ticksOf, symbols, fromMs, toMs) {
  const schedule = new Map();
  for (const symbol of symbols) {
    const ticks = await ticksOf(symbol, fromMs, toMs);
    const positions = [];
    ticks.forEach((tick, i) => {
      const prev = positions[i - 1];
      positions.push({ time_msc: tick.time_msc, seq: prev && prev.time_msc === tick.time_msc ? prev.seq + 1 : 0, tick });
    });
    schedule.set(symbol, { fromMs, toMs, positions, index: new Map(positions.map((p, i) => [`${p.time_msc}-${p.seq}`, i])) });
  }
  return schedule;
}

/**
 * How long to wait, once the stream says `: connected` at simulated instant `connectedMs`, for
 * `count` events (and, with `everySymbol`, one of each symbol): until that tick of its symbols after
 * that instant (its events are the ticks after the latest one at subscription, which came before),
 * plus two polls of the gateway's tick feed, plus `slackMs` for a loaded machine. Undefined if the
 * schedule holds too few ticks.
 */
export function streamWaitMs(schedule, connectedMs, count, pollMs, slackMs, everySymbol = false) {
  const times = [];
  let last = -Infinity;
  for (const { positions } of schedule.values()) {
    const after = positions.filter((p) => p.time_msc > connectedMs);
    if (everySymbol) last = Math.max(last, after[0]?.time_msc ?? Infinity);
    for (const p of after) times.push(p.time_msc);
  }
  times.sort((a, b) => a - b);
  last = Math.max(last, times[count - 1] ?? Infinity);
  return Number.isFinite(last) ? last - connectedMs + 2 * pollMs + slackMs : undefined;
}

/** How many of these events to show: `count`, or more until each of `symbols` has one. */
function shownCount(events, symbols, count, everySymbol) {
  if (!everySymbol) return count;
  const firsts = symbols.map((s) => events.findIndex((e) => e.data?.includes(`"symbol":${JSON.stringify(s)}`)));
  return firsts.includes(-1) ? Infinity : Math.max(count, ...firsts.map((i) => i + 1));
}

/**
 * Runs an /events command until it has shown `count` events (and, with `everySymbol`, one of each
 * symbol of the schedule), or until the wait the schedule gives (streamWaitMs) runs out. `simNow()`
 * is the running server's clock, UTC ms. `count` comes back as the number of events that made it.
 */
export async function captureStream(command, { host, count, schedule, simNow, pollMs, slackMs, everySymbol = false, connectTimeoutMs = 30_000 }) {
  const symbols = [...schedule.keys()];
  let waitMs;
  let connectedMs;
  let timer;
  const started = performance.now();
  const result = await runCommand(command, {
    host,
    timeoutMs: 10 * 60_000, // a bound on the whole, should the schedule give a wait that long
    onSpawn: (stop) => (timer = setTimeout(stop, connectTimeoutMs)),
    watch(stdout, stop) {
      if (connectedMs === undefined && stdout.includes(': connected\n')) {
        connectedMs = simNow();
        waitMs = streamWaitMs(schedule, connectedMs, count, pollMs, slackMs, everySymbol);
        clearTimeout(timer);
        timer = setTimeout(stop, waitMs ?? 0);
      }
      const { events } = parseStream(stdout, { captured: true });
      if (events.length >= shownCount(events, symbols, count, everySymbol)) stop();
    },
  }).finally(() => clearTimeout(timer));
  const stream = parseStream(result.stdout, { captured: true });
  const made = shownCount(stream.events, symbols, count, everySymbol);
  return { ...result, connectedMs, waitMs, tookMs: performance.now() - started, count: made, ...stream };
}

/** The cursors of an event id: `<time_msc>-<seq>` for the first symbol, `,<first - time>-<seq>` per further one. */
function idCursors(id) {
  const parts = (id ?? '').split(',');
  const cursors = [];
  for (const [i, part] of parts.entries()) {
    const m = /^(-?\d+)-(-1|\d+)$/.exec(part);
    if (!m) return undefined;
    const n = Number(m[1]);
    cursors.push({ time_msc: i === 0 ? n : cursors[0].time_msc - n, seq: Number(m[2]) });
  }
  return cursors;
}

/**
 * What is wrong with these tick events for a stream of `symbols`, against the simulator's
 * `schedule`: each must be the schedule's tick (every member, exactly, `symbol` first), dated in
 * (afterMs, beforeMs]; its id must give every symbol's position (the event's own tick for its own
 * symbol); and from one event to the next exactly one symbol moves, to the tick right after its
 * previous position: nothing skipped, nothing repeated. Empty when all is well.
 */
export function streamProblems(events, { symbols, schedule, afterMs, beforeMs }) {
  const problems = [];
  let previous;
  events.forEach((e, n) => {
    const where = `event ${n + 1} (id ${e.id})`;
    if (e.event !== 'tick') problems.push(`${where}: event ${JSON.stringify(e.event)}, not tick`);
    let data;
    try {
      data = JSON.parse(e.data ?? '');
    } catch {
      problems.push(`${where}: data is not JSON: ${e.data}`);
      return;
    }
    const own = symbols.indexOf(data.symbol);
    const cursors = idCursors(e.id);
    if (own < 0) return problems.push(`${where}: symbol ${JSON.stringify(data.symbol)} is not one of ${symbols.join(',')}`);
    if (!cursors || cursors.length !== symbols.length) return problems.push(`${where}: the id does not name a position per symbol (${symbols.join(',')})`);
    const sched = schedule.get(data.symbol);
    const at = sched.index.get(`${cursors[own].time_msc}-${cursors[own].seq}`);
    if (cursors[own].time_msc !== data.time_msc || at === undefined) {
      problems.push(`${where}: the id's ${data.symbol} position ${cursors[own].time_msc}-${cursors[own].seq} is not a tick of the simulator's at ${data.time_msc}`);
    } else {
      // (seq: the event's number in its connection, 1, 2, 3…: the tour's stream sends ticks only.)
      const expected = JSON.stringify({ symbol: data.symbol, ...sched.positions[at].tick, seq: n + 1 });
      if (JSON.stringify(data) !== expected) problems.push(`${where}: ${e.data} is not the simulator's tick ${expected}`);
    }
    if (!(data.time_msc > afterMs && data.time_msc <= beforeMs)) {
      problems.push(`${where}: its tick (${new Date(data.time_msc).toISOString()}) is not in (${new Date(afterMs).toISOString()}, ${new Date(beforeMs).toISOString()}]`);
    }
    symbols.forEach((symbol, i) => {
      const c = cursors[i];
      const known = c.seq === -1 || schedule.get(symbol).index.has(`${c.time_msc}-${c.seq}`);
      if (!known && i !== own) problems.push(`${where}: its ${symbol} position ${c.time_msc}-${c.seq} is not a tick of the simulator's`);
      if (!previous) return;
      const p = previous[i];
      if (i !== own && (c.time_msc !== p.time_msc || c.seq !== p.seq)) problems.push(`${where}: ${symbol} moved without an event`);
      if (i === own) {
        const before = schedule.get(symbol).index.get(`${p.time_msc}-${p.seq}`);
        const after = schedule.get(symbol).positions[before === undefined ? -1 : before + 1];
        if (!after || after.time_msc !== c.time_msc || after.seq !== c.seq) problems.push(`${where}: not the ${symbol} tick right after the previous position ${p.time_msc}-${p.seq}`);
      }
    });
    previous = cursors;
  });
  return problems;
}

// ---- the script -----------------------------------------------------------------------------------

async function main(argv) {
  const check = argv.includes('--check');
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const readmePath = path.join(root, 'README.md');
  const dist = (file) => import(pathToFileURL(path.join(root, 'dist/src', file)).href);
  let modules;
  try {
    modules = await Promise.all(['terminal/index.js', 'events/tick-feed.js', 'server.js', 'config/index.js', 'http/adapters/node/adapter.js', 'log.js'].map(dist));
  } catch (e) {
    console.error(`readme-tour: cannot load the compiled package (npm run build:ts first): ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  const [{ openSimTerminal }, { readTicks }, { startServer }, { loadConfig }, { nodeAdapter }, { createLogger }] = modules;
  const readme = readFileSync(readmePath, 'utf8');
  const block = tourBlock(readme);
  if (!block) {
    console.error('readme-tour: README.md has no ```console block under "## A 30-second tour"');
    return 2;
  }

  const config = loadConfig({ TRADEAPI_HOST: '127.0.0.1', TRADEAPI_PORT: '0' });
  const opened = [];
  const serve = async (terminal) => {
    const server = await startServer({ terminal, config, adapter: nodeAdapter, host: '127.0.0.1', port: 0, logger: createLogger('silent') });
    opened.push(async () => {
      await server.close(1000);
      terminal.close();
    });
    return `127.0.0.1:${server.port}`;
  };
  const ticksOf = async (symbol, fromMs, toMs) => {
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
  };

  const outputs = [];
  const notes = [];
  try {
    const frozenHost = await serve(openSimTerminal({ nowMs: TOUR_CLOCK_MS }));
    for (const step of block.steps) {
      if (!isStreaming(step)) {
        const answer = await runCommand(step.command, { host: frozenHost });
        if (answer.code !== 0) throw new Error(`\`${step.command}\` exited ${answer.code}: ${answer.stderr}`);
        outputs.push(renderOutput(step, answer));
        continue;
      }
      // The stream: a clock running from TOUR_CLOCK, so that ticks arrive as they would then.
      const symbols = streamSymbols(step.command);
      const shown = parseStream(step.output.join('\n'));
      const count = shown.events.length || DEFAULT_EVENTS;
      const start = performance.now();
      const runningHost = await serve(openSimTerminal({ clockStartMs: TOUR_CLOCK_MS }));
      const simNow = () => TOUR_CLOCK_MS + (performance.now() - start);
      const schedule = await loadSchedule(ticksOf, symbols, TOUR_CLOCK_MS - 60_000, TOUR_CLOCK_MS + 600_000);
      // A fresh capture shows each symbol at least once (it is only used if the block's is stale).
      const capture = await captureStream(step.command, { host: runningHost, count, schedule, simNow, pollMs: config.events.pollMs, slackMs: 5_000, everySymbol: true });
      const captureWrong = streamProblems(capture.events, { symbols, schedule, afterMs: TOUR_CLOCK_MS, beforeMs: TOUR_CLOCK_MS + 600_000 });
      if (capture.events.length < capture.count || captureWrong.length > 0) {
        throw new Error(`the event stream gave ${capture.events.length} events, not ${count} with one of each symbol, in ${Math.round(capture.tookMs)} ms (waited ${Math.round(capture.waitMs ?? 0)} ms once connected)${captureWrong.map((p) => `\n  ${p}`).join('')}\n${capture.stderr}`);
      }
      const shownWrong = streamProblems(shown.events, { symbols, schedule, afterMs: TOUR_CLOCK_MS, beforeMs: TOUR_CLOCK_MS + SHOWN_EVENTS_WITHIN_MS });
      if (shown.events.length === 0) shownWrong.push('it shows no event');
      for (const s of symbols) if (!shown.events.some((e) => e.data?.includes(`"symbol":${JSON.stringify(s)}`))) shownWrong.push(`it shows no ${s} event`);
      if (shown.header.join('\n') !== capture.header.join('\n')) shownWrong.push(`its first lines are not the stream's (${JSON.stringify(capture.header.join('\n'))})`);
      if (step.output[step.output.length - 1] !== '...') shownWrong.push('it does not end with ...');
      if (shownWrong.length === 0) outputs.push(step.output); // still true: a fresh capture would only churn
      else {
        notes.push(`the events shown are stale:${shownWrong.map((p) => `\n  ${p}`).join('')}`);
        outputs.push(renderStream(capture.stdout, capture.count));
      }
    }
  } finally {
    for (const close of opened) await close();
  }

  const updated = readme.slice(0, block.start) + blockText(block, outputs) + readme.slice(block.end);
  if (updated === readme) {
    console.log(`readme-tour: the tour's outputs are the simulator's at ${TOUR_CLOCK}`);
    return 0;
  }
  if (!check) {
    // Re-read: only the block is replaced, whatever else changed in the file meanwhile.
    const current = readFileSync(readmePath, 'utf8');
    const again = tourBlock(current);
    if (!again || current.slice(again.start, again.end) !== readme.slice(block.start, block.end)) {
      console.error('readme-tour: README.md\'s tour block changed while this ran; run it again');
      return 2;
    }
    writeFileSync(readmePath, current.slice(0, again.start) + blockText(block, outputs) + current.slice(again.end));
    console.log(`readme-tour: rewrote the tour's outputs (the simulator at ${TOUR_CLOCK})`);
    return 0;
  }
  for (const note of notes) console.log(`readme-tour: ${note}`);
  const scratch = mkdtempSync(path.join(tmpdir(), 'tradeapi-readme-'));
  const expected = path.join(scratch, 'README.md');
  writeFileSync(expected, updated);
  spawnSync('diff', ['-u', '--label', 'README.md', '--label', 'README.md (regenerated)', readmePath, expected], { stdio: 'inherit' });
  rmSync(scratch, { recursive: true, force: true });
  console.log('readme-tour: README.md\'s tour is stale; run `node scripts/readme-tour.js` to regenerate it');
  return 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      console.error(`readme-tour: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(2);
    },
  );
}
