// Issue 23 item 4, fourth friction: the export's progress line showed `0.0 MB` first (it was drawn
// when the first chunk was read, before a byte was written) and an ETA that said little (`ETA 1 s`
// throughout): measured from when the command started, against the whole --from/--to span even
// where the history holds nothing (a range starting in a year without ticks jumps to a large
// percentage at the first row). As a unit, with a fake clock: the line is drawn once bytes are
// written; the share done and the ETA come from the range's progress, the time of the last row
// written between the first row's time and --to, at the rate measured since the first row was written.
import t from 'tap';

import { Progress } from '../../src/export/progress.js';

const DAY = 86_400_000;
const FROM = Date.UTC(2019, 0, 1);
const TO = Date.UTC(2024, 0, 1);

function progress(range = { fromMs: FROM, toMs: TO }) {
  let now = 0;
  const written: string[] = [];
  const p = new Progress({ isTTY: true, write: (s: string) => void written.push(s) }, 'EURUSD ticks', range, () => now);
  return {
    p,
    at: (ms: number) => void (now = ms),
    /** The lines drawn, without the carriage return and erase sequence. */
    lines: () => written.map((s) => s.replace(/^\r\x1b\[K/, '').replace(/\n$/, '')).filter((s) => s !== ''),
  };
}

t.test('no line before a byte is written', async (t) => {
  const { p, at, lines } = progress();
  at(500);
  p.update(65_536, 0, FROM + 2 * DAY, FROM + DAY); // a chunk read, nothing written yet
  t.same(lines(), [], 'no "0.0 MB" line');
  at(1_000);
  p.update(65_536, 2_500_000, FROM + 2 * DAY, FROM + DAY);
  t.equal(lines().length, 1);
  t.match(lines()[0], /^EURUSD ticks: 65,536 rows, 2\.5 MB, /);
});

t.test('the share and the ETA follow the range from its first row, at the rate since that row', async (t) => {
  // The history starts a year into the range: 2020-01-01. The terminal took 5 s to open the cursor.
  const first = Date.UTC(2020, 0, 1);
  const { p, at, lines } = progress();
  at(5_000);
  p.update(1_000, 100_000, first + 1_000, first); // the first rows written at 5 s
  at(15_000);
  // 10 s later, half of 2020-01-01 .. 2024-01-01 is written: 10 s more to go.
  const half = first + (TO - first) / 2;
  p.update(5_000_000, 200_000_000, half, first);
  const line = lines().at(-1) ?? '';
  t.match(line, /, 50 %, ETA 10 s$/, line);
  at(20_000);
  // Three quarters at 15 s since the first row: 5 s more.
  p.update(7_500_000, 300_000_000, first + ((TO - first) * 3) / 4, first);
  t.match(lines().at(-1), /, 75 %, ETA 5 s$/);
});

t.test('the ETA changes as the rate does, and is not drawn before it means something', async (t) => {
  const { p, at, lines } = progress({ fromMs: 0, toMs: 1000 * DAY });
  at(0);
  p.update(10, 1_000, 0, 0); // the first row, at the start of the range: nothing done yet
  t.notMatch(lines().at(-1), /ETA/, 'no ETA with nothing of the range behind');
  at(60_000);
  p.update(100, 10_000, 100 * DAY, 0); // 10 % in a minute: 9 min to go
  t.match(lines().at(-1), /, 10 %, ETA 9 min 0 s$/);
  at(120_000);
  p.update(100, 10_000, 600 * DAY, 0); // faster now: 60 % in 2 min, 80 s to go
  t.match(lines().at(-1), /, 60 %, ETA 1 min 20 s$/);
});

t.test('the final line and the redraw interval', async (t) => {
  const { p, at, lines } = progress();
  at(1_000);
  p.update(10, 1_000, FROM + DAY, FROM);
  at(1_100);
  p.update(20, 2_000, FROM + 2 * DAY, FROM); // within 200 ms of the last draw: not drawn
  t.equal(lines().length, 1);
  at(3_000);
  p.done(20, 2_000_000, 'out.parquet');
  t.match(lines().at(-1), /^EURUSD ticks: 20 rows, 2\.0 MB in 3\.0 s -> out\.parquet$/);
});
