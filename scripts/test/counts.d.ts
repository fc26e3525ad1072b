// Types of scripts/test/counts.js, for test/cli/test-runner.test.ts.
export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  note?: string;
}
export declare function tapCounts(output: string, ok: boolean): Counts;
export declare function gtestCounts(output: string, ok: boolean): Counts;
export declare function plainCounts(output: string, ok: boolean): Counts;
