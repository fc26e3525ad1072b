// The order a tap stage hands its files to tap: longest first, so that the files that wait longest
// (on child servers, clocks, sockets) overlap the rest instead of running on alone at the end.

/**
 * The files that take longest (wall time, mostly waiting on child servers and clocks), longest
 * first, from a run on this 2-core machine (the HTTP stage of an idle quick tier, 2026-11-28; the
 * bridge stage's after). A tap stage starts them first: started last, in the
 * alphabetical order, the store suites alone kept the HTTP stage running a minute after the rest
 * was done. Where earlier runs on this machine left their times (build/test-times.json), those
 * come first.
 */
const LONGEST_FILES = [
  'test/http/custom-bars.test.ts', 'test/events/live-bars.test.ts', 'test/hardening/shutdown.test.ts', 'test/cli/export-args.test.ts',
  'test/events/ws.test.ts', 'test/events/sse.test.ts', 'test/events/slow-consumer.test.ts', 'test/examples/typescript.test.ts',
  'test/hardening/accept.test.ts', 'test/events/ws-slow-consumer.test.ts', 'test/store/sync.test.ts', 'test/http/compress-policy.test.ts',
  'test/hardening/pid-file.test.ts', 'test/store/verify.test.ts', 'test/hardening/abrupt-close.test.ts', 'test/hardening/cli.test.ts',
  'test/http/config.test.ts', 'test/store/write-back.test.ts', 'test/bench/harness.test.ts', 'test/cli/date-options.test.ts',
  'test/bridge/contract.test.ts', 'test/bridge/faults.test.ts', 'test/bridge/client.test.ts', 'test/events/bridge.test.ts',
];

/** Each file's time in a tap log (`ok N - file # time=…ms`). */
export function fileTimes(tapOutput) {
  const times = new Map();
  for (const m of tapOutput.matchAll(/^(?:not )?ok \d+ - (test\/\S+) # time=([\d.]+)ms/gm)) times.set(m[1], Number(m[2]));
  return times;
}

/** Longest first: earlier runs' times where known, then LONGEST_FILES' order, then as given. */
export function longestFirst(files, times = new Map()) {
  const hint = (f) => {
    const i = LONGEST_FILES.indexOf(f);
    return i < 0 ? -1 : LONGEST_FILES.length - i;
  };
  return files
    .map((f, i) => ({ f, i }))
    .sort((a, b) => (times.get(b.f) ?? -1) - (times.get(a.f) ?? -1) || hint(b.f) - hint(a.f) || a.i - b.i)
    .map(({ f }) => f);
}
