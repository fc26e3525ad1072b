// Types of scripts/test/order.js, for test/cli/test-runner.test.ts.
export function fileTimes(tapOutput: string): Map<string, number>;
export function longestFirst(files: readonly string[], times?: ReadonlyMap<string, number>): string[];
