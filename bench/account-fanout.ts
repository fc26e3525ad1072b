// Issue 37's fan-out target: 1 000 clients on the account kinds cost the gateway what 1 000 clients
// on ticks cost, per event delivered (the same hub, the same SSE/WebSocket writers).
//   npm run build:ts && node dist/bench/account-fanout.js [--clients 1000] [--seconds 15] [--rounds 2] [--clock-rate 10] [--trades-per-hour 3600] [--tick-symbols EURUSD,GBPUSD] [--ws]
// ONE gateway in this process, on a simulator whose clock runs `--clock-rate` times real time from a
// weekday morning (so that FX trades whatever day the bench runs) with a trading schedule of
// `--trades-per-hour` actions (so that account events come often). In each round, N clients
// (bench/events.ts's fanOut: two child processes) are connected on `kinds=tick` (the tick
// symbols), counted for the window and closed, then N on `kinds=deal,order,position,account`.
// Each phase is run again with ONE client, whose CPU is the feed's own (polls, the simulator playing
// the account, encoding once per event) with next to no fan-out.
// Printed per phase: events delivered (counted at the clients), the gateway process's CPU over the
// window (process.cpuUsage: every thread, the simulator's included), CPU per event delivered, and
// the ratio account / tick of the last; then the same for the fan-out alone (CPU per second and events
// per second above the one-client runs'). The phases alternate so that a change in the machine's
// load weighs on both; the figures are over all rounds.
import { pickAdapter } from '../src/http/adapters/index.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/server.js';
import { openSimTerminal } from '../src/terminal/index.js';
import { fanOut, fanOutConfig, type FanOutResult } from './events.js';
import { isMain } from './is-main.js';

const ACCOUNT_KINDS = 'deal,order,position,account';
/** A Wednesday just after FX's daily open (every FX market open, whatever the day the bench runs on); few minutes after the anchor (00:00), so the first read plays little. */
const CLOCK_START = Date.parse('2026-11-25T00:05:00Z');
const USAGE = `usage: node dist/bench/account-fanout.js [--clients N (1000)] [--seconds T (15)] [--rounds R (2)] [--clock-rate X (10)] [--trades-per-hour H (3600)] [--tick-symbols S (EURUSD,GBPUSD)] [--ws]
  N SSE clients (WebSocket with --ws) on kinds=tick, then on kinds=${ACCOUNT_KINDS}, R rounds, one gateway;
  prints the gateway's CPU per event delivered for each and their ratio (account / tick).`;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

interface Phase {
  kinds: string;
  runs: FanOutResult[];
  /** The same kinds with one client: the feed's own cost (polls, the simulator, encoding once) with next to no fan-out. */
  alone: FanOutResult[];
}

const sum = (runs: readonly FanOutResult[], f: (r: FanOutResult) => number): number => runs.reduce((a, r) => a + f(r), 0);
const perEvent = (runs: readonly FanOutResult[]): number => sum(runs, (r) => r.cpuUs) / Math.max(1, sum(runs, (r) => r.report.events));
/** CPU µs per event of the fan-out alone: the CPU per second above the one-client runs', over the events per second above theirs. */
const marginal = (p: Phase): number => {
  const rate = (runs: readonly FanOutResult[], f: (r: FanOutResult) => number): number => sum(runs, f) / sum(runs, (r) => r.elapsed);
  return (rate(p.runs, (r) => r.cpuUs) - rate(p.alone, (r) => r.cpuUs)) / (rate(p.runs, (r) => r.report.events) - rate(p.alone, (r) => r.report.events));
};
const label = (kinds: string): string => (kinds === 'tick' ? 'tick   ' : 'account');

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const clients = Number(arg('clients', '1000'));
  const seconds = Number(arg('seconds', '15'));
  const rounds = Number(arg('rounds', '2'));
  const clockRate = Number(arg('clock-rate', '10'));
  const tradesPerHour = Number(arg('trades-per-hour', '3600'));
  const symbols = arg('tick-symbols', 'EURUSD,GBPUSD');
  const ws = process.argv.includes('--ws');
  const sim = openSimTerminal({ seed: 42, clockStartMs: CLOCK_START, clockRate, tradesPerHour });
  for (const symbol of symbols.split(',')) await sim.symbolSelect(symbol, true);
  const config = fanOutConfig(clients, 100);
  const adapter = pickAdapter(config.http).adapter;
  const server = await startServer({ terminal: sim, config, adapter, host: '127.0.0.1', port: 0, logger: createLogger('error') });
  console.log(
    `== account fan-out: ${clients} ${ws ? 'WebSocket' : 'SSE'} clients, kinds=tick (${symbols}) against kinds=${ACCOUNT_KINDS}; ` +
      `simulated clock x${clockRate} from ${new Date(CLOCK_START).toISOString()}, ${tradesPerHour} trades/h; adapter ${adapter.name}; ${rounds} x ${seconds} s each ==`,
  );
  const phases: Phase[] = [
    { kinds: 'tick', runs: [], alone: [] },
    { kinds: ACCOUNT_KINDS, runs: [], alone: [] },
  ];
  for (let round = 1; round <= rounds; round++) {
    for (const phase of phases) {
      for (const n of [clients, 1]) {
        const r = await fanOut(server, { clients: n, symbols, kinds: phase.kinds, seconds, ws });
        (n === 1 ? phase.alone : phase.runs).push(r);
        const { report } = r;
        console.log(
          `round ${round} ${label(phase.kinds)} x${n}: ${report.connected} connected, ${report.refused} refused; ` +
            `${report.events} events in ${r.elapsed.toFixed(1)} s (${(report.events / r.elapsed / Math.max(1, report.connected)).toFixed(1)}/s per client), ` +
            `gaps ${report.gaps}; gateway CPU ${((r.cpuUs / 1e6 / r.elapsed) * 100).toFixed(0)} % of a core = ${(r.cpuUs / Math.max(1, report.events)).toFixed(2)} µs per event delivered; ` +
            `clients' CPU ${report.cpuPct} %; RSS peak ${Math.round(r.rssPeak / 2 ** 20)} MiB`,
        );
        // The clients of the phase are gone before the next connects (their streams close on the server).
        while (server.eventStats().clients > 0) await new Promise((r) => setTimeout(r, 50));
      }
    }
  }
  const [tick, account] = phases.map((p) => perEvent(p.runs)) as [number, number];
  const [tickFan, accountFan] = phases.map(marginal) as [number, number];
  const empty = phases.some((p) => [...p.runs, ...p.alone].some((r) => r.report.events === 0));
  console.log(`gateway CPU per event delivered (all rounds, ${clients} clients): tick ${tick.toFixed(2)} µs, account ${account.toFixed(2)} µs; ratio account / tick ${(account / tick).toFixed(2)}${empty ? ' (INVALID: a phase delivered no events)' : ''}`);
  for (const p of phases) {
    const cpuPct = (100 * sum(p.alone, (r) => r.cpuUs)) / 1e6 / sum(p.alone, (r) => r.elapsed);
    console.log(`  ${label(p.kinds)} feed with one client: ${cpuPct.toFixed(1)} % of a core`);
  }
  console.log(`fan-out alone (CPU and events above the one-client runs'): tick ${tickFan.toFixed(2)} µs, account ${accountFan.toFixed(2)} µs per event; ratio account / tick ${(accountFan / tickFan).toFixed(2)}`);
  await server.close(1000);
  await sim.close();
}

if (isMain(import.meta.url)) await main();
