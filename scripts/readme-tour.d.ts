// Types of scripts/readme-tour.js, for test/examples/tour.test.ts (the script is plain JavaScript so
// that it runs on the compiled package without a TypeScript loader).
import type { Tick } from '../src/terminal/records.js';

export declare const TOUR_CLOCK: string;
export declare const TOUR_CLOCK_MS: number;
export declare const SHOWN_EVENTS_WITHIN_MS: number;

export interface TourStep {
  /** The command, continuations joined. */
  command: string;
  /** Its lines in the block: the `$ ` line and its continuations. */
  commandLines: string[];
  /** The lines shown under it. */
  output: string[];
}

export interface TourBlock {
  /** The block's body is readme.slice(start, end). */
  start: number;
  end: number;
  preamble: string[];
  steps: TourStep[];
}

export declare function tourBlock(readme: string): TourBlock | undefined;
export declare function blockText(block: TourBlock, outputs?: ReadonlyArray<string[] | undefined>): string;
export declare function isStreaming(step: TourStep): boolean;
export declare function streamSymbols(command: string): string[];

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Ended by `stop` (or the timeout), not by itself. */
  stopped: boolean;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Rows of each Parquet file the command wrote, by name. */
  parquetRows: Record<string, number>;
}

export declare function runCommand(
  command: string,
  options: { host: string; watch?: (stdout: string, stop: () => void) => void; onSpawn?: (stop: () => void) => void; timeoutMs?: number },
): Promise<CommandResult>;
export declare function renderOutput(step: TourStep, answer: CommandResult): string[];

export interface StreamEvent {
  id: string | undefined;
  event: string | undefined;
  data: string | undefined;
}
export declare function parseStream(text: string, options?: { captured?: boolean }): { header: string[]; events: StreamEvent[] };
export declare function renderStream(stdout: string, count: number): string[];

export interface SchedulePosition {
  time_msc: number;
  seq: number;
  tick: Tick;
}
export type Schedule = Map<string, { fromMs: number; toMs: number; positions: SchedulePosition[]; index: Map<string, number> }>;
export declare function loadSchedule(
  ticksOf: (symbol: string, fromMs: number, toMs: number) => Promise<Tick[]>,
  symbols: readonly string[],
  fromMs: number,
  toMs: number,
): Promise<Schedule>;
export declare function streamWaitMs(schedule: Schedule, connectedMs: number, count: number, pollMs: number, slackMs: number, everySymbol?: boolean): number | undefined;
export declare function captureStream(
  command: string,
  options: { host: string; count: number; schedule: Schedule; simNow: () => number; pollMs: number; slackMs: number; everySymbol?: boolean; connectTimeoutMs?: number },
): Promise<CommandResult & { connectedMs: number | undefined; waitMs: number | undefined; tookMs: number; count: number; header: string[]; events: StreamEvent[] }>;
export declare function streamProblems(
  events: readonly StreamEvent[],
  context: { symbols: readonly string[]; schedule: Schedule; afterMs: number; beforeMs: number },
): string[];
