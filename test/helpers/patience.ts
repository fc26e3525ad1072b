// The allowances for a loaded machine, in one place (issue 35): the only guessed numbers in the
// suite's waits. Two forms, for two kinds of wait:
//
// LOADED_MACHINE_SLACK_MS is added to a wait whose length comes from a schedule known to the ms
// (the simulator's ticks, a configured grace or timeout): what a loaded 2-core machine (tap runs
// two suites per core, other people's builds beside them) may add between a thing being due and
// the test seeing it: a queued terminal call, a late timer, the write, the client's parse. The
// Python client's tests read it from here (clients/python/tests/harness.py).
export const LOADED_MACHINE_SLACK_MS = 5_000;

// patience(idleMs) bounds a wait for a step whose time is only known as an idle estimate. A test waits for what it waits for (a server
// listening, a log line, an event); it bounds the wait only to fail with a message that names what
// never came, instead of hanging until the file's time limit. That bound is what the awaited thing
// takes on an idle 2-core machine, times LOAD_ALLOWANCE: the suite must pass with a CPU hog per core
// beside it and tap's files running two per core, where steps were seen to take 5-10x their idle
// time. Set TRADEAPI_TEST_LOAD_ALLOWANCE to change it (e.g. 20 on a far busier host).
const fromEnv = Number(process.env.TRADEAPI_TEST_LOAD_ALLOWANCE);
export const LOAD_ALLOWANCE = Number.isFinite(fromEnv) && fromEnv >= 1 ? fromEnv : 10;

/** How long to wait for something that takes `idleMs` on an idle machine before calling it lost. */
export function patience(idleMs: number): number {
  return Math.round(idleMs * LOAD_ALLOWANCE);
}
