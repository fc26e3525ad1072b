// Many symbols in one pull (issue 36 §2): ten symbols merged in one /ticks/range answer against one
// symbol's answer of about as many ticks, in Parquet and Arrow, rows/s of each and their ratio
// (target: merged >= 0.8x one symbol), and the server's RSS growth over its idle RSS during each
// pull (target: <= +100 MB). One fresh `tradeapi serve` (the simulator, its clock fixed) per pull.
//
//   npm run build:ts && node dist/bench/multi-symbol.js [--ticks 1e7] [--symbols 10] [--formats parquet,arrow] [--bars PERIOD]
//
// --bars ticks:100 (any /ticks/bars period): the same ranges as custom bars (GET /ticks/bars with
// `symbol=` and with `symbols=`), the ratio taken on input ticks/s (the ticks the bars are built from).
//
// The ranges: one symbol (EURUSD) over as many whole days as hold --ticks ticks, and the first
// --symbols Market Watch symbols over as many days as hold --ticks ticks together (each ~1/n of
// them), both ending at the same day; rows are counted from the Arrow answer (its batch headers).
import path from 'node:path';
import { parseArgs } from 'node:util';

import { repoRoot } from './bigpull.js';
import { isMain } from './is-main.js';
import { freePort, ServerProcess } from './processes.js';
import { pull } from './pull.js';
import { RssProbe } from './rss-probe.js';

const DAY = 86_400_000;
const CLOCK = '2026-11-25T14:00:00Z';
/** The last day of both ranges ends here (a weekday midnight before the clock). */
const END = Date.parse('2026-11-25T00:00:00Z');
const MB = 1e6;

interface Figures {
  readonly label: string;
  readonly format: string;
  readonly rows: number;
  readonly bytes: number;
  readonly seconds: number;
  readonly rowsPerS: number;
  /** The ticks the answer is made of (its rows, or the ticks of its custom bars), per second. */
  readonly ticksPerS: number;
  readonly idleMB: number;
  readonly growthMB: number;
}

const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

async function withServer<T>(name: string, fn: (base: string, pid: number) => Promise<T>): Promise<T> {
  const root = repoRoot();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await ServerProcess.start({
    name,
    command: process.execPath,
    args: [path.join(root, 'bin', 'tradeapi.js'), 'serve', '--host', '127.0.0.1', '--port', String(port)],
    env: { ...process.env, TRADEAPI_SIM_CLOCK: CLOCK, TRADEAPI_SECRET_KEY: '' },
    cwd: root,
    logDir: path.join(root, 'bench', 'results', 'logs'),
    readyUrl: `${base}/health`,
  });
  try {
    return await fn(base, server.pid);
  } finally {
    await server.stop();
  }
}

/** Rows of an Arrow answer (counted from its batch headers). */
async function arrowRows(base: string, query: string): Promise<number> {
  const r = await pull(`${base}/ticks/range?${query}&format=arrow`, 'arrow');
  if (r.status !== 200) throw new Error(`${query}: status ${r.status}: ${r.errorText}`);
  return (await r.sink.check()).rows;
}

/** Whole days ending at END whose ticks (of `query`'s symbols) reach `ticks`, from a one-day sample. */
async function daysFor(base: string, choice: string, ticks: number): Promise<number> {
  const perDay = await arrowRows(base, `${choice}&date_from=${iso(END - DAY)}&date_to=${iso(END - 1)}`);
  return Math.max(1, Math.round(ticks / Math.max(1, perDay)));
}

/** `route`: '/ticks/range?' or '/ticks/bars?period=…&'; `ticks`: the ticks of the range (rows for ticks). */
async function measure(label: string, choice: string, days: number, format: 'parquet' | 'arrow', rows: number, route: string, ticks: number): Promise<Figures> {
  return withServer(`multi-${label}-${format}`, async (base, pid) => {
    const query = `${choice}&date_from=${iso(END - days * DAY)}&date_to=${iso(END - 1)}`;
    await pull(`${base}${route}${choice}&date_from=${iso(END - DAY)}&date_to=${iso(END - DAY + 60_000)}&format=${format}`, format); // warm-up
    await new Promise((r) => setTimeout(r, 500)); // let the warm-up's garbage settle before the idle reading
    const probe = new RssProbe(pid);
    probe.start();
    const r = await pull(`${base}${route}${query}&format=${format}`, format === 'arrow' ? 'arrow' : 'opaque');
    const rss = probe.stop();
    if (r.status !== 200) throw new Error(`${label} ${format}: status ${r.status}: ${r.errorText}`);
    const counted = format === 'arrow' ? (await r.sink.check()).rows : rows;
    const seconds = r.totalMs / 1000;
    return { label, format, rows: counted, bytes: r.bytes, seconds, rowsPerS: counted / seconds, ticksPerS: ticks / seconds, idleMB: rss.before / MB, growthMB: rss.growth / MB };
  });
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      ticks: { type: 'string', default: '1e7' },
      symbols: { type: 'string', default: '10' },
      formats: { type: 'string', default: 'parquet,arrow' },
      bars: { type: 'string' },
    },
  });
  const route = values.bars ? `/ticks/bars?period=${encodeURIComponent(values.bars)}&` : '/ticks/range?';
  const ticks = Number(values.ticks);
  const n = Number(values.symbols);
  const formats = values.formats.split(',') as ('parquet' | 'arrow')[];

  const plan = await withServer('multi-plan', async (base) => {
    const listed = (await (await fetch(`${base}/symbols`)).json()) as { name: string; select: boolean }[];
    const names = listed.filter((s) => s.select).map((s) => s.name).slice(0, n);
    const one = 'symbol=EURUSD';
    const many = `symbols=${names.join(',')}`;
    const oneDays = await daysFor(base, one, ticks);
    const manyDays = await daysFor(base, many, ticks);
    const oneRows = await arrowRows(base, `${one}&date_from=${iso(END - oneDays * DAY)}&date_to=${iso(END - 1)}`);
    const manyRows = await arrowRows(base, `${many}&date_from=${iso(END - manyDays * DAY)}&date_to=${iso(END - 1)}`);
    return { names, one, many, oneDays, manyDays, oneRows, manyRows };
  });
  console.log(`one symbol: EURUSD, ${plan.oneDays} days, ${plan.oneRows} ticks; merged: ${plan.names.length} symbols (${plan.names.join(', ')}), ${plan.manyDays} days, ${plan.manyRows} ticks`);
  // Custom bars: their rows are counted from the Arrow answer (Parquet: from the Arrow one of the same range).
  const barRows = values.bars
    ? await withServer('multi-plan-bars', async (base) => {
      const count = async (choice: string, days: number): Promise<number> => {
        const r = await pull(`${base}${route}${choice}&date_from=${iso(END - days * DAY)}&date_to=${iso(END - 1)}&format=arrow`, 'arrow');
        if (r.status !== 200) throw new Error(`${choice}: status ${r.status}: ${r.errorText}`);
        return (await r.sink.check()).rows;
      };
      return { one: await count(plan.one, plan.oneDays), many: await count(plan.many, plan.manyDays) };
    })
    : undefined;
  if (barRows) console.log(`custom bars, period ${values.bars}: ${barRows.one} bars of one symbol, ${barRows.many} merged`);

  const all: Figures[] = [];
  for (const format of formats) {
    const single = await measure('1 symbol', plan.one, plan.oneDays, format, barRows?.one ?? plan.oneRows, route, plan.oneRows);
    const merged = await measure(`${plan.names.length} symbols`, plan.many, plan.manyDays, format, barRows?.many ?? plan.manyRows, route, plan.manyRows);
    all.push(single, merged);
    for (const f of [single, merged]) {
      console.log(
        `${format.padEnd(8)} ${f.label.padEnd(11)} ${String(f.rows).padStart(9)} rows ${(f.bytes / MB).toFixed(1).padStart(7)} MB ${f.seconds.toFixed(2).padStart(6)} s ` +
          `${(f.rowsPerS / 1e6).toFixed(2).padStart(6)} M rows/s${barRows ? ` (${(f.ticksPerS / 1e6).toFixed(2)} M input ticks/s)` : ''}   RSS idle ${f.idleMB.toFixed(0)} MB, +${f.growthMB.toFixed(0)} MB`,
      );
    }
    const ratio = barRows ? merged.ticksPerS / single.ticksPerS : merged.rowsPerS / single.rowsPerS;
    console.log(`${format.padEnd(8)} merged / one symbol: ${ratio.toFixed(2)}x ${barRows ? 'input ticks/s' : 'rows/s'} (target >= 0.8x: ${ratio >= 0.8 ? 'met' : 'NOT met'}); merged RSS +${merged.growthMB.toFixed(0)} MB (target <= +100 MB: ${merged.growthMB <= 100 ? 'met' : 'NOT met'})`);
  }
}

if (isMain(import.meta.url)) await main();
