// Where the documentation's runnable snippets live. The tests that run them as written find them
// here, and test/examples/docs-links.test.ts checks that every page still holds its blocks, so that
// moving or deleting one fails by name instead of leaving a test that reads nothing.
// (test/interop/read_back.py, in Python, names its page and markers itself; docs-links checks that
// they agree with this table.)
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface DocSnippet {
  /** The page, relative to the repository root. */
  page: string;
  /** The fence's language: the block is the first ```lang one holding `marker`. */
  lang: string;
  marker: string;
  /** The file that runs it. */
  runBy: string;
}

export const DOC_SNIPPETS = {
  curl: { page: 'docs/clients.md', lang: 'sh', marker: "curl -s 'http://127.0.0.1:8000/symbols/EURUSD/tick'", runBy: 'test/examples/examples.test.ts' },
  pandas: { page: 'docs/clients.md', lang: 'python', marker: 'pd.read_parquet', runBy: 'test/interop/read_back.py' },
  polars: { page: 'docs/clients.md', lang: 'python', marker: 'pl.read_parquet(io.BytesIO', runBy: 'test/interop/read_back.py' },
  duckdbPython: { page: 'docs/clients.md', lang: 'python', marker: 'duckdb.sql', runBy: 'test/interop/read_back.py' },
  duckdbCli: { page: 'docs/clients.md', lang: 'sh', marker: 'duckdb -c', runBy: 'test/interop/read_back.py' },
  duckdbUrl: { page: 'docs/clients.md', lang: 'sql', marker: 'read_parquet', runBy: 'test/interop/read_back.py' },
  customBars: { page: 'docs/api.md', lang: 'sh', marker: "curl -s 'http://127.0.0.1:8000/ticks/bars?symbol=EURUSD&period=90s", runBy: 'test/http/custom-bars.test.ts' },
  export: { page: 'docs/export.md', lang: 'sh', marker: 'node bin/tradeapi.js export ticks', runBy: 'test/cli/export.test.ts' },
  replay: { page: 'docs/events.md', lang: 'sh', marker: '/events?symbols=EURUSD,BTCUSD&start=', runBy: 'test/events/replay.test.ts' },
  storeSeries: { page: 'docs/store.md', lang: 'sh', marker: "curl -s 'http://127.0.0.1:8000/ticks/bars?symbol=EURUSD&period=90s", runBy: 'test/store/multi-symbol.test.ts' },
  liveBars: { page: 'docs/events.md', lang: 'sh', marker: '/events?symbols=BTCUSD&kinds=bar&period=5s', runBy: 'test/events/live-bars.test.ts' },
  multiSymbol: { page: 'docs/api.md', lang: 'sh', marker: 'symbols=EURUSD,GBPUSD&', runBy: 'test/http/multi-symbol.test.ts' },
  multiSymbolBars: { page: 'docs/api.md', lang: 'sh', marker: '/ticks/bars?symbols=USDJPY,EURUSD&', runBy: 'test/http/multi-bars.test.ts' },
  metricsScrape: { page: 'docs/operations.md', lang: 'sh', marker: 'curl -s -H "X-API-Key: $TRADEAPI_SECRET_KEY" http://127.0.0.1:8000/metrics', runBy: 'test/metrics/metrics.test.ts' },
  livingAccount: { page: 'docs/simulator.md', lang: 'sh', marker: 'TRADEAPI_SIM_CLOCK_RATE=60', runBy: 'test/http/sim-account-life.test.ts' },
  accountEvents: { page: 'docs/events.md', lang: 'sh', marker: '/events?kinds=deal,order,position,account', runBy: 'test/events/account-events.test.ts' },
} as const satisfies Record<string, DocSnippet>;

export function readPage(page: string): string {
  return readFileSync(path.join(ROOT, page), 'utf8');
}

/** The body of the first ```lang block of the snippet's page that holds its marker, else undefined. */
export function docBlock(snippet: DocSnippet): string | undefined {
  const fence = new RegExp('```' + snippet.lang + '\\n(.*?)```', 'gs');
  return [...readPage(snippet.page).matchAll(fence)].map((m) => m[1] as string).find((b) => b.includes(snippet.marker));
}

/**
 * A docs shell block as a bash script against the server at `base`: verbatim but for the address;
 * curl fails on an HTTP error and, with `newline`, ends each answer with a newline.
 */
export function curlScript(block: string, base: string, newline = false): string {
  return `curl() { command curl -f "$@";${newline ? ' echo;' : ''} }\n${block.replaceAll('http://127.0.0.1:8000', base)}`;
}

/**
 * Why a shell block that runs curl cannot run here (false when it can): it needs bash and curl. The
 * second adapter's stage runs its suites in a minimal Debian root without curl, and the Windows
 * stage under Wine has no bash; the HTTP (node) stage runs these blocks.
 */
export function curlMissing(): string | false {
  const r = spawnSync('bash', ['-c', 'command -v curl'], { stdio: 'ignore' });
  if (r.error) return 'no bash here (Windows): the HTTP (node) stage runs this block';
  return r.status === 0 ? false : 'curl is not installed here: the HTTP (node) stage runs this block';
}
