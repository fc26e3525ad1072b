// Types of scripts/test/process.js, for test/cli/test-runner.test.ts.
export declare function runLogged(
  log: string,
  cmd: string,
  args: string[],
  opts?: { cwd?: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<{ status: number; output: string }>;
export declare function killAllGroups(): void;
export declare function tail(log: string, n: number): string;
